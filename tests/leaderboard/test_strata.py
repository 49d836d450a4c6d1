"""The stratified item draw (irtbridge.leaderboard.strata) and the stratified estimators.

On 2PL data with a wide spread of difficulties, the same new models' answers and 400 stratified draws of
50 items: the spread of the estimates over the draws is the design variance the interval must carry. The
stratified variance formula (Cochran 1977, ch. 5) matches it; the simple-random-sampling formula on the same
draws overstates it (its intervals would be needlessly wide for the mean) - the test fails if the
estimator ignored the strata. Coverage of the stratified ppi and mean intervals is checked on the truths.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from irtbridge.exceptions import ValidationError
from irtbridge.leaderboard import estimate_accuracy
from irtbridge.leaderboard.estimators import IRTParameters
from irtbridge.leaderboard.strata import allocate, item_strata, stratified_draw


def _world(seed=11, n_items=400):
    rng = np.random.default_rng(seed)
    a = rng.uniform(1.0, 2.0, n_items)
    b = rng.normal(0.0, 2.0, n_items)  # wide: the share right differs much between strata
    names = [f"q{j}" for j in range(n_items)]

    def draw(n):
        th = rng.normal(0.0, 1.0, size=(n, 1))
        return (rng.random((n, n_items)) < 1 / (1 + np.exp(-a * (th - b)))).astype(float)

    return rng, names, IRTParameters(tuple(names), a, b), pd.DataFrame(draw(150), columns=names), draw


def _draws(method, reps=400, k=50):
    rng, names, irt, cal, draw = _world()
    new = pd.DataFrame(draw(4), columns=names)
    truth = new.mean(axis=1).to_numpy()
    labels = item_strata(cal, 5)
    est, se, se_srs, hits = [], [], [], []
    for _ in range(reps):
        items = [names[j] for j in stratified_draw(labels, k, rng)]
        out = estimate_accuracy(cal, items, new[items], method, calibration=irt, strata=labels)
        srs = estimate_accuracy(cal, items, new[items], method, calibration=irt)
        est.append(out["accuracy"].to_numpy())
        se.append(out["accuracy_se"].to_numpy())
        se_srs.append(srs["accuracy_se"].to_numpy())
        hits.append((out["lower"].to_numpy() <= truth) & (truth <= out["upper"].to_numpy()))
    return np.array(est), np.array(se), np.array(se_srs), np.array(hits), truth


@pytest.mark.slow
def test_stratified_mean_variance_is_the_design_variance():
    est, se, se_srs, hits, truth = _draws("mean")
    spread = est.std(axis=0, ddof=1)  # the design SD over 400 draws, per model
    ratio = se.mean(axis=0) / spread
    assert np.all((0.8 < ratio) & (ratio < 1.25)), ratio
    assert np.all(se_srs.mean(axis=0) / spread > 1.25), se_srs.mean(axis=0) / spread  # SRS formula: wrong
    assert np.abs(est.mean(axis=0) - truth).max() < 0.01  # unbiased by design
    assert 0.92 <= hits.mean() <= 0.99, hits.mean()


@pytest.mark.slow
def test_stratified_ppi_covers():
    est, se, se_srs, hits, truth = _draws("ppi", reps=150)
    assert 0.91 <= hits.mean() <= 0.995, hits.mean()
    assert np.abs(est.mean(axis=0) - truth).max() < 0.02  # the regression estimator's O(1/k) bias, as ppi's contract
    spread = est.std(axis=0, ddof=1)
    assert np.all(se.mean(axis=0) / spread > 0.8), se.mean(axis=0) / spread


def test_strata_and_allocation():
    cal = pd.DataFrame([[1, 0, 1, np.nan, 0, 1], [1, 1, 0, np.nan, 0, 1]], columns=list("abcdef"), dtype=float)
    labels = item_strata(cal, 2)
    assert labels.tolist() == [1, 0, 0, 2, 0, 1]  # b ties c and e by rank; the unanswered d has a stratum of its own
    irt = IRTParameters(tuple("abcdef"), np.ones(6), np.array([0.0, 0.0, 0.0, 0.0, 9.0, 0.0]))
    assert item_strata(cal, 2, irt)[4] == 3  # a flagged item (|b| > 6) too
    assert allocate([100, 100, 200], 10).tolist() == [3, 2, 5]
    assert allocate([3, 100], 10).tolist() == [2, 8]
    pos = stratified_draw([0] * 10 + [1] * 30, 8, np.random.default_rng(0))
    assert len(pos) == 8 and (pos < 10).sum() == 2
    with pytest.raises(ValidationError, match="strata"):
        estimate_accuracy(cal, ["a", "b", "c"], cal[["a", "b", "c"]], "aipw", strata=labels)
    with pytest.raises(ValidationError, match="strata"):
        estimate_accuracy(cal, ["a", "b", "c"], cal[["a", "b", "c"]], "mean", strata=[0, 1])
    with pytest.raises(ValidationError, match="k:"):
        allocate([5, 5, 5], 4)


@pytest.mark.slow
def test_build_tiny_stratified_bank_round_trip(tmp_path):
    from irtbridge.leaderboard import build_tiny, load_tiny
    from irtbridge.leaderboard.tiny_cv import validate_tiny

    rng, names, irt, cal, draw = _world(n_items=120)
    tiny = build_tiny(cal, 20, 3, calibration=irt, design="stratified", exclude=["q0"])
    assert tiny.strata is not None and "q0" not in tiny.items
    counts = np.bincount(np.asarray(tiny.strata)[[names.index(i) for i in tiny.items]])
    assert counts.min() >= 2 and counts.sum() == 20  # every stratum drawn
    new = pd.DataFrame(draw(3), columns=names)
    out = tiny.predict(new[tiny.items])
    back = load_tiny(tiny.save(tmp_path / "bank.json"))
    assert back.strata == tiny.strata
    pd.testing.assert_frame_equal(back.predict(new[tiny.items]), out)
    plain = estimate_accuracy(cal, tiny.items, new[tiny.items], calibration=irt, exclude=["q0"])
    assert not np.allclose(plain["accuracy_se"], out["accuracy_se"])  # the bank's strata are used
    assert "strata" not in build_tiny(cal, 20, 3, calibration=irt, design="random").to_dict()  # the old bank
    with pytest.raises(ValidationError, match="design"):
        build_tiny(cal, 20, design="stratified", method="aipw", calibration=irt)
    v = validate_tiny(cal.iloc[:40, :60], 12, repeats=2, method="mean", sizes=[20], design="stratified",
                      draws=1)
    assert [r["draws"] for r in v["errors"]] == [2, 2]


def test_auto_design_is_stratified_where_it_can_be():
    from irtbridge.leaderboard import build_tiny
    from irtbridge.leaderboard.strata import item_strata

    rng, names, irt, cal, draw = _world(n_items=120)
    strata = len(set(item_strata(cal, calibration=irt)))
    stratified = build_tiny(cal, 20, 3, calibration=irt, design="stratified")
    assert build_tiny(cal, 20, 3, calibration=irt).strata == stratified.strata is not None
    assert build_tiny(cal, 20, 3, calibration=irt, method="ppi").items == \
        build_tiny(cal, 20, 3, calibration=irt, design="stratified").items
    # an estimator without a stratified form, and a k too small for two items per stratum: the random draw
    for kwargs in ({"method": "aipw", "k": 20}, {"method": "ppi", "k": 2 * strata - 1}):
        k = kwargs.pop("k")
        auto = build_tiny(cal, k, 3, calibration=irt, **kwargs)
        assert auto.strata is None
        assert auto.items == build_tiny(cal, k, 3, calibration=irt, design="random", **kwargs).items


def test_cli_tiny_design_stratified(tmp_path):
    import json

    from irtbridge.cli import main

    rng, names, irt, cal, draw = _world(n_items=80)
    path = tmp_path / "m.csv"
    cal.iloc[:30].rename_axis("model").reset_index().assign(model=lambda d: [f"m{i}" for i in d["model"]]).to_csv(
        path, index=False)
    out = tmp_path / "tiny"
    assert main(["tiny", str(path), "--id-column", "model", "--k", "20", "--out", str(out), "--design", "stratified",
                 "--no-validate"]) == 0
    bank = json.loads((out / "bank.json").read_text())
    assert len(bank["strata"]) == 80 and len(bank["items"]) == 20
