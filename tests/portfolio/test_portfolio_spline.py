"""irtbridge.portfolio.spline: penalized cubic regression splines against mgcv::gam."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irtbridge.exceptions import ValidationError
from irtbridge.portfolio.spline import PenalizedSpline, penalized_spline, place_knots
from tests._rrefs import run_r

# mgcv fits y ~ s(x, bs) with REML and GCV on data written by the test; predictions on an 80-point grid,
# the summed edf (+1 for the intercept is already in sum(edf)) and the scale estimate.
MGCV_SCRIPT = r"""
suppressMessages(library(mgcv))
args <- commandArgs(TRUE)
d <- read.csv(args[1])
g <- data.frame(x = seq(min(d$x), max(d$x), length.out = 80))
out <- list(grid = g$x, knots = as.numeric(quantile(unique(d$x), seq(0, 1, length = 10))))
for (bs in c("cr", "cs")) for (m in c("REML", "GCV.Cp")) {
  f <- gam(y ~ s(x, bs = bs), data = d, method = m)
  out[[paste(bs, m, sep = "_")]] <- list(pred = as.numeric(predict(f, g)), edf = sum(f$edf), sig2 = f$sig2)
}
sm <- smoothCon(s(x, bs = "cr"), d, absorb.cons = FALSE, scale.penalty = FALSE)[[1]]
out$outside <- as.numeric(PredictMat(sm, data.frame(x = c(min(d$x) - 1, max(d$x) + 0.7))) %*% seq_len(10))
out$inside <- as.numeric(PredictMat(sm, data.frame(x = g$x[c(3, 40, 77)])) %*% seq_len(10))
jsonlite::write_json(out, args[2], digits = NA, auto_unbox = TRUE)
"""


@pytest.fixture(scope="module")
def mgcv(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mgcv")
    rng = np.random.default_rng(20240601)
    x = rng.normal(size=150)
    y = np.sin(2 * x) + 0.3 * x + rng.normal(scale=0.4, size=150)
    pd.DataFrame({"x": x, "y": y}).to_csv(tmp / "in.csv", index=False)
    (tmp / "fit.R").write_text(MGCV_SCRIPT)
    run_r(["Rscript", str(tmp / "fit.R"), str(tmp / "in.csv"), str(tmp / "out.json")], check=True,
                   capture_output=True)
    return x, y, json.loads((tmp / "out.json").read_text())


@pytest.mark.r
def test_knots_are_mgcv_quantiles(mgcv):
    x, _, ref = mgcv
    np.testing.assert_allclose(place_knots(x, 10), ref["knots"], rtol=0, atol=1e-14)


@pytest.mark.r
def test_basis_matches_mgcv_inside_and_outside_the_knots(mgcv):
    x, y, ref = mgcv
    fit = penalized_spline(x, y, shrink=None)
    # a spline whose knot values are 1..10, evaluated through our basis and mgcv's PredictMat
    probe = PenalizedSpline(fit.knots, np.arange(1.0, 11.0), 0.0, 0.0, 0.0, 0.0, "REML", None, 0, fit._F)
    grid = np.asarray(ref["grid"])
    np.testing.assert_allclose(probe(grid[[2, 39, 76]]), ref["inside"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(probe(np.array([x.min() - 1, x.max() + 0.7])), ref["outside"], rtol=0, atol=1e-12)


@pytest.mark.r
@pytest.mark.parametrize("method, rmethod", [("REML", "REML"), ("GCV", "GCV.Cp")])
def test_cr_fit_equals_mgcv(mgcv, method, rmethod):
    x, y, ref = mgcv
    fit = penalized_spline(x, y, method=method, shrink=None)
    r = ref[f"cr_{rmethod}"]
    # mgcv's Newton iteration on log(lambda) stops at its own convergence tolerance; 1e-5 on fitted
    # values (the response has sd ~1) is far below any visible or decision-relevant difference.
    np.testing.assert_allclose(fit(np.asarray(ref["grid"])), r["pred"], rtol=0, atol=1e-5)
    assert fit.edf == pytest.approx(r["edf"], abs=1e-4)
    assert fit.scale == pytest.approx(r["sig2"], rel=1e-4)


@pytest.mark.r
@pytest.mark.parametrize("method, rmethod", [("REML", "REML"), ("GCV", "GCV.Cp")])
def test_cs_fit_close_to_mgcv(mgcv, method, rmethod):
    x, y, ref = mgcv
    fit = penalized_spline(x, y, method=method, shrink=0.1)
    # Not equal by design: mgcv shrinks the penalty's null space along whatever rotation of it LAPACK
    # returns (a numerically arbitrary choice); irtbridge fixes that basis. The effect is a tiny extra
    # penalty on the linear part; measured 2e-4 here, bounded at 2e-3.
    np.testing.assert_allclose(fit(np.asarray(ref["grid"])), ref[f"cs_{rmethod}"]["pred"], rtol=0, atol=2e-3)


def test_series_in_series_out():
    x = np.linspace(0, 1, 30)
    fit = penalized_spline(x, np.cos(3 * x))
    s = pd.Series([0.1, 0.5], index=["a", "b"], name="t")
    out = fit(s)
    assert isinstance(out, pd.Series) and list(out.index) == ["a", "b"] and out.name == "t"
    assert isinstance(fit(np.array([0.2])), np.ndarray)


def test_cr_reproduces_a_straight_line():
    # closed form: a straight line lies in the penalty's null space, so the cr fit is the line itself
    x = np.linspace(-2, 3, 40)
    fit = penalized_spline(x, 2.0 * x + 1.0, shrink=None)
    np.testing.assert_allclose(fit(np.array([-1.5, 0.0, 2.5])), [-2.0, 1.0, 6.0], atol=1e-8)


finite = st.floats(-5, 5, allow_nan=False)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.data_too_large])
@given(shift=finite, factor=st.floats(0.1, 10), seed=st.integers(0, 2**16))
def test_fit_is_equivariant_to_affine_changes_of_y(shift, factor, seed):
    # REML and the spline space are invariant to y -> factor * y + shift (the intercept is unpenalized)
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, 50)
    y = np.sin(x) + rng.normal(scale=0.3, size=50)
    grid = np.linspace(-1.5, 1.5, 7)
    base = penalized_spline(x, y)(grid)
    moved = penalized_spline(x, factor * y + shift)(grid)
    np.testing.assert_allclose(moved, factor * base + shift, rtol=1e-6, atol=1e-6 * (1 + abs(shift)))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.data_too_large])
@given(shift=finite, factor=st.floats(0.2, 5), seed=st.integers(0, 2**16))
def test_fit_is_equivariant_to_affine_changes_of_x(shift, factor, seed):
    # knots are quantiles and the penalty scales by a constant, absorbed by lambda
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, 50)
    y = np.cos(x) + rng.normal(scale=0.3, size=50)
    grid = np.linspace(-1.5, 1.5, 7)
    base = penalized_spline(x, y)(grid)
    moved = penalized_spline(factor * x + shift, y)(factor * grid + shift)
    np.testing.assert_allclose(moved, base, rtol=1e-6, atol=1e-6)


def test_too_few_distinct_x_is_an_error():
    with pytest.raises(ValidationError, match="9 distinct"):
        penalized_spline(np.repeat(np.arange(9.0), 3), np.arange(27.0))


def test_missing_values_are_an_error():
    x = np.linspace(0, 1, 20)
    y = np.sin(x)
    y[3] = np.nan
    with pytest.raises(ValidationError, match="finite"):
        penalized_spline(x, y)


def test_lengths_must_match():
    with pytest.raises(ValidationError, match="same length"):
        penalized_spline(np.arange(20.0), np.arange(19.0))


def test_unknown_method_is_an_error():
    with pytest.raises(ValidationError, match="method='ML'"):
        penalized_spline(np.arange(20.0), np.arange(20.0), method="ML")
