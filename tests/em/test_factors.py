"""The native D-factor 2PL (irtbridge.em.factors) against mirt called directly in R, and on simulated data.

mirt's numbers come from tests/r/reference_factors.R (run through tests/_rrefs.run_r): ``mirt(data, 2,
method = "EM")`` (the same log-likelihood to 1e-3, the same loadings up to the sign of a factor, the same
rotated loadings as ``summary(fit, rotate=)``) and ``method = "QMCEM"`` / ``"MHRM"`` with four factors
(the same objective within the Monte-Carlo error).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irtbridge.em.core import prepare_responses
from irtbridge.em.factors import FactorResult, exploratory_mask, fit_factors, marginal_loglik
from irtbridge.exceptions import IrtBridgeWarning, ValidationError
from tests._rrefs import run_r

HERE = Path(__file__).resolve().parents[1]  # tests/


def simulate(n: int, a: np.ndarray, d: np.ndarray, seed: int, missing: float = 0.0) -> np.ndarray:
    """0/1 responses of the D-factor 2PL with N(0, I) abilities, ``missing`` of the cells NaN."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=(n, a.shape[1]))
    x = (rng.random((n, len(d))) < 1 / (1 + np.exp(-(theta @ a.T + d)))).astype(float)
    x[rng.random(x.shape) < missing] = np.nan
    return x


def two_factor_data() -> np.ndarray:
    rng = np.random.default_rng(1)
    a = np.zeros((20, 2))
    a[:10, 0], a[10:, 1] = rng.uniform(0.8, 2, 10), rng.uniform(0.8, 2, 10)
    a[:, 0] += 0.3
    return simulate(1000, a, rng.normal(size=20), 11, missing=0.1)


def four_factor_data() -> np.ndarray:
    rng = np.random.default_rng(4)
    a = np.zeros((24, 4))
    for k in range(4):
        a[6 * k:6 * k + 6, k] = rng.uniform(1.0, 2.0, 6)
    a[:, 0] += 0.5
    return simulate(800, a, rng.normal(size=24), 44)


def _csv(x: np.ndarray, path: Path) -> str:
    pd.DataFrame(x, columns=[f"i{j + 1}" for j in range(x.shape[1])]).to_csv(path, index=False, na_rep="NA")
    return str(path)


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("factors")
    two, four = _csv(two_factor_data(), tmp / "two.csv"), _csv(four_factor_data(), tmp / "four.csv")
    run_r(["Rscript", str(HERE / "r" / "reference_factors.R"), str(tmp / "ref.json"), "quad2", two,
           "lsat7", two, "qmc4", four, "mhrm4", four], check=True)
    return json.loads((tmp / "ref.json").read_text())


