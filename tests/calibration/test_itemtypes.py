"""mirt's item types by name and the options they bring (issue 26, item 3): ``calibrate`` with mirt 1.48's
item types, nested logit items with ``key=``, ``gpcm_mats=``, ``monopoly_k``, ``method=`` and ``seed=``,
each against the same plain mirt call in tests/r/reference_itemtypes.R; and every bad input refused in one
line before R is asked anything.

Tolerance 1e-8: the same deterministic computation in both processes (MCEM too: both seed R's generator
through mirt's ``technical$set.seed``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irtbridge import calibrate, calibrate_groups, parameter_table
from irtbridge._r import session
from irtbridge.calibration import Calibration, score_key
from irtbridge.calibration.inputs.itemtypes import ITEMTYPES, REFUSED, item_type_options
from irtbridge.example_data import r_dataset, response_dataset
from irtbridge.exceptions import ValidationError
from tests._rrefs import run_r

HERE = Path(__file__).resolve().parents[1]  # tests/
TOL = 1e-8
KEY = [1, 4, 5, 2, 3, 1, 2, 1, 3, 1]


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    out = tmp_path_factory.mktemp("itemtypes") / "ref.json"
    run_r(["Rscript", str(HERE / "r" / "reference_itemtypes.R"), str(out)], check=True)
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def lsat():
    return response_dataset("LSAT7")


@pytest.fixture(scope="module")
def science():
    return response_dataset("Science")


@pytest.fixture(scope="module")
def raw():
    """SAT12's first ten items: five as answered (8 = not answered), five scored against the key."""
    answers = r_dataset("mirt", "SAT12").iloc[:, :10].astype(float)
    answers = answers.where(answers != 8)
    answers.iloc[:, 5:] = score_key(answers.iloc[:, 5:], KEY[5:]).to_numpy()
    return answers


def _same(fit: Calibration, expected: dict) -> None:
    """The fit equals mirt's: log-likelihood, parameter count, item table, parameter values, first scores."""
    assert fit.loglik == pytest.approx(expected["loglik"], abs=TOL)
    assert fit.n_parameters == expected["n_parameters"]
    assert list(fit.items.columns) == list(expected["items"])
    for col, values in expected["items"].items():
        want = np.array([np.nan if v is None else v for v in values], dtype=float)
        np.testing.assert_allclose(fit.items[col].to_numpy(), want, rtol=TOL, atol=TOL, equal_nan=True, err_msg=col)
    np.testing.assert_allclose(fit.parameters()["value"].to_numpy(), expected["values"], rtol=TOL, atol=TOL)
    np.testing.assert_allclose(fit.abilities()["theta"].to_numpy()[:5], expected["theta"], rtol=TOL, atol=TOL)


@pytest.mark.r
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::irtbridge.exceptions.ConvergenceWarning")  # 3PLu, 5PL: 500 cycles
@pytest.mark.parametrize("itemtype", ["3PLu", "5PL", "CLL", "ULL", "ideal", "hcm", "spline", "monopoly"])
def test_dichotomous_item_types_by_name(ref, lsat, itemtype):
    fit = calibrate(lsat, itemtype, se=False)
    assert fit.model == itemtype
    _same(fit, ref[f"lsat_{itemtype}"])


@pytest.mark.r
@pytest.mark.slow
@pytest.mark.parametrize("itemtype", ["gpcmIRT", "grsmIRT", "sequential", "Tutz"])
def test_polytomous_item_types_by_name(ref, science, itemtype):
    _same(calibrate(science, itemtype.lower(), se=False), ref[f"science_{itemtype}"])  # any case


@pytest.mark.r
@pytest.mark.slow
def test_mixed_item_types_with_mirt_spellings(ref, science):
    fit = calibrate(science, ["graded", "graded", "Rasch", "ggum"], se=False)
    assert fit.item_types == ("graded", "graded", "rasch", "ggum")
    _same(fit, ref["science_mixed"])


@pytest.mark.r
@pytest.mark.slow
def test_nested_logit_items_with_a_key(ref, raw):
    types = ["2PLNRM"] * 5 + ["2PL"] * 5
    _same(calibrate(raw, types, key=KEY, se=False), ref["nrm2"])
    # a mapping naming only the nested logit items: the others need none
    by_item = {c: k for c, k in zip(raw.columns[:5], KEY[:5])}
    assert calibrate(raw, types, key=by_item, se=False).loglik == pytest.approx(ref["nrm2"]["loglik"], abs=TOL)
    _same(calibrate(raw, ["3PLNRM"] * 2 + ["2PLNRM"] * 3 + ["2PL"] * 5, key=np.array(KEY), se=False), ref["nrm3"])


@pytest.mark.r
@pytest.mark.slow
def test_gpcm_mats_one_item_others_standard(ref, science):
    fit = calibrate(science, ["gpcm", "gpcm", "graded", "graded"], gpcm_mats={"Comfort": [0, 2, 3, 5]}, se=False)
    _same(fit, ref["gpcm_mats"])
    assert json.loads(fit.to_json())["options"]["gpcm_mats"][0] == [[0.0], [2.0], [3.0], [5.0]]


