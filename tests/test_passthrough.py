"""The typed passthrough (issue 26 item 1): irtbridge.mirt / irtbridge.ltm against the same calls in R.

Every expected value comes from R itself: fixed R code run through rpy2 in this process (the datasets
are R's own, so no test data crosses from Python into that code). Calls that move data from Python to
R and back are compared exactly; calls that refit a model in both places to 1e-8.
"""

from __future__ import annotations

import pickle
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import irtbridge
from irtbridge.calibration import Calibration, GroupCalibration
from irtbridge.example_data import r_dataset, response_dataset
from irtbridge.exceptions import RError, RWarning, UnknownRFunctionError, ValidationError

TOL = 1e-8
SAT12_KEY = [1, 4, 5, 2, 3, 1, 2, 1, 3, 1, 2, 4, 2, 1, 5, 3, 4, 4, 1, 4, 3, 3, 4, 1, 3, 5, 1, 3, 1, 5, 4, 5]
LSAT_GROUPS = 'rep(c("even", "odd"), 500)'


def r(code: str):
    """Evaluate fixed R code (mirt attached) in R's global environment, through rpy2."""
    import rpy2.robjects as ro

    return ro.r(f"suppressPackageStartupMessages(library(mirt)); {code}")


def r_array(code: str) -> np.ndarray:
    return np.array(r(code), dtype=float)


def r_names(code: str) -> list[str]:
    return [str(x) for x in r(code)]


@pytest.fixture(scope="module")
def lsat():
    return response_dataset("LSAT7")


@pytest.fixture(scope="module")
def science():
    return response_dataset("Science")


@pytest.fixture(scope="module")
def science_fit(science):
    # mirt::Science: ltm ships a factor-coded Science too, which a bare name finds once ltm is attached
    r('pt_sci <- mirt(mirt::Science, 1, itemtype = "graded", SE = TRUE, verbose = FALSE)')
    return irtbridge.calibrate(science, "graded", se=True)  # SE = TRUE as in R: condnum reads the information matrix


# --- names -------------------------------------------------------------------------------------------
def test_private_names_never_start_r(fresh_python):
    code = ("import sys, irtbridge.mirt as m\n"
            "for name in ('_x', '__wrapped__', 'pytest_mock_example_attribute_that_shouldnt_exist'):\n"
            "    assert not hasattr(m, name)\n"
            "assert 'rpy2' not in sys.modules")
    fresh_python.run(code, check=True)


@pytest.mark.r
def test_dir_lists_every_exported_function():
    exported = r_names('n <- getNamespaceExports("mirt"); n <- n[!startsWith(n, ".__")]; '
                       'sort(n[vapply(n, function(x) is.function(getExportedValue("mirt", x)), TRUE)])')
    listed = dir(irtbridge.mirt)
    assert {n.replace(".", "_") for n in exported} <= set(listed)
    assert irtbridge.mirt.extract_mirt.r_name == "extract.mirt"
    assert getattr(irtbridge.mirt, "extract.mirt") is irtbridge.mirt.extract_mirt
    assert "cronbach_alpha" in dir(irtbridge.ltm)


@pytest.mark.r
def test_an_unknown_name_is_one_attribute_error_with_close_names():
    with pytest.raises(UnknownRFunctionError) as err:
        irtbridge.mirt.DFR  # noqa: B018
    assert isinstance(err.value, AttributeError)
    message = str(err.value)
    assert "\n" not in message and "'DFR'" in message and "DRF" in message
    assert not hasattr(irtbridge.mirt, "no_such_function")


# --- results against R ----------------------------------------------------------------------------------
@pytest.mark.r
def test_key2binary_on_sat12_raw_data():
    raw = r_dataset("mirt", "SAT12")
    scored = irtbridge.mirt.key2binary(raw, SAT12_KEY)
    key = ", ".join(map(str, SAT12_KEY))
    expected = r_array(f"key2binary(SAT12, c({key}))")
    assert isinstance(scored, pd.DataFrame) and scored.shape == expected.shape == (600, 32)
    np.testing.assert_array_equal(scored.to_numpy(dtype=float), expected)
    assert list(scored.columns) == r_names(f"colnames(key2binary(SAT12, c({key})))")


