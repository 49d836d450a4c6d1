"""Leaderboard scale: long-format responses, anchor selection and p-IRT performance estimation.

References: the long <-> wide round trip and hand-built tables; estimate_performance against a direct,
loop-by-loop evaluation of its formula (posterior on the 121-node grid, 1e-10) and, statistically, on a
simulated 2PL leaderboard with the TRUE item parameters (known truth: the interval must cover the realized
accuracy about 95% of the time and the prediction must beat the plain anchor mean).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irtbridge
from irtbridge.exceptions import ValidationError
from irtbridge.irt import as_item_bank
from irtbridge.leaderboard import estimate_performance, responses_from_long, responses_to_long, select_anchors

ROOT = Path(__file__).resolve().parents[2]


def _long():
    return pd.DataFrame({"model": ["a", "a", "b", "c", "c"], "item": ["q1", "q2", "q2", "q1", "q3"],
                         "score": [1, 0, 1, 0, 1]})


def test_long_to_wide_and_back():
    wide = responses_from_long(_long())
    assert wide.shape == (3, 3) and wide.dtypes.eq(np.float32).all()
    assert wide.loc["a", "q1"] == 1 and np.isnan(wide.loc["b", "q1"]) and wide.loc["c", "q3"] == 1
    back = responses_to_long(wide)
    merged = back.merge(_long(), on=["model", "item"])
    assert len(back) == 5 and (merged["score_x"] == merged["score_y"]).all()


def test_long_reads_csv_and_names_duplicates(tmp_path):
    path = tmp_path / "long.csv"
    pd.concat([_long(), _long().iloc[[0, 3]]]).to_csv(path, index=False)
    assert responses_from_long(path).equals(responses_from_long(_long()))  # identical repeats count once
    pd.concat([_long(), _long().iloc[[0, 3]].assign(score=[0, 1])]).to_csv(path, index=False)
    with pytest.raises(ValidationError, match=r"2 \(model, item\) pair\(s\) are given more than once with "
                                              r"different scores, e.g. \('a', 'q1'\): 0 and 1, \('c', 'q1'\)"):
        responses_from_long(path)
    with pytest.raises(ValidationError, match="no column"):
        responses_from_long(_long(), respondent="system")
    bad = _long().assign(score=["1", "x", "0", "1", "1"])
    with pytest.raises(ValidationError, match="non-numeric"):
        responses_from_long(bad)


def test_sparse_long_feeds_the_native_engine():
    from irtbridge.em.core import fit_em

    rng = np.random.default_rng(0)
    wide = pd.DataFrame((rng.random((300, 8)) < 0.6).astype(float), columns=[f"q{j}" for j in range(8)])
    wide = wide.mask(rng.random(wide.shape) < 0.3)
    wide.index = [f"m{i}" for i in range(300)]
    data = responses_from_long(responses_to_long(wide), sparse=True)
    # plain EM: the same path in both layouts up to rounding (SQUAREM's steps turn rounding into where, within
    # TOL, it stops)
    dense = irtbridge.calibrate(wide.dropna(how="all"), "2PL", engine="native", TOL=1e-8, accelerate="none")
    res = fit_em(data, "2PL", TOL=1e-8, accelerate="none")
    order = [data.item_names.index(c) for c in dense.items.index]
    np.testing.assert_allclose(res.a[order], dense.items["a"], rtol=0, atol=1e-8)


def _bank(n=400, seed=1):
    rng = np.random.default_rng(seed)
    return as_item_bank(pd.DataFrame({"a": rng.lognormal(0, 0.25, n), "b": rng.normal(0, 1, n)},
                                     index=[f"i{j}" for j in range(n)]), "2PL")


def test_anchor_methods():
    bank = _bank()
    for method in ("random", "stratified", "cluster"):
        chosen = select_anchors(bank, 20, method, seed=3)
        assert len(chosen) == 20 == len(set(chosen)) and set(chosen) <= set(bank.names)
    b = bank.items["b"]
    strat = select_anchors(bank, 10, "stratified")
    # one anchor per tenth of the difficulty range, the most discriminating of its stratum
    order = b.sort_values(kind="stable").index
    for stratum, anchor in zip(np.array_split(np.asarray(order), 10), strat):
        assert anchor == bank.items.loc[list(stratum), "a"].idxmax()
    with pytest.raises(ValidationError, match="k = 401"):
        select_anchors(bank, 401)
    with pytest.raises(ValueError, match="method"):
        select_anchors(bank, 5, "greedy")


def test_estimate_performance_equals_its_formula_written_out():
    bank = _bank(60)
    anchors = ["i3", "i10", "i25", "i40"]
    x = pd.DataFrame([[1, 0, 1, np.nan], [0, 0, 0, 1]], columns=anchors, dtype=float)
    got = estimate_performance(x, bank, anchors)
    grid = np.linspace(-6, 6, 121)
    a, b = bank.items["a"].to_numpy(), bank.items["b"].to_numpy()
    for r in range(2):
        post = np.exp(-0.5 * grid**2)
        for name in anchors:
            j = list(bank.names).index(name)
            v = x.loc[r, name]
            if not np.isnan(v):
                p = 1 / (1 + np.exp(-a[j] * (grid - b[j])))
                post = post * (p if v == 1 else 1 - p)
        post /= post.sum()
        expected_rest = 0.0
        second = 0.0
        bern = 0.0
        totals = np.zeros_like(grid)
        for j, name in enumerate(bank.names):
            if name in anchors and not np.isnan(x.loc[r, name]):
                continue
            p = 1 / (1 + np.exp(-a[j] * (grid - b[j])))
            totals += p
            bern += (post * p * (1 - p)).sum()
        expected_rest = (post * totals).sum()
        second = (post * totals**2).sum()
        acc = (np.nansum(x.loc[r].to_numpy()) + expected_rest) / 60
        sd = np.sqrt(second - expected_rest**2 + bern) / 60
        assert got["accuracy"].iloc[r] == pytest.approx(acc, abs=1e-10)
        assert got["upper"].iloc[r] - got["lower"].iloc[r] == pytest.approx(2 * 1.959963984540054 * sd, abs=1e-10)
        assert got["theta"].iloc[r] == pytest.approx((post * grid).sum(), abs=1e-10)


def test_prediction_beats_the_anchor_mean_and_covers_on_a_simulated_leaderboard():
    sys.path.insert(0, str(ROOT / "speed"))
    try:
        from anchors import simulate_leaderboard
    finally:
        sys.path.pop(0)
    x, truth = simulate_leaderboard(300, 2000, seed=4)
    anchors = select_anchors(truth, 60, "stratified")
    got = estimate_performance(x[anchors], truth, anchors)
    actual = x.mean(axis=1).to_numpy()
    mae = np.abs(got["accuracy"].to_numpy() - actual).mean()
    mae_mean = np.abs(x[anchors].mean(axis=1).to_numpy() - actual).mean()
    coverage = ((got["lower"] <= actual) & (actual <= got["upper"])).mean()
    assert mae <= 0.75 * mae_mean
    assert 0.90 <= coverage <= 0.99


@pytest.mark.slow
def test_all_three_anchor_goals_hold_with_a_fitted_calibration():
    """The issue's goals with item parameters *estimated* (native EM on the training respondents), not true.

    4-fold cross-validation over 800 simulated respondents x 800 items, k = 100 stratified anchors. The
    floor is the same prediction with the true parameters; the anchor mean is the plain share correct on the
    anchors. Measured: -37% vs the anchor mean, +3.5% vs the floor, coverage 0.934 (with 1,500 items, as
    written first: -39%, +3%, 0.93, in about twice the time).
    """
    sys.path.insert(0, str(ROOT / "speed"))
    try:
        from anchors import cross_validate, simulate_leaderboard, summarize
    finally:
        sys.path.pop(0)
    x, truth = simulate_leaderboard(800, 800, seed=0)
    got = summarize(cross_validate(x, truth, k=100, folds=4, methods=("stratified",), seed=0)).loc["stratified"]
    assert got["vs_anchor_mean"] <= -0.25
    assert got["vs_floor"] <= 0.15
    assert 0.90 <= got["coverage"] <= 0.97


def test_bad_anchor_input_is_a_clear_error():
    bank = _bank(30)
    with pytest.raises(ValidationError, match="not items of the calibration"):
        estimate_performance(pd.DataFrame({"zz": [1.0]}), bank, ["zz"])
    with pytest.raises(ValidationError, match="lack 1 anchor"):
        estimate_performance(pd.DataFrame({"i1": [1.0]}), bank, ["i1", "i2"])
    with pytest.raises(ValidationError, match="0/1"):
        estimate_performance(pd.DataFrame({"i1": [2.0]}), bank, ["i1"])
