"""The IRT kinds of batch unit (calibrate, abilities, fit) against the same computation through the public API
and against mirt called directly in R on the same file (tests/r/reference_batch.R).

Tolerances: the unit and the public API run the same code on the same data in the same process, so their
numbers agree to the CSV round trip (1e-10). Against R: the same mirt model on the same data; 1e-6 for
estimates that cross the CSV/JSON round trip and mirt's own optimizers (MAP/ML/WLE use nlm/uniroot from a
grid start, EAP is a sum over the same grid).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irtbridge
from irtbridge.batch import run_batch
from irtbridge.calibration.analysis.fitreport import fit_report
from tests._rrefs import run_r

pytestmark = pytest.mark.r
HERE = Path(__file__).resolve().parents[1]  # tests/
ROUND_TRIP = 1e-10
R_TOL = 1e-6


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """One batch over mirt's Science (1..4 Likert) and LSAT7, serial, and mirt's own numbers on the same files."""
    folder = tmp_path_factory.mktemp("irtkinds")
    run_r(["Rscript", str(HERE / "r" / "reference_batch.R"), str(folder)], check=True)
    units = [
        {"id": "science", "kind": "calibrate", "data": "science.csv", "options": {"model": "graded", "se": False}},
        {"id": "science-abilities", "kind": "abilities", "data": "science.csv", "options": {"model": "graded"}},
        {"id": "lsat-fit", "kind": "fit", "data": "lsat7.csv", "options": {"model": "2PL"}},
    ]
    units += [{"id": f"lsat-{m.lower()}", "kind": "abilities", "data": "lsat7.csv",
               "options": {"model": "2PL", "scoring_method": m}} for m in ("EAP", "MAP", "ML", "WLE")]
    (folder / "m.json").write_text(json.dumps({"output": "out", "units": units}))
    res = run_batch(folder / "m.json", scheduler="serial")
    assert (res.units["status"] == "done").all(), res.units["error"].to_dict()
    return {"units": folder / "out" / "units", "ref": json.loads((folder / "ref.json").read_text()),
            "science": pd.read_csv(folder / "science.csv"), "lsat": pd.read_csv(folder / "lsat7.csv")}


def _csv(run, uid: str, name: str) -> pd.DataFrame:
    return pd.read_csv(run["units"] / uid / name, index_col=0)


def test_calibrate_unit_on_likert_data_coded_1_to_k(run):
    """mirt's Science (categories 1..4): the unit calibrates and scores the data the fit was made from."""
    science = run["science"]
    assert science.min().min() == 1  # the offset the fit's item_mins knows
    fit = irtbridge.calibrate(science, "graded", se=False)
    assert set(fit.item_mins.values()) == {1.0}
    items = _csv(run, "science", "items.csv")
    pd.testing.assert_frame_equal(items, fit.items.rename_axis("item"), rtol=ROUND_TRIP, check_names=False)
    abilities = _csv(run, "science", "abilities.csv")
    api = fit.abilities("EAP")
    np.testing.assert_allclose(abilities[["theta", "se"]].to_numpy(), api[["theta", "se"]].to_numpy(), rtol=0, atol=ROUND_TRIP)
    ref = run["ref"]
    np.testing.assert_allclose(abilities["theta"], ref["science_eap"]["theta"], rtol=0, atol=R_TOL)
    np.testing.assert_allclose(abilities["se"], ref["science_eap"]["se"], rtol=0, atol=R_TOL)
    r_items = pd.DataFrame(ref["science_items"])
    np.testing.assert_allclose(items[["a", "b1", "b2", "b3"]].to_numpy(), r_items[["a", "b1", "b2", "b3"]].to_numpy(),
                               rtol=0, atol=R_TOL)
    meta = json.loads((run["units"] / "science" / "unit.json").read_text())
    assert meta["result"]["scoring_method"] == "EAP"
    assert sorted(meta["files"]) == ["abilities.csv", "calibration.json", "items.csv", "standard_errors.csv", "unit.json"]


def test_abilities_unit_on_likert_data(run):
    got = _csv(run, "science-abilities", "abilities.csv")
    np.testing.assert_allclose(got["theta"], run["ref"]["science_eap"]["theta"], rtol=0, atol=R_TOL)
    assert sorted(p.name for p in (run["units"] / "science-abilities").iterdir()) == ["abilities.csv", "unit.json"]


@pytest.mark.parametrize("method", ["EAP", "MAP", "ML", "WLE"])
def test_abilities_unit_each_method(run, method):
    got = _csv(run, f"lsat-{method.lower()}", "abilities.csv")
    assert list(got.columns) == ["theta", "se"] and got.index.name == "respondent"
    api = irtbridge.calibrate(run["lsat"], "2PL", se=False).abilities(method)
    np.testing.assert_allclose(got.to_numpy(), api[["theta", "se"]].to_numpy(), rtol=0, atol=ROUND_TRIP, equal_nan=True)
    ref = run["ref"]["lsat"][method]
    theta = np.array([np.nan if v is None else v for v in ref["theta"]], dtype=float)
    infinite = np.asarray(ref["infinite"], dtype=float)
    finite = infinite == 0
    np.testing.assert_allclose(got["theta"].to_numpy()[finite], theta[finite], rtol=0, atol=R_TOL)
    # ML of an all-right/all-wrong pattern: mirt's +-Inf, kept as such
    assert np.array_equal(np.sign(got["theta"].to_numpy()[~finite]), infinite[~finite])
    se = np.array([np.nan if v is None else v for v in ref["se"]], dtype=float)
    both = finite & np.isfinite(se)
    np.testing.assert_allclose(got["se"].to_numpy()[both], se[both], rtol=0, atol=R_TOL)


def test_fit_unit_is_irtbridge_fit(run):
    report = json.loads((run["units"] / "lsat-fit" / "fit.json").read_text())
    api = fit_report(irtbridge.calibrate(run["lsat"], "2PL", se=False))
    assert report["misfitting"] == api["misfitting"] and report["misfit_rule"] == api["misfit_rule"]
    for key in api["global"]:
        assert report["global"][key] == pytest.approx(api["global"][key], rel=ROUND_TRIP, abs=ROUND_TRIP)
    ref = run["ref"]
    for key in ("M2", "df", "p", "RMSEA", "SRMSR", "TLI", "CFI"):
        assert report["global"][key] == pytest.approx(ref["m2"][key], abs=R_TOL), key
    items = _csv(run, "lsat-fit", "item_fit.csv")
    np.testing.assert_allclose(items["S_X2"], ref["itemfit"]["S_X2"], rtol=0, atol=R_TOL)
    np.testing.assert_allclose(items["df"], ref["itemfit"]["df"], rtol=0, atol=0)
    np.testing.assert_allclose(items["p_adjusted"], ref["itemfit"]["p_adjusted"], rtol=0, atol=R_TOL)
    assert report["reliability"]["marginal"] == pytest.approx(ref["marginal"], abs=R_TOL)
    assert report["reliability"]["empirical"] == pytest.approx(ref["empirical"], abs=R_TOL)