@pytest.mark.r
def test_simdata_with_a_seed():
    a = np.array([[1.0], [1.5], [0.7], [1.2]])
    d = np.array([[0.0], [-1.0], [0.5], [1.5]])
    simulated = irtbridge.mirt.simdata(a=a, d=d, N=500, itemtype="dich", seed=11)
    expected = r_array('set.seed(11); simdata(a = matrix(c(1, 1.5, 0.7, 1.2)), d = matrix(c(0, -1, 0.5, 1.5)), '
                       'N = 500, itemtype = "dich")')
    np.testing.assert_array_equal(simulated.to_numpy(dtype=float), expected)
    assert list(simulated.columns) == ["Item_1", "Item_2", "Item_3", "Item_4"]


@pytest.mark.r
def test_drf_and_dtf_on_a_group_calibration(lsat):
    group_fit = irtbridge.calibrate_groups(lsat, ["even", "odd"] * 500, "2PL",
                                           invariance=[*lsat.columns[:3], "free_means", "free_var"])
    assert isinstance(group_fit, GroupCalibration)
    r(f'pt_mg <- multipleGroup(expand.table(LSAT7), 1, {LSAT_GROUPS}, SE = TRUE, verbose = FALSE, '
      'invariance = c("Item.1", "Item.2", "Item.3", "free_means", "free_var"))')
    drf = irtbridge.mirt.DRF(group_fit)
    expected = r("as.data.frame(DRF(pt_mg))")
    for col in ("sDRF", "uDRF", "dDRF"):
        assert drf[col].iloc[0] == pytest.approx(float(expected.rx2(col)[0]), abs=TOL)
    per_item = irtbridge.mirt.DRF(group_fit, DIF=True)
    np.testing.assert_allclose(per_item["sDIF"], r_array('DRF(pt_mg, DIF = TRUE)$sDIF'), rtol=0, atol=TOL)
    dtf = irtbridge.mirt.DTF(group_fit)
    np.testing.assert_allclose(np.asarray(dtf, dtype=float), r_array("DTF(pt_mg)"), rtol=0, atol=TOL)


@pytest.mark.r
def test_a_multiple_group_model_comes_back_as_a_group_calibration(lsat):
    fit = irtbridge.mirt.multipleGroup(lsat, 1, group=["even", "odd"] * 500,
                                       invariance=["slopes", "intercepts", "free_means", "free_var"])
    assert isinstance(fit, GroupCalibration) and fit.groups == ("even", "odd")
    r(f'pt_mg2 <- multipleGroup(expand.table(LSAT7), 1, {LSAT_GROUPS}, verbose = FALSE, '
      'invariance = c("slopes", "intercepts", "free_means", "free_var"))')
    assert fit.latent_means["odd"] == pytest.approx(float(r("coef(pt_mg2, simplify = TRUE)$odd$means")[0]), abs=TOL)
    np.testing.assert_allclose(fit.items["odd"]["a"], r_array("coef(pt_mg2, IRTpars = TRUE, simplify = TRUE)$odd$items[, 'a']"),
                               rtol=0, atol=TOL)
    assert fit.invariance == ("slopes", "intercepts", "free_means", "free_var")
    assert fit.loglik == pytest.approx(float(r('extract.mirt(pt_mg2, "logLik")')[0]), abs=TOL)


@pytest.mark.r
def test_fscores_of_a_calibration_with_dotted_arguments(lsat):
    fit = irtbridge.calibrate(lsat, "2PL")
    scores = irtbridge.mirt.fscores(fit, method="WLE", full_scores_SE=True)
    expected = r_array('fscores(mirt(expand.table(LSAT7), 1, itemtype = "2PL", SE = TRUE, verbose = FALSE), '
                       'method = "WLE", full.scores.SE = TRUE)')
    assert list(scores.columns) == ["F1", "SE_F1"]
    np.testing.assert_allclose(scores.to_numpy(), expected, rtol=0, atol=1e-6)