@pytest.mark.r
@pytest.mark.slow
def test_monopoly_degree(ref, lsat):
    _same(calibrate(lsat, "monopoly", monopoly_k=2, se=False), ref["monopoly_k2"])


@pytest.mark.r
@pytest.mark.slow
def test_methods_and_seed(ref, lsat):
    with pytest.warns(Warning):  # 30 MCEM cycles: mirt says the log-likelihood may still be increasing
        fit = calibrate(lsat, "2PL", method="MCEM", seed=3, technical={"NCYCLES": 30}, se=False)
    _same(fit, ref["mcem_seed"])
    assert fit.options["method"] == "MCEM" and fit.options["technical"] == {"NCYCLES": 30, "set.seed": 3}
    _same(calibrate(lsat, "2PL", method="bl", se=False), ref["bl"])


@pytest.mark.r
@pytest.mark.slow
def test_groups_and_parameter_table_take_mirt_item_types(ref, lsat, science):
    groups = ["a", "b"] * 500
    gfit = calibrate_groups(lsat, groups, "ideal", invariance=[*lsat.columns, "free_means", "free_var"], se=False)
    assert gfit.loglik == pytest.approx(ref["groups_ideal"]["loglik"], abs=TOL)
    assert gfit.latent_means["b"] == pytest.approx(ref["groups_ideal"]["means"], abs=TOL)
    table = parameter_table(science, "grsmIRT")
    np.testing.assert_allclose(table["value"].to_numpy(), ref["values_grsmIRT"], rtol=TOL, atol=TOL)


@pytest.mark.r
def test_parameter_names_checked_before_the_fit(lsat, raw):
    """mirt's pars = "values" of the same call (item types, key) decides which parameters exist."""
    with pytest.raises(ValidationError, match=r"priors: a prior on 'g' of item 'Item.1', but the ideal model .* "
                                              r"has no such parameter \(its parameters: a1, d\)"):
        calibrate(lsat, "ideal", priors={"g": ("norm", 0, 1)})
    with pytest.raises(ValidationError, match=r"spec: a prior on 'g' of item 'Item.1', but the per-item model .* "
                                              r"does not estimate it"):
        calibrate(raw, ["2PLNRM"] * 5 + ["2PL"] * 5, key=KEY, spec="F = 1-10\nPRIOR = (1, g, norm, 0, 1)")


# --- refused before R runs ----------------------------------------------------------------------------
@pytest.fixture
def no_r(monkeypatch):
    def refuse(fun, /, **kwargs):
        raise AssertionError(f"R was called ({fun})")

    monkeypatch.setattr(session, "call", refuse)


def _small(binary: bool = False):
    if binary:
        return pd.DataFrame({"q1": [1, 0, 1, 1, 0], "q2": [0, 1, 1, 0, 1], "q3": [0, 1, 0, 1, 1]}, dtype=float)
    return pd.DataFrame({"q1": [1, 2, 3, 1, 2], "q2": [0, 1, 1, 0, 1], "q3": [0, 1, 2, 2, 1]}, dtype=float)


