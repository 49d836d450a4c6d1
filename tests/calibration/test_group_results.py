"""Issue 26 item 2: complete multiple-group work. ``calibrate_groups`` with several factors, a spec with
CONSTRAINB, priors and an SE type, and what a GroupCalibration computes (standard errors, abilities,
item fit, M2, person fit, reliability, one group taken out), each against the same mirt calls run
directly (tests/r/reference_group_results.R). Tolerance 1e-6 on every number (the fits converge at
mirt's TOL = 1e-4, and both sides run the same deterministic mirt code on the same data, so they agree
to rounding; 1e-6 leaves room for BLAS summation order only).
"""

from __future__ import annotations

import json
import math
import pickle
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irtbridge import ModelSpec, Prior, calibrate_groups
from irtbridge._summary import Summary
from irtbridge.calibration.results.result import Calibration
from irtbridge.exceptions import ConvergenceWarning, ValidationError
from tests._rrefs import run_r

pytestmark = pytest.mark.r
HERE = Path(__file__).resolve().parents[1]  # tests/
TOL = 1e-6
SPEC = "F = 1-6\nCONSTRAINB = (1-3, a1), (1-3, d)"


def _numbers(values):
    return np.array([np.nan if v in ("NA", "NaN", None) else float(v) for v in values])


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """400 respondents in two groups, 6 items; the focal group is 0.3 more able."""
    rng = np.random.default_rng(3)
    group = np.repeat(["ref", "foc"], 200)
    theta = rng.normal(0, 1, 400) + (group == "foc") * 0.3
    a, d = rng.uniform(0.8, 1.8, 6), rng.normal(0, 1, 6)
    p = 1 / (1 + np.exp(-(a * theta[:, None] + d)))
    frame = pd.DataFrame((rng.random(p.shape) < p).astype(float), columns=[f"i{j}" for j in range(6)])
    frame["group"] = group
    tmp = tmp_path_factory.mktemp("group_results")
    frame.to_csv(tmp / "responses.csv", index=False)
    run_r(["Rscript", str(HERE / "r" / "reference_group_results.R"), str(tmp / "ref.json"),
                    str(tmp / "responses.csv")], check=True)
    return frame.drop(columns="group"), frame["group"], json.loads((tmp / "ref.json").read_text())


@pytest.fixture(scope="module")
def fit(data):
    items, group, _ = data
    return calibrate_groups(items, group, "2PL", invariance=["free_means", "free_var"], spec=SPEC, SE_type="Oakes")


def _same_tables(ours, ref, columns, se=False):
    for g, expected in ref.items():
        for col in columns:
            np.testing.assert_allclose(ours.items[g][col], expected["items"][col], rtol=0, atol=TOL, err_msg=f"{g} {col}")
            if se:
                theirs = _numbers([expected["se"][i].get(col, "NA") for i in ours.item_names])
                np.testing.assert_allclose(ours.standard_errors[g][col], theirs, rtol=0, atol=TOL, err_msg=f"SE {g} {col}")
        np.testing.assert_allclose(ours.means.loc[g], expected["means"], rtol=0, atol=TOL)
        np.testing.assert_allclose(ours.covariances[g].to_numpy().ravel(), np.ravel(expected["cov"]), rtol=0, atol=TOL)


def test_several_factors_equal_mirt(data):
    items, group, ref = data
    two = calibrate_groups(items, group, "2PL", dims=2, se=False)
    assert two.factors == tuple(ref["two_factors"]) == ("F1", "F2")
    assert list(two.items["ref"].columns) == ["a1", "a2", "d", "g", "u"]
    _same_tables(two, ref["two"], ["a1", "a2", "d"])
    assert two.loglik == pytest.approx(ref["two_loglik"], abs=TOL)
    assert two.options["dims"] == 2


def test_dims_is_never_ignored(data):
    """Before issue 26, dims=3 returned a one-factor fit without a word."""
    items, group, _ = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        three = calibrate_groups(items, group, "2PL", dims=3, se=False, technical={"NCYCLES": 20})
    assert three.factors == ("F1", "F2", "F3") and three.means.shape == (2, 3)