@pytest.mark.r
def test_m2_c2_residuals_ldg2_and_condnum(science_fit):
    m2 = irtbridge.mirt.M2(science_fit, type="C2")
    expected = r('M2(pt_sci, type = "C2")')
    assert list(m2.columns) == r_names('colnames(M2(pt_sci, type = "C2"))') and list(m2.index) == ["stats"]
    np.testing.assert_allclose(m2.to_numpy(dtype=float)[0], np.array(r("unlist")(expected), dtype=float),
                               rtol=0, atol=TOL)
    ldg2 = irtbridge.mirt.residuals(science_fit, type="LDG2")
    np.testing.assert_allclose(ldg2.to_numpy(), r_array('residuals(pt_sci, type = "LDG2", verbose = FALSE)'),
                               rtol=0, atol=1e-6)
    assert list(ldg2.index) == list(ldg2.columns) == list(science_fit.item_names)
    condnum = irtbridge.mirt.extract_mirt(science_fit, "condnum")
    assert isinstance(condnum, float)
    assert condnum == pytest.approx(float(r('extract.mirt(pt_sci, "condnum")')[0]), rel=1e-6)


@pytest.mark.r
def test_a_fitted_mirt_model_comes_back_as_a_calibration(lsat):
    fit = irtbridge.mirt.mirt(lsat, 1, itemtype="2PL")
    assert isinstance(fit, Calibration) and fit.model == "2PL" and fit.engine == "mirt"
    r('pt_2pl <- mirt(expand.table(LSAT7), 1, itemtype = "2PL", verbose = FALSE)')
    expected = r_array("coef(pt_2pl, IRTpars = TRUE, simplify = TRUE)$items")
    np.testing.assert_allclose(fit.items.to_numpy(), expected, rtol=0, atol=TOL)
    assert fit.item_names == list(lsat.columns) and fit.n_respondents == 1000
    assert fit.loglik == pytest.approx(float(r('extract.mirt(pt_2pl, "logLik")')[0]), abs=TOL)
    assert fit.standard_errors.isna().all().all()  # SE = FALSE, as in R
    # the Calibration holds the live model: irtbridge's own methods work on it
    np.testing.assert_allclose(fit.abilities()["theta"], r_array("fscores(pt_2pl)[, 1]"), rtol=0, atol=TOL)


@pytest.mark.r
def test_opaque_objects_go_back_in_and_shapes_come_out(science):
    spec = irtbridge.mirt.mirt_model("F = 1-4")
    assert isinstance(spec, irtbridge._r.RObject) and "mirt.model" in spec.r_class
    fit = irtbridge.mirt.mirt(science, spec, itemtype="graded")
    r('pt_spec <- mirt(mirt::Science, mirt.model("F = 1-4"), itemtype = "graded", verbose = FALSE)')
    assert fit.loglik == pytest.approx(float(r('extract.mirt(pt_spec, "logLik")')[0]), abs=TOL)
    coef = irtbridge.mirt.coef(fit, simplify=True)  # a list -> dict of DataFrames
    assert set(coef) == {"items", "means", "cov"} and isinstance(coef["items"], pd.DataFrame)
    mdisc = irtbridge.mirt.MDISC(fit)  # a named vector -> Series
    assert isinstance(mdisc, pd.Series) and list(mdisc.index) == list(science.columns)
    np.testing.assert_allclose(mdisc.to_numpy(), r_array("MDISC(pt_spec)"), rtol=0, atol=TOL)
    theta = irtbridge.mirt.fscores(fit, full_scores=True)
    assert theta.shape == (392, 1)


@pytest.mark.r
def test_ltm_functions_on_ltm_objects(lsat):
    rasch = irtbridge.ltm.rasch(lsat)
    assert isinstance(rasch, irtbridge._r.RObject) and "rasch" in rasch.r_class
    scores = irtbridge.ltm.factor_scores(rasch, method="EB")
    expected = r("ltm::factor.scores(ltm::rasch(expand.table(LSAT7)), method = 'EB')$score.dat$z1")
    np.testing.assert_allclose(scores["score.dat"]["z1"], np.array(expected), rtol=0, atol=TOL)
    alpha = irtbridge.ltm.cronbach_alpha(lsat)
    assert alpha["alpha"] == pytest.approx(float(r("ltm::cronbach.alpha(expand.table(LSAT7))$alpha")[0]), abs=TOL)


