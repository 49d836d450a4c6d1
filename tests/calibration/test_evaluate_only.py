"""mirt's ``TOL = NaN`` and ``TOL = NA`` (issue 40 item 4): every door that takes ``TOL`` admits what mirt
documents (``?mirt``: ``NaN`` evaluates the model at its starting or given values without estimating, ``NA``
does so without the log-likelihood), each compared with the same call made in R directly; the doors whose
R function cannot do it refuse it in one line before R runs (mirt 1.48's ``multipleGroup`` and ``mdirt``
return ``NULL`` for ``TOL = NA``; ``mixedmirt`` and ``method = "MHRM"`` stop on either).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import irtbridge
from irtbridge import calibrate, calibrate_groups
from irtbridge.calibration import calibrate_classes, calibrate_mixed
from irtbridge._r import session
from irtbridge.example_data import response_dataset
from irtbridge.exceptions import ValidationError

NAN, NA = float("nan"), pd.NA


def r(code: str):
    """Evaluate fixed R code (mirt attached) in R's global environment, through rpy2."""
    import rpy2.robjects as ro

    return ro.r(f"suppressPackageStartupMessages(library(mirt)); {code}")


def r_array(code: str) -> np.ndarray:
    return np.array(r(code), dtype=float)


@pytest.fixture(scope="module")
def lsat():
    return response_dataset("LSAT7")


@pytest.fixture(scope="module")
def science():
    return response_dataset("Science")


@pytest.mark.r
@pytest.mark.parametrize("tol, r_tol", [(NAN, "NaN"), (NA, "NA")], ids=["NaN", "NA"])
def test_calibrate_evaluates_the_starting_values_as_mirt(lsat, tol, r_tol):
    fit = calibrate(lsat, "2PL", se=False, TOL=tol)
    r(f"ev_m <- mirt(expand.table(LSAT7), 1, TOL = {r_tol}, verbose = FALSE)")
    expected = r_array("coef(ev_m, IRTpars = TRUE, simplify = TRUE)$items[, c('a', 'b')]")
    np.testing.assert_allclose(fit.items[["a", "b"]].to_numpy(), expected, rtol=1e-10, atol=1e-12)
    loglik = r_array("logLik(ev_m)")[0]
    if r_tol == "NA":  # no log-likelihood, as in R
        assert np.isnan(loglik) and np.isnan(fit.loglik)
    else:
        assert fit.loglik == pytest.approx(loglik, rel=1e-10)
    # the starting values, not an estimate: a real fit ends elsewhere
    assert fit.loglik != pytest.approx(calibrate(lsat, "2PL", se=False).loglik, rel=1e-6)
    assert fit.to_json()  # the option survives the fit's JSON (NA as null)


@pytest.mark.r
def test_calibrate_groups_with_tol_nan_is_mirts_test_00(science):
    half = len(science) // 2
    fit = calibrate_groups(science, ["G1"] * half + ["G2"] * half, "graded", se=False, TOL=NAN)
    r("ev_g <- rep(c('G1', 'G2'), each = nrow(Science) / 2); "
      "ev_mg <- multipleGroup(Science, 1, group = ev_g, TOL = NaN, verbose = FALSE)")
    assert fit.loglik == pytest.approx(r_array("logLik(ev_mg)")[0], rel=1e-10)
    expected = r_array("coef(ev_mg, IRTpars = TRUE, simplify = TRUE)$G2$items")
    np.testing.assert_allclose(fit.items["G2"].to_numpy(), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.r
def test_calibrate_classes_with_tol_nan(lsat):
    fit = calibrate_classes(lsat, 2, TOL=NAN)
    assert fit.loglik == pytest.approx(r_array("logLik(mdirt(expand.table(LSAT7), 2, TOL = NaN, verbose = FALSE))")[0],
                                       rel=1e-10)


@pytest.mark.r
def test_the_passthrough_hands_nan_and_na_to_r_as_such(lsat):
    """A lone float NaN is R's NaN and pandas.NA R's logical NA (NA_real_ would be neither of mirt's idioms)."""
    from irtbridge._r import passthrough

    with session._LOCK:
        session._start()
        ri = session._STATE["ri"]
        nan, na = passthrough.to_r_value(NAN), passthrough.to_r_value(NA)
        assert bool(ri.baseenv["is.nan"](nan)[0]) and ri.baseenv["typeof"](nan)[0] == "double"
        assert bool(ri.baseenv["is.na"](na)[0]) and ri.baseenv["typeof"](na)[0] == "logical"
        missing = passthrough.to_r_value(np.array([1.0, NAN]))  # in a vector NaN stays a missing value
        assert list(ri.baseenv["is.nan"](missing)) == [False, False] and bool(ri.baseenv["is.na"](missing)[1])
    # TOL = NA through mirt() itself: the starting values, no log-likelihood
    fit = irtbridge.mirt.mirt(lsat, 1, TOL=NA)
    np.testing.assert_allclose(fit.items[["a", "b"]].to_numpy(),
                               r_array("coef(mirt(expand.table(LSAT7), 1, TOL = NA, verbose = FALSE), IRTpars = TRUE, "
                                       "simplify = TRUE)$items[, c('a', 'b')]"), rtol=1e-10)
    assert np.isnan(fit.loglik)


@pytest.fixture
def no_r(monkeypatch):
    def refuse(fun, /, **kwargs):
        raise AssertionError(f"R was called ({fun})")

    monkeypatch.setattr(session, "call", refuse)


REFUSED = {
    "calibrate_groups: NA (mirt returns no model)": (
        lambda d: calibrate_groups(d, ["x", "y"] * 500, "2PL", TOL=NA), "TOL=<NA> is outside its domain"),
    "calibrate_classes: NA (mirt returns no model)": (lambda d: calibrate_classes(d, 2, TOL=NA), "TOL=<NA>"),
    "calibrate_mixed: NaN (MH-RM stops)": (
        lambda d: calibrate_mixed(d, TOL=NAN), "mixedmirt's MH-RM stops"),
    "native engine: NaN": (lambda d: calibrate(d, "2PL", engine="native", TOL=NAN), "needs engine='mirt'"),
    "method MHRM: NaN": (lambda d: calibrate(d, "2PL", method="MHRM", TOL=NAN), "method='MHRM'"),
    "SE_type SEM: NA": (lambda d: calibrate(d, "2PL", SE_type="SEM", TOL=NA), "SE_type='SEM'"),
    "a negative TOL still": (lambda d: calibrate(d, "2PL", TOL=-1e-4), "TOL=-0.0001 is outside its domain"),
    "infinity still": (lambda d: calibrate_groups(d, ["x", "y"] * 500, "2PL", TOL=float("inf")), "TOL=inf"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(REFUSED))
def test_doors_that_cannot_evaluate_refuse_before_r(lsat, no_r, name):
    call, fragment = REFUSED[name]
    with pytest.raises(ValidationError) as err:
        call(lsat)
    message = str(err.value)
    assert "\n" not in message and "TOL" in message and fragment in message, message
