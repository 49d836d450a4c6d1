"""Parquet details: Open LLM Leaderboard v2 through R's nanoparquet (or pyarrow), lighteval and v1's struct columns.

tests/leaderboard/data/open_llm_leaderboard (see its README): real lm-evaluation-harness records of
leaderboard tasks written as parquet; the expected scores come from the source JSON Lines beside them, read
here with json. lighteval's own committed details are Git LFS pointers and no struct parquet can be written on
a machine without pyarrow, so the lighteval and v1 schemas are checked on the frames pyarrow would return (struct
cells as dicts), with the file reading replaced.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pandas as pd
import pytest

import irtbridge.leaderboard.readers.details as details
from irtbridge.exceptions import ValidationError
from irtbridge.leaderboard.readers import read_lighteval, read_open_llm_leaderboard
from irtbridge.leaderboard.readers._parquet import NESTED_NEEDS_PYARROW

DATA = Path(__file__).parents[1] / "data" / "open_llm_leaderboard"
V2 = DATA / "v2"


def _source(task_prefix: str) -> list[dict]:
    path = next((DATA / "source_jsonl").glob(f"samples_{task_prefix}*.jsonl"))
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.r
def test_v2_details_read_as_the_harness_records_say():
    table = read_open_llm_leaderboard(V2)
    assert list(table.columns[:4]) == ["model", "task", "item", "score"]
    for model, task, prefix in (("gpt-4o", "leaderboard_bbh_boolean_expressions", "leaderboard_bbh"),
                                ("llama3.1-pro16-0827-Inst-nc-chat_241016", "leaderboard_gpqa_diamond",
                                 "leaderboard_gpqa")):
        want = {f"{task}/{r['doc_hash'][:16]}": r["exact_match"] for r in _source(prefix)}
        part = table[table["model"] == model]
        assert set(part["task"]) == {task}
        assert dict(zip(part["item"], part["score"])) == want
    assert set(table["metric"]) == {"exact_match"}  # acc_norm (v2's BBH/GPQA default) is not in these generative runs


@pytest.mark.r
def test_nanoparquet_reads_what_r_reads(monkeypatch):
    """The R boundary's reading equals nanoparquet called in R directly (the R path even where pyarrow imports)."""
    path = next(V2.rglob("samples_leaderboard_bbh*.parquet"))
    out = subprocess.run(["Rscript", "-e", f"d <- nanoparquet::read_parquet('{path}'); "
                          "cat(d$doc_id, sep=','); cat('\\n'); cat(d$exact_match, sep=',')"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    import irtbridge.leaderboard.readers._parquet as parquet
    from irtbridge.leaderboard.readers._parquet import read_parquet

    monkeypatch.setattr(parquet, "have_pyarrow", lambda: False)

    frame = read_parquet(path, ["doc_id", "exact_match"])
    assert [str(int(v)) for v in frame["doc_id"]] == out[0].split(",")
    assert [f"{v:g}" for v in frame["exact_match"]] == out[1].split(",")


@pytest.mark.r
def test_not_parquet_is_one_line(tmp_path):
    bad = tmp_path / "gpt" / "samples_leaderboard_x_2024-01-01T00-00-00.000001.parquet"
    bad.parent.mkdir()
    bad.write_text("not parquet")
    with pytest.raises(ValidationError, match="not a readable parquet file") as exc:
        read_open_llm_leaderboard(bad.parent)
    assert "\n" not in str(exc.value) and str(bad) in str(exc.value)


def _fake(monkeypatch, frames: dict[str, pd.DataFrame], nested_ok: bool = True):
    """Replace the parquet layer: each file name -> the frame pyarrow's to_pandas would give."""
    def columns(path):
        return {c: nested_ok or not frames[path.name][c].map(lambda v: isinstance(v, dict)).any()
                for c in frames[path.name].columns}

    def read(path, cols):
        missing = [c for c in cols if not columns(path)[c]]
        if missing:
            raise ValidationError(f"{path}: column {missing[0]!r} is nested; {NESTED_NEEDS_PYARROW}")
        return frames[path.name][cols]

    monkeypatch.setattr(details, "parquet_columns", columns)
    monkeypatch.setattr(details, "read_parquet", read)


def _touch(root: Path, rel: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"PAR1")
    return path


def test_lighteval_schema_metric_struct(tmp_path, monkeypatch):
    # lighteval >= 0.9 (logging/info_loggers.py Detail: doc, model_response, metric)
    arc = _touch(tmp_path, "details/HuggingFaceTB/SmolLM2-1.7B/2025-11-05T14-43-47.148527/"
                           "details_arc:challenge|25_2025-11-05T14-43-47.148527.parquet")
    mmlu = _touch(tmp_path, "details/HuggingFaceTB/SmolLM2-1.7B/2025-11-05T14-43-47.148527/"
                            "details_mmlu:us_foreign_policy|5_2025-11-05T14-43-47.148527.parquet")
    doc = {"query": "Q", "choices": ["a", "b"], "gold_index": 0}
    frames = {arc.name: pd.DataFrame({"doc": [doc] * 3, "model_response": [{"text": ["a"]}] * 3,
                                      "metric": [{"acc": 1.0, "acc_norm": 0.0}, {"acc": 0.0, "acc_norm": 1.0},
                                                 {"acc": 1.0, "acc_norm": 1.0}]}),
              mmlu.name: pd.DataFrame({"doc": [doc] * 2, "model_response": [{"text": ["a"]}] * 2,
                                       "metric": [{"acc": 1.0}, {"acc": 0.0}]})}
    _fake(monkeypatch, frames)
    table = read_lighteval(tmp_path)
    assert set(table["model"]) == {"HuggingFaceTB/SmolLM2-1.7B"}
    arc_rows = table[table["task"] == "arc:challenge|25"]
    assert arc_rows["score"].tolist() == [0.0, 1.0, 1.0] and set(arc_rows["metric"]) == {"acc_norm"}  # OLL's choice
    assert table[table["task"] == "mmlu:us_foreign_policy|5"]["score"].tolist() == [1.0, 0.0]
    assert read_lighteval(tmp_path, metric="acc")["score"].tolist()[:3] == [1.0, 0.0, 1.0]
    with pytest.raises(ValidationError, match="task\\(s\\) 'arc' are not read"):
        read_lighteval(tmp_path, metric={"arc": "acc"})


def test_v1_schema_metrics_struct_and_nested_without_pyarrow(tmp_path, monkeypatch):
    path = _touch(tmp_path, "details_EleutherAI__pythia-160m/details_harness|hellaswag|10_2023-08-09T10-11-12.345678.parquet")
    frames = {path.name: pd.DataFrame({"example": ["e1", "e2"], "full_prompt": ["p1", "p2"],
                                       "metrics": [{"acc": 0.0, "acc_norm": 1.0}, {"acc": 1.0, "acc_norm": 0.0}]})}
    _fake(monkeypatch, frames)
    table = read_open_llm_leaderboard(tmp_path)
    assert set(table["model"]) == {"EleutherAI/pythia-160m"}
    assert table["item"].tolist() == ["harness|hellaswag|10/0", "harness|hellaswag|10/1"]
    assert table["score"].tolist() == [1.0, 0.0] and set(table["metric"]) == {"acc_norm"}
    _fake(monkeypatch, frames, nested_ok=False)
    with pytest.raises(ValidationError, match="column 'metrics' is nested; nanoparquet") as exc:
        read_open_llm_leaderboard(tmp_path)
    assert "\n" not in str(exc.value)


def test_the_pyarrow_road_when_pyarrow_imports(tmp_path, monkeypatch):
    """Where pyarrow imports it reads every column, structs included (pyarrow is not on this machine: a stand-in
    module with pyarrow.parquet's two calls, returning what ``read_table(...).to_pandas()`` returns)."""
    import sys
    import types

    import numpy as np

    import irtbridge.leaderboard.readers._parquet as parquet

    frame = pd.DataFrame({"metrics": [{"acc": 1.0, "acc_norm": 0.0}, {"acc": 0.0, "acc_norm": 1.0}],
                          "predictions": [np.array([-1.5, -2.0]), np.array([-0.5, -3.0])]})
    fake = types.ModuleType("pyarrow.parquet")
    fake.ParquetFile = lambda path: types.SimpleNamespace(schema_arrow=types.SimpleNamespace(names=list(frame)))
    fake.read_table = lambda path, columns: types.SimpleNamespace(to_pandas=lambda: frame[columns])
    monkeypatch.setitem(sys.modules, "pyarrow", types.ModuleType("pyarrow"))
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", fake)
    monkeypatch.setattr(parquet, "have_pyarrow", lambda: True)
    path = _touch(tmp_path, "details_org__m/details_harness|arc:challenge|25_2023-08-09T10-11-12.345678.parquet")
    assert parquet.parquet_columns(path) == {"metrics": True, "predictions": True}
    assert parquet.read_parquet(path, ["predictions"])["predictions"].tolist() == [[-1.5, -2.0], [-0.5, -3.0]]
    table = read_open_llm_leaderboard(tmp_path)
    assert table["score"].tolist() == [0.0, 1.0] and set(table["metric"]) == {"acc_norm"}