def _signs(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Each column of ``b`` turned to the sign of the same column of ``a``."""
    return b * np.sign((a * b).sum(axis=0, keepdims=True))


@pytest.mark.r
@pytest.mark.parametrize("case", ["quad2", "lsat7"])
def test_two_factors_by_quadrature_equal_mirt(ref, case):
    r = ref[case]
    x = two_factor_data() if case == "quad2" else np.asarray(r["data"], dtype=float)
    fit = fit_factors(x, 2, method="quadrature", TOL=1e-6, NCYCLES=5000)
    assert fit.converged and r["converged"]
    assert fit.loglik == pytest.approx(r["loglik"], abs=1e-3)
    a_r = np.asarray(r["a"])
    # mirt's exploratory pattern fixes the rotation: the slopes themselves agree, up to each factor's sign
    # LSAT7 (5 items, two factors) is nearly flat along some slopes: there they agree to 5e-3
    tol = 2e-3 if case == "quad2" else 5e-3
    np.testing.assert_allclose(_signs(a_r, fit.a), a_r, atol=tol)
    np.testing.assert_allclose(fit.a @ fit.a.T, a_r @ a_r.T, rtol=3e-3, atol=5e-3)
    np.testing.assert_allclose(fit.d, r["d"], atol=tol)


@pytest.mark.r
@pytest.mark.parametrize("rotate", ["oblimin", "varimax"])
def test_rotations_equal_mirt_summary(ref, rotate):
    r = ref["quad2"]
    fit = FactorResult(a=np.asarray(r["a"]), d=np.asarray(r["d"]), loglik=r["loglik"], converged=True,
                       iterations=1, method="quadrature", n_factors=2, item_names=tuple(f"i{j}" for j in range(20)),
                       mask=exploratory_mask(20, 2), exploratory=True, quadpts=31)
    rot = fit.rotate(rotate)
    want = np.asarray(r[rotate]["loadings"])
    got = rot.loadings
    if np.abs(got - want).max() > np.abs(got[:, ::-1] - want).max():  # factor order is arbitrary
        got = got[:, ::-1]
    np.testing.assert_allclose(got, want, atol=2e-3)
    np.testing.assert_allclose(np.abs(rot.phi), np.abs(np.asarray(r[rotate]["phi"])), atol=2e-3)


def test_exploratory_mask_is_mirts_pattern():
    # mirt's buildModelSyntax: factor k loads on items 1..J-k+1
    J, D = 7, 4
    want = np.array([[j + 1 <= J - k + 1 for k in range(1, D + 1)] for j in range(J)])
    np.testing.assert_array_equal(exploratory_mask(J, D), want)


@pytest.mark.slow
def test_confirmatory_mask_holds_its_zeros_and_scores_have_the_contract_columns():
    rng = np.random.default_rng(5)
    a = np.zeros((12, 3))
    a[:, 0] = 1.0
    a[:6, 1], a[6:, 2] = 1.2, 1.2
    x = simulate(600, a, rng.normal(size=12), 3, missing=0.2)
    mask = a != 0
    fit = fit_factors(prepare_responses(x, [f"q{j}" for j in range(12)]), 3, mask=mask, quadpts=11)
    assert (fit.a[~mask] == 0).all() and fit.converged
    assert list(fit.items.columns) == ["a1", "a2", "a3", "d"]
    scores = fit.scores()
    assert list(scores.columns) == ["F1", "F2", "F3", "se_F1", "se_F2", "se_F3"] and len(scores) == 600
    assert fit.scores(x[:5]).shape == (5, 6)
    assert fit.probabilities(np.zeros((2, 3))).shape == (2, 12)
    np.testing.assert_allclose(fit.rotate().loadings, fit.loadings().to_numpy())  # confirmatory: unrotated


@pytest.mark.parametrize("kwargs, match", [
    ({"n_factors": 0}, "n_factors"),
    ({"n_factors": 2, "method": "mhrm"}, "method"),
    ({"n_factors": 2, "mask": np.ones((3, 2))}, "mask"),
    ({"n_factors": 2, "mask": np.c_[np.ones(6), np.zeros(6)]}, "mask: factor F2"),
    ({"n_factors": 2, "priors": {"g": ("norm", 0, 1)}}, "priors"),
    ({"n_factors": 2, "priors": {"a": ("norm", 1, -2)}}, "priors"),
    ({"n_factors": 5, "method": "quadrature", "quadpts": 9}, "quadpts"),
])
def test_bad_input_is_a_one_line_error(kwargs, match):
    x = np.random.default_rng(0).integers(0, 2, (50, 6)).astype(float)
    with pytest.raises(ValidationError, match=match):
        fit_factors(x, **kwargs)


@pytest.mark.r
def test_four_factors_by_qmc_reach_mirts_objective_within_monte_carlo_error(ref):
    x = four_factor_data()
    fit = fit_factors(x, 4, method="qmc", seed=1)
    assert fit.converged and fit.loglik_se > 0
    big = {"quadpts": 50000, "seed": 99}  # an independent, larger set of points judges both fits
    mine = marginal_loglik(x, fit.a, fit.d, **big)
    error = 3 * np.hypot(fit.loglik_se, fit.loglik_se)
    # mirt's QMC-EM estimates: the same maximum, within the Monte-Carlo error of the two fits (measured: 0.46
    # apart, error 1.07); mirt's own log-likelihood (its points) and ours (ours): the same estimate
    qmc = ref["qmc4"]
    theirs = marginal_loglik(x, np.asarray(qmc["a"]), np.asarray(qmc["d"]), **big)
    assert abs(mine - theirs) <= error, (mine, theirs, error)
    assert fit.loglik == pytest.approx(qmc["loglik"], abs=6 * fit.loglik_se)
    # mirt's MH-RM stops (its TOL 1e-3 on a stochastic sequence) about 4 below that maximum, by its own
    # importance-sampled log-likelihood (-10878.31, SE 0.03) and by the points that judge both: ours is not lower
    mhrm = ref["mhrm4"]
    theirs = marginal_loglik(x, np.asarray(mhrm["a"]), np.asarray(mhrm["d"]), **big)
    assert mine >= theirs - error and mine >= mhrm["loglik"] - 3 * np.hypot(mhrm["se_loglik"], fit.loglik_se)


def _recovery(fit: FactorResult, a: np.ndarray, d: np.ndarray) -> dict[str, float]:
    got = _signs(a, fit.a)
    free = fit.mask
    return {"a_rmse": float(np.sqrt(np.mean((got[free] - a[free]) ** 2))), "a_bias": float(np.mean(got[free] - a[free])),
            "d_rmse": float(np.sqrt(np.mean((fit.d - d) ** 2))), "d_bias": float(np.mean(fit.d - d))}


@pytest.mark.slow
def test_recovery_of_known_parameters():
    """The recovery table (printed with -s): exploratory D = 2 by quadrature on mirt's pattern, and a
    bifactor (a general factor and three specific ones, D = 4) by QMC-EM, 20% of cells missing.

    Measured (3,000 respondents): D = 2 (21 points per factor): a RMSE 0.127 (bias -0.073), d RMSE 0.086
    (bias 0.046); bifactor D = 4 (2,000 QMC points): a RMSE 0.108 (bias 0.019), d RMSE 0.050 (bias -0.007)."""
    rng = np.random.default_rng(7)
    a2 = np.c_[rng.uniform(0.8, 2.0, 16), np.r_[rng.uniform(0.5, 1.5, 15) * (np.arange(15) % 2), 0.0]]
    d2 = rng.normal(0, 1, 16)
    x2 = simulate(3000, a2, d2, 70, missing=0.2)
    fit2 = fit_factors(x2, 2, method="quadrature", quadpts=21)
    a4 = np.zeros((18, 4))
    a4[:, 0] = rng.uniform(0.8, 1.8, 18)
    for k in range(3):
        a4[6 * k:6 * k + 6, k + 1] = rng.uniform(0.6, 1.4, 6)
    d4 = rng.normal(0, 1, 18)
    x4 = simulate(3000, a4, d4, 71, missing=0.2)
    fit4 = fit_factors(x4, 4, mask=a4 != 0, method="qmc", quadpts=2000, seed=3)
    table = pd.DataFrame({"exploratory D=2 (quadrature)": _recovery(fit2, a2, d2),
                          "bifactor D=4 (qmc)": _recovery(fit4, a4, d4)}).T
    print("\n" + table.round(3).to_string())
    assert fit2.converged and fit4.converged
    assert (table["a_rmse"] < 0.15).all() and (table["d_rmse"] < 0.1).all()
    assert (table["a_bias"].abs() < 0.1).all() and (table["d_bias"].abs() < 0.07).all()


# The adaptive E-step (irtbridge.em.adaptive, method="adaptive"): Schilling & Bock's (2005) adaptive quadrature.
# Up to D = 3 its points are a Gauss-Hermite product rule moved to each respondent's Laplace approximation
# (deterministic). Its own log-likelihood is the integral by that rule (9 nodes per factor on the quad2 data:
# 0.006 above mirt's 31-point grid, the grid's own error); judged on mirt's grid, its estimates reach mirt's
# log-likelihood to 2e-6, slopes within 5e-4 (measured).
# Measured against main's methods on small data (log-likelihoods judged on the same 50,000 QMC points):
# D = 3, 600 x 30, 10% missing: at the default TOL the adaptive fit stops after 21 cycles (the objective's
# rise below TOL / 100 of itself) 1.74 below the quadrature fit (193 cycles); with TOL = 1e-6 (246 cycles) it
# is 1.08 above it, and 1.09 above it on the quadrature fit's own 15-point grid: both crawl along a flat ridge
# and stop short at TOL = 1e-4. D = 4 (four_factor_data): 1.33 below main's QMC fit, 0.47 below mirt's.
# D = 5, 1,000 x 30, 10% missing (broad posteriors, 512 Sobol points): NOT equal, 27.8 below main's QMC fit
# after 213 cycles (not yet understood; the adaptive E-step is meant for narrow posteriors).


@pytest.mark.r
def test_adaptive_two_factors_equal_mirts_quadrature_fit(ref):
    r = ref["quad2"]
    fit = fit_factors(two_factor_data(), 2, method="adaptive", TOL=1e-6, NCYCLES=5000)
    assert fit.converged and fit.method == "adaptive" and fit.quadpts == 9
    assert fit.loglik == pytest.approx(r["loglik"], abs=0.02)
    a_r = np.asarray(r["a"])
    np.testing.assert_allclose(_signs(a_r, fit.a), a_r, atol=2e-3)
    np.testing.assert_allclose(fit.d, r["d"], atol=2e-3)
    # the adaptive fit's estimates, judged on mirt's grid: mirt's log-likelihood to 1e-3 (issue 42)
    grid = marginal_loglik(two_factor_data(), fit.a, fit.d, method="quadrature", quadpts=31)
    assert grid == pytest.approx(r["loglik"], abs=1e-3)
    want = np.asarray(r["oblimin"]["loadings"])  # the same loadings up to rotation (order and signs arbitrary)
    got = _signs(want, fit.rotate("oblimin").loadings)
    flipped = _signs(want, fit.rotate("oblimin").loadings[:, ::-1])
    best = got if np.abs(got - want).max() <= np.abs(flipped - want).max() else flipped
    np.testing.assert_allclose(best, want, atol=2e-3)
    # standard errors: integrated on mirt's grid at the adaptive estimates (no shared points of its own)
    from irtbridge.em.factor_se import factor_standard_errors

    grid_fit = FactorResult(a=fit.a, d=fit.d, loglik=grid, converged=True, iterations=1, method="quadrature",
                            n_factors=2, item_names=fit.item_names, mask=fit.mask, exploratory=True, quadpts=31,
                            data=fit.data)
    np.testing.assert_allclose(factor_standard_errors(fit).to_numpy(), factor_standard_errors(grid_fit).to_numpy())


@pytest.mark.r
def test_adaptive_four_factors_reach_mirts_qmc_objective_within_monte_carlo_error(ref):
    # D = 4 on 800 x 24 (broad posteriors): 512 scrambled Sobol points per respondent (the default there);
    # measured: 1,024 points 0.39 above mirt's QMC-EM maximum by the 50,000 points that judge both, 256
    # points 1.1 below, 32 points 3.4 below (too few)
    x = four_factor_data()
    fit = fit_factors(x, 4, method="adaptive")
    assert fit.converged and fit.quadpts == 512 and fit.loglik_se > 0
    big = {"quadpts": 50000, "seed": 99}
    mine = marginal_loglik(x, fit.a, fit.d, **big)
    qmc = ref["qmc4"]
    theirs = marginal_loglik(x, np.asarray(qmc["a"]), np.asarray(qmc["d"]), **big)
    assert abs(mine - theirs) <= 3 * np.hypot(fit.loglik_se, fit.loglik_se), (mine, theirs, fit.loglik_se)


def test_adaptive_with_sampled_points_above_four_factors_warns_at_the_callers_line():
    rng = np.random.default_rng(5)
    few = (rng.random((60, 12)) < 0.5).astype(float)  # 12 answers each: the sampled (Sobol) points
    with pytest.warns(IrtBridgeWarning, match="not shown equal to QMC-EM") as caught:
        fit_factors(few, 5, method="adaptive", NCYCLES=1)
    assert caught[0].filename == __file__
    many = (rng.random((12, 520)) < 0.5).astype(float)  # 520 answers each: Stroud's rule, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", IrtBridgeWarning)
        fit_factors(many, 5, method="adaptive", NCYCLES=1)