# --- errors, warnings, data safety ---------------------------------------------------------------------
@pytest.mark.r
def test_r_errors_and_warnings_follow_the_house_rules(lsat):
    single = irtbridge.calibrate(lsat, "2PL", se=False)
    r('pt_single <- mirt(expand.table(LSAT7), 1, verbose = FALSE)')
    with pytest.raises(RError) as err:
        irtbridge.mirt.DRF(single)
    assert err.value.r_message == str(r("tryCatch(DRF(pt_single), error = conditionMessage)")[0])
    assert "\n" not in str(err.value)
    expected = r_names('w <- character(); withCallingHandlers(mirt(mirt::Science, 2, verbose = FALSE, '
                       'technical = list(NCYCLES = 5)), warning = function(x) { w <<- c(w, conditionMessage(x)); '
                       'invokeRestart("muffleWarning") }); w')
    assert expected  # R warns here; irtbridge must say the same, once each, at this line
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        irtbridge.mirt.mirt(response_dataset("Science"), 2, technical={"NCYCLES": 5})
    said = [w for w in caught if issubclass(w.category, RWarning)]
    assert [str(w.message) for w in said] == [f"R: {m}" for m in expected]
    assert all(w.filename == __file__ for w in said)


@pytest.mark.r
@pytest.mark.parametrize("value, where", [({1, 2}, "argument 'method'"), (object(), "argument 'method'"),
                                          (np.zeros((2, 2, 2)), "argument 'method'")])
def test_bad_argument_types_are_one_line_validation_errors(lsat, value, where):
    fit = irtbridge.calibrate(lsat, "2PL", se=False)
    with pytest.raises(ValidationError) as err:
        irtbridge.mirt.fscores(fit, method=value)
    assert "\n" not in str(err.value) and where in str(err.value) and "irtbridge.mirt.fscores" in str(err.value)


@pytest.mark.r
def test_a_fit_without_its_r_model_is_a_one_line_error(lsat):
    fit = pickle.loads(pickle.dumps(irtbridge.calibrate(lsat, "2PL", se=False)))
    with pytest.raises(ValidationError, match="argument 1: this Calibration holds no live R model"):
        irtbridge.mirt.fscores(fit)


@pytest.mark.r
def test_names_and_levels_with_r_syntax_travel_verbatim_and_run_nothing(tmp_path):
    marker = tmp_path / "ran"
    evil = [f'x"); file.create("{marker}"); ("', f"`{{file.create('{marker}')}}`", "a b", "1st"]
    raw = pd.DataFrame({name: [1, 2, 3, 1] for name in evil})
    scored = irtbridge.mirt.key2binary(raw, [1, 2, 3, 1])
    assert list(scored.columns) == evil
    expected = r_array("key2binary(data.frame(a = c(1, 2, 3, 1), b = c(1, 2, 3, 1), c = c(1, 2, 3, 1), "
                       "d = c(1, 2, 3, 1)), c(1, 2, 3, 1))")
    np.testing.assert_array_equal(scored.to_numpy(dtype=float), expected)
    # a factor level is data too: likert2int orders the levels and codes them
    levels = pd.DataFrame({evil[0]: pd.Categorical([f'system("touch {marker}")', "b", "b"])})
    coded = irtbridge.mirt.likert2int(levels)
    assert list(coded.columns) == [evil[0]]
    np.testing.assert_array_equal(coded.iloc[:, 0].to_numpy(dtype=float),
                                  r_array('likert2int(data.frame(q = factor(c("system(x)", "b", "b"))))$q'))
    assert not marker.exists()


@pytest.mark.r
def test_missing_values_reach_r_as_na():
    raw = pd.DataFrame({"i1": [1.0, np.nan, 2.0], "i2": pd.array([2, 2, None], dtype="Int64")})
    scored = irtbridge.mirt.key2binary(raw, [1, 2])
    expected = r_array("1.0 * key2binary(data.frame(i1 = c(1, NA, 2), i2 = c(2, 2, NA)), c(1, 2))")
    np.testing.assert_array_equal(scored.to_numpy(dtype=float), expected)