def test_constrainb_spec_with_oakes_standard_errors_equals_mirt(data, fit):
    _, _, ref = data
    assert list(fit.groups) == ref["groups"] and fit.factors == ("F",)
    _same_tables(fit, ref["mg"], ["a", "b"], se=True)
    assert fit.loglik == pytest.approx(ref["mg_loglik"], abs=TOL)
    assert fit.n_parameters == ref["mg_nest"]
    assert fit.options["SE.type"] == ref["mg_se_type"] == "Oakes" and fit.options["syntax"] == SPEC
    # CONSTRAINB: items 1-3 equal across groups, the others free
    pd.testing.assert_frame_equal(fit.items["ref"].iloc[:3], fit.items["foc"].iloc[:3])
    assert not np.allclose(fit.items["ref"].iloc[3:]["a"], fit.items["foc"].iloc[3:]["a"])
    # mirt's first group (alphabetical: foc) is the reference, N(0, 1); the other's mean and variance are free
    assert fit.groups == ("foc", "ref") and fit.latent_means["foc"] == 0 and fit.latent_vars["foc"] == 1
    assert fit.latent_means["ref"] == pytest.approx(float(np.ravel(ref["mg"]["ref"]["means"])[0]), abs=TOL) != 0


def test_priors_equal_mirt(data):
    """A ModelSpec prior is mirt.model's PRIOR line; priors= is written into the parameter table (mirt
    then starts from other values, so the two routes differ slightly in mirt itself)."""
    items, group, ref = data
    spec = ModelSpec({"F": "i0:i5"}, priors=[Prior("a1", "lnorm", 0, 0.5)])
    for ours, key in ((calibrate_groups(items, group, "2PL", spec=spec, se=False), "prior"),
                      (calibrate_groups(items, group, "2PL", priors={"a1": ("lnorm", 0, 0.5)}, se=False), "prior_table")):
        _same_tables(ours, ref[key], ["a", "b"])
        assert ours.loglik == pytest.approx(ref[f"{key}_loglik"], abs=TOL)


def test_abilities_item_fit_m2_person_fit_reliability_equal_mirt(data, fit):
    _, group, ref = data
    for method, key in (("EAP", "eap"), ("MAP", "map")):
        scores = fit.abilities(method)
        assert list(scores.columns) == ["group", "theta", "se"] and scores["group"].tolist() == group.tolist()
        np.testing.assert_allclose(scores["theta"], ref[key]["theta"], rtol=0, atol=TOL)
        np.testing.assert_allclose(scores["se"], ref[key]["se"], rtol=0, atol=TOL)
    table = fit.item_fit(["S_X2", "Zh"])
    for g in fit.groups:
        part, theirs = table.loc[g], ref["itemfit"][g]
        assert list(part.index) == theirs["item"]
        for ours_col, their_col in (("S_X2", "S_X2"), ("df.S_X2", "df"), ("p.S_X2", "p"), ("Zh", "Zh")):
            np.testing.assert_allclose(part[ours_col], _numbers(theirs[their_col]), rtol=0, atol=TOL)
        assert "p_adjusted_S_X2" in part.columns
    m2 = fit.global_fit()
    for key in ("M2", "df", "p", "RMSEA", "RMSEA_5", "RMSEA_95", "SRMSR.ref", "SRMSR.foc", "TLI", "CFI"):
        assert m2[key] == pytest.approx(float(ref["m2"][key]), abs=TOL), key
    persons = fit.person_fit()
    assert persons["group"].tolist() == group.tolist()
    for col in ("Zh", "infit", "outfit"):
        np.testing.assert_allclose(persons[col], ref["personfit"][col], rtol=0, atol=TOL)
    rel = fit.reliability()  # a dict of floats, as every result's reliability()
    assert set(rel) == {f"{k}.{g}" for k in ("marginal", "empirical") for g in fit.groups}
    table = fit.reliability_table()
    for g in fit.groups:
        assert rel[f"marginal.{g}"] == pytest.approx(ref["marginal"][g], abs=TOL)
        assert rel[f"empirical.{g}"] == pytest.approx(ref["empirical"][g], abs=TOL)
        assert table.loc[g, "marginal"] == rel[f"marginal.{g}"]
    with pytest.warns(DeprecationWarning, match="reliability_table"):  # the table of earlier versions
        assert rel.loc[fit.groups[0], "marginal"] == rel[f"marginal.{fit.groups[0]}"]


