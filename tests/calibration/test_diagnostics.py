"""Fit diagnostics against mirt's own functions called directly in R (tests/r/reference_diagnostics.R).

Tolerance 1e-8: the same model object reaches the same mirt function, so anything but transfer noise is
a bug. Data: LSAT7 (2PL, 3PL, Rasch for infit/outfit), SAT12 key-scored (2PL), Science (graded, gpcm).
Plots are checked for their curves (count, monotone 2PL trace lines, information peaking near b),
not pixels.
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np
import pandas as pd
import pytest

import irtbridge
from irtbridge.calibration.analysis.diagnostics import adjust_pvalues
from irtbridge.cli import main
from irtbridge.example_data import response_dataset
from irtbridge.exceptions import ValidationError
from tests._rrefs import run_r

pytestmark = pytest.mark.r
HERE = Path(__file__).resolve().parents[1]  # tests/
EXACT = 1e-8
MIRT_MODELS = {"lsat7_2PL": ("LSAT7", "2PL"), "lsat7_3PL": ("LSAT7", "3PL"), "lsat7_rasch": ("LSAT7", "rasch"),
               "sat12_2PL": ("SAT12", "2PL"), "science_graded": ("Science", "graded"), "science_gpcm": ("Science", "gpcm")}


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("diag")
    run_r(["Rscript", str(HERE / "r" / "reference_diagnostics.R"), str(tmp / "ref.json"), str(tmp / "sat12.csv")],
                   check=True)
    out = json.loads((tmp / "ref.json").read_text())
    out["sat12_data"] = pd.read_csv(tmp / "sat12.csv")
    return out


@pytest.fixture(scope="module")
def fits(ref):
    data = {"LSAT7": response_dataset("LSAT7"), "Science": response_dataset("Science"), "SAT12": ref["sat12_data"]}
    return {k: irtbridge.calibrate(data[d], model=m, se=False) for k, (d, m) in MIRT_MODELS.items()}


def _close(got, expected, tol=EXACT):
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray([np.nan if v is None else v for v in expected], dtype=float),
                               rtol=0, atol=tol, equal_nan=True)


@pytest.mark.parametrize("case", list(MIRT_MODELS))
def test_item_fit_global_fit_and_reliability_equal_mirt(ref, fits, case):
    fit, r = fits[case], ref[case]
    stats = ["S_X2", "infit"] if case == "lsat7_rasch" else ["S_X2", "Zh"]
    got = fit.item_fit(stats)
    for col, values in r["itemfit"].items():
        if col != "item":
            _close(got[col], values)
    _close(got["p_adjusted_S_X2"], r["p_bh"])
    if not r["m2"]:  # e.g. 3PL on 5 items: 15 margins, 15 parameters, M2 undefined in mirt too
        with pytest.raises(ValidationError, match="degrees of freedom"):
            fit.global_fit()
    else:
        g = fit.global_fit()
        for col, values in r["m2"].items():
            _close([g[col]], values)
    rel = fit.reliability()
    assert rel["marginal"] == pytest.approx(r["rxx"]["marginal"][0], abs=EXACT)
    assert rel["empirical"] == pytest.approx(r["rxx"]["empirical"][0], abs=EXACT)


@pytest.mark.parametrize("case", ["lsat7_2PL", "lsat7_3PL", "lsat7_rasch", "sat12_2PL"])
def test_person_fit_residuals_and_grouped_item_fit_equal_mirt(ref, fits, case):
    fit, r = fits[case], ref[case]
    got = fit.person_fit().head(50)
    for col, values in r["personfit"].items():
        _close(got[col], values)
    grouped = fit.item_fit(["X2", "G2"])
    for col, values in r["itemfit_X2"].items():
        if col != "item":
            _close(grouped[col], values)
    for kind in ("LD", "Q3"):
        _close(fit.residuals(kind).to_numpy().ravel(), np.asarray(r[kind], dtype=float).ravel())


def test_compare_equals_mirt_anova(ref, fits):
    table = irtbridge.compare(fits["lsat7_2PL"], fits["lsat7_3PL"])
    for col in ("AIC", "SABIC", "HQ", "BIC", "logLik"):
        _close(table[col], ref["anova"][col])
    assert table["X2"].iloc[1] == pytest.approx(float(ref["anova"]["X2"][1]), abs=1e-6)
    assert table["df"].iloc[1] == float(ref["anova"]["df"][1])
    assert table["p"].iloc[1] == pytest.approx(float(ref["anova"]["p"][1]), abs=1e-6)


def test_compare_refuses_different_data(fits):
    with pytest.raises(ValidationError, match="different data"):
        irtbridge.compare(fits["lsat7_2PL"], fits["sat12_2PL"])


def test_diagnostics_need_a_live_mirt_fit(fits):
    lsat = response_dataset("LSAT7")
    with pytest.raises(ValidationError, match="mirt fit"):
        irtbridge.calibrate(lsat, "2PL", engine="ltm", se=False).item_fit()
    with pytest.raises(ValidationError, match="live R model"):
        fits["lsat7_2PL"].without_r_model().global_fit()
    with pytest.raises(ValueError, match="Rasch-family"):
        fits["lsat7_2PL"].item_fit(["infit"])
    with pytest.raises(ValueError, match="stats"):
        fits["lsat7_2PL"].item_fit(["chi"])


def test_m2_without_degrees_of_freedom_is_a_clear_error():
    three = response_dataset("LSAT7").iloc[:, :3]
    fit = irtbridge.calibrate(three, "2PL", se=False)  # 6 margins, 6 parameters
    with pytest.raises(ValidationError, match="degrees of freedom"):
        fit.global_fit()


def test_bh_adjustment_equals_r(ref):
    p = [0.01, 0.04, 0.03, 0.2, np.nan]
    # p.adjust(c(0.01, 0.04, 0.03, 0.2), "BH") in R: 0.04 0.05333333 0.05333333 0.2
    np.testing.assert_allclose(adjust_pvalues(p)[:4], [0.04, 0.16 / 3, 0.16 / 3, 0.2], rtol=0, atol=1e-12)
    assert np.isnan(adjust_pvalues(p)[4])


def test_plots_have_the_expected_curves(fits):
    fit = fits["lsat7_2PL"]
    ax = fit.plot("trace")
    lines = ax.get_lines()
    assert len(lines) == 5
    for line in lines:
        assert np.all(np.diff(line.get_ydata()) > 0)  # 2PL with a > 0: increasing
    ax = fit.plot("infotrace")  # mirt's plot(type = "infotrace"): item information curves
    for line, b in zip(ax.get_lines(), fit.items["b"]):
        x, y = line.get_xdata(), line.get_ydata()
        assert abs(x[np.argmax(y)] - b) <= 0.05 + 1e-9  # 2PL information peaks at b (grid step 0.05)
    ax = fit.plot("info")  # mirt's plot(type = "info"): TEST information, the sum of the item curves
    x, y = ax.get_lines()[0].get_xdata(), ax.get_lines()[0].get_ydata()
    a, b = fit.items["a"].to_numpy(), fit.items["b"].to_numpy()
    p = 1 / (1 + np.exp(-a * (x[:, None] - b)))
    assert len(ax.get_lines()) == 1
    np.testing.assert_allclose(y, (a ** 2 * p * (1 - p)).sum(axis=1), rtol=1e-10)  # 2PL: I = sum a^2 P Q
    ax = fit.plot("infoSE")
    assert len(ax.get_lines()) == 1 and len(ax.figure.axes) == 2
    ax = fit.item_plot("Item.3", "trace")
    assert len(ax.get_lines()) == 1 and "Item.3" in ax.get_title()
    graded = fits["science_graded"].item_plot(fits["science_graded"].item_names[0], "trace")
    assert len(graded.get_lines()) == 4  # four categories
    with pytest.raises(ValidationError, match="unknown item"):
        fit.item_plot("nope")


def test_cli_fit_json_shape_and_errors(tmp_path, capsys):
    csv = tmp_path / "lsat7.csv"
    response_dataset("LSAT7").to_csv(csv, index=False)
    assert main(["fit", str(csv), "--model", "2PL", "--json", "--plots", str(tmp_path / "plots")]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["global"]) >= {"M2", "df", "p", "RMSEA", "SRMSR", "TLI", "CFI"}
    assert set(out["reliability"]) == {"marginal", "empirical"}
    assert all(set(r) >= {"item", "S_X2", "df", "p", "RMSEA"} for r in out["items"]) and len(out["items"]) == 5
    assert out["misfitting"] == [r["item"] for r in out["items"] if r["p_adjusted"] < 0.05]
    assert "Benjamini-Hochberg" in out["misfit_rule"]
    plots = sorted(p.name for p in (tmp_path / "plots").iterdir())
    assert plots == [".irtbridge-output", "info.png", "infoSE.png", "infotrace.png", "score.png", "trace.png"]
    assert main(["fit", str(csv), "--engine", "ltm"]) == 2
    assert "mirt" in capsys.readouterr().err