@pytest.mark.slow
def test_a_values_table_goes_back_to_mirt_with_its_attributes(lsat):
    # mirt checks the 'itemtype' attribute of a pars = "values" table handed back to mdirt; a data.frame's
    # attributes and class vector travel in DataFrame.attrs and are restored on the way in
    values = irtbridge.mirt.mdirt(lsat, 2, pars="values")
    assert "itemtype" in values.attrs["r_attributes"]
    fit = irtbridge.mirt.mdirt(lsat, 2, pars=values)
    expected = r("d <- expand.table(LSAT7); logLik(mdirt(d, 2, pars = mdirt(d, 2, pars = 'values', verbose = FALSE), "
                 "verbose = FALSE))")
    assert float(irtbridge.mirt.logLik(fit)) == pytest.approx(float(expected[0]), rel=1e-10)
    sv = irtbridge.mirt.mirt(lsat, 1, pars="values")
    assert sv.attrs["r_class"] == ["mirt_df", "data.frame"]


# --- keywords against the formals of the method R dispatches to (issue 34 item 2) -------------------------
@pytest.mark.r
@pytest.mark.parametrize("call, refused, suggested", [
    (lambda d, fit: irtbridge.mirt.mirt(d, 1, tol=1e-2), "tol", "'TOL'"),
    (lambda d, fit: irtbridge.mirt.fscores(fit, full_scores_se=True), "full_scores_se", "'full.scores.SE'"),
    (lambda d, fit: irtbridge.mirt.M2(fit, typ="C2"), "typ", "'type'"),
    (lambda d, fit: irtbridge.mirt.fscores(fit, bogus_arg=1), "bogus_arg", "its arguments: object, method"),
], ids=["mirt-tol", "fscores-full_scores_se", "M2-typ", "fscores-bogus_arg"])
def test_a_keyword_no_formal_takes_is_refused_with_close_names(lsat, call, refused, suggested):
    fit = irtbridge.calibrate(lsat, "2PL", se=False)
    with pytest.raises(ValidationError, match=rf"takes no argument '{refused}'; .*{re.escape(suggested)}") as info:
        call(lsat, fit)
    assert "\n" not in str(info.value)


@pytest.mark.r
def test_formals_are_those_of_the_method_r_dispatches_to(lsat):
    """coef on a MultipleGroupClass is that class's coef method, whose formals (R's own, asked here with
    getMethod) have no as.data.frame; SingleGroupClass's method (its .local function) has it."""
    from irtbridge._r.passthrough import accepted_names

    group_fit = irtbridge.mirt.multipleGroup(lsat, 1, group=["even", "odd"] * 500)
    single_fit = irtbridge.calibrate(lsat, "2PL", se=False)
    group_formals = r_names('names(formals(getMethod("coef", "MultipleGroupClass")))')
    single_formals = r_names('m <- getMethod("coef", "SingleGroupClass"); names(formals(body(m)[[2]][[3]]))')
    assert "as.data.frame" not in group_formals and "as.data.frame" in single_formals
    assert set(accepted_names("mirt", "coef", group_fit.r_model)) == set(group_formals) - {"..."}
    assert set(single_formals) - {"..."} <= set(accepted_names("mirt", "coef", single_fit.r_model))
    assert set(accepted_names("mirt", "fscores", single_fit.r_model)) == set(r_names("names(formals(fscores))")) - {"..."}
    table = irtbridge.mirt.coef(single_fit, as_data_frame=True)
    expected = r_array('coef(mirt(expand.table(LSAT7), 1, "2PL", verbose = FALSE), as.data.frame = TRUE)')
    np.testing.assert_allclose(table.to_numpy(dtype=float).ravel(), expected.ravel(), rtol=0, atol=1e-6)