@pytest.mark.parametrize("model, message", [
    ("lca", r"model='lca' is not fitted by calibrate: latent class models are mirt's mdirt\(\)"),
    ("LCA", "irtbridge.mirt.mdirt"),
    ("experimental", "createItem"),
    (["2PL", "2PL", "experimental"], "createItem"),
    ("fivePL", "use '5PL'"),
    ("9PL", r"model='9PL' is not supported; use one of .*'ideal'"),
])
def test_refused_item_types(no_r, model, message):
    with pytest.raises(ValidationError, match=message) as err:
        calibrate(_small(), model)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("kwargs, message", [
    (dict(model=["2PLNRM", "2PL", "2PL"]), r"key: nested logit item\(s\) 'q1' \(2PLNRM\) need key="),
    (dict(model="2PL", key=[1, 1, 1]), "no item is a nested logit item .*score_key"),
    (dict(model=["2PLNRM", "2PL", "2PL"], key=[1, 1]), "key: 2 entries for 3 items"),
    (dict(model=["2PLNRM", "2PL", "2PL"], key=[4, None, None]), r"item 'q1' has key 4, which is not one of its answers \(1, 2, 3\)"),
    (dict(model=["2PLNRM", "2PL", "2PL"], key={"q9": 1}), "key: 'q9' is not an item"),
    (dict(model=["2PLNRM", "2PL", "2PL"], key={"q2": 1}), "nested logit item 'q1' .* has no key"),
    (dict(model=["2PLNRM", "2PL", "2PL"], key=["A", None, None]), "keys are the numeric answer codes"),
    (dict(model="graded", gpcm_mats=[[0, 1, 2], None, None]), "item 'q1' is a graded item; scoring matrices apply"),
    (dict(model="gpcm", gpcm_mats=[[0, 1], None, None]), "item 'q1' has 3 categories; its scoring matrix has 2 rows"),
    (dict(model="gpcm", gpcm_mats=[np.zeros((3, 1)), None, np.zeros((3, 2))]), r"have \[1, 2\] columns"),
    (dict(model="gpcm", gpcm_mats=[None, None, None]), "no item has a scoring matrix"),
    (dict(model="gpcm", gpcm_mats=[[0, 1, np.nan], None, None]), "finite 2-D array"),
    (dict(model="2PL", monopoly_k=2), "monopoly_k: no item is 'monopoly'"),
    (dict(model="monopoly", monopoly_k=0), "monopoly_k must be a positive integer"),
    (dict(model="2PL", spline_args={"q1": {"df": 4}}), "spline_args: no item is 'spline' or 'monospline'"),
    (dict(model=["spline", "2PL", "2PL"], spline_args={"q2": {"df": 4}}), "'q2' is not a spline"),
    (dict(model="2PL", method="Newton"), r"method='Newton' is not supported; use one of 'EM', 'QMCEM'"),
    (dict(model="2PL", engine="ltm", method="MHRM"), "engine='ltm' takes no estimation method"),
    (dict(model="2PL", engine="native", method="MHRM"), "engine='native' does not take option method='MHRM' \\(it estimates by EM only\\)"),
    (dict(model="2PL", seed=-1), "seed must be a whole number from 0 to"),
    (dict(model="2PL", seed=1.5), "seed must be a whole number from 0 to"),
    (dict(model="2PL", seed=1, technical={"set.seed": 2}), "seed: given twice"),
    (dict(model="2PL", engine="ltm", seed=1), "seed: engine='ltm' takes no seed"),
    (dict(model="2PL", engine="ltm", key=[1, 1, 1]), "key: engine='ltm' takes no key"),
    (dict(model="ideal", engine="ltm"), "engine 'ltm' does not fit model 'ideal'; use engine='mirt'"),
    (dict(model="ideal", engine="native"), "engine 'native' does not fit model 'ideal'; use engine='mirt'"),
])
def test_item_type_options_checked(no_r, kwargs, message):
    data = _small(binary=kwargs.get("model") == "2PL")  # 0/1 for the dichotomous model
    with pytest.raises(ValidationError, match=message) as err:
        calibrate(data, **kwargs)
    assert "\n" not in str(err.value)


def test_group_fits_check_method_and_item_type_options(no_r):
    data = _small(binary=True)
    with pytest.raises(ValidationError, match="method='Newton' is not supported"):
        calibrate_groups(data, ["a", "b", "a", "b", "a"], "2PL", method="Newton")
    with pytest.raises(ValidationError, match="key: no item is a nested logit item"):
        calibrate_groups(data, ["a", "b", "a", "b", "a"], "2PL", key=[1, 1, 1])


def test_per_item_entries_follow_dropped_items():
    """A key (or list of matrices) in column order counts the items as given; dropped items fall out."""
    x = np.array([[1, 0], [2, 1], [3, 1]], dtype=float)
    out = item_type_options({"key": [9, None, 1]}, "mixed", ["2PL", "2PLNRM"], x, ["q2", "q3"],
                            ["q1", "q2", "q3"])
    np.testing.assert_array_equal(out["key"], [np.nan, 1.0])
    mats = item_type_options({"gpcm_mats": {"q2": [0, 2, 3]}}, "gpcm", None, x, ["q2", "q3"], ["q1", "q2", "q3"])
    np.testing.assert_array_equal(mats["gpcm_mats"][0], [[0], [2], [3]])
    np.testing.assert_array_equal(mats["gpcm_mats"][1], [[0], [1]])  # the standard scoring of a 2-category item


def test_every_mirt_item_type_is_accepted_or_refused_by_name():
    """mirt 1.48's list (mirt:::Valid_iteminputs()): each is an irtbridge model, fitted by mirt's name, or
    refused in one line; the lower-case spellings of class names (cll, ull) are mirt's own types."""
    mirt_148 = ["Rasch", "1PL", "2PL", "3PL", "3PLu", "4PL", "5PL", "CLL", "ULL", "graded", "grsm", "gpcm",
                "gpcmIRT", "PCgraded", "rsm", "nominal", "PC1PL", "PC2PL", "PC3PL", "2PLNRM", "3PLNRM", "3PLuNRM",
                "4PLNRM", "ideal", "lca", "spline", "monospline", "monopoly", "ggum", "sequential", "Tutz",
                "experimental", "grsmIRT", "fivePL", "cll", "ull", "galm", "ghcm", "gparalla", "gsslm", "alm", "hcm",
                "paralla", "sslm"]
    own = {"rasch", "1pl", "2pl", "3pl", "4pl", "graded", "grsm", "gpcm", "rsm", "nominal"}
    known = {n.lower() for n in (*ITEMTYPES, *REFUSED)} | own
    assert {n.lower() for n in mirt_148} == known
