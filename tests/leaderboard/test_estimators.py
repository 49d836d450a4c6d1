"""Accuracy estimators from k sampled items (irtbridge.leaderboard.estimators).

References: AIPW (Zhang, Dorner & Hardt, NeurIPS 2025) on a 5-model x 7-item matrix computed here with the
ridge normal equations written out (augmented design [1, X], penalty diag(0, 10, ..., 10)), to 1e-10; the
sample mean and its finite-population interval from the textbook formula; the leave-one-out shortcuts
against explicit refits without each item (1e-8); gp-IRT as the convex combination of mean and p-IRT; the
default interval's coverage on 2PL-generated data where the truth (each new model's share correct on all
items) is known: 600 intervals, coverage inside [0.90, 0.99] (binomial sd at 0.95 is 0.009).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from irtbridge.exceptions import ValidationError
from irtbridge.leaderboard import DEFAULT_ESTIMATOR, calibrate_2pl, estimate_accuracy
from irtbridge.leaderboard._predictors import irt_predictions, item_features, ridge_cv, ridge_predictions
from irtbridge.leaderboard.estimators import COLUMNS, REGISTRY, IRTParameters

CAL = np.array([[1, 0, 1, 1, 0, 1, 0],
                [1, 1, 1, 0, 0, 1, 1],
                [0, 0, 1, 1, 0, 0, 0],
                [1, 1, 1, 1, 1, 1, 0],
                [0, 0, 0, 1, 0, 1, 0]], dtype=float)
NAMES = [f"i{j}" for j in range(7)]


def _ridge_by_hand(X, y, alpha):
    """Ridge with an unpenalized intercept from the normal equations of the augmented design."""
    Z = np.column_stack([np.ones(len(X)), X])
    pen = alpha * np.eye(Z.shape[1])
    pen[0, 0] = 0.0
    return np.linalg.solve(Z.T @ Z + pen, Z.T @ y)


def test_aipw_hand_computed():
    sampled = [0, 2, 3, 5]
    y = np.array([1.0, 1.0, 0.0, 1.0])
    feats = CAL.T  # item j's features: the 5 calibration models' answers
    coef = _ridge_by_hand(feats[sampled], y, 10.0)
    pred = np.column_stack([np.ones(7), feats]) @ coef
    unseen = [1, 4, 6]
    k, N, J = 4, 3, 7
    est_unseen = pred[unseen].mean() + (y - pred[sampled]).mean() / (1 + k / N)
    expected = (y.sum() + N * est_unseen) / J
    cal = pd.DataFrame(CAL, columns=NAMES)
    answers = pd.DataFrame([y], columns=[NAMES[j] for j in sampled])
    out = estimate_accuracy(cal, list(answers.columns), answers, "aipw")
    assert out["accuracy"].iloc[0] == pytest.approx(expected, abs=1e-10)


def test_ridge_leave_one_out_matches_refits():
    rng = np.random.default_rng(0)
    X = (rng.random((40, 12)) < 0.5).astype(float)
    seen = np.array([1, 4, 7, 9, 15, 22, 30, 33])  # fewer sampled items than features: the dual form
    Y = (rng.random((8, 2)) < 0.6).astype(float)
    pred, loo = ridge_predictions(X, seen, Y, 10.0)
    for m in range(2):
        full = np.column_stack([np.ones(40), X]) @ _ridge_by_hand(X[seen], Y[:, m], 10.0)
        np.testing.assert_allclose(pred[:, m], full, atol=1e-8)
        for i, j in enumerate(seen):
            keep = np.delete(np.arange(8), i)
            c = _ridge_by_hand(X[seen[keep]], Y[keep, m], 10.0)
            assert loo[i, m] == pytest.approx(c[0] + X[j] @ c[1:], abs=1e-8)
    pred_cv, loo_cv, alpha = ridge_cv(X, seen, Y[:, 0], np.array([1.0, 10.0, 100.0]))
    c = _ridge_by_hand(X[seen[1:]], Y[1:, 0], alpha)
    assert loo_cv[0] == pytest.approx(c[0] + X[seen[0]] @ c[1:], abs=1e-8)


def test_irt_leave_one_out_is_the_posterior_without_the_item():
    a, b = np.array([1.0, 1.5, 0.7, 2.0]), np.array([-1.0, 0.0, 0.5, 1.0])
    y = np.array([[1.0, 0.0, 1.0]])
    seen = np.array([0, 1, 3])
    grid = np.linspace(-6, 6, 121)
    p = 1 / (1 + np.exp(-a * (grid[:, None] - b)))
    pred, loo, _, _ = irt_predictions(a, b, seen, y)
    for i, j in enumerate(seen):
        keep = [s for s in range(3) if s != i]
        lik = np.prod(np.where(y[0, keep] == 1, p[:, seen[keep]], 1 - p[:, seen[keep]]), axis=1) * np.exp(-grid**2 / 2)
        assert loo[0, i] == pytest.approx((lik * p[:, j]).sum() / lik.sum(), abs=1e-10)


def test_mean_and_its_finite_population_interval():
    cal = pd.DataFrame(CAL, columns=NAMES)
    answers = pd.DataFrame([[1.0, 0.0, 1.0, 1.0]], columns=["i0", "i1", "i2", "i3"])
    out = estimate_accuracy(cal, list(answers.columns), answers, "mean").iloc[0]
    s2 = np.var([1, 0, 1, 1], ddof=1)
    se = np.sqrt((1 - 4 / 7) * s2 / 4)
    assert out["accuracy"] == pytest.approx(0.75)
    assert out["se"] == pytest.approx(se)
    assert out["upper"] == pytest.approx(min(0.75 + stats.t.ppf(0.975, 3) * se, 1.0))


def test_gpirt_lies_between_mean_and_pirt():
    rng = np.random.default_rng(2)
    theta = rng.normal(size=(60, 1))
    x = (rng.random((60, 80)) < 1 / (1 + np.exp(-(theta - rng.normal(size=80))))).astype(float)
    cal = pd.DataFrame(x[:50], columns=[f"q{j}" for j in range(80)])
    items = [f"q{j}" for j in range(0, 80, 4)]
    new = pd.DataFrame(x[50:], columns=cal.columns)[items]
    irt = calibrate_2pl(cal)
    m, p, g = (estimate_accuracy(cal, items, new, meth, calibration=irt)["accuracy"] for meth in ("mean", "pirt", "gpirt"))
    assert ((g >= np.minimum(m, p) - 1e-12) & (g <= np.maximum(m, p) + 1e-12)).all()


def test_default_interval_covers_on_simulated_2pl():
    rng = np.random.default_rng(7)
    n_items = 300
    a = rng.uniform(0.7, 2.0, n_items)
    b = rng.normal(size=n_items)
    names = [f"q{j}" for j in range(n_items)]

    def draw(n):
        th = rng.normal(size=(n, 1))
        return (rng.random((n, n_items)) < 1 / (1 + np.exp(-a * (th - b)))).astype(float)

    cal = pd.DataFrame(draw(120), columns=names)
    irt = IRTParameters(tuple(names), a, b)  # the true parameters: coverage must not hinge on the fit
    hits, errors = [], []
    for _ in range(60):
        new = draw(10)
        items = list(np.array(names)[np.sort(rng.choice(n_items, 50, replace=False))])
        out = estimate_accuracy(cal, items, pd.DataFrame(new, columns=names)[items], DEFAULT_ESTIMATOR, calibration=irt)
        truth = new.mean(axis=1)
        hits += list((out["lower"] <= truth) & (truth <= out["upper"]))
        errors += list(np.abs(out["accuracy"] - truth))
    coverage = float(np.mean(hits))
    assert 0.90 <= coverage <= 0.99, coverage
    assert np.mean(errors) < 0.05


def test_excluded_items_are_predicted_and_the_interval_spans_their_range():
    """Items the caller excludes are predicted (here by the sample mean); the frame's total gets the textbook
    finite-population variance over the 57 items that may be sampled, and the interval adds the excluded
    share's whole range (3 of 60 items: 0.05), whatever the prediction."""
    rng = np.random.default_rng(4)
    x = (rng.random((40, 60)) < 0.6).astype(float)
    cal = pd.DataFrame(x[:30], columns=[f"q{j}" for j in range(60)])
    items = [f"q{j}" for j in range(10, 40)]
    new = pd.DataFrame(x[30:], columns=cal.columns)[items]
    excl = estimate_accuracy(cal, items, new, "mean", exclude=["q0", "q1", "q2"])
    y = new.to_numpy()
    s2 = np.maximum(y.var(axis=1, ddof=1), 1 / 31)
    se = np.sqrt(57**2 * (1 - 30 / 57) * s2 / 30) / 60
    np.testing.assert_allclose(excl["se"], se, rtol=1e-12)
    np.testing.assert_allclose(excl["accuracy"], y.mean(axis=1), rtol=1e-12)
    frame_total = y.mean(axis=1) * 57
    half = stats.t.ppf(0.975, 29) * se * 60
    np.testing.assert_allclose(excl["lower"], np.clip((frame_total - half) / 60, 0, 1), rtol=1e-12)
    np.testing.assert_allclose(excl["upper"], np.clip((frame_total + half + 3) / 60, 0, 1), rtol=1e-12)
    np.testing.assert_allclose(excl["predicted_share"], 3 / 60)
    with pytest.raises(ValidationError, match="also sampled"):
        estimate_accuracy(cal, items, new, "mean", exclude=["q10"])