@pytest.mark.r
def test_allow_extra_hands_a_keyword_to_the_functions_dots(lsat):
    """mirt()'s `...` reaches its estimation routine: those names pass (and are domain-checked); any other
    name passes only with allow_extra=True, as R would take it."""
    fit = irtbridge.mirt.mirt(lsat, 1, SEtol=1e-4, D=1.0)
    assert fit.loglik == pytest.approx(float(r('extract.mirt(mirt(expand.table(LSAT7), 1, verbose = FALSE), '
                                               '"logLik")')[0]), abs=1e-6)
    group_fit = irtbridge.mirt.multipleGroup(lsat, 1, group=["even", "odd"] * 500)
    by_group = irtbridge.mirt.coef(group_fit, allow_extra=True, **{"as.data.frame": True})
    expected = r_array(f'coef(multipleGroup(expand.table(LSAT7), 1, {LSAT_GROUPS}, verbose = FALSE), '
                       'as.data.frame = TRUE)$odd')
    np.testing.assert_allclose(by_group["odd"].to_numpy(dtype=float).ravel(), expected.ravel(), rtol=0, atol=1e-6)
    with pytest.raises(ValidationError, match="allow_extra must be True or False"):
        irtbridge.mirt.coef(group_fit, allow_extra="yes")


# --- keywords a function's ... hands on (issue 40 item 4) ---------------------------------------------------
@pytest.mark.r
def test_itemfit_and_residuals_take_what_their_dots_hand_to_fscores(science_fit):
    """mirt's itemfit and residuals score the respondents with fscores(x, ...): fscores' formals pass."""
    fit_table = irtbridge.mirt.itemfit(science_fit, QMC=True)
    np.testing.assert_allclose(fit_table["S_X2"], r_array("itemfit(pt_sci, QMC = TRUE)$S_X2"), rtol=0, atol=1e-8)
    q3 = irtbridge.mirt.residuals(science_fit, type="Q3", method="MAP")  # method is fscores', not residuals'
    np.testing.assert_allclose(q3.to_numpy(), r_array('residuals(pt_sci, type = "Q3", method = "MAP", verbose = FALSE)'),
                               rtol=0, atol=1e-8)
    # M2's ... reaches its local M2internal (not fscores): use_dentype_estimate passes, fscores' names do not
    m2 = irtbridge.mirt.M2(science_fit, type="C2", use_dentype_estimate=False)
    expected = float(r("M2(pt_sci, type = 'C2', use_dentype_estimate = FALSE)$M2")[0])
    assert m2.loc["stats", "M2"] == pytest.approx(expected, abs=1e-8)
    for call, bad in ((lambda: irtbridge.mirt.itemfit(science_fit, QMCC=True), "QMCC"),
                      (lambda: irtbridge.mirt.M2(science_fit, full_scores=True), "full_scores")):
        with pytest.raises(ValidationError, match=f"takes no argument '{bad}'"):
            call()
    with pytest.raises(ValidationError, match="QMC='yes' is outside its domain"):
        irtbridge.mirt.itemfit(science_fit, QMC="yes")  # a forwarded name's domain is checked too


@pytest.mark.r
def test_a_group_method_takes_the_keywords_of_each_groups_method(lsat):
    """coef, summary and residuals of a MultipleGroupClass (formals object, ...) call the same generic on
    each group: the SingleGroupClass method's keywords pass."""
    group_fit = irtbridge.calibrate_groups(lsat, ["even", "odd"] * 500, "2PL")
    r(f'pt_mgse <- multipleGroup(expand.table(LSAT7), 1, {LSAT_GROUPS}, SE = TRUE, verbose = FALSE)')
    with_se = irtbridge.mirt.coef(group_fit, printSE=True, IRTpars=True)
    for group in ("even", "odd"):
        for item in lsat.columns[:2]:
            np.testing.assert_allclose(with_se[group][item].to_numpy(dtype=float),
                                       r_array(f'coef(pt_mgse, printSE = TRUE, IRTpars = TRUE)${group}$"{item}"'),
                                       rtol=0, atol=1e-6)
    ld = irtbridge.mirt.residuals(group_fit, type="LD", df_p=True)
    np.testing.assert_allclose(ld["odd"]["LD"].to_numpy(dtype=float),
                               r_array('residuals(pt_mgse, type = "LD", df.p = TRUE)$odd$LD'),
                               rtol=0, atol=1e-8)
    with pytest.raises(ValidationError, match="takes no argument 'printSEE'; did you mean 'printSE'"):
        irtbridge.mirt.coef(group_fit, printSEE=True)
