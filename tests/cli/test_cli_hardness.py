"""Tests of `irtbridge hardness` (the CLI contract of issue 5).

Expected numbers are Table 1 of Prudêncio's cost-sensitive hardness paper counted by hand or the closed forms of the paper, never
irtbridge's own output.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from irtbridge.cli import main
from tests._cli import status

TABLE1 = pd.DataFrame(
    {
        "id": [f"x{i}" for i in range(1, 11)],
        "label": [1, 1, 1, 1, 0, 0, 0, 0, 0, 0],
        "m1": [0.70, 0.80, 0.80, 0.70, 0.80, 0.75, 0.10, 0.55, 0.80, 0.15],
        "m2": [0.60, 1.00, 0.95, 0.25, 0.68, 0.64, 0.37, 0.30, 0.72, 0.25],
        "m3": [0.00, 1.00, 0.93, 0.91, 0.78, 0.83, 0.78, 0.95, 1.00, 0.87],
        "m4": [0.65, 0.90, 0.88, 0.48, 0.74, 0.70, 0.24, 0.43, 0.76, 0.20],
    }
)
MODELS = ["--score", "m1", "--score", "m2", "--score", "m3", "--score", "m4"]


@pytest.fixture
def table1_csv(tmp_path):
    path = tmp_path / "table1.csv"
    TABLE1.to_csv(path, index=False)
    return str(path)


def test_json_shape_and_values(table1_csv, capsys):
    assert main(["hardness", table1_csv, "--label", "label", *MODELS, "--method", "sf", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"method", "threshold", "n_instances", "models", "instances", "classes"}
    assert out["method"] == "sf" and out["threshold"] == 0.5 and out["n_instances"] == 10
    assert out["models"] == ["m1", "m2", "m3", "m4"]
    assert [row["index"] for row in out["instances"]] == list(range(10))
    assert [row["label"] for row in out["instances"]] == TABLE1["label"].tolist()
    # by hand at t = 0.5: x1 is misclassified (s <= 0.5) by m3 only, x4 by m2, m4; x5 (s > 0.5) by all
    hard = {row["index"]: row["hardness"] for row in out["instances"]}
    assert hard[0] == 0.25 and hard[3] == 0.5 and hard[4] == 1.0
    # class hardness counted from Table 1: 16 of 24 errors in class 0, 3 of 16 in class 1
    classes = {row["class"]: row for row in out["classes"]}
    assert classes[0]["n"] == 6 and classes[1]["n"] == 4
    assert classes[0]["hardness"] == pytest.approx(16 / 24, abs=1e-15)
    assert classes[1]["hardness"] == pytest.approx(3 / 16, abs=1e-15)


def test_default_method_is_rd_and_id_column(table1_csv, capsys):
    assert main(["hardness", table1_csv, "--label", "label", "--score", "m1", "--id", "id", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "rd"
    hard = {row["index"]: row["hardness"] for row in out["instances"]}
    # Eq. 22 for x6 under m1: R = 0.6, l/n = 0.1; tolerance: float evaluation of a rational number
    assert hard["x6"] == pytest.approx(0.6**2 + 0.1 * (0.1 / 3 - 0.6), abs=1e-14)


def test_text_output(table1_csv, capsys):
    assert main(["hardness", table1_csv, "--label", "label", *MODELS, "--method", "sd"]) == 0
    text = capsys.readouterr().out
    assert "method sd: 10 instances, 4 model(s)" in text
    assert "class 0 (6 instances)" in text and "hardest" in text


def _fails(argv, capsys, fragment):
    assert status(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err, err


def test_missing_file(tmp_path, capsys):
    _fails(["hardness", str(tmp_path / "nope.csv"), "--label", "y", "--score", "s"], capsys, "does not exist")


def test_missing_column(table1_csv, capsys):
    _fails(["hardness", table1_csv, "--label", "label", "--score", "m9"], capsys, "no column(s) 'm9'")


def test_labels_not_binary(table1_csv, tmp_path, capsys):
    path = tmp_path / "bad.csv"
    TABLE1.assign(label=TABLE1["label"] + 1).to_csv(path, index=False)
    _fails(["hardness", str(path), "--label", "label", "--score", "m1"], capsys, "only the labels 0 and 1")


def test_labels_as_text(table1_csv, capsys):
    _fails(["hardness", table1_csv, "--label", "id", "--score", "m1"], capsys, "recode it to 0/1")


def test_scores_out_of_range(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    TABLE1.assign(m1=TABLE1["m1"] * 10).to_csv(path, index=False)
    _fails(["hardness", str(path), "--label", "label", "--score", "m1"], capsys, "column 'm1' must lie in [0.0, 1.0]")


def test_scores_missing(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    TABLE1.assign(m2=TABLE1["m2"].where(TABLE1.index != 3)).to_csv(path, index=False)
    _fails(["hardness", str(path), "--label", "label", "--score", "m2"], capsys, "missing")


def test_duplicate_score_column(table1_csv, capsys):
    _fails(["hardness", table1_csv, "--label", "label", "--score", "m1", "--score", "m1"], capsys, "more than once")


def test_duplicate_ids(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    TABLE1.assign(id="same").to_csv(path, index=False)
    _fails(["hardness", str(path), "--label", "label", "--score", "m1", "--id", "id"], capsys, "unique")


def test_bad_threshold(table1_csv, capsys):
    _fails(["hardness", table1_csv, "--label", "label", "--score", "m1", "--method", "sf", "--threshold", "2"], capsys, "threshold")


def test_bad_method_is_an_argparse_error(table1_csv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["hardness", table1_csv, "--label", "label", "--score", "m1", "--method", "auc"])
    assert exc.value.code == 2
