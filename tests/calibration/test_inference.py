"""Inference on a mirt Calibration (issue 26, item 3): vcov, Wald tests, coefficients with SEs and CIs,
the condition number, profile-likelihood CIs, Lagrange tests, MDISC/MDIFF, test information in a
direction, M2 type C2 and LDG2 residuals, against mirt called directly in tests/r/reference_inference.R.

Tolerance 1e-8: the same model reaches the same mirt function. The fits whose standard errors are
deferred (the default ``se=None``) compute them by irtbridge's one-EM-cycle route, whose estimates agree
with mirt's ``SE = TRUE`` fit to 1e-9: the information matrix read from it is held to 1e-8 as well.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irtbridge
from irtbridge.example_data import response_dataset
from irtbridge.exceptions import ValidationError
from tests._rrefs import run_r

pytestmark = pytest.mark.r
HERE = Path(__file__).resolve().parents[1]  # tests/
TOL = 1e-8
NAN = float("nan")


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    out = tmp_path_factory.mktemp("inference") / "ref.json"
    run_r(["Rscript", str(HERE / "r" / "reference_inference.R"), "inference", str(out)], check=True)
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def lsat7():
    return response_dataset("LSAT7")


@pytest.fixture(scope="module")
def two_se(lsat7):
    return irtbridge.calibrate(lsat7, "2PL", se=True)


@pytest.fixture(scope="module")
def three(lsat7):
    return irtbridge.calibrate(lsat7, "3PL")  # SEs deferred: computed by the first method that needs them


@pytest.fixture(scope="module")
def sci():
    return irtbridge.calibrate(response_dataset("Science"), "graded", se=False)


@pytest.fixture(scope="module")
def sci2():
    return irtbridge.calibrate(response_dataset("Science"), "graded", dims=2, se=False)


def _close(got, expected, tol=TOL):
    expected = np.asarray([NAN if v is None else v for v in np.ravel(np.asarray(expected, dtype=object))], dtype=float)
    np.testing.assert_allclose(np.ravel(np.asarray(got, dtype=float)), expected, rtol=0, atol=tol, equal_nan=True)


def test_vcov_and_condition_number(ref, two_se, three):
    v = two_se.vcov()
    assert list(v.columns) == list(v.index) == ref["vcov_names"]
    _close(v, ref["vcov"])
    assert two_se.condition_number == pytest.approx(ref["condnum"], abs=TOL)
    assert not three.standard_errors_computed
    _close(three.vcov(), ref["vcov3"])  # computes the deferred SEs first
    assert three.standard_errors_computed
    assert three.condition_number == pytest.approx(ref["condnum3"], rel=TOL)
    # a copy of the live fit (as the benchmark modes make) keeps the model its SEs came from
    _close(three._replace(warnings=()).vcov(), ref["vcov3"])
    # the model holding the information matrix stays in this process: a pickled fit has none
    with pytest.raises(ValidationError, match="live R model"):
        pickle.loads(pickle.dumps(three)).vcov()


def test_wald(ref, two_se):
    L = np.zeros((2, 10))
    L[0, [0, 2]] = 1, -1
    L[1, [1, 9]] = 1, -1
    got = two_se.wald(L)
    for key in ("W", "df", "p"):
        assert got[key] == pytest.approx(ref["wald"][key], abs=TOL)
    # the same contrast by mirt's parameter names; the rest weigh 0
    named = pd.DataFrame([[1.0, -1.0, 0.0, 0.0], [0.0, 0.0, 1.0, -1.0]], columns=["a1.1", "a1.5", "d.2", "d.18"])
    assert two_se.wald(named)["W"] == pytest.approx(ref["wald"]["W"], abs=TOL)
    first = np.r_[1.0, np.zeros(9)]
    assert two_se.wald(first, C=[1.0])["W"] == pytest.approx(ref["wald_c"]["W"], abs=TOL)


def test_coefficients(ref, two_se, three, lsat7):
    for got, r in ((two_se.coefficients(), ref["coef_si"]), (three.coefficients(irt=True, ci=0.9), ref["coef_irt90"]),
                   (three.coefficients(), ref["coef_si3"])):
        assert list(got.index.get_level_values("parameter")) == r["parameter"]
        for col in ("value", "se", "lower", "upper"):
            _close(got[col], r[col])
    table = two_se.coefficients()
    assert list(table.index.get_level_values("item").unique()) == [*lsat7.columns, "GroupPars"]
    no_se = irtbridge.calibrate(lsat7, "2PL", se=False).coefficients()
    _close(no_se["value"], ref["coef_nose"])
    assert no_se[["se", "lower", "upper"]].isna().all().all()


@pytest.mark.slow
def test_profile_ci_and_lagrange(ref, lsat7):
    fit = irtbridge.calibrate(lsat7, "2PL", se=False)
    got = fit.profile_ci([1, 6], alpha=0.1)
    assert list(got.columns) == ["item", "class", "name", "parnum", "value", "lower", "upper", "lower_converged",
                                 "upper_converged"]
    for mine, theirs in (("value", "value"), ("lower", "lower_5"), ("upper", "upper_95"), ("parnum", "parnum")):
        _close(got[mine], ref["plci"][theirs])
    assert list(got["name"]) == ref["plci"]["parnam"]
    rasch = irtbridge.calibrate(lsat7, "rasch", se=False)
    single, joint = rasch.lagrange([1, 5]), rasch.lagrange([[1, 5]])
    assert list(single.index) == ["1", "5"] and list(joint.index) == ["1.5"]
    for got, r in ((single, ref["lagrange"]), (joint, ref["lagrange_joint"])):
        for col in ("X2", "df", "p"):
            _close(got[col], r[col])


def test_mdisc_mdiff_and_directional_information(ref, sci, sci2, two_se):
    assert list(sci.mdisc().index) == sci.item_names
    _close(sci.mdisc(), ref["mdisc"])
    _close(sci.mdiff(), ref["mdiff"])
    _close(sci2.mdisc(), ref["mdisc2"])
    _close(sci2.mdiff(), ref["mdiff2"])
    _close(two_se.test_information([-2, 0, 1.5]), ref["testinfo"])
    got = two_se.test_information(pd.Series([-2, 0, 1.5], index=list("abc")), items=["Item.2", "Item.4"])
    assert list(got.index) == list("abc")
    _close(got, ref["testinfo_items"])
    grid = np.array([(x, y) for y in (-2, 0.5) for x in (-1, 0, 2)], dtype=float)
    _close(sci2.test_information(grid, degrees=[30, 60]), ref["testinfo2"])


def test_c2_and_ldg2(ref, sci):
    got = sci.global_fit(type="C2")
    for key, value in ref["c2"].items():
        assert got[key] == pytest.approx(value, abs=TOL)
    _close(sci.residuals("LDG2"), ref["ldg2"])


@pytest.mark.parametrize("call, message", [
    (lambda f: f.wald(np.ones((1, 3))), "L must be a finite matrix with 10 columns"),
    (lambda f: f.wald(pd.DataFrame({"a1.99": [1.0]})), "L: column 'a1.99' is not an estimated parameter"),
    (lambda f: f.wald(np.ones(10), C=[1, 2]), "C must be 1 finite number"),
    (lambda f: f.coefficients(ci=1.5), "ci must be < 1.0"),
    (lambda f: f.coefficients(irt="yes"), "irt must be True or False"),
    (lambda f: f.profile_ci([3]), "parnum: 3 is not an estimated parameter"),
    (lambda f: f.profile_ci(["a1"]), "parnum must be mirt parameter numbers"),
    (lambda f: f.profile_ci([1], alpha=0), "alpha must be > 0.0"),
    (lambda f: f.lagrange([1]), "parnum: 1 is not a fixed parameter"),
    (lambda f: f.lagrange([]), "parnum is empty"),
    (lambda f: f.test_information([0.0], degrees=[30]), "degrees is for models with several factors"),
    (lambda f: f.test_information([[0.0, 1.0]]), "theta must be finite and have 1 column"),
    (lambda f: f.test_information([0.0], items=["Item.9"]), "items: 'Item.9' is not an item"),
    (lambda f: f.global_fit(type="C3"), "type='C3' is not supported"),
    (lambda f: f.residuals("G2"), "kind='G2' is not supported"),
])
def test_bad_arguments_are_one_line_errors(two_se, call, message):
    with pytest.raises(ValidationError, match=message) as info:
        call(two_se)
    assert "\n" not in str(info.value)


def test_several_factors_need_a_direction(sci2):
    with pytest.raises(ValidationError, match="degrees is required"):
        sci2.test_information(np.zeros((2, 2)))
    with pytest.raises(ValidationError, match="degrees must be 2 finite angles"):
        sci2.test_information(np.zeros((2, 2)), degrees=[30])


def test_no_information_matrix_is_a_one_line_error(lsat7, sci):
    for call in (sci.vcov, lambda: sci.condition_number, lambda: sci.wald(np.ones(16))):
        with pytest.raises(ValidationError, match="se=False: refit with se=True"):
            call()
    pickled = irtbridge.calibrate(lsat7, "2PL", se=True).without_r_model()
    with pytest.raises(ValidationError, match="live R model"):
        pickled.vcov()
    ltm = irtbridge.calibrate(lsat7, "2PL", engine="ltm", se=False)
    with pytest.raises(ValidationError, match="engine 'ltm'"):
        ltm.vcov()
    with pytest.raises(ValidationError, match="mdisc needs a mirt fit"):
        ltm.mdisc()
