"""Issue 34, the calibration surface checked against mirt called directly in R (tests/r/reference_surface.R,
on the same CSV files): item fit with missing answers (na_rm, the imputation route, the one-line error and
the CLI flags), 1..K data scored with the fit's own minimums, mirt's test-suite defects (SEM standard errors,
coefficients without an information matrix, one group's coefficients, the [group] keyword syntax, latent
classes with SEs) and the fit statistics a summary shows once computed."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests._shapes import classifier_responses

import irtbridge
from irtbridge import calibrate, calibrate_groups
from irtbridge.calibration.fit.classes import calibrate_classes
from irtbridge.cli import main
from irtbridge.example_data import response_dataset
from irtbridge.exceptions import RError, RWarning, ValidationError
from tests._rrefs import run_r

pytestmark = pytest.mark.r
HERE = Path(__file__).resolve().parents[1]  # tests/
GROUPS = ["even", "odd"] * 500


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("surface")
    frames = {
        "sat12": response_dataset("SAT12"), "science": response_dataset("Science"), "lsat7": response_dataset("LSAT7"),
        "shaped": classifier_responses(60, 60, seed=0)[0], "lsat": response_dataset("LSAT"),
    }
    paths = {}
    for name, frame in frames.items():
        paths[name] = tmp / f"{name}.csv"
        frame.to_csv(paths[name], index=False, na_rep="NA")
    run_r(["Rscript", str(HERE / "r" / "reference_surface.R"), str(tmp / "ref.json"),
           *(str(paths[k]) for k in ("sat12", "science", "lsat7", "shaped", "lsat"))], check=True)
    return {"ref": json.loads((tmp / "ref.json").read_text()), "paths": paths, **frames}


def _close(actual, expected, tol=1e-6):
    np.testing.assert_allclose(np.asarray(actual, dtype=float), np.asarray(expected, dtype=float), rtol=0, atol=tol)


# -- item fit with missing answers -----------------------------------------------------------------------
def test_item_fit_with_missing_answers(ref):
    fit = calibrate(ref["sat12"], "2PL", se=False)
    with pytest.raises(ValidationError) as info:
        fit.item_fit()
    message = str(info.value)
    assert "\n" not in message and "na_rm=True" in message and "impute=N" in message
    dropped = fit.item_fit(na_rm=True)
    expected = ref["ref"]["sat12_narm"]
    _close(dropped["S_X2"], expected["S_X2"])
    _close(dropped["df.S_X2"], expected["df"])
    _close(dropped["p.S_X2"], expected["p"])
    imputed = fit.item_fit(impute=3, seed=7)
    _close(imputed["S_X2"], ref["ref"]["sat12_impute"]["mean"])
    _close(imputed.attrs["sd"]["S_X2"], ref["ref"]["sat12_impute"]["sd"])
    with pytest.raises(ValidationError, match="not both"):
        fit.item_fit(na_rm=True, impute=2)


def test_cli_fit_with_missing_answers(ref, capsys):
    path = str(ref["paths"]["sat12"])
    assert main(["fit", path]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--na-rm" in err and "--impute" in err
    assert main(["fit", path, "--na-rm", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    _close([r["S_X2"] for r in report["items"]], ref["ref"]["sat12_narm"]["S_X2"])


# -- 1..K data scored with the fit's own minimums --------------------------------------------------------
def test_science_scores_as_coded(ref):
    science = ref["science"]
    fit = calibrate(science, "graded", se=False)
    assert list(fit.item_mins.values()) == ref["ref"]["science"]["mins"] == [1, 1, 1, 1]
    est = irtbridge.estimate_abilities(science, fit)  # on main: "must be an integer category from 0 to 3"
    _close(est["theta"], ref["ref"]["science"]["theta"], 1e-5)
    _close(est["se"], ref["ref"]["science"]["se"], 1e-5)
    # the native engine recodes to 0..K-1 itself: the minimums are not taken twice
    native = calibrate(science, "graded", engine="native", se=False)
    _close(native.abilities(responses=science)["theta"],
           irtbridge.estimate_abilities(science - 1, native, mins=False,
                                        prior=(native.latent_mean, native.latent_var ** 0.5))["theta"], 1e-12)


# -- mirt's test suite through the API -------------------------------------------------------------------
def test_sem_standard_errors_by_default(ref):
    fit = calibrate(ref["lsat7"], "2PL", SE_type="SEM")  # se=None
    expected = ref["ref"]["sem"]
    _close(fit.items["a"], expected["a"], 1e-4)
    _close(fit.items["b"], expected["b"], 1e-4)
    _close(fit.standard_errors["a"], expected["se_a"], 1e-4)
    _close(fit.standard_errors["b"], expected["se_b"], 1e-4)
    assert fit.condition_number == pytest.approx(expected["condnum"], rel=1e-4)


def test_coefficients_without_information_matrix_are_deterministic(ref):
    fit = calibrate(ref["shaped"], "3PL")  # se=None: the SEs are asked for by coefficients()
    tables = []
    for _ in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tables.append(fit.coefficients())
        assert len([w for w in caught if issubclass(w.category, RWarning)]) == 1
    first, second = tables
    pd.testing.assert_frame_equal(first, second)
    assert first["se"].isna().all()
    item1 = first.loc[fit.item_names[0]]
    expected = ref["ref"]["shaped_values"]
    _close(item1.loc[expected["names"], "value"], expected["item1"])


def test_one_group_has_the_whole_fits_standard_errors(ref):
    g = calibrate_groups(ref["lsat7"], GROUPS, "2PL")
    odd = g.group("odd").coefficients()
    expected = ref["ref"]["odd"]
    names = list(ref["lsat7"].columns)
    _close([odd.loc[(i, "a1"), "value"] for i in names], expected["a1"])
    _close([odd.loc[(i, "d"), "value"] for i in names], expected["d"])
    _close([odd.loc[(i, "a1"), "se"] for i in names], expected["se_a1"])
    _close([odd.loc[(i, "d"), "se"] for i in names], expected["se_d"])


def test_group_keyword_syntax(ref):
    spec = "F = 1-5\nSTART [even] = (1, d, 2.0)\nFIXED [even] = (1, d)"
    g = calibrate_groups(ref["lsat7"], GROUPS, "2PL", spec=spec, se=False)
    expected = ref["ref"]["keyword"]
    assert g.loglik == pytest.approx(expected["loglik"], abs=1e-6)
    assert g.parameters().query("group == 'even' and item == 'Item.1' and name == 'd'")["value"].iloc[0] == 2.0
    with pytest.raises(ValidationError, match=r"\[boys\] is not a group"):
        calibrate_groups(ref["lsat7"], GROUPS, "2PL", spec="F = 1-5\nFIXED [boys] = (1, d)", se=False)


def test_latent_classes_take_se_and_se_type(ref):
    lca = calibrate_classes(ref["lsat"], 2, se=True, SE_type="crossprod")
    expected = ref["ref"]["lca"]
    assert lca.loglik == pytest.approx(expected["loglik"], abs=1e-6)
    first = lca.standard_errors.loc[lca.item_names[0]]
    _close(first.loc[expected["names"], "value"], expected["value"], 1e-6)
    _close(first.loc[expected["names"], "se"], expected["se"], 1e-6)
    with pytest.raises(ValidationError, match="se=True"):
        calibrate_classes(ref["lsat"], 2, SE_type="crossprod")


# -- displays and R's messages ---------------------------------------------------------------------------
def test_summary_shows_fit_statistics_once_computed(ref, monkeypatch):
    fit = calibrate(ref["lsat7"], "2PL", se=False)
    assert "not computed yet" in str(fit.summary())
    fit.global_fit()
    fit.reliability()
    import irtbridge._r.session as session

    monkeypatch.setattr(session, "call", lambda *a, **k: (_ for _ in ()).throw(AssertionError("R called")))
    text = str(fit.summary())
    m2 = ref["ref"]["m2"]
    assert f"M2 {m2['M2']:.3f} (df {m2['df']:.0f}" in text and f"RMSEA {m2['RMSEA']:.3f}" in text
    assert f"marginal {m2['marginal']:.3f}" in text
    assert fit._repr_html_() == fit.summary().as_html()


def test_r_errors_are_one_line_with_rs_message():
    from irtbridge._r import session

    with pytest.raises(RError) as info:
        session.call("stop", **{"1": "first line\n      second line"})
    assert "\n" not in str(info.value) and "first line second line" in str(info.value)
    assert info.value.r_message == "first line\n      second line"
