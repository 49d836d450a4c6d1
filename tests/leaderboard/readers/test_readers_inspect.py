"""read_inspect on Inspect AI's own test logs (tests/leaderboard/data/inspect, see its README).

Expected scores are read from the logs here with zipfile/json and Inspect's documented value_to_float table
(C 1, P 0.5, I 0, N 0), never from the reader.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from irtbridge.exceptions import DataWarning, ValidationError
from irtbridge.leaderboard import read_inspect
from irtbridge.leaderboard.readers.inspect import inspect_metrics, inspect_value

DATA = Path(__file__).parents[1] / "data" / "inspect"
STREAMING = DATA / "log_streaming.eval"
JSON_LOG = DATA / "2025-05-12T20-28-13-04-00_popularity.json"
INSPECT_TABLE = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}  # scorer/_metric.py's value_to_float defaults


def _eval_samples(path: Path) -> list[dict]:
    with zipfile.ZipFile(path) as z:
        return [json.loads(z.read(n)) for n in z.namelist() if n.startswith("samples/")]


def test_eval_zip_with_epochs_mean_by_default():
    samples = _eval_samples(STREAMING)
    by_id: dict[str, list[float]] = {}
    for s in samples:
        by_id.setdefault(str(s["id"]), []).append(INSPECT_TABLE[s["scores"]["match"]["value"]])
    assert {k: len(v) for k, v in by_id.items()} == {"1": 2, "2": 2}  # two samples, two epochs each
    with pytest.warns(DataWarning, match="other than 0/1"):
        table = read_inspect(STREAMING)
    assert list(table.columns[:4]) == ["model", "task", "item", "score"]
    assert len(table) == 2  # one row per item, not per epoch
    got = dict(zip(table["sample_id"], table["score"]))
    assert got == {k: sum(v) / len(v) for k, v in by_id.items()}
    assert set(table["epochs"]) == {2}
    assert set(table["model"]) == {"azureai/Meta-Llama-3-1-405B-Instruct-jqf"}
    assert set(table["item"]) == {"popularity/1", "popularity/2"}


@pytest.mark.parametrize("epoch", [1, 2])
def test_one_epoch(epoch):
    want = {str(s["id"]): INSPECT_TABLE[s["scores"]["match"]["value"]] for s in _eval_samples(STREAMING)
            if s["epoch"] == epoch}
    table = read_inspect(STREAMING, epoch=epoch)
    assert dict(zip(table["sample_id"], table["score"])) == want


def test_json_log_and_eval_logs_together(tmp_path):
    doc = json.loads(JSON_LOG.read_text())
    want = {f"popularity/{s['id']}": INSPECT_TABLE[s["scores"]["match"]["value"]] for s in doc["samples"]}
    table = read_inspect(JSON_LOG)
    assert dict(zip(table["item"], table["score"])) == want
    assert set(table["model"]) == {doc["eval"]["model"]}
    for f in ("mmlu-summary-choices.eval", "log_formats.eval"):
        shutil.copy(DATA / f, tmp_path / f)
    shutil.copy(JSON_LOG, tmp_path / JSON_LOG.name)
    both = read_inspect(tmp_path)
    assert set(both["model"]) == {"openai/gpt-4o", "ollama/llama3.1", "openai/gpt-4o-mini"}
    mmlu = both[both["model"] == "openai/gpt-4o"]
    assert mmlu["metric"].tolist() == ["choice"]
    assert mmlu["score"].tolist() == [INSPECT_TABLE[_eval_samples(DATA / "mmlu-summary-choices.eval")[0]["scores"]
                                                    ["choice"]["value"]]]


def test_value_to_float_as_inspect_maps_it():
    assert [inspect_value(v) for v in "CIPN"] == [1.0, 0.0, 0.5, 0.0]
    assert [inspect_value(v) for v in (True, False, 3, 0.25, "yes", "No", "TRUE", "false", "0.75")] == \
        [1.0, 0.0, 3.0, 0.25, 1.0, 0.0, 1.0, 0.0, 0.75]
    assert [inspect_value(v) for v in ("maybe", [1], {"a": 1}, None, float("inf"), "nan")] == [None] * 6


def _log(tmp_path, samples, name="log.json", scorers=("match",)):
    log = {"version": 2, "status": "success",
           "eval": {"task": "t", "model": "org/m", "scorers": [{"name": s} for s in scorers]}, "samples": samples}
    path = tmp_path / name
    path.write_text(json.dumps(log))
    return path


def test_partial_and_numeric_values_and_threshold(tmp_path):
    path = _log(tmp_path, [{"id": i, "epoch": 1, "scores": {"match": {"value": v}}}
                           for i, v in enumerate(["P", 0.8, "N", "C"])])
    with pytest.warns(DataWarning):
        assert read_inspect(path)["score"].tolist() == [0.5, 0.8, 0.0, 1.0]
    assert read_inspect(path, threshold=0.75)["score"].tolist() == [0.0, 1.0, 0.0, 1.0]


@pytest.mark.parametrize("samples, message", [
    ([{"id": 1, "epoch": 1, "scores": {"match": {"value": "maybe"}}}], "sample 1: score 'match' value 'maybe'"),
    ([{"id": 1, "epoch": 1, "scores": {"other": {"value": "C"}}}], "no score 'match'"),
    ([{"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}},
      {"id": 1, "epoch": 1, "scores": {"match": {"value": "I"}}}], "logged twice for one epoch"),
    ([{"id": 1, "epoch": 1, "scores": None}], "no sample has a score"),
])
def test_bad_logs_are_one_line_errors(tmp_path, samples, message):
    path = _log(tmp_path, samples)
    with pytest.raises(ValidationError, match=message) as exc:
        read_inspect(path, metric="match")
    assert "\n" not in str(exc.value) and str(path) in str(exc.value)


def test_options_checked(tmp_path):
    path = _log(tmp_path, [{"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}}])
    for bad in (0, "last", 1.5, True):
        with pytest.raises(ValidationError, match="epoch must be"):
            read_inspect(path, epoch=bad)
    with pytest.raises(ValidationError, match="model must be a non-empty"):
        read_inspect(path, model="")
    with pytest.raises(ValidationError, match="no epoch 2"):
        read_inspect(path, epoch=2)


def test_runs_of_one_model_in_separate_folders_stay_apart(tmp_path):
    for run, value in (("ablation_a", "C"), ("ablation_b", "I")):
        (tmp_path / run).mkdir()
        _log(tmp_path / run, [{"id": 1, "epoch": 1, "scores": {"match": {"value": value}}}])
    table = read_inspect(tmp_path)
    assert dict(zip(table["model"], table["score"])) == {"org/m@ablation_a": 1.0, "org/m@ablation_b": 0.0}


def test_errored_samples_left_out_with_a_warning(tmp_path):
    path = _log(tmp_path, [{"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}},
                           {"id": 2, "epoch": 1, "error": {"message": "boom"}}])
    with pytest.warns(DataWarning, match="1 sample"):
        table = read_inspect(path)
    assert table["item"].tolist() == ["t/1"]


def test_a_running_log_without_header_reads_its_journal(tmp_path):
    """An .eval still being written has _journal/start.json and no header.json yet."""
    running = tmp_path / "running.eval"
    with zipfile.ZipFile(STREAMING) as src, zipfile.ZipFile(running, "w") as dst:
        for name in src.namelist():
            if name != "header.json":
                dst.writestr(name, src.read(name))
    table = read_inspect(running, epoch=1)
    assert table["score"].tolist() == read_inspect(STREAMING, epoch=1)["score"].tolist()


def test_list_metrics_names_the_scorers():
    listing = inspect_metrics(DATA)
    by_model = {m: part for m, part in listing.groupby("model")}
    assert by_model["openai/gpt-4o"]["metric"].tolist() == ["choice"]
    assert listing["default"].all() and listing["binary"].all()
    assert by_model["azureai/Meta-Llama-3-1-405B-Instruct-jqf"]["records"].tolist() == [4]  # 2 samples x 2 epochs


def test_the_mean_over_epochs_is_what_inspect_reduced():
    """Inspect's own reducer (mean, the run's default) stored its values in reductions.json: the oracle."""
    with zipfile.ZipFile(STREAMING) as z:
        inspect_reduced = {str(r["sample_id"]): float(r["value"]) for r in json.loads(z.read("reductions.json"))[0]
                           ["samples"]}
    with pytest.warns(DataWarning):
        mean = read_inspect(STREAMING)
    with pytest.warns(DataWarning):
        reduced = read_inspect(STREAMING, epoch="reduced")
    assert dict(zip(mean["sample_id"], mean["score"])) == inspect_reduced == \
        dict(zip(reduced["sample_id"], reduced["score"]))
    doc = json.loads(JSON_LOG.read_text())
    want = {str(r["sample_id"]): float(r["value"]) for r in doc["reductions"][0]["samples"]}
    got = read_inspect(JSON_LOG, epoch="reduced")
    assert dict(zip(got["sample_id"], got["score"])) == want


def test_reduced_needs_reductions(tmp_path):
    path = _log(tmp_path, [{"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}}])
    with pytest.raises(ValidationError, match="no reductions for scorer 'match'"):
        read_inspect(path, epoch="reduced")