@pytest.mark.parametrize("method", list(REGISTRY))
def test_excluded_items_that_behave_differently_stay_inside_the_interval(method):
    """Issue 39: the excluded fifth of the items is one the calibration models solve and the new models fail.
    Every method predicts it from the calibration (wrongly); the interval still covers every new model's
    true accuracy, because it spans the excluded share's range instead of trusting its prediction."""
    rng = np.random.default_rng(11)
    n_items = 150
    b = rng.normal(size=n_items)
    names = [f"q{j}" for j in range(n_items)]
    th = rng.normal(size=(70, 1))
    x = (rng.random((70, n_items)) < 1 / (1 + np.exp(-(th - b)))).astype(float)
    excluded = names[:30]
    x[:50, :30] = 1.0 * (rng.random((50, 30)) < 0.9)   # the calibration models solve them
    x[50:, :30] = 0.0                                   # the new models fail them all
    cal = pd.DataFrame(x[:50], columns=names)
    hits = []
    for seed in range(4):
        items = sorted(np.random.default_rng(seed).choice(names[30:], 40, replace=False), key=names.index)
        out = estimate_accuracy(cal, items, pd.DataFrame(x[50:], columns=names)[items], method, exclude=excluded)
        truth = x[50:].mean(axis=1)
        hits += list((out["lower"] <= truth) & (truth <= out["upper"]))
        assert (out["predicted_share"] == 0.2).all()
    assert np.mean(hits) >= 0.88, np.mean(hits)  # 80 intervals; today's main: 0.17-0.33


