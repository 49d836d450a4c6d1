"""Runaway estimates are never reported as converged without a word (irtbridge.calibration.results.flags), in every engine.

On the runaway matrix (tests/_runaway.py: 60 respondents x about 200 items, 30% missing) the 2PL has no
finite maximum likelihood: some slopes run away. The native fit and mirt's fit must each carry flags that
follow the stated rule (``|a| > 10``, ``|b| > 6``, not finite), raise one IdentificationWarning, and say so in
the summary. The mirt fit's flags are checked against mirt's own item table computed directly in R
(tests/r/reference_native_priors.R, ``runaway_ml``), the rule applied by hand here.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irtbridge
from irtbridge.calibration.results.flags import FLAG_LIMITS, IdentificationWarning, flag_items
from tests._runaway import runaway_matrix
from tests._rrefs import run_r

HERE = Path(__file__).resolve().parents[1]  # tests/


def _by_hand(a, b) -> set[int]:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    bad = ~np.isfinite(a) | ~np.isfinite(b) | (np.abs(a) > 10) | (np.abs(b) > 6)
    return set(np.flatnonzero(bad).tolist())


def _fit(engine: str, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = irtbridge.calibrate(runaway_matrix(), "2PL", engine=engine, se=False, **kwargs)
    return fit, [w for w in caught if issubclass(w.category, IdentificationWarning)]


def test_native_runaway_slopes_are_flagged_with_one_warning():
    fit, caught = _fit("native")
    a = fit.items["a"].to_numpy()
    assert (a > 10).any()  # the runaway this test is about
    flagged = _by_hand(a, fit.items["b"])
    assert set(fit.flagged_items) == {fit.items.index[i] for i in flagged}
    assert len(caught) == 1
    message = str(caught[0].message)
    assert f"{len(flagged)} item(s) have estimates the data do not identify" in message and "|a| > 10" in message
    runaway = fit.items.index[np.argmax(a)]
    assert "|a| > 10" in fit.item_flags[runaway] and fit.item_flags.name == "flag"
    assert (fit.item_flags[[n for n in fit.items.index if n not in fit.flagged_items]] == "").all()
    assert any("do not identify" in note for note in fit.summary().notes)
    assert fit.summary().data["flagged_items"] == list(fit.flagged_items)


def test_native_priors_keep_the_runaway_finite_and_unflagged():
    fit, caught = _fit("native", priors={"a1": ("norm", 1, 0.5)})
    assert fit.items["a"].abs().max() < 10
    assert not any("|a|" in f for f in fit.item_flags) and not any("|a|" in str(w.message) for w in caught)


@pytest.mark.r
def test_mirt_runaway_fit_carries_the_same_flags(tmp_path):
    runaway_matrix().to_csv(tmp_path / "runaway.csv", index=False, na_rep="NA")
    run_r(["Rscript", str(HERE / "r" / "reference_native_priors.R"), str(tmp_path / "ref.json"),
                    str(tmp_path / "runaway.csv"), "runaway_ml"], check=True)
    r = json.loads((tmp_path / "ref.json").read_text())["runaway_ml"]
    fit, caught = _fit("mirt")
    expected = {fit.items.index[i] for i in _by_hand(r["a"], r["b"])}
    assert expected and set(fit.flagged_items) == expected
    assert len(caught) == 1 and "mirt 2PL fit" in str(caught[0].message)


def test_flag_vocabulary_covers_graded_thresholds_and_slope_columns():
    graded = pd.DataFrame({"a": [1.0, 12.0, 1.0], "b1": [-1.0, 0.0, -7.0], "b2": [1.0, np.nan, np.nan]},
                          index=["x", "y", "z"])
    # a two-category graded item has no b2: NaN there is no parameter, not a non-finite estimate
    assert flag_items(graded).tolist() == ["", "|a| > 10", "|b| > 6"]
    multi = pd.DataFrame({"a1": [1.0, 0.5], "a2": [np.inf, 11.0], "d": [0.0, 1.0]}, index=["p", "q"])
    assert flag_items(multi).tolist() == ["a not finite", "|a| > 10"]
    assert FLAG_LIMITS == {"a": 10.0, "b": 6.0, "g": 0.95, "u": 0.05}
    four = pd.DataFrame({"a": [1.0, 1.0], "b": [0.0, 0.0], "g": [0.1, 0.1], "u": [0.9, 0.04]}, index=["r", "s"])
    assert flag_items(four).tolist() == ["", "u at its bound (<= 0.05)"]
