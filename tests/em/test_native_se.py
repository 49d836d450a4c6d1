"""Standard errors of the native engine (irtbridge.em.se) against mirt's ``SE.type = "crossprod"``.

Both sides fit with 61 nodes at TOL = 1e-8 (tests/r/reference_native_se.R), so their estimates agree to
about 1e-7, and compute the same quantity (the inverse of the summed outer products of the respondents'
score vectors, then the delta method to ``b = -d / a``). An SE moves by about its own size times the
relative change of the estimates, so 1e-5 relative is far above the expected difference (observed: 1e-8 to
5e-7; 2e-6 for the Rasch model, whose latent variance mirt stops 1.4e-5 from ours even at TOL = 1e-10, at a
log-likelihood 6e-9 below ours) and far below what a wrong formula gives (dropping the covariance term of
the delta method moves LSAT7's first SE(b) by a third). Data: LSAT7 (2PL, Rasch with its free variance,
1PL), a simulated 2PL with 50% of the cells missing (sparse layout) and Science (graded).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import irtbridge
from irtbridge.example_data import response_dataset
from irtbridge.exceptions import IrtBridgeWarning, ValidationError
from test_native_em import _simulated
from tests._rrefs import run_r

HERE = Path(__file__).resolve().parents[1]  # tests/
DATA = {"lsat7": lambda: response_dataset("LSAT7"), "missing": _simulated,
        "science": lambda: response_dataset("Science")}
CASES = {"lsat7_2PL": ("lsat7", "2PL"), "lsat7_rasch": ("lsat7", "rasch"), "lsat7_1PL": ("lsat7", "1PL"),
         "missing_2PL": ("missing", "2PL"), "science_graded": ("science", "graded")}


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("se")
    _simulated().to_csv(tmp / "missing.csv", index=False, na_rep="NA")
    run_r(["Rscript", str(HERE / "r" / "reference_native_se.R"), str(tmp / "ref.json"),
                    str(tmp / "missing.csv")], check=True)
    return json.loads((tmp / "ref.json").read_text())


@pytest.mark.r
@pytest.mark.parametrize("case", list(CASES))
def test_native_crossprod_se_equals_mirt(ref, case):
    name, model = CASES[case]
    fit = irtbridge.calibrate(DATA[name](), model, engine="native", TOL=1e-8, quadpts=61,
                              technical={"NCYCLES": 20000})
    r = ref[case]
    expected = np.array([[np.nan if v is None else v for v in row] for row in r["se"]], dtype=float)
    got = fit.standard_errors[r["columns"]].to_numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_allclose(got[~np.isnan(got)], expected[~np.isnan(expected)], rtol=1e-5, atol=0)
    assert fit.options["SE.type"] == "crossprod" and not fit.warnings


def test_too_many_parameters_leave_nan_with_one_warning(monkeypatch):
    import irtbridge.calibration.engines.native as native

    monkeypatch.setattr(native, "MAX_SE_PARAMETERS", 5)
    x = _simulated(200, 6, 0.0, seed=2)
    with pytest.warns(IrtBridgeWarning, match="12 parameters") as caught:
        fit = irtbridge.calibrate(x, "2PL", engine="native", se=True)
    assert len([w for w in caught if issubclass(w.category, IrtBridgeWarning)]) == 1
    assert fit.standard_errors.isna().all().all() and fit.items["a"].notna().all()
    assert fit.warnings and "12 parameters" in fit.warnings[0]
    later = irtbridge.calibrate(x, "2PL", engine="native")  # the same rule at the first access
    assert not later.warnings
    with pytest.warns(IrtBridgeWarning, match="12 parameters") as caught:
        assert later.standard_errors.isna().all().all() and later.standard_errors.isna().all().all()
    assert len([w for w in caught if issubclass(w.category, IrtBridgeWarning)]) == 1
    assert later.warnings == fit.warnings
    assert irtbridge.calibrate(x, "2PL", engine="native", se=False).standard_errors.isna().all().all()


def test_only_crossprod_is_offered():
    with pytest.raises(ValidationError, match="crossprod"):
        irtbridge.calibrate(_simulated(100, 5, 0.0), "2PL", engine="native", SE_type="Oakes")


def test_no_more_respondents_than_parameters_leave_nan_with_the_reason():
    x = _simulated(200, 8, 0.0, seed=4).iloc[:12]  # 16 parameters, 12 respondents: a singular information
    x = x.loc[:, x.min() != x.max()]
    fit = irtbridge.calibrate(x, "2PL", engine="native", technical={"NCYCLES": 50})
    with pytest.warns(IrtBridgeWarning, match="singular"):
        assert fit.standard_errors.isna().all().all()
    assert np.isfinite(fit.items["a"]).all()
