"""Issue 26 item 2, two scoring defects, against plain mirt (tests/r/reference_factor_names.R):

* ``abilities()`` after a one-factor spec whose factor is not called ``F1`` (``"F = 1-5"``) raised R's
  "subscript out of bounds"; it now equals ``fscores`` (1e-8);
* ``true_score`` on items coded 1..K (Science) equals ``expected.test`` (each item scored from its lowest
  category), and ``mins=False`` equals ``expected.test(..., mins = FALSE)`` (1e-8).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from irtbridge import calibrate, true_score
from irtbridge.calibration.results.result import Calibration
from irtbridge.example_data import response_dataset
from irtbridge.exceptions import ValidationError
from tests._rrefs import run_r

pytestmark = pytest.mark.r
HERE = Path(__file__).resolve().parents[1]  # tests/
TOL = 1e-8


def _numbers(values):
    return np.array([np.nan if v in ("NA", None) else float(v) for v in values])


@pytest.fixture(scope="module")
def data():
    return {"LSAT7": response_dataset("LSAT7"), "Science": response_dataset("Science")}


@pytest.fixture(scope="module")
def ref(data, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("factor_names")
    for name, frame in data.items():
        frame.to_csv(tmp / f"{name}.csv", index=False)
    run_r(["Rscript", str(HERE / "r" / "reference_factor_names.R"), str(tmp / "ref.json"),
                    str(tmp / "LSAT7.csv"), str(tmp / "Science.csv")], check=True)
    return json.loads((tmp / "ref.json").read_text())


@pytest.fixture(scope="module")
def science(data):
    return calibrate(data["Science"], "graded", spec="Attitude = 1-4", se=False)


def test_abilities_with_a_factor_not_called_f1(data, ref, science):
    lsat = calibrate(data["LSAT7"], "2PL", spec="F = 1-5", se=False)
    assert lsat.factors == ("F",) and ref["lsat_eap"]["names"] == ["F", "SE_F"]
    for method, key in (("EAP", "lsat_eap"), ("ML", "lsat_ml")):
        ours = lsat.abilities(method)
        # ML is infinite for all-correct and all-wrong patterns (jsonlite writes "Inf"/"-Inf")
        np.testing.assert_allclose(ours["theta"], _numbers(ref[key]["theta"]), rtol=0, atol=TOL)
        np.testing.assert_allclose(ours["se"], _numbers(ref[key]["se"]), rtol=0, atol=TOL)
    ours = science.abilities("MAP")
    assert science.factors == (ref["science_factor"],)
    np.testing.assert_allclose(ours["theta"], ref["science_map"]["theta"], rtol=0, atol=TOL)
    np.testing.assert_allclose(ours["se"], ref["science_map"]["se"], rtol=0, atol=TOL)
    draws = science.plausible_values(1)
    assert list(draws.columns) == ["draw", "respondent", "theta"]  # one factor: theta, as abilities()
    with pytest.warns(DeprecationWarning, match="plausible_values"):
        assert draws["Attitude"].equals(draws["theta"])  # the factor's name, deprecated


def test_true_score_equals_expected_test(ref, science):
    grid = np.asarray(ref["grid"])
    assert list(science.item_mins.values()) == ref["science_mins"] == [1, 1, 1, 1]
    np.testing.assert_allclose(true_score(grid, science), ref["expected_test"], rtol=0, atol=TOL)
    np.testing.assert_allclose(true_score(grid, science, mins=False), ref["expected_test_nomins"], rtol=0, atol=TOL)
    # an item table knows no data: give the minimums, or items count from 0
    table = science.items
    mins = dict(science.item_mins)
    np.testing.assert_allclose(true_score(grid, table, "graded", mins=mins), ref["expected_test"], rtol=0, atol=TOL)
    np.testing.assert_allclose(true_score(grid, table, "graded"), ref["expected_test_nomins"], rtol=0, atol=TOL)
    # the minimums travel through JSON
    again = Calibration.from_json(science.to_json())
    np.testing.assert_allclose(true_score(grid, again), ref["expected_test"], rtol=0, atol=TOL)


def test_true_score_mins_bad_input(science):
    with pytest.raises(ValidationError, match="mins names item"):
        true_score(0.0, science, mins={"nope": 1})
    with pytest.raises(ValidationError, match="mins must be"):
        true_score(0.0, science, mins="yes")
