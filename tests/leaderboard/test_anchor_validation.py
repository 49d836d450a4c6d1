"""validate_anchors: cross-validated blend weight and interval scale for anchor-based prediction.

References: the weight against a least-squares fit written here (numpy's lstsq on the held-out predictions,
1e-12) and the scale against the norm of the held-out standardized errors (numpy, 1e-12); statistically, on
simulated data with a known truth: a well-specified 2PL calibration on 600 respondents is left almost
alone (weight near 0, scale near 1), and on a small two-dimensional calibration (the shape of one
``irtbridge evaluate`` dataset: 45 respondents, hundreds of items, a 2PL that does not fit) the unvalidated
interval under-covers while the validated one covers, judged by an outer cross-validation.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import irtbridge
from irtbridge.cli import main
from irtbridge.exceptions import ValidationError
from irtbridge.irt import as_item_bank
from irtbridge.leaderboard import estimate_performance, select_anchors, validate_anchors



def _two_dimensional(n, j, seed):
    """0/1 answers where the first half of the items measures one trait and the second half another."""
    rng = np.random.default_rng(seed)
    theta = rng.multivariate_normal([0.0, 0.0], [[1.0, 0.3], [0.3, 1.0]], size=n)
    a = rng.lognormal(0.5, 0.3, j)
    b = rng.normal(-0.8, 1.0, j)
    dim = np.arange(j) >= j // 2
    p = 1 / (1 + np.exp(-a * (theta[:, dim.astype(int)] - b)))
    return pd.DataFrame((rng.random((n, j)) < p).astype(float), columns=[f"i{k}" for k in range(j)],
                        index=[f"m{r}" for r in range(n)])


def _two_pl(n, j, seed):
    rng = np.random.default_rng(seed)
    a, b, theta = rng.lognormal(0.0, 0.25, j), rng.normal(size=j), rng.normal(size=n)
    p = 1 / (1 + np.exp(-a * (theta[:, None] - b)))
    return pd.DataFrame((rng.random((n, j)) < p).astype(float), columns=[f"i{k}" for k in range(j)])


def _fit(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return irtbridge.calibrate(x, "2PL", engine="native", se=False, drop_constant=True)


@pytest.fixture(scope="module")
def small():
    x = _two_dimensional(45, 160, seed=2)
    fit = _fit(x)
    anchors = select_anchors(fit, 40, "random")
    return x, fit, anchors, validate_anchors(x, fit, anchors)


@pytest.mark.slow
def test_weight_and_scale_are_the_least_squares_blend_and_the_rms_standardized_error(small):
    x, fit, anchors, v = small
    h = v.held_out
    t, p, m = h["truth"].to_numpy(), h["pirt"].to_numpy(), h["anchor_mean"].to_numpy()
    (w,), *_ = np.linalg.lstsq((m - p)[:, None], t - p, rcond=None)
    assert v.weight == pytest.approx(float(np.clip(w, 0, 1)), abs=1e-12)
    blend = (1 - v.weight) * p + v.weight * m
    sd = np.maximum(h["sd"].to_numpy(), 0.5 / x.shape[1])
    rms = np.linalg.norm((blend - t) / sd) / np.sqrt(len(h))
    assert v.scale == pytest.approx(max(1.0, rms), abs=1e-12) and v.scale > 1.0
    assert v.metrics["respondents"] == 45 and set(h.index) == set(x.index)
    assert v.metrics["mae_pirt"] == pytest.approx(np.abs(p - t).mean())
    assert v.metrics["refits_converged"] == sum(
        _fit(x.loc[[r for r in x.index if r not in set(held_out)]]).converged for held_out, *_ in v.refits)


def test_estimate_performance_applies_the_validation(small):
    x, fit, anchors, v = small
    new = x.iloc[:5][anchors].copy()
    new.iloc[0, :3] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = estimate_performance(new, fit, anchors)
    got = estimate_performance(new, fit, anchors, validation=v)
    mean = new.mean(axis=1).to_numpy()  # pandas skips NaN: the mean over answered anchors
    assert got["accuracy"].to_numpy() == pytest.approx((1 - v.weight) * plain["accuracy"].to_numpy() + v.weight * mean,
                                                       abs=1e-12)
    inside = (got["lower"] > 0) & (got["upper"] < 1) & (plain["lower"] > 0) & (plain["upper"] < 1)
    assert inside.any()
    assert ((got["upper"] - got["lower"])[inside].to_numpy()
            == pytest.approx(v.scale * (plain["upper"] - plain["lower"])[inside].to_numpy(), abs=1e-12))
    assert got[["theta", "se"]].equals(plain[["theta", "se"]])


def test_a_small_calibration_warns_without_validation(small):
    x, fit, anchors, v = small
    with pytest.warns(UserWarning, match="validate_anchors"):
        estimate_performance(x.iloc[:2][anchors], fit, anchors)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        estimate_performance(x.iloc[:2][anchors], fit, anchors, validation=v)
        estimate_performance(x.iloc[:2][anchors], as_item_bank(fit.items, "2PL"), anchors)  # no respondent count


def test_bad_validation_input_is_a_clear_error(small):
    x, fit, anchors, v = small
    with pytest.raises(ValidationError, match="other anchors"):
        estimate_performance(x.iloc[:2][anchors[1:]], fit, anchors[1:], validation=v)
    with pytest.raises(ValidationError, match="lack 1 calibrated item"):
        validate_anchors(x.drop(columns=[fit.item_names[3]]), fit, anchors)
    with pytest.raises(ValidationError, match="folds"):
        validate_anchors(x, fit, anchors, folds=100)
    with pytest.raises(ValidationError, match="not items of the calibration"):
        validate_anchors(x, fit, ["nope"])


@pytest.mark.slow
def test_refits_validate_other_anchors_without_refitting(small):
    x, fit, anchors, v = small
    other = select_anchors(fit, 25, "stratified")
    again = validate_anchors(x, fit, other, refits=v.refits)
    fresh = validate_anchors(x, fit, other)
    assert (again.weight, again.scale, again.folds) == pytest.approx((fresh.weight, fresh.scale, fresh.folds), abs=1e-12)
    pd.testing.assert_frame_equal(again.held_out, fresh.held_out, atol=1e-12, rtol=0)
    with pytest.raises(ValidationError, match="refits come from other responses"):
        validate_anchors(x.iloc[:40], fit, other, refits=v.refits)


@pytest.mark.slow
def test_a_well_specified_large_calibration_is_left_almost_alone():
    x = _two_pl(600, 300, seed=5)
    fit = _fit(x)
    anchors = select_anchors(fit, 30, "stratified")
    v = validate_anchors(x, fit, anchors)
    assert v.weight < 0.25
    assert 1.0 <= v.scale < 1.3
    assert v.metrics["mae_pirt"] < 0.8 * v.metrics["mae_anchor_mean"]


@pytest.mark.slow
def test_validation_restores_coverage_on_a_small_misfitting_calibration():
    """Outer 5-fold cross-validation over 45 respondents of two-dimensional data fitted by a 2PL."""
    x = _two_dimensional(45, 160, seed=7)
    order = np.random.default_rng(0).permutation(len(x))
    rows = []
    for part in np.array_split(order, 5):
        train, test = x.iloc[np.setdiff1d(order, part)], x.iloc[part]
        fit = _fit(train)
        anchors = select_anchors(fit, 40, "random", seed=1)
        v = validate_anchors(train, fit, anchors)
        truth = test[fit.item_names].mean(axis=1).to_numpy()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plain = estimate_performance(test[anchors], fit, anchors)
        valid = estimate_performance(test[anchors], fit, anchors, validation=v)
        for name, got in (("plain", plain), ("valid", valid)):
            rows += [{"how": name, "covered": lo <= t <= up, "error": abs(acc - t)}
                     for lo, up, acc, t in zip(got["lower"], got["upper"], got["accuracy"], truth)]
    frame = pd.DataFrame(rows).groupby("how").mean()
    assert frame.loc["plain", "covered"] < 0.85
    assert 0.88 <= frame.loc["valid", "covered"] <= 0.99
    assert frame.loc["valid", "error"] <= 1.1 * frame.loc["plain", "error"]


@pytest.mark.slow
def test_estimate_cli_validate(small, tmp_path, capsys):
    x, fit, anchors, v = small
    cal = tmp_path / "cal.json"
    cal.write_text(fit.to_json())
    pd.DataFrame({"item": anchors}).to_csv(tmp_path / "anchors.csv", index=False)
    x.to_csv(tmp_path / "train.csv", index=False)
    x.iloc[:3][anchors].to_csv(tmp_path / "new.csv", index=False)
    common = ["estimate", str(tmp_path / "new.csv"), "--calibration", str(cal), "--anchors",
              str(tmp_path / "anchors.csv"), "--json"]
    assert main([*common, "--validate", str(tmp_path / "train.csv")]) == 0
    out = capsys.readouterr()
    rows = json.loads(out.out)["respondents"]
    assert set(rows[0]) == {"respondent", "theta", "theta_se", "accuracy", "accuracy_se", "lower", "upper",
                            "se"} and len(rows) == 3  # se: the deprecated alias of theta_se
    assert "anchor validation (5-fold, 45 respondents, 40 anchors)" in out.err
    expected = estimate_performance(x.iloc[:3][anchors], fit, anchors, validation=v)
    assert [r["accuracy"] for r in rows] == pytest.approx(expected["accuracy"].tolist(), abs=1e-9)
    x.drop(columns=[anchors[0]]).to_csv(tmp_path / "short.csv", index=False)
    assert main([*common, "--validate", str(tmp_path / "short.csv")]) == 2
    err = capsys.readouterr().err
    assert "lack 1 calibrated item" in err and len(err.strip().splitlines()) == 1