def test_one_group_taken_out_equals_extract_group(data, fit):
    items, _, ref = data
    foc = fit.group("foc")
    assert isinstance(foc, Calibration) and foc.n_respondents == ref["extract"]["n"] == 200
    for col in ("a", "b"):
        np.testing.assert_allclose(foc.items[col], ref["extract"]["items"][col], rtol=0, atol=TOL)
    pd.testing.assert_frame_equal(foc.standard_errors, fit.standard_errors["foc"])
    assert foc.latent_mean == fit.latent_means["foc"] and math.isnan(foc.loglik)
    new = foc.abilities(responses=items.iloc[[0, 1, 2, 249, 398]])
    np.testing.assert_allclose(new["theta"], ref["extract"]["theta"], rtol=0, atol=TOL)
    np.testing.assert_allclose(new["se"], ref["extract"]["se"], rtol=0, atol=TOL)
    with pytest.raises(ValidationError, match="'nope' is not a group"):
        fit.group("nope")


def test_summary_plots_and_travel(fit):
    import matplotlib

    matplotlib.use("Agg")
    fit.global_fit()  # the summary shows M2 once computed (never computes it)
    summary = fit.summary()
    assert isinstance(summary, Summary)
    text = str(summary)
    assert "ref 200" in text and "SRMSR.foc" in text and "items: foc" in text
    assert summary.to_dict()["groups"] == list(fit.groups)
    assert len(fit.plot("score").get_lines()) == 2
    assert len(fit.plot("trace", item="i0").get_lines()) == 2
    with pytest.raises(ValidationError, match="name the item"):
        fit.plot("trace")
    back = pickle.loads(pickle.dumps(fit))
    assert back.r_model is None and back.items["foc"].equals(fit.items["foc"])
    with pytest.raises(ValidationError, match="live mirt model"):
        back.abilities()
    assert "SRMSR.foc" in str(back.summary())  # what was computed travels


def test_group_spec_errors_are_one_line(data):
    items, group, _ = data
    cases = [
        (dict(spec="F = 1-6\nCONSTRAINB = (1-3, g)"), "a cross-group constraint on 'g' of item 'i0'"),
        (dict(spec="F = 1-6", dims=2), "either dims"),
        (dict(dims=0), "dims must be a positive integer"),
        (dict(model="1PL"), "1PL"),
        (dict(SE=False), "use se="),
        (dict(priors={"g": ("norm", 0, 1)}), "'g' of item 'i0', but the 2PL model"),
    ]
    for kwargs, message in cases:
        kwargs = {"model": "2PL", **kwargs}
        with pytest.raises(ValidationError, match=message) as err:
            calibrate_groups(items, group, **kwargs)
        assert "\n" not in str(err.value)


def test_parameter_table_reaches_multiple_group(data):
    """A table from GroupCalibration.parameters() (mod2values) with a slope fixed in both groups."""
    items, group, _ = data
    table = calibrate_groups(items, group, "2PL", se=False).parameters()
    assert set(table["group"]) == {"ref", "foc"}
    fixed = (table["item"] == "i5") & (table["name"] == "a1")
    table.loc[fixed, "value"] = 1.0
    table.loc[fixed, "est"] = False
    refit = calibrate_groups(items, group, "2PL", parameters=table, se=False)
    assert refit.items["ref"].loc["i5", "a"] == refit.items["foc"].loc["i5", "a"] == 1.0
