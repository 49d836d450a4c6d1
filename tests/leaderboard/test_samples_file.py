"""lm-evaluation-harness's ``--samples`` file (issue 39): written by ``irtbridge tiny`` and ``irtbridge twophase``,
read back as the harness reads it, on the real lm-eval fixture and through the command line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irtbridge.cli import main
from irtbridge.exceptions import ValidationError
from irtbridge.leaderboard.readers import read_lm_eval
from irtbridge.leaderboard.samples_file import documents_from_long, documents_from_names, samples_dict, write_samples

FIXTURE = Path(__file__).parent / "data" / "lm_eval" / "EleutherAI__pythia-14m"


def harness_reads(argument: str) -> dict:
    """What lm-evaluation-harness does with ``--samples ARG`` (lm_eval/_cli/utils.try_parse_json, then
    EvaluatorConfig._process_arguments): JSON text, else the file it names; checked as the harness uses it."""
    try:
        samples = json.loads(argument)
    except json.JSONDecodeError:
        assert "{" not in argument  # the harness refuses a malformed inline object
        samples = json.loads(Path(argument).read_text())
    assert isinstance(samples, dict)
    for task, docs in samples.items():
        assert isinstance(task, str) and all(isinstance(d, int) and d >= 0 for d in docs)
    return samples


def logged_doc_ids(samples: list[int], n_docs: int) -> list[int]:
    """The ``doc_id`` the harness logs for each selected document (lm_eval/api/task.doc_iterator enumerates the
    selected documents in document order; evaluator.py logs ``samples[position]``)."""
    selected = [i for i in range(n_docs) if i in samples]
    return [samples[position] for position, _ in enumerate(selected)]


def test_documents_of_a_real_lm_eval_run_and_the_file_read_back(tmp_path):
    files = sorted(FIXTURE.glob("samples_metabench_arc_secondary_2024*.jsonl"))
    long = read_lm_eval(files[0])
    docs = documents_from_long(long)
    records = [json.loads(line) for line in files[0].read_text().splitlines() if line.strip()]
    by_hash = {r["doc_hash"][:16]: r["doc_id"] for r in records}
    task = long["task"].iloc[0]
    assert docs == {f"{task}/{h}": (task, d) for h, d in by_hash.items()}
    chosen = list(docs)[::3][:7][::-1]  # out of document order on purpose
    path = write_samples(tmp_path / "samples.json", chosen, docs)
    read = harness_reads(str(path))
    wanted = sorted(docs[i][1] for i in chosen)
    assert read == {task: wanted}
    assert harness_reads(json.dumps(read)) == read  # the inline form reads the same
    # the harness logs each selected document under its own index only because the list is sorted
    assert logged_doc_ids(read[task], max(wanted) + 1) == wanted


def test_names_and_errors():
    assert documents_from_names(["mmlu_anatomy/3", "x/y/12", "noid"]) == {"mmlu_anatomy/3": ("mmlu_anatomy", 3),
                                                                          "x/y/12": ("x/y", 12)}
    with pytest.raises(ValidationError, match="no lm-eval document"):
        samples_dict(["a/1", "q"], documents_from_names(["a/1"]))
    long = pd.DataFrame({"task": ["t", "t"], "item": ["i", "i"], "doc_id": [1, 2]})
    with pytest.raises(ValidationError, match="one document of one task"):
        documents_from_long(long)
    with pytest.raises(ValidationError, match="doc_id"):
        documents_from_long(pd.DataFrame({"task": ["t"], "item": ["i"], "doc_id": [-1]}))


def test_tiny_and_twophase_write_the_samples_files(tmp_path, capsys):
    rng = np.random.default_rng(3)
    theta = rng.normal(size=(40, 1))
    names = [f"arc_easy/{j}" for j in range(60)] + [f"hellaswag/{j}" for j in range(40)]
    x = (rng.random((41, 100)) < 1 / (1 + np.exp(-(np.vstack([theta, [[1.0]]]) - rng.normal(size=100))))) * 1.0
    frame = pd.DataFrame(x, columns=names, index=pd.Index([f"m{i}" for i in range(41)], name="model"))
    frame.iloc[:40].to_csv(tmp_path / "cal.csv")
    assert main(["tiny", str(tmp_path / "cal.csv"), "--id-column", "model", "--k", "20", "--no-validate",
                 "--ncycles", "30", "--out", str(tmp_path / "tiny")]) == 0
    items = pd.read_csv(tmp_path / "tiny" / "items.csv")["item"].tolist()
    first = harness_reads(str(tmp_path / "tiny" / "samples.json"))
    assert sorted(f"{t}/{d}" for t, ds in first.items() for d in ds) == sorted(items)
    bank = json.loads((tmp_path / "tiny" / "bank.json").read_text())
    assert bank["documents"]["hellaswag/7"] == ["hellaswag", 7]
    # phase 1: the new model's answers to the tiny items; phase 2 drawn from them
    new = frame.iloc[[40]]
    new[items].to_csv(tmp_path / "run1.csv")
    capsys.readouterr()
    assert main(["twophase", str(tmp_path / "run1.csv"), "--id-column", "model", "--bank",
                 str(tmp_path / "tiny" / "bank.json"), "--n2", "15", "--seed", "2", "--out", str(tmp_path / "p2"),
                 "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    plan = json.loads((tmp_path / "p2" / "plan.json").read_text())
    second = harness_reads(str(tmp_path / "p2" / "samples.json"))
    drawn = sorted(f"{t}/{d}" for t, ds in second.items() for d in ds)
    assert drawn == sorted(plan["phase2"]) and info["n_phase2"] == len(drawn) and not set(drawn) & set(items)
    new[drawn].to_csv(tmp_path / "run2.csv")
    assert main(["twophase", str(tmp_path / "run2.csv"), "--id-column", "model", "--bank",
                 str(tmp_path / "tiny" / "bank.json"), "--plan", str(tmp_path / "p2" / "plan.json"), "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["respondents"][0]
    assert row["respondent"] == "m40" and row["lower"] <= row["accuracy"] <= row["upper"]
    assert row["n_phase1"] == 20 and row["n_phase2"] == len(drawn)
    # bad input: one line, exit 2, nothing written
    assert main(["twophase", str(tmp_path / "run1.csv"), "--id-column", "model", "--bank",
                 str(tmp_path / "tiny" / "bank.json")]) == 2
    assert "--out" in capsys.readouterr().err
