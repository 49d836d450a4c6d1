"""irtbridge.portfolio.crm: the continuous response model against EstCRM and airt called directly in R."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, optimize
from scipy.special import expit

from irtbridge.exceptions import DataWarning, ValidationError
from irtbridge.portfolio import (
    CRMCalibration,
    airt_performance,
    crm_abilities,
    crm_density,
    crm_predict,
    crm_z,
    fit_crm,
    rescale_performance,
)
from tests._rrefs import run_r

# Reference fits in a fresh R: EstCRM's own EM on the CSV the test wrote (bounds 0 and 1, airt's
# max.EMCycle = 200), EstCRMperson's latent traits, and airt::cirtmodel on data with an anomalous
# algorithm (airt's EM variant, which lets a discrimination turn negative).
R_SCRIPT = r"""
suppressMessages({library(EstCRM); library(airt)})
args <- commandArgs(TRUE)
cts <- read.csv(args[1], check.names = FALSE)
anom <- read.csv(args[2], check.names = FALSE)
n <- ncol(cts)
fit <- EstCRMitem(cts, rep(1, n), rep(0, n), max.EMCycle = 200, converge = 0.01, type = "Shojima")
persons <- EstCRMperson(cts, fit$param, rep(0, n), rep(1, n))
mod <- cirtmodel(anom, rep(1, ncol(anom)), rep(0, ncol(anom)))
out <- list(
  param = lapply(as.data.frame(fit$param), as.numeric), loglik = fit$LL,
  cycles = length(fit$iterations) - 1,
  easiness = as.numeric(persons$thetas[, 2]),
  anom_param = lapply(as.data.frame(mod$model$param), as.numeric),
  anom_anomalous = mod$anomalous, anom_consistency = as.numeric(mod$consistency),
  anom_difficulty = as.numeric(mod$difficulty_limit)
)
jsonlite::write_json(out, args[3], digits = NA, auto_unbox = TRUE)
"""


def anomalous_data(n: int = 60) -> pd.DataFrame:
    """Four algorithms that agree and one (E) that does well exactly where they fail."""
    rng = np.random.default_rng(7)
    theta = rng.normal(size=n)
    a = np.array([1.2, 0.8, 1.5, 1.0, -1.0])
    perf = expit(a[None, :] * theta[:, None] + rng.normal(scale=0.5, size=(n, 5)) + 1.0)
    return pd.DataFrame(perf.round(3), columns=list("ABCDE"))


@pytest.fixture(scope="module")
def data():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        return airt_performance("classification_cts")


@pytest.fixture(scope="module")
def ref(data, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("crm")
    data.to_csv(tmp / "cts.csv", index=False)
    anomalous_data().to_csv(tmp / "anom.csv", index=False)
    (tmp / "ref.R").write_text(R_SCRIPT)
    run_r(["Rscript", str(tmp / "ref.R"), str(tmp / "cts.csv"), str(tmp / "anom.csv"), str(tmp / "out.json")],
                   check=True, capture_output=True)
    return json.loads((tmp / "out.json").read_text())


@pytest.fixture(scope="module")
def fit(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        return fit_crm(data, 0, 1)


def _params(d: dict) -> np.ndarray:
    return np.column_stack([d["a"], d["b"], d["alpha"]])


@pytest.mark.r
def test_calibration_equals_estcrm(fit, ref):
    # airt's EM variant equals EstCRM::EstCRMitem on data that need no negative discrimination: same
    # arithmetic, so equal to 1e-6 (the tolerance; observed ~1e-13)
    np.testing.assert_allclose(fit.items.to_numpy(), _params(ref["param"]), rtol=0, atol=1e-6)
    assert fit.loglik == pytest.approx(ref["loglik"], abs=1e-6)
    assert fit.iterations == ref["cycles"] and fit.converged
    assert list(fit.items.columns) == ["a", "b", "alpha"]


@pytest.mark.r
def test_estcrm_estimator_equals_estcrm(data, ref):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        own = fit_crm(data, 0, 1, estimator="EstCRM")
    np.testing.assert_allclose(own.items.to_numpy(), _params(ref["param"]), rtol=0, atol=1e-6)


@pytest.mark.r
def test_nan_standard_errors_become_one_data_warning(data):
    # EstCRM's Hessian for QDA (a ~ 0.04) is not positive definite; R says only "NaNs produced"
    with pytest.warns(DataWarning, match="QDA"):
        fit_crm(data, 0, 1)


@pytest.mark.r
def test_scaled_fit_equals_estcrm_on_unit_data(data, ref):
    # accuracy in percent, rescaled by one common map to [0, 1]: the model sees exactly the unit data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        pct = fit_crm(data * 100.0, 0, 100, scale="single")
    np.testing.assert_allclose(pct.items.to_numpy(), _params(ref["param"]), rtol=0, atol=1e-6)
    assert (pct.max_item == 100).all() and pct.scale == "single"


@pytest.mark.r
def test_easiness_equals_estcrmperson(data, fit, ref):
    ab = crm_abilities(data, fit)
    # closed form in both; only summation order differs
    np.testing.assert_allclose(ab["easiness"], ref["easiness"], rtol=0, atol=1e-10)
    assert ab["easiness"].std(ddof=1) == pytest.approx(1.0)
    assert (ab["se"] == 1 / np.sqrt((fit.items["a"] ** 2).sum())).all()


@pytest.mark.r
def test_theta_maximizes_the_crm_likelihood(data, fit):
    # closed form check: the ML trait of a dataset maximizes sum_j log f_j(z_ij | theta)
    ab = crm_abilities(data, fit)
    z = crm_z(data.to_numpy(), 0.0, 1.0)
    for i in (0, 17, 100):
        nll = lambda t: -np.log(np.diagonal(crm_density([t], z[i], fit)[:, :, 0])).sum()  # noqa: E731
        best = optimize.minimize_scalar(nll, bounds=(-8, 8), method="bounded", options={"xatol": 1e-10})
        assert ab["theta"].iloc[i] == pytest.approx(best.x, abs=1e-6)


@pytest.mark.r
def test_anomalous_algorithm_matches_airt_cirtmodel(ref):
    own = fit_crm(anomalous_data(), 0, 1)
    np.testing.assert_allclose(own.items.to_numpy(), _params(ref["anom_param"]), rtol=0, atol=1e-6)
    assert (own.items["a"] < 0).astype(int).tolist() == ref["anom_anomalous"] == [0, 0, 0, 0, 1]
    np.testing.assert_allclose(1 / own.items["a"].abs(), ref["anom_consistency"], rtol=1e-9)
    np.testing.assert_allclose(-own.items["b"], ref["anom_difficulty"], rtol=1e-9)


@pytest.mark.r
def test_estcrm_estimator_refuses_negative_discrimination():
    with pytest.raises(ValidationError, match="estimator='airt'"):
        fit_crm(anomalous_data(), 0, 1, estimator="EstCRM")


def _toy(a=1.5, b=-0.5, alpha=1.2) -> CRMCalibration:
    return CRMCalibration(
        items=pd.DataFrame({"a": [a], "b": [b], "alpha": [alpha]}, index=["A"]),
        standard_errors=None, min_item=pd.Series([0.0], index=["A"]), max_item=pd.Series([1.0], index=["A"]),
        loglik=0.0, iterations=1, converged=True, estimator="airt", n_datasets=0,
    )


def test_crm_z_moves_boundary_values_like_estcrm():
    # closed form: v = 0 -> 0.01, v = M -> M - 0.01, then log(v / (M - v))
    z = crm_z(np.array([[0.0, 1.0, 0.25]]), 0.0, 1.0)
    np.testing.assert_allclose(z, [[np.log(0.01 / 0.99), np.log(0.99 / 0.01), np.log(1 / 3)]], rtol=1e-14)


@settings(max_examples=30, deadline=None)
@given(a=st.floats(0.2, 4) | st.floats(-4, -0.2), b=st.floats(-2, 2), alpha=st.floats(0.3, 3),
       theta=st.floats(-3, 3))
def test_density_integrates_to_one_and_predict_is_its_median(a, b, alpha, theta):
    alpha = alpha if a > 0 else -alpha  # airt's variant flips a and alpha together
    cal = _toy(a, b, alpha)
    f = lambda z: crm_density([theta], [z], cal)[0, 0, 0]  # noqa: E731
    centre, sd = alpha * (theta - b), abs(alpha / a)
    total = integrate.quad(f, centre - 12 * sd, centre + 12 * sd, points=[centre], limit=200)[0]
    assert total == pytest.approx(1.0, abs=1e-7)
    median_u = crm_predict([theta], cal, normalized=True)[0, 0]
    below = integrate.quad(f, centre - 12 * sd, np.log(median_u / (1 - median_u)), limit=200)[0]
    assert below == pytest.approx(0.5, abs=1e-7)


def test_predict_in_data_units():
    cal = _toy()
    cal = CRMCalibration(**{**cal.__dict__, "min_item": pd.Series([10.0], index=["A"]),
                            "max_item": pd.Series([20.0], index=["A"])})
    out = crm_predict(pd.Series([0.3], index=["d1"]), cal)
    assert isinstance(out, pd.DataFrame) and list(out.index) == ["d1"]
    assert out.iloc[0, 0] == pytest.approx(10 + 10 * expit(1.2 * 0.8))


def test_rescale_performance_closed_form():
    x = pd.DataFrame({"A": [50.0, 100.0], "B": [80.0, 90.0]}, index=["d1", "d2"])
    np.testing.assert_allclose(rescale_performance(x, "single", 0, 100), [[0.5, 0.8], [1.0, 0.9]])
    np.testing.assert_allclose(rescale_performance(x, "multiple"), [[0.0, 0.0], [1.0, 1.0]])
    assert list(rescale_performance(x, "single", 0, 100).index) == ["d1", "d2"]


# -- bad input: one test per class; all raised before R is started -----------------------------------
def _good(n=12):
    rng = np.random.default_rng(0)
    return pd.DataFrame(rng.uniform(0.2, 0.9, size=(n, 3)), columns=["A", "B", "C"])


def test_value_above_max_item_is_an_error():
    with pytest.raises(ValidationError, match=r"above the bound max_item.*'B'.*0.5"):
        fit_crm(_good(), 0, {"A": 1, "B": 0.5, "C": 1})


def test_value_below_min_item_is_an_error():
    with pytest.raises(ValidationError, match="below the bound min_item"):
        fit_crm(_good(), [0, 0, 0.5], 1)


def test_non_numeric_column_is_an_error():
    bad = _good().assign(C=["x"] * 12)
    with pytest.raises(ValidationError, match="non-numeric column.*'C'"):
        fit_crm(bad, 0, 1)


def test_too_few_algorithms_is_an_error():
    with pytest.raises(ValidationError, match="at least 2"):
        fit_crm(_good()[["A"]], 0, 1)


def test_too_few_datasets_is_an_error():
    with pytest.raises(ValidationError, match="at least 10"):
        fit_crm(_good(9), 0, 1)


def test_missing_value_is_an_error():
    bad = _good()
    bad.iloc[3, 1] = np.nan
    with pytest.raises(ValidationError, match="missing or infinite"):
        fit_crm(bad, 0, 1)


def test_constant_algorithm_is_an_error():
    with pytest.raises(ValidationError, match="'B'.*identically"):
        fit_crm(_good().assign(B=0.5), 0, 1)


def test_narrow_bounds_are_an_error():
    with pytest.raises(ValidationError, match="span only"):
        fit_crm(_good() / 100, 0, 0.015)


def test_bad_bound_shape_is_an_error():
    with pytest.raises(ValidationError, match="2 value"):
        fit_crm(_good(), 0, [1, 1])


def test_min_not_below_max_is_an_error():
    with pytest.raises(ValidationError, match="min_item must be below max_item"):
        fit_crm(_good(), 0.9, 0.9)


def test_importing_the_portfolio_does_not_load_r(fresh_python):
    code = ("import sys, irtbridge.portfolio, irtbridge.portfolio.plots, irtbridge.cli.portfolio; "
            "print('rpy2' in sys.modules, 'irtbridge._r.session' in sys.modules)")
    out = fresh_python.run(code, check=True).stdout
    assert out.split() == ["False", "False"]
