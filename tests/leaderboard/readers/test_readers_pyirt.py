"""py-irt files: JSON Lines responses in and out (a round trip), best_parameters.json as an item bank.

The bank's response probabilities are checked against py-irt's own ``predict`` formulas written out here
(1PL ``sigmoid(ability - diff)``, 2PL ``sigmoid(disc (ability - diff))``, 3PL ``lambdas + (1 - lambdas) *
sigmoid(...)``, 4PL ``lambdas * sigmoid(...)``), at py-irt's own subjects' abilities.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irtbridge.exceptions import ValidationError
from irtbridge.irt import response_probability
from irtbridge.leaderboard import read_pyirt, read_pyirt_parameters, responses_from_long, write_pyirt

DATA = Path(__file__).parents[1] / "data" / "pyirt"
RESPONSES = DATA / "responses.jsonlines"


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def test_read_counts_and_values_against_plain_json():
    table = read_pyirt(RESPONSES)
    lines = [json.loads(line) for line in RESPONSES.read_text().splitlines()]
    expected = {(d["subject_id"], item): v for d in lines for item, v in d["responses"].items()}
    assert len(expected) == 22
    assert list(table.columns) == ["model", "task", "item", "score"]
    assert dict(zip(zip(table["model"], table["item"]), table["score"])) == expected
    assert set(table["task"]) == {"responses"}
    assert set(read_pyirt(DATA, task="demo")["task"]) == {"demo"}
    wide = responses_from_long(table)
    assert wide.shape == (5, 5) and int(wide.isna().sum().sum()) == 3


def test_round_trip_write_then_read(tmp_path):
    table = read_pyirt(RESPONSES)
    out = write_pyirt(table, tmp_path / "copy.jsonlines")
    again = read_pyirt(out)
    cols = ["model", "item", "score"]
    pd.testing.assert_frame_equal(again[cols], table[cols])
    original = [json.loads(line) for line in RESPONSES.read_text().splitlines()]
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert written == original  # same subjects, items, order and 0/1 integers
    wide = pd.DataFrame({"q1": [1.0, np.nan], "q2": [0.0, 0.5]}, index=["a", "b"])
    lines = write_pyirt(wide, tmp_path / "w.jsonlines").read_text().splitlines()
    expected = [{"subject_id": "a", "responses": {"q1": 1, "q2": 0}}, {"subject_id": "b", "responses": {"q2": 0.5}}]
    assert [json.loads(x) for x in lines] == expected


@pytest.mark.parametrize("content, message", [
    ('{"subject_id": "a", "responses": {"q1": 1}}\n{"subject_id": "b", "resp', ":2: not valid JSON"),
    ('{"subject_id": "a"}\n', ':1: expected {"subject_id"'),
    ('{"subject_id": "a", "responses": {"q1": "yes"}}\n', ":1: subject 'a' item 'q1' response 'yes' is not a number"),
    ('{"subject_id": "a", "responses": {"q1": 1}}\n{"subject_id": "a", "responses": {"q2": 1}}\n',
     ":2: subject 'a' already read at"),
    ("", ":1: no subjects"),
])
def test_bad_lines_are_one_line_errors(tmp_path, content, message):
    path = tmp_path / "bad.jsonlines"
    path.write_text(content)
    with pytest.raises(ValidationError) as exc:
        read_pyirt(path)
    assert "\n" not in str(exc.value) and f"{path}{message}" in str(exc.value)


@pytest.mark.parametrize("kind, model", [("1pl", "rasch"), ("2pl", "2PL"), ("3pl", "3PL"), ("4pl", "4PL")])
def test_best_parameters_as_a_bank_match_pyirt_predict(kind, model):
    path = DATA / f"best_parameters_{kind}.json"
    params = json.loads(path.read_text())
    bank, ability = read_pyirt_parameters(path, with_abilities=True)
    assert bank.model == model and bank.names == ("q1", "q2", "q3", "q4", "q5")
    assert ability.index.tolist() == ["gpt2", "llama-7b", "pythia-14m", "mistral-7b", "opt-125m"]
    theta = np.asarray(params["ability"])[:, None]
    diff = np.asarray(params["diff"])[None, :]
    disc = np.asarray(params.get("disc", [1.0] * 5))[None, :]
    core = _sigmoid(disc * (theta - diff))
    lam = np.asarray(params.get("lambdas", [0.0] * 5))[None, :]
    pyirt = {"1pl": core, "2pl": core, "3pl": lam + (1 - lam) * core, "4pl": lam * core}[kind]
    ours = response_probability(ability.to_numpy(), bank)
    np.testing.assert_allclose(ours, pyirt, rtol=0, atol=1e-12)


def test_bad_parameter_files(tmp_path):
    params = json.loads((DATA / "best_parameters_3pl.json").read_text())
    path = tmp_path / "best_parameters.json"
    path.write_text(json.dumps(dict(params, irt_model="multidim_2pl")))
    with pytest.raises(ValidationError, match="not a unidimensional"):
        read_pyirt_parameters(path)
    path.write_text(json.dumps({k: v for k, v in params.items() if k != "irt_model"}))
    with pytest.raises(ValidationError, match="cannot be told apart"):
        read_pyirt_parameters(path)
    path.write_text(json.dumps(dict(params, disc=[1.0, 2.0])))
    with pytest.raises(ValidationError, match="'disc' has 2 values, 'diff' has 5"):
        read_pyirt_parameters(path)
    path.write_text('{"irt_model": "2pl", "diff": [0.1,')
    with pytest.raises(ValidationError, match=f"{path}:1: not valid JSON"):
        read_pyirt_parameters(path)