def test_bad_input_is_one_line():
    cal = pd.DataFrame(CAL, columns=NAMES)
    good = pd.DataFrame([[1.0, 0.0, 1.0]], columns=["i0", "i1", "i2"])
    cases = [(good[["i0", "i1"]], ["i0", "i1", "i2"], "lack"),
             (good.replace(1.0, 2.0), ["i0", "i1", "i2"], "0/1"),
             (good, ["i0", "i1", "zz"], "not items"),
             (good, ["i0", "i1"], "at least 3")]
    for answers, items, msg in cases:
        with pytest.raises(ValidationError, match=msg) as info:
            estimate_accuracy(cal, items, answers, "mean")
        assert "\n" not in str(info.value)
    with pytest.raises(ValidationError, match="method"):
        estimate_accuracy(cal, ["i0", "i1", "i2"], good, "nope")


def test_item_features_fill_missing_with_the_item_mean():
    f = item_features(np.array([[1.0, np.nan], [0.0, np.nan], [1.0, 1.0]]))
    np.testing.assert_allclose(f, [[1.0, 0.0, 1.0], [1.0, 1.0, 1.0]])


# ---- the contract every estimator of the registry keeps (scikit-learn's check_estimator, for these rows) ----

def _world(seed, n_items=240, hard_half=False):
    """2PL items; calibration models and a source of new models. ``hard_half``: the calibration models are
    weak and fail every item of the harder half (the 2PL cannot place those items), the new models are
    stronger and solve some of them: the extrapolation case."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.7, 2.0, n_items)
    b = rng.normal(size=n_items)
    if hard_half:
        b[n_items // 2:] = rng.uniform(1.0, 2.5, n_items - n_items // 2)
    names = [f"q{j}" for j in range(n_items)]

    def draw(n, mean=0.0):
        th = rng.normal(mean, 1.0, size=(n, 1))
        return (rng.random((n, n_items)) < 1 / (1 + np.exp(-a * (th - b)))).astype(float)

    cal = draw(100, -1.0 if hard_half else 0.0)
    if hard_half:
        cal[:, n_items // 2:] = 0.0
    return rng, names, a, b, cal, draw


def _coverage(name, seed, reps=25, k=50, hard_half=False, true_params=True):
    rng, names, a, b, cal, draw = _world(seed, hard_half=hard_half)
    frame = pd.DataFrame(cal, columns=names)
    irt = IRTParameters(tuple(names), a, b) if true_params else calibrate_2pl(frame, NCYCLES=200)
    hits, errors = [], []
    for _ in range(reps):
        new = draw(8, 1.0 if hard_half else 0.0)
        items = list(np.array(names)[np.sort(rng.choice(len(names), k, replace=False))])
        out = estimate_accuracy(frame, items, pd.DataFrame(new, columns=names)[items], name, calibration=irt)
        truth = new.mean(axis=1)
        hits += list((out["lower"] <= truth) & (truth <= out["upper"]))
        errors += list(out["accuracy"] - truth)
    return float(np.mean(hits)), float(np.mean(np.abs(errors))), float(np.mean(errors))


def test_the_registry_is_the_one_list():
    from irtbridge.cli import tiny as tiny_cli
    from irtbridge.leaderboard.estimators import ESTIMATORS, REGISTRY
    from irtbridge.leaderboard.tiny import DESIGNS

    assert tuple(REGISTRY) == ESTIMATORS == tiny_cli.ESTIMATORS and tiny_cli.DEFAULT_ESTIMATOR == DEFAULT_ESTIMATOR
    assert tiny_cli.DESIGNS == DESIGNS
    assert all(REGISTRY[n].name == n for n in REGISTRY) and REGISTRY[DEFAULT_ESTIMATOR].design_based


@pytest.mark.parametrize("name", list(REGISTRY))
def test_contract_shapes_and_interval_order(name):
    rng, names, a, b, cal, draw = _world(1, n_items=80)
    new = pd.DataFrame(draw(5), columns=names, index=[f"new{i}" for i in range(5)])
    items = names[::4]
    answers = new[items].copy()
    answers.iloc[0, :3] = np.nan  # a model that skipped some sampled items
    out = estimate_accuracy(pd.DataFrame(cal, columns=names), items, answers, name,
                            calibration=IRTParameters(tuple(names), a, b))
    assert list(out.columns) == [*COLUMNS, "se"] and list(out.index) == list(answers.index)
    assert ((0 <= out["lower"]) & (out["lower"] <= out["accuracy"]) & (out["accuracy"] <= out["upper"])
            & (out["upper"] <= 1)).all()
    assert (out["accuracy_se"] > 0).all() and (out["se"] == out["accuracy_se"]).all()
    assert out["theta"].notna().all() == REGISTRY[name].needs_irt


@pytest.mark.parametrize("name", list(REGISTRY))
def test_contract_coverage_on_simulated_2pl(name):
    """Data from a 2PL, the true item parameters given: 200 intervals (25 draws of 50 items x 8 new models);
    the 95% intervals must cover 0.88-1.00 of the truths (binomial sd at 0.95: 0.015; 0.88 is 4.5 sd)."""
    coverage, mae, _ = _coverage(name, seed=7)
    assert 0.88 <= coverage <= 1.0, coverage
    assert mae < 0.06


@pytest.mark.slow
@pytest.mark.parametrize("name", list(REGISTRY))
def test_contract_extrapolation_half_the_items_unsolved(name):
    """The calibration models (weak) solve none of the harder half of the items; the new models (stronger)
    solve some. The 2PL is fitted on the calibration models, as a user would. A design-based estimator must
    still cover 0.88-1.00 of 200 truths with little bias; a model-based one (``design_based`` False) makes no
    such promise and is only checked for shape here (its failure is measured in speed/lm_estimators.py)."""
    coverage, mae, bias = _coverage(name, seed=3, hard_half=True, true_params=False)
    if REGISTRY[name].design_based:
        assert 0.88 <= coverage <= 1.0, coverage
        assert abs(bias) < 0.02, bias
    else:
        assert 0.0 <= coverage <= 1.0 and mae < 0.5
