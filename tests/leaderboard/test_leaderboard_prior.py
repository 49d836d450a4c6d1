"""The leaderboard report's 2PL carries a weak slope prior by default: an item that splits the models
perfectly gets a finite slope, and the report says which prior it used (``priors=None``: plain ML)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from irtbridge.leaderboard import leaderboard_report
from irtbridge.leaderboard.report import DEFAULT_PRIORS, RUNAWAY_SLOPE


def _separating_matrix():
    rng = np.random.default_rng(3)
    theta = np.sort(rng.normal(size=80))
    b = np.linspace(-1.5, 1.5, 30)
    X = (rng.random((80, 30)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(float)
    # two items that split the models exactly at an ability: their ML slope has no finite maximum
    X[:, 0] = (theta > 0.0).astype(float)
    X[:, 1] = (theta > 0.7).astype(float)
    return pd.DataFrame(X, index=[f"m{i}" for i in range(80)], columns=[f"q{j}" for j in range(30)])


def test_default_prior_keeps_separating_items_finite_and_is_stated():
    X = _separating_matrix()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = leaderboard_report(X, priors=None)
        shrunk = leaderboard_report(X)
    assert plain.facts["fit"]["runaway_slopes"] >= 2  # without a prior the two splitting items run away
    assert shrunk.facts["fit"]["runaway_slopes"] == 0
    assert shrunk.items[["a"]].abs().max().iloc[0] < RUNAWAY_SLOPE
    text = shrunk.summary().as_text()
    assert "priors: a1 ~ norm(1, 2)" in text and DEFAULT_PRIORS == {"a1": ("norm", 1.0, 2.0)}
    assert "plain maximum likelihood" in plain.summary().as_text()
