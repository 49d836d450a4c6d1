"""Issue 26, item 3: bootstrapped standard errors (``Calibration.bootstrap``, mirt's ``boot.mirt``), every
``SE.type``, fixed-item calibration (``calibrate_fixed``, mirt's ``fixedCalib``) and explanatory IRT
(``calibrate_mixed``, mirt's ``mixedmirt``), against mirt called directly in tests/r/reference_explanatory.R.

Tolerance 1e-8: the same data reach the same mirt function (with the same seed where it draws).
"""

from __future__ import annotations

import json
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


def _reference(part: str, tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp(part) / "ref.json"
    run_r(["Rscript", str(HERE / "r" / "reference_explanatory.R"), part, str(out)], check=True)
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def boot_ref(tmp_path_factory):
    return _reference("boot", tmp_path_factory)


@pytest.fixture(scope="module")
def lsat7():
    return response_dataset("LSAT7")


@pytest.fixture(scope="module")
def two(lsat7):
    return irtbridge.calibrate(lsat7, "2PL", se=False)


# -- bootstrap ------------------------------------------------------------------------------------
def test_bootstrap_equals_boot_mirt(two, boot_ref):
    table = two.bootstrap(4, seed=11)
    assert list(table.columns) == ["parnum", "value", "se", "bias", "n"]
    assert table.index.names == ["item", "parameter"]
    assert table.index[0] == ("Item.1", "a1") and table.index[-1] == ("Item.5", "d")
    np.testing.assert_allclose(table["se"], boot_ref["se"], rtol=0, atol=TOL)
    np.testing.assert_allclose(table["value"], boot_ref["value"], rtol=0, atol=TOL)
    draws = np.asarray(boot_ref["t"]).reshape(10, 4).T  # R's column-major t (4 draws x 10 parameters)
    np.testing.assert_allclose(table["bias"], draws.mean(axis=0) - np.asarray(boot_ref["t0"]), rtol=0, atol=TOL)
    assert (table["n"] == 4).all()


def test_bootstrap_draws(two, boot_ref):
    draws = two.bootstrap(4, seed=11, keep_draws=True)
    assert draws.shape == (4, 10) and list(draws.columns[:2]) == ["a1.1", "d.2"]
    np.testing.assert_allclose(draws.to_numpy().T.ravel(), boot_ref["t"], rtol=0, atol=TOL)


@pytest.mark.parametrize("kwargs, message", [
    (dict(draws=1), "draws must be an integer >= 2"),
    (dict(draws=2.5), "draws must be an integer >= 2"),
    (dict(draws=True), "draws must be an integer >= 2"),
    (dict(draws=3, seed="1"), "seed must be None or a whole number from 0 to"),
    (dict(draws=3, keep_draws="yes"), "keep_draws must be True or False"),
])
def test_bootstrap_bad_input(two, kwargs, message):
    with pytest.raises(ValidationError, match=message) as err:
        two.bootstrap(**kwargs)
    assert "\n" not in str(err.value)


def test_bootstrap_needs_a_live_mirt_fit(two):
    with pytest.raises(ValidationError, match="bootstrap needs a mirt fit made in this process"):
        two.without_r_model().bootstrap(3)


# -- SE.type --------------------------------------------------------------------------------------
@pytest.mark.parametrize("se_type", ["crossprod", "sandwich"])
def test_se_type_equals_mirt(lsat7, boot_ref, se_type):
    fit = irtbridge.calibrate(lsat7, "2PL", se=True, SE_type=se_type)
    assert fit.options["SE.type"] == se_type
    np.testing.assert_allclose(fit.vcov().to_numpy().ravel(order="F"), boot_ref[se_type], rtol=0, atol=TOL)


def test_se_type_is_checked(lsat7):
    with pytest.raises(ValidationError, match="SE_type='oakes' is not a mirt SE.type; use one of Oakes, crossprod"):
        irtbridge.calibrate(lsat7, "2PL", SE_type="oakes")


# -- fixed-item calibration -----------------------------------------------------------------------
ITEMS20 = [f"Item{i}" for i in range(1, 21)]


@pytest.fixture(scope="module")
def fixed_ref(tmp_path_factory):
    return _reference("fixed", tmp_path_factory)


@pytest.fixture(scope="module")
def forms(fixed_ref):
    old = pd.DataFrame(np.asarray(fixed_ref["dat1"]).reshape(20, 800).T, columns=ITEMS20)[ITEMS20[:12]]
    new = pd.DataFrame(np.asarray(fixed_ref["dat2"]).reshape(20, 800).T, columns=ITEMS20)[ITEMS20[4:]]
    return irtbridge.calibrate(old, "2PL", se=False), new


def _values(fit, name):
    table = fit.parameters()
    return table.loc[table["name"] == name, "value"].to_numpy(dtype=float)


def test_calibrate_fixed_equals_fixedcalib(forms, fixed_ref):
    from irtbridge.calibration import calibrate_fixed

    old, new = forms
    with pytest.warns(irtbridge.exceptions.RWarning):  # mirt: "log-likelihood may still be increasing"
        fit = calibrate_fixed(new, old)
    assert fit.item_names == ITEMS20 and fit.n_respondents == 1600
    assert fit.options["anchors"] == ITEMS20[4:12] and fit.options["PAU"] == "MWU"
    assert abs(fit.loglik - fixed_ref["loglik"]) < TOL
    np.testing.assert_allclose(_values(fit, "a1"), fixed_ref["a"], rtol=0, atol=TOL)
    np.testing.assert_allclose(_values(fit, "d"), fixed_ref["d"], rtol=0, atol=TOL)
    # the old items keep the old fit's values
    np.testing.assert_allclose(_values(fit, "d")[:12], _values(old, "d"), rtol=0, atol=TOL)


def test_calibrate_fixed_pau_nemc(forms, fixed_ref):
    from irtbridge.calibration import calibrate_fixed

    old, new = forms
    fit = calibrate_fixed(new, old, PAU="NWU", NEMC="OEM")
    assert abs(fit.loglik - fixed_ref["nwu_loglik"]) < TOL
    np.testing.assert_allclose(_values(fit, "d"), fixed_ref["nwu_d"], rtol=0, atol=TOL)


@pytest.mark.parametrize("call, message", [
    (lambda old, new: irtbridge.calibration.calibrate_fixed(new, "old"), "old_fit must be a Calibration"),
    (lambda old, new: irtbridge.calibration.calibrate_fixed(new.to_numpy(), old), "data must be a non-empty DataFrame"),
    (lambda old, new: irtbridge.calibration.calibrate_fixed(new, old, PAU="mwu"), "^PAU='mwu' is not supported; use one of 'MWU', 'OWU', 'NWU'$"),
    (lambda old, new: irtbridge.calibration.calibrate_fixed(new, old, NEMC="X"), "^NEMC='X' is not supported; use one of 'MEM', 'OEM'$"),
    (lambda old, new: irtbridge.calibration.calibrate_fixed(new[["Item13", "Item14"]], old), "data: no column is an item of old_fit"),
    (lambda old, new: irtbridge.calibration.calibrate_fixed(new, old, TOLL=1), "calibrate_fixed takes no option 'TOLL'"),
    (lambda old, new: irtbridge.calibration.calibrate_fixed(new, old.without_r_model()), "needs a mirt fit made in this process"),
    (lambda old, new: irtbridge.calibration.calibrate_fixed(new.astype(str), old), "data: column 'Item5' is not numeric"),
])
def test_calibrate_fixed_bad_input(forms, call, message):
    old, new = forms
    with pytest.raises(ValidationError, match=message) as err:
        call(old, new)
    assert "\n" not in str(err.value)


# -- mixed effects and the LLTM -------------------------------------------------------------------
@pytest.fixture(scope="module")
def mixed_ref(tmp_path_factory):
    return _reference("mixed", tmp_path_factory)


@pytest.fixture(scope="module")
def mixed_data(mixed_ref):
    data = pd.DataFrame(np.asarray(mixed_ref["data"]).reshape(10, 750).T, columns=[f"Item_{i}" for i in range(1, 11)])
    covariates = pd.DataFrame({"group": mixed_ref["group"], "pseudoIQ": mixed_ref["pseudoIQ"]})
    return data, covariates


@pytest.fixture(scope="module")
def group_fit(mixed_data):
    from irtbridge.calibration import calibrate_mixed

    data, covariates = mixed_data
    with pytest.warns(irtbridge.exceptions.RWarning, match="Continuous variables in covdata"):
        return calibrate_mixed(data, covariates, fixed="~ 0 + items + group")


@pytest.mark.slow
def test_calibrate_mixed_equals_mixedmirt(group_fit, mixed_ref):
    fit = group_fit
    assert list(fit.fixef.index) == mixed_ref["fixef_names"] == ["groupG2", "groupG3"]
    assert list(fit.fixef.columns) == ["Estimate", "Std.Error", "z.value"]
    assert abs(fit.loglik - mixed_ref["loglik"]) < TOL
    np.testing.assert_allclose(fit.fixef["Estimate"], mixed_ref["fixef"], rtol=0, atol=TOL)
    np.testing.assert_allclose(fit.fixef["Std.Error"], mixed_ref["fixef_se"], rtol=0, atol=TOL)
    assert abs(fit.random_covariances["Theta"].iloc[0, 0] - mixed_ref["theta_cov"]) < TOL
    assert fit.options["fixed"] == "~ 0 + items + group" and fit.options["covariates"] == ["group", "pseudoIQ"]
    theta = fit.randef(ndraws=60, thin=3, seed=5)["Theta"]
    np.testing.assert_allclose(theta.to_numpy().ravel(), mixed_ref["randef_theta"], rtol=0, atol=TOL)


def test_calibrate_mixed_lltm_equals_item_formula(mixed_data, mixed_ref):
    from irtbridge.calibration import calibrate_mixed

    data, _ = mixed_data
    design = pd.DataFrame({"difficulty": ["easy"] * 5 + ["hard"] * 5}, index=data.columns)
    fit = calibrate_mixed(data, item_covariates=design.iloc[::-1], item_formula="~ 0 + difficulty")  # by name
    assert list(fit.fixef.index) == ["difficultyeasy", "difficultyhard"]
    assert abs(fit.loglik - mixed_ref["lltm_loglik"]) < TOL
    np.testing.assert_allclose(fit.fixef["Estimate"], mixed_ref["lltm_fixef"], rtol=0, atol=TOL)
    np.testing.assert_allclose(fit.fixef["Std.Error"], mixed_ref["lltm_se"], rtol=0, atol=TOL)


@pytest.mark.slow
def test_calibrate_mixed_item_covariates_equal_mixedmirt(mixed_data, mixed_ref):
    from irtbridge.calibration import calibrate_mixed

    data, _ = mixed_data
    design = pd.DataFrame({"difficulty": ["easy"] * 5 + ["hard"] * 5})  # in the order of the items
    fit = calibrate_mixed(data, None, fixed="~ 0 + difficulty", item_covariates=design)
    assert fit.options["item_covariates"] == ["difficulty"] and "covariates" not in fit.options
    assert abs(fit.loglik - mixed_ref["design_loglik"]) < TOL
    np.testing.assert_allclose(fit.fixef["Estimate"], mixed_ref["design_fixef"], rtol=0, atol=TOL)
    np.testing.assert_allclose(fit.fixef["Std.Error"], mixed_ref["design_se"], rtol=0, atol=TOL)


def test_calibrate_mixed_random_intercepts_equal_mixedmirt(tmp_path_factory):
    from irtbridge.calibration import calibrate_mixed

    ref = _reference("random", tmp_path_factory)
    science = response_dataset("Science")
    fit = calibrate_mixed(science, pd.DataFrame({"group": ref["group"]}), fixed="~ 1", random="~ 1 | group",
                          itemtype="graded", se=False, draws=10)
    assert fit.fixef.empty and list(fit.fixef.columns) == ["Estimate", "Std.Error", "z.value"]
    assert fit.options["random"] == ["~ 1 | group"]
    assert abs(fit.loglik - ref["loglik"]) < TOL
    np.testing.assert_allclose(fit.parameters["value"].to_numpy(dtype=float), ref["values"], rtol=0, atol=TOL)
    assert abs(fit.random_covariances["group"].iloc[0, 0] - ref["cov_group"]) < TOL
    effects = fit.randef(ndraws=30, thin=3, seed=3)
    assert list(effects) == ["Theta", "group"] and list(effects["group"].index) == ref["randef_levels"]
    np.testing.assert_allclose(effects["group"].to_numpy().ravel(), ref["randef_group"], rtol=0, atol=TOL)


@pytest.mark.parametrize("kwargs, message", [
    (dict(fixed="~ 0 + items + nope"), "fixed: 'nope' is not a covariate"),
    (dict(fixed="group ~ items"), "fixed: write a one-sided formula"),
    (dict(fixed=3), "fixed must be formula text"),
    (dict(random="~ 1 | grp"), "random: 'grp' is not a covariate"),
    (dict(random=["~ 1 | group", 2]), "random must be formula text"),
    (dict(itemtype=["Rasch"]), r"itemtype must be a mirt item type \(e.g. 'Rasch'\) or one per item \(10\)"),
    (dict(item_formula="~ 0 + difficulty"), "item_formula needs item_covariates"),
    (dict(item_covariates=pd.DataFrame({"d": [1.0, 2.0]}), item_formula="~ d"), "item_covariates: 2 rows for 10 items"),
    (dict(item_covariates=pd.DataFrame({"d": [1.0] * 10}), item_formula="~ 0 + e"), "item_formula: 'e' is not a covariate"),
    (dict(se="yes"), "se must be True or False"),
    (dict(TOLL=1), "calibrate_mixed takes no option 'TOLL'"),
])
def test_calibrate_mixed_bad_input(mixed_data, kwargs, message):
    from irtbridge.calibration import calibrate_mixed

    data, covariates = mixed_data
    if "item_formula" in kwargs:
        covariates = None
    with pytest.raises(ValidationError, match=message) as err:
        calibrate_mixed(data, covariates, **kwargs)
    assert "\n" not in str(err.value)


def test_calibrate_mixed_formula_executes_nothing(mixed_data, tmp_path):
    from irtbridge.calibration import calibrate_mixed

    data, covariates = mixed_data
    marker = tmp_path / "ran"
    for fixed, random in ((f"~ 0 + items + system('touch {marker}')", None),
                          ("~ 0 + items", f"~ 1 | system('touch {marker}')")):
        with pytest.raises(ValidationError, match="'system' is not allowed in a (fixed|random)-effects formula"):
            calibrate_mixed(data, covariates, fixed=fixed, random=random)
    assert not marker.exists()


def test_calibrate_mixed_lltm_refuses_person_effects(mixed_data):
    from irtbridge.calibration import calibrate_mixed

    data, covariates = mixed_data
    design = pd.DataFrame({"d": [1.0] * 5 + [0.0] * 5})
    with pytest.raises(ValidationError, match="covariates: the item_formula LLTM is fitted by mirt"):
        calibrate_mixed(data, covariates, item_covariates=design, item_formula="~ d")


def test_a_mixed_fit_pickles_without_its_r_model():
    import pickle

    from irtbridge.calibration.fit.explanatory import MixedCalibration

    fit = MixedCalibration(fixef=pd.DataFrame({"est": [0.1]}), random_covariances={}, parameters=pd.DataFrame(),
                           loglik=-1.0, aic=4.0, bic=5.0, n_parameters=1, converged=True, iterations=3,
                           r_model=object())
    back = pickle.loads(pickle.dumps(fit))
    assert back.r_model is None and back.loglik == -1.0
    pd.testing.assert_frame_equal(back.fixef, fit.fixef)
