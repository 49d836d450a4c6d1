"""adaptive_evaluate's stopping rule and interval (issue 39 item 4): coverage on simulated models with the truth
known, on a right bank and on one with the runaway slopes of a calibration without a slope prior."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from irtbridge.exceptions import ValidationError
from irtbridge.irt import as_item_bank
from irtbridge.leaderboard import adaptive_evaluate

J = 300
RNG = np.random.default_rng(1)
A, B = RNG.uniform(0.7, 2.0, J), RNG.normal(size=J)
NAMES = [f"q{j}" for j in range(J)]


def _bank(a):
    return as_item_bank(pd.DataFrame({"a": a, "b": B}, index=NAMES), "2PL")


def _coverage(bank, n_models=30, **options):
    hits, sizes = [], []
    for m in range(n_models):
        theta = np.random.default_rng([m, 9]).normal()
        y = (np.random.default_rng(m).random(J) < 1 / (1 + np.exp(-A * (theta - B)))).astype(float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = adaptive_evaluate(dict(zip(NAMES, y)).__getitem__, bank, 0.2, **{"selection": "maxinfo", **options})
        hits.append(res.lower <= y.mean() <= res.upper)
        sizes.append(res.n_items)
    return float(np.mean(hits)), sizes


def test_covers_on_the_true_bank():
    coverage, sizes = _coverage(_bank(A))
    assert coverage >= 0.9 and min(sizes) >= 20


def test_a_bank_with_runaway_slopes_warns_and_still_covers():
    """Slopes of 300 on a tenth of the items (what a fit without a slope prior gives items that split the
    calibration models) used to stop the test after a handful of items with a narrow interval."""
    steep = A.copy()
    steep[:30] = 300.0
    bank = _bank(steep)
    with pytest.warns(UserWarning, match="slope above 8"):
        adaptive_evaluate(lambda item: 1.0, bank, max_items=3, selection="maxinfo")
    coverage, sizes = _coverage(bank)
    assert coverage >= 0.9 and min(sizes) >= 20


def test_accuracy_width_waits_for_a_narrow_interval():
    y = (np.random.default_rng(4).random(J) < 1 / (1 + np.exp(-A * (0.3 - B)))).astype(float)
    answer = dict(zip(NAMES, y)).__getitem__
    plain = adaptive_evaluate(answer, _bank(A), 0.5, max_items=None, selection="maxinfo")
    narrow = adaptive_evaluate(answer, _bank(A), 0.5, max_items=None, accuracy_width=0.08, selection="maxinfo")
    assert narrow.stop == "accuracy" and narrow.n_items > plain.n_items
    assert max(narrow.upper - narrow.accuracy, narrow.accuracy - narrow.lower) < 0.08


def test_twophase_selection_covers_whatever_the_fit():
    """selection="twophase": design-based, so it covers a model the 2PL misdescribes (guessing, stronger than
    the bank's scale) as well as one it describes."""
    hits = []
    for m in range(40):
        theta = np.random.default_rng([m, 3]).normal() + (2.0 if m % 2 else 0.0)
        p = 1 / (1 + np.exp(-A * (theta - B)))
        if m % 4 < 2:
            p = 0.25 + 0.75 * p
        y = (np.random.default_rng([m, 4]).random(J) < p).astype(float)
        res = adaptive_evaluate(dict(zip(NAMES, y)).__getitem__, _bank(A), selection="twophase", max_items=40, seed=m)
        assert res.stop == "design" and len(set(res.items)) == res.n_items
        hits.append(res.lower <= y.mean() <= res.upper)
    assert np.mean(hits) >= 0.9
    with pytest.raises(ValidationError, match="max_items"):
        adaptive_evaluate(lambda item: 1.0, _bank(A), selection="twophase", max_items=None)


def test_the_default_is_the_two_phase_design():
    """Issue 39: the default selection is the one whose interval holds for a model stronger than the calibrated
    ones (speed/adaptive_coverage.py); a budget that covers the item set asks every item."""
    theta = 2.5  # stronger than the bank's scale, with guessing the 2PL does not know
    y = (RNG.random(J) < 0.25 + 0.75 / (1 + np.exp(-A * (theta - B)))).astype(float)
    answer = dict(zip(NAMES, y)).__getitem__
    res = adaptive_evaluate(answer, _bank(A), seed=3)
    assert res.stop == "design" and 0.6 * 100 < res.n_items < 1.4 * 100
    census = adaptive_evaluate(answer, _bank(A), max_items=J)
    assert census.stop == "exhausted" and census.n_items == J
    assert census.accuracy == census.lower == census.upper == y.mean()
