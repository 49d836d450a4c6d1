"""`irtbridge ingest {lm-eval,helm,pyirt} PATHS... --out FILE` end to end (in process and as a subprocess).

The CSV written is compared with the fixtures read by plain json here; a bad input exits 2 with one line on
stderr and leaves no file (or the previous file untouched).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from irtbridge.cli import main

DATA = Path(__file__).parents[1] / "data"
LM_EVAL = DATA / "lm_eval"
HELM = DATA / "helm" / "v1"
PYIRT = DATA / "pyirt" / "responses.jsonlines"
ROOT = Path(__file__).parents[3]


def _lm_eval_expected() -> dict:
    out = {}
    for f in sorted((LM_EVAL / "EleutherAI__pythia-14m").glob("samples_*.jsonl")):
        task = f.name[len("samples_"):f.name.rfind("_")]
        seen = set()
        for line in f.read_text().splitlines():
            rec = json.loads(line)
            if rec["doc_id"] in seen:
                continue  # the second filter's record of a gsm8k document
            seen.add(rec["doc_id"])
            out[f"{task}/{rec['doc_hash'][:16]}"] = rec["exact_match" if "gsm8k" in task else "acc"]
    return out


def test_lm_eval_csv_and_json_summary(tmp_path, capsys):
    out = tmp_path / "long.csv"
    assert main(["ingest", "lm-eval", str(LM_EVAL), "--out", str(out), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    table = pd.read_csv(out)
    assert list(table.columns[:4]) == ["model", "task", "item", "score"]
    assert dict(zip(table["item"], table["score"])) == _lm_eval_expected()
    assert (info["rows"], info["models"], info["tasks"], info["items"]) == (96, 1, 16, 96)
    gsm = next(t for t in info["by_task"] if "gsm8k" in t["task"])
    assert gsm["metric"] == "exact_match" and gsm["rows"] == 6


def test_lm_eval_options_and_metric_listing(tmp_path, capsys):
    out = tmp_path / "long.csv"
    assert main(["ingest", "lm-eval", str(LM_EVAL), "--out", str(out), "--metric",
                 "metabench_arc_permute=acc_norm", "--filter", "1", "--item-id", "doc_id"]) == 0
    capsys.readouterr()
    table = pd.read_csv(out).set_index("item")
    assert table.loc["metabench_arc_permute/0", "metric"] == "acc_norm"
    assert set(table.loc[table["task"] == "metabench_gsm8k_secondary", "filter"]) == {"#1"}
    assert main(["ingest", "lm-eval", str(LM_EVAL), "--list-metrics", "--json"]) == 0
    listing = pd.DataFrame(json.loads(capsys.readouterr().out)["metrics"])
    arc = listing[listing["task"] == "metabench_arc_permute"]
    assert sorted(arc["metric"]) == ["acc", "acc_norm"]


def test_helm_and_pyirt(tmp_path, capsys):
    out = tmp_path / "helm.csv"
    assert main(["ingest", "helm", str(HELM), "--out", str(out), "--threshold", "0.5", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert (info["rows"], info["models"], info["tasks"], info["items"]) == (21, 2, 4, 16)
    table = pd.read_csv(out)
    assert table.loc[table["task"] == "narrative_qa", "score"].tolist() == [0, 1, 0, 1]
    out = tmp_path / "pyirt.csv"
    assert main(["ingest", "pyirt", str(PYIRT), "--out", str(out)]) == 0
    assert "22 rows (5 models, 1 tasks, 5 items)" in capsys.readouterr().out
    assert len(pd.read_csv(out)) == 22


def test_bad_input_exits_2_with_one_line_and_writes_nothing(tmp_path, capsys):
    model_dir = tmp_path / "EleutherAI__pythia-14m"
    shutil.copytree(LM_EVAL / "EleutherAI__pythia-14m", model_dir)
    last = sorted(model_dir.glob("*.jsonl"))[-1]
    last.write_text(last.read_text()[:-100])  # truncate the last line
    out = tmp_path / "long.csv"
    assert main(["ingest", "lm-eval", str(model_dir), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{last}:" in err and "not valid JSON" in err
    assert not out.exists()
    out.write_text("previous\n")
    assert main(["ingest", "lm-eval", str(model_dir), "--out", str(out)]) == 2
    assert out.read_text() == "previous\n"
    assert list(tmp_path.glob(".long.csv.*")) == []
    capsys.readouterr()
    assert main(["ingest", "helm", str(HELM), "--out", str(out), "--filter", "x"]) == 2
    assert "--filter is not an option of `ingest helm`" in capsys.readouterr().err
    assert main(["ingest", "pyirt", str(PYIRT)]) == 2
    assert "--out FILE.csv is required" in capsys.readouterr().err


@pytest.mark.slow
def test_as_a_subprocess(tmp_path):
    out = tmp_path / "long.csv"
    done = subprocess.run([sys.executable, "-m", "irtbridge", "ingest", "pyirt", str(PYIRT), "--out", str(out),
                           "--json"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["rows"] == 22 and out.exists()
