"""Standard errors and flags of the native D-factor 2PL against mirt's ``SE.type = "crossprod"``.

mirt's numbers come from tests/r/reference_factor_se.R (through tests/_rrefs.run_r): ``mirt(data, 2, "2PL",
method = "EM", SE = TRUE, SE.type = "crossprod", TOL = 1e-6)`` with 31 points per factor, exploratory (``ml``),
with priors ``a ~ norm(0, 2)``, ``d ~ norm(0, 3)`` (``map``) and confirmatory, F1 = items 1-10, F2 = 11-20
(``cfa``); the data are tests/em/test_factors.py's two-factor matrix (1,000 x 20, 10% missing).

Two checks each: at mirt's own estimates the native crossprod SEs equal mirt's to 1e-10 relative (the same
formula on the same 31 x 31 points: measured 5e-15); from the native fit, whose estimates agree with mirt's
to 5e-4 (measured 9e-5; log-likelihood and log-prior to 1e-5), to 1e-4 relative (measured 8e-6).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from irtbridge.calibration.results.flags import flag_factor_items
from irtbridge.em.factor_se import factor_covariance, factor_standard_errors
from irtbridge.em.factor_steps import parse_priors
from irtbridge.em.factors import FactorResult, _as_data, exploratory_mask, fit_factors
from irtbridge.exceptions import IrtBridgeWarning
from tests._rrefs import run_r
from tests.em.test_factors import _csv, _signs, simulate, two_factor_data

HERE = Path(__file__).resolve().parents[1]  # tests/
PRIORS = {"a": ("norm", 0.0, 2.0), "d": ("norm", 0.0, 3.0)}
AT_MIRT, END_TO_END = 1e-10, 1e-4


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("factor_se")
    run_r(["Rscript", str(HERE / "r" / "reference_factor_se.R"), str(tmp / "ref.json"),
           _csv(two_factor_data(), tmp / "two.csv")], check=True)
    return json.loads((tmp / "ref.json").read_text())


def _mask(case: str) -> np.ndarray:
    if case == "cfa":
        mask = np.zeros((20, 2), dtype=bool)
        mask[:10, 0] = mask[10:, 1] = True
        return mask
    return exploratory_mask(20, 2)


def _r_arrays(r: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = np.asarray(r["a"], dtype=float)
    se = np.column_stack([np.asarray(r["se_a"], dtype=float), np.asarray(r["se_d"], dtype=float)])
    return np.nan_to_num(a), np.asarray(r["d"], dtype=float), se  # mirt's fixed slopes: 0, SE NA


def _at(case: str, a: np.ndarray, d: np.ndarray) -> FactorResult:
    data = _as_data(two_factor_data())
    return FactorResult(a=a, d=d, loglik=0.0, converged=True, iterations=1, method="quadrature", n_factors=2,
                        item_names=data.item_names, mask=_mask(case), exploratory=case != "cfa", quadpts=31,
                        data=data, priors=parse_priors(PRIORS, 20, 2) if case == "map" else None)


@pytest.mark.r
@pytest.mark.parametrize("case", ["ml", "map", "cfa"])
def test_crossprod_standard_errors_at_mirts_estimates_equal_mirts(ref, case):
    a, d, want = _r_arrays(ref[case])
    got = factor_standard_errors(_at(case, a, d)).to_numpy()
    assert np.array_equal(np.isnan(got), np.isnan(want))  # NaN exactly where mirt fixes a slope
    np.testing.assert_allclose(got, want, rtol=AT_MIRT)


@pytest.mark.r
@pytest.mark.parametrize("case", ["ml", "map", "cfa"])
def test_native_fit_and_its_standard_errors_equal_mirts(ref, case):
    r = ref[case]
    a_r, d_r, want = _r_arrays(r)
    fit = fit_factors(two_factor_data(), 2, mask=None if case != "cfa" else _mask(case), method="quadrature",
                      quadpts=31, TOL=1e-6, NCYCLES=5000, priors=PRIORS if case == "map" else None)
    assert fit.converged and r["converged"]
    assert fit.loglik == pytest.approx(r["loglik"], abs=1e-5)
    assert fit.log_prior == pytest.approx(r["logprior"], abs=1e-5)
    np.testing.assert_allclose(_signs(a_r, fit.a), a_r, atol=5e-4)
    np.testing.assert_allclose(fit.d, d_r, atol=5e-4)
    got = factor_standard_errors(fit).to_numpy()
    assert np.array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=END_TO_END)


def test_covariance_is_the_inverse_of_the_score_crossproduct_by_finite_differences():
    """The scores the information is built from are the gradients of each respondent's log marginal
    likelihood: central differences of that likelihood (an independent route) give the same information."""
    from irtbridge.em.factor_steps import Estep
    from irtbridge.em.factors import points

    a = np.array([[1.5, 0.0], [1.2, 0.3], [1.0, 0.0], [0.4, 1.5], [0.2, 1.2], [0.3, 1.0]])
    data = _as_data(simulate(300, a, np.array([0.5, -0.3, 0.0, 0.8, -0.5, 0.2]), 5, missing=0.1))
    fit = fit_factors(data, 2, method="quadrature", quadpts=11, TOL=1e-7, NCYCLES=3000)
    theta, logw = points("quadrature", 2, 11)
    free = np.hstack([fit.mask, np.ones((6, 1), dtype=bool)])
    base = np.hstack([fit.a, fit.d[:, None]])

    def marginal(flat: np.ndarray) -> np.ndarray:
        par = base.copy()
        par[free] = flat
        return Estep(data, theta, logw).posterior(par[:, :-1], par[:, -1], 0, 300)[1]

    flat, h = base[free], 1e-5
    scores = np.column_stack([(marginal(flat + h * e) - marginal(flat - h * e)) / (2 * h)
                              for e in np.eye(len(flat))])
    np.testing.assert_allclose(factor_covariance(fit), np.linalg.inv(scores.T @ scores), rtol=1e-4, atol=1e-8)


def test_a_singular_information_keeps_the_estimates_and_warns_once():
    x = np.random.default_rng(2).integers(0, 2, (12, 10)).astype(float)  # 12 respondents, 29 parameters
    fit = fit_factors(x, 2, quadpts=7, priors={"a": ("norm", 0, 2)})
    fit = FactorResult(**{**fit.__dict__, "priors": None})
    with pytest.warns(IrtBridgeWarning, match="standard errors of the 2-factor fit not computed") as seen:
        se = factor_standard_errors(fit)
    assert len(seen) == 1 and se.isna().all().all() and np.isfinite(fit.a).all()


def test_flags_read_slopes_and_the_multidimensional_difficulty():
    fit = _at("ml", np.array([[1.0, 0.5]] * 18 + [[40.0, 0.0], [0.3, 0.4]]), np.r_[np.zeros(18), 1.0, 4.0])
    flags = flag_factor_items(fit)
    assert flags.iloc[:18].eq("").all()
    assert flags.iloc[18] == "|a| > 10"
    assert flags.iloc[19] == "|b| > 6"  # MDIFF = -4 / 0.5 = -8
    se = factor_standard_errors(fit).assign(a1=np.nan, a2=np.nan, d=np.nan)
    assert flag_factor_items(fit, se).str.endswith("no finite SE").all()
