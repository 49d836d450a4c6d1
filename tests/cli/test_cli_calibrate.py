"""`irtbridge calibrate`, `abilities` and `doctor` from the command line."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from irtbridge.cli import main
from irtbridge.example_data import response_dataset
from tests._cli import status

pytestmark = pytest.mark.r


@pytest.fixture(scope="module")
def lsat_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "lsat.csv"
    response_dataset("LSAT").to_csv(path, index=False)
    return path


def test_calibrate_json_shape(lsat_csv, capsys, tmp_path):
    out = tmp_path / "items.csv"
    assert main(["calibrate", str(lsat_csv), "--model", "2PL", "--engine", "mirt", "--json", "--out", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert list(doc) == ["model", "engine", "loglik", "aic", "bic", "converged", "items", "standard_errors"]
    assert [r["item"] for r in doc["standard_errors"]] == [f"Item {j}" for j in range(1, 6)]
    assert doc["model"] == "2PL" and doc["engine"] == "mirt" and doc["converged"] is True
    assert [r["item"] for r in doc["items"]] == [f"Item {j}" for j in range(1, 6)]
    assert set(doc["items"][0]) == {"item", "a", "b", "g", "u"}
    table = pd.read_csv(out, index_col="item")
    np.testing.assert_allclose(table["a"], [r["a"] for r in doc["items"]], rtol=1e-12)


def test_calibrate_text_output(lsat_csv, capsys):
    assert main(["calibrate", str(lsat_csv), "--engine", "ltm"]) == 0
    text = capsys.readouterr().out
    assert "2PL by ltm" in text and "log-likelihood" in text


def test_abilities(lsat_csv, capsys):
    assert main(["abilities", str(lsat_csv), "--model", "2PL", "--method", "EAP", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["method"] == "EAP" and len(doc["abilities"]) == 1000
    assert set(doc["abilities"][0]) == {"respondent", "theta", "se"}


@pytest.mark.parametrize(
    "content, match",
    [
        (None, "does not exist"),
        ("", "is empty"),
        ('a,b\n1,"0\n', "not a readable CSV"),
        ("a,b\n0,1\n1,x\n", "non-numeric column"),
        ("a,b\n0,1\n1,2\n", "0/1"),
        ("a\n0\n1\n", "at least 2"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, content, match):
    path = tmp_path / "in.csv"
    if content is not None:
        path.write_text(content)
    assert status(["calibrate", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and match in err and str(path) in err or match in err
    assert "Traceback" not in err


def test_unknown_model_exits_2(lsat_csv, capsys):
    assert main(["calibrate", str(lsat_csv), "--model", "9PL"]) == 2
    assert "model='9PL' is not supported" in capsys.readouterr().err


def test_doctor_json_reports_every_direct_package(capsys):
    assert main(["doctor", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is True
    names = {r["package"] for r in doc["r_packages"]}
    assert {"mirt", "ltm", "EstCRM"} <= names
    assert all(r["status"] == "OK" for r in doc["r_packages"])


def test_installed_entry_point_runs():
    out = subprocess.run([sys.executable, "-m", "irtbridge", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("irtbridge ")
