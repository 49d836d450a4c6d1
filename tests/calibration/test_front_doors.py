"""Every calibration front door goes check -> request -> engine.

Each public fitting function builds one FitRequest whose ``design`` names it and hands it to a row of
ENGINE_TABLE; the modules of ``calibration/fit/`` call R only to check (parameter tables, formulas), never
to fit. Here the engine row's ``fit`` is replaced by one that records the request and stops, so the test
sees what each door hands over (and that a door which fitted by itself would fail it).
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irtbridge
from irtbridge.calibration import (calibrate, calibrate_bifactor, calibrate_classes, calibrate_fixed, calibrate_groups,
                                   calibrate_mixed)
from irtbridge.calibration.engines.request import FitRequest
from irtbridge.calibration.inputs.engine_table import DESIGNS, ENGINE_TABLE, Engine
from irtbridge.calibration.engines import mirt as mirt_engine
from irtbridge.example_data import response_dataset
from irtbridge.exceptions import ValidationError

FIT = Path(irtbridge.__file__).parent / "calibration" / "fit"
# the R helpers a front door may call itself: parameter tables without a fit, and formula checks
CHECKS_IN_R = {"irtb_mirt_values", "irtb_mdirt_values", "irtb_mixed_formulas"}


class _Stop(Exception):
    pass


@pytest.fixture
def handed(monkeypatch):
    """The requests handed to an engine row, in order; the row stops instead of fitting."""
    seen: list[tuple[str, FitRequest]] = []

    def record(self, request):
        seen.append((self.name, request))
        raise _Stop

    monkeypatch.setattr(Engine, "fit", record)
    return seen


@pytest.fixture(scope="module")
def lsat7():
    return response_dataset("LSAT7")


@pytest.fixture(scope="module")
def old_fit(lsat7):
    """A real mirt fit of the first four items: calibrate_fixed's old form (made before the engines stop)."""
    return calibrate(lsat7.iloc[:, :4], "2PL", se=False)


def _doors(lsat7, old_fit):
    """(design, engine, call) for every front door, with arguments it accepts."""
    design = pd.DataFrame({"block": ["A", "A", "B", "B", "B"]}, index=lsat7.columns)
    return [
        ("calibrate", "mirt", lambda: calibrate(lsat7, "2PL")),
        ("calibrate", "ltm", lambda: calibrate(lsat7, "2PL", engine="ltm")),
        ("calibrate", "native", lambda: calibrate(lsat7, "2PL", engine="native")),
        ("bifactor", "mirt", lambda: calibrate_bifactor(lsat7, [1, 1, 2, 2, None])),
        ("groups", "mirt", lambda: calibrate_groups(lsat7, ["a", "b"] * 500, "2PL")),
        ("classes", "mirt", lambda: calibrate_classes(lsat7, 2)),
        ("fixed", "mirt", lambda: calibrate_fixed(lsat7.iloc[:, 1:], old_fit)),
        ("mixed", "mirt", lambda: calibrate_mixed(lsat7, item_covariates=design, item_formula="~ 0 + block")),
    ]


def test_every_front_door_hands_one_request_to_an_engine_row(lsat7, old_fit, handed):
    for design, engine, call in _doors(lsat7, old_fit):
        handed.clear()
        with pytest.raises(_Stop):
            call()
        assert len(handed) == 1, design
        name, request = handed[0]
        assert (name, request.design) == (engine, design)
        assert isinstance(request, FitRequest)
        assert request.data.shape[0] == len(lsat7)  # the checked responses travel in the request


def test_each_request_carries_what_its_design_needs(lsat7, handed):
    with pytest.raises(_Stop):
        calibrate_groups(lsat7, ["a", "b"] * 500, "2PL", invariance=["slopes"])
    with pytest.raises(_Stop):
        calibrate_classes(lsat7, 3, seed=4)
    groups, classes = handed[0][1], handed[1][1]
    assert list(groups.structure["group"]) == ["a", "b"] * 500 and groups.structure["invariance"] == ["slopes"]
    assert (classes.structure["n_classes"], classes.structure["seed"]) == (3, 4)


def test_front_doors_call_r_only_to_check():
    """No module of calibration/fit/ names an R helper that fits, or the R-side fitting of the engines."""
    for path in sorted(FIT.glob("*.py")):
        tree = ast.parse(path.read_text())
        helpers = {node.value for node in ast.walk(tree)
                   if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("irtb_")}
        assert helpers <= CHECKS_IN_R, f"{path.name} calls R helper(s) {sorted(helpers - CHECKS_IN_R)} itself"
        imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                    for alias in node.names}
        assert not imported & {"fit_in_r", "from_r_model"}, path.name


def test_designs_are_served_by_rows_and_refused_elsewhere():
    assert set(ENGINE_TABLE["mirt"].designs) == set(DESIGNS) == set(mirt_engine.DESIGNS)
    for name in ("ltm", "native"):
        assert ENGINE_TABLE[name].designs == ("calibrate",)
    request = FitRequest(np.zeros((2, 2)), ("q1", "q2"), "2PL", False, design="groups")
    with pytest.raises(ValidationError, match=r"engine='ltm' does not fit a multiple-group model .*use engine='mirt'"):
        ENGINE_TABLE["ltm"].fit(request)
