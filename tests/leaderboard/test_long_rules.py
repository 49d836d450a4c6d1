"""One rule per question for every command that reads responses (issue 39 cause 5/6, issue 40's reader cases).

Each test fails on the main branch before this change (the old behaviour is said in its docstring).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import shutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irtbridge.cli._common import read_responses
from irtbridge.exceptions import DataWarning, ValidationError
from irtbridge.leaderboard import read_helm, read_lm_eval, read_pyirt, responses_from_long
from irtbridge.leaderboard.inputs import read_leaderboard_input
from irtbridge.leaderboard.readers.lm_eval import lm_eval_metrics

DATA = Path(__file__).parent / "data"
KT = DATA / "lm_eval_limit"  # real, from allenlee-37/KT-lm-evaluation-harness (see its README)
HELM_RUN = next((DATA / "helm").rglob("per_instance_stats.json")).parent


def _one_line(exc: pytest.ExceptionInfo) -> str:
    assert "\n" not in str(exc.value)
    return str(exc.value)


def _args(path, id_column=None):
    return argparse.Namespace(file=str(path), id_column=id_column, long=False)


def _matrix_csv(path: Path, rows: list[list], header=("model", "q1", "q2", "q3")) -> Path:
    pd.DataFrame(rows, columns=list(header)).to_csv(path, index=False)
    return path


# ----------------------------------------------------------------------------------------- repeated models / pairs
def test_identical_duplicate_model_rows_count_once_in_every_command(tmp_path):
    """main: `leaderboard` refused them, `tiny`/`estimate` kept both rows (two models of one name)."""
    path = _matrix_csv(tmp_path / "m.csv", [["a", 1, 0, 1], ["b", 0, 0, 1], ["a", 1, 0, 1], ["c", 1, 1, 1]])
    lb = read_leaderboard_input([path]).matrix
    tiny = read_responses(_args(path), models=True)
    assert list(lb.index) == list(tiny.index) == ["a", "b", "c"]
    np.testing.assert_array_equal(lb.to_numpy(), tiny.to_numpy(dtype=float))


def test_conflicting_duplicate_model_rows_refused_in_every_command(tmp_path):
    path = _matrix_csv(tmp_path / "m.csv", [["a", 1, 0, 1], ["b", 0, 0, 1], ["a", 0, 0, 1]])
    for read in (lambda: read_leaderboard_input([path]), lambda: read_responses(_args(path), models=True)):
        with pytest.raises(ValidationError, match="model\\(s\\) 'a' appear more than once with different answers"):
            read()


def test_one_rule_for_repeated_pairs_in_long_tables_and_readers(tmp_path):
    """main: responses_from_long refused identical repeats; answers_from_long (estimate --from) kept the last."""
    long = pd.DataFrame({"model": ["a", "a", "b", "a"], "task": "t", "item": ["q1", "q2", "q1", "q1"],
                         "score": [1, 0, 1, 1]})
    assert responses_from_long(long).loc["a", "q1"] == 1
    assert read_leaderboard_input([_csv(tmp_path / "l.csv", long)]).matrix.loc["a", "q1"] == 1
    long.loc[3, "score"] = 0
    for read in (lambda: responses_from_long(long), lambda: read_leaderboard_input([_csv(tmp_path / "l.csv", long)])):
        with pytest.raises(ValidationError, match=r"\('a', 'q1'\): 0 and 1") as exc:
            read()
        _one_line(exc)


def _csv(path: Path, frame: pd.DataFrame) -> Path:
    frame.to_csv(path, index=False)
    return path


# ----------------------------------------------------------------------------------------- responses_from_long values
@pytest.mark.parametrize("model, score, message", [
    (np.nan, 1.0, "row 0 has no respondent name"),
    ("m", 1e308, "not a finite number"),
    ("m", np.inf, "not a finite number"),
    ("m", -np.inf, "not a finite number"),
])
def test_responses_from_long_refuses_what_it_used_to_mangle(model, score, message):
    """main: a NaN model became the respondent "nan", 1e308 became inf in float32, inf was accepted."""
    long = pd.DataFrame({"model": [model, "n"], "item": ["q1", "q1"], "score": [score, 0.0]})
    with pytest.raises(ValidationError, match=message) as exc:
        responses_from_long(long)
    _one_line(exc)


# ----------------------------------------------------------------------------------------- files: .csv.gz, model column
def test_csv_gz_in_every_command(tmp_path):
    """main: `.csv.gz` was refused ('not UTF-8 text')."""
    plain = _matrix_csv(tmp_path / "m.csv", [["a", 1, 0, 1], ["b", 0, 0, 1]])
    packed = tmp_path / "m.csv.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert read_leaderboard_input([packed]).matrix.equals(read_leaderboard_input([plain]).matrix)
    assert read_responses(_args(packed), models=True).equals(read_responses(_args(plain), models=True))
    long = _csv(tmp_path / "l.csv", pd.DataFrame({"model": ["a", "b"], "item": ["q", "q"], "score": [1, 0]}))
    (tmp_path / "l.csv.gz").write_bytes(gzip.compress(long.read_bytes()))
    assert responses_from_long(tmp_path / "l.csv.gz").equals(responses_from_long(long))
    (tmp_path / "bad.csv.gz").write_bytes(b"not gzip")
    with pytest.raises(ValidationError, match="bad.csv.gz"):
        read_leaderboard_input([tmp_path / "bad.csv.gz"])


def test_one_model_name_column_rule(tmp_path):
    """main: `leaderboard` detected the name column, `tiny` needed --id-column (else 'name' was an item)."""
    path = _matrix_csv(tmp_path / "m.csv", [["gpt", 1, 0, 1], ["llama", 0, 0, 1]], header=("name", "q1", "q2", "q3"))
    for got in (read_leaderboard_input([path]).matrix, read_responses(_args(path), models=True)):
        assert list(got.index) == ["gpt", "llama"] and list(got.columns) == ["q1", "q2", "q3"]
    path = _matrix_csv(tmp_path / "n.csv", [[1, 1, 0, 1], [0, 0, 0, 1]], header=("q0", "q1", "q2", "q3"))
    for got in (read_leaderboard_input([path]).matrix, read_responses(_args(path), models=True)):
        assert list(got.index) == ["model 1", "model 2"] and list(got.columns) == ["q0", "q1", "q2", "q3"]


def test_jsonlines_to_leaderboard_is_pyirt_not_csv(tmp_path):
    """main: parsed as a CSV ('responses file ... has no item columns' or a garbled header)."""
    path = tmp_path / "answers.jsonlines"
    path.write_text('{"subject_id": "m1", "responses": {"q1": 1, "q2": 0}}\n'
                    '{"subject_id": "m2", "responses": {"q1": 0, "q2": 0}}\n')
    got = read_leaderboard_input([path])
    assert got.matrix.shape == (2, 2) and "pyirt" in got.source


# ----------------------------------------------------------------------------------------- reader options
def _hash(i: int) -> str:
    return hashlib.sha256(str(i).encode()).hexdigest()


def _samples(folder: Path, task: str, records: list[dict]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"samples_{task}_2024-01-01T00-00-00.000001.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_conflicting_records_without_filter_key_are_not_phantom_filters(tmp_path):
    """main: the second record of a doc_id became filter '#1' silently."""
    recs = [{"doc_id": i, "doc": {}, "doc_hash": _hash(i), "resps": [["a"]], "acc": 1.0} for i in range(3)]
    recs.append({"doc_id": 1, "doc": {}, "doc_hash": _hash(1), "resps": [["b"]], "acc": 0.0})
    path = _samples(tmp_path / "org__m", "boolq", recs)
    with pytest.raises(ValidationError, match="doc_id 1 is logged again with another response") as exc:
        read_lm_eval(path)
    assert f"{path}:4" in _one_line(exc)
    recs[-1]["resps"] = [["a"]]  # the same response: a second filter, but only for one document
    _samples(tmp_path / "org__m", "boolq", recs)
    with pytest.raises(ValidationError, match="some documents are logged 1 time\\(s\\), others 2"):
        read_lm_eval(path)


def test_metric_dict_naming_no_task_is_an_error(tmp_path):
    """main: metric={"hellaswg": ...} was ignored (the default metric read)."""
    _samples(tmp_path / "org__m", "hellaswag", [{"doc_id": 0, "doc": {}, "acc": 1.0, "acc_norm": 0.0}])
    with pytest.raises(ValidationError, match="task\\(s\\) 'hellaswg' are not read"):
        read_lm_eval(tmp_path, metric={"hellaswg": "acc"})
    with pytest.raises(ValidationError, match="task\\(s\\) 'gsm8k' are not read"):
        read_lm_eval(tmp_path, filter={"gsm8k": 0})


def test_model_name_must_not_be_empty(tmp_path):
    """main: read_lm_eval(model="") named every row ""."""
    _samples(tmp_path / "org__m", "boolq", [{"doc_id": 0, "doc": {}, "acc": 1.0}])
    for bad in ("", "  ", 3):
        with pytest.raises(ValidationError, match="model must be a non-empty model name"):
            read_lm_eval(tmp_path, model=bad)


def test_helm_perturbations_must_be_a_bool():
    """main: perturbations="no" is truthy: the perturbed instances were read."""
    with pytest.raises(ValidationError, match="perturbations must be True or False, got 'no'"):
        read_helm(HELM_RUN, perturbations="no")


def test_pyirt_warns_on_non_binary_scores(tmp_path):
    """main: 2, -1, 0.5 were taken without the warning the other readers give."""
    path = tmp_path / "r.jsonlines"
    path.write_text('{"subject_id": "m", "responses": {"q1": 2, "q2": -1, "q3": 0.5, "q4": 1}}\n')
    with pytest.warns(DataWarning, match="scores other than 0/1"):
        assert read_pyirt(path)["score"].tolist() == [2.0, -1.0, 0.5, 1.0]


# ----------------------------------------------------------------------------------------- lm-eval naming and defaults
def test_messy_multi_model_output_names_and_latest_runs():
    """Real lm-eval output with --limit runs (allenlee-37/KT-lm-evaluation-harness): model_name from results_*.json,
    SOLAR's two runs of winogrande -> the later one, with a warning."""
    with pytest.warns(DataWarning, match="1 task run\\(s\\) left out"):
        table = read_lm_eval(KT)
    assert set(table["model"]) == {"gpt-4o", "upstage/SOLAR-10.7B-Instruct-v1.0", "LGAI-EXAONE/EXAONE-3.0-7.8B-Instruct"}
    later = KT / "upstage__SOLAR-10.7B-Instruct-v1.0" / "samples_winogrande_2024-12-23T15-04-32.131238.jsonl"
    recs = [json.loads(line) for line in later.read_text().splitlines()]
    solar = table[table["model"] == "upstage/SOLAR-10.7B-Instruct-v1.0"]
    assert dict(zip(solar["item"], solar["score"])) == {f"winogrande/{r['doc_hash'][:16]}": r["exact_match"] for r in recs}


def test_same_model_name_with_or_without_results_json(tmp_path):
    """main: `org__model` without results_*.json, `org/model` with it."""
    shutil.copytree(KT / "LGAI-EXAONE__EXAONE-3.0-7.8B-Instruct", tmp_path / "with" / "LGAI-EXAONE__EXAONE-3.0-7.8B-Instruct")
    bare = shutil.copytree(KT / "LGAI-EXAONE__EXAONE-3.0-7.8B-Instruct",
                           tmp_path / "without" / "LGAI-EXAONE__EXAONE-3.0-7.8B-Instruct")
    for f in bare.glob("results_*.json"):
        f.unlink()
    assert set(read_lm_eval(tmp_path / "with")["model"]) == set(read_lm_eval(tmp_path / "without")["model"]) == \
        {"LGAI-EXAONE/EXAONE-3.0-7.8B-Instruct"}


def test_ablations_in_separate_folders_stay_apart(tmp_path):
    """main: one model's runs in two folders collapsed into one (the older run dropped as a rerun)."""
    for run in ("ablation_lr1e-5", "ablation_lr3e-5"):
        shutil.copytree(KT / "gpt-4o", tmp_path / run / "gpt-4o")
    table = read_lm_eval(tmp_path)
    assert sorted(set(table["model"])) == ["gpt-4o@ablation_lr1e-5", "gpt-4o@ablation_lr3e-5"]
    assert len(table) == 20  # 10 limited documents each
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        got = read_leaderboard_input([tmp_path])
    assert got.matrix.shape == (2, 10)


def test_arc_and_hellaswag_default_to_acc_norm_and_list_metrics_says_so(tmp_path):
    """main: acc (the Open LLM Leaderboard and tinyBenchmarks read acc_norm)."""
    recs = [{"doc_id": i, "doc": {}, "acc": float(i % 2), "acc_norm": 1.0} for i in range(2)]
    for task in ("arc_challenge", "hellaswag", "winogrande"):
        _samples(tmp_path / "org__m", task, recs)
    table = read_lm_eval(tmp_path)
    assert dict(table.groupby("task")["metric"].first()) == {"arc_challenge": "acc_norm", "hellaswag": "acc_norm",
                                                             "winogrande": "acc"}
    listing = lm_eval_metrics(tmp_path)
    assert set(listing.loc[listing["default"], "metric"]) == {"acc_norm", "acc"}
    assert listing.loc[listing["default"] & (listing["task"] == "arc_challenge"), "metric"].tolist() == ["acc_norm"]


def test_one_output_folder_per_task_is_still_one_model(tmp_path):
    """Folders holding other tasks of a model are one model; only overlapping runs are kept apart."""
    recs = [{"doc_id": i, "doc": {}, "acc": 1.0} for i in range(2)]
    _samples(tmp_path / "out_boolq" / "org__m", "boolq", recs)
    _samples(tmp_path / "out_piqa" / "org__m", "piqa", recs)
    assert set(read_lm_eval(tmp_path)["model"]) == {"org/m"}
    _samples(tmp_path / "out_piqa" / "org__m", "boolq", recs)
    assert set(read_lm_eval(tmp_path)["model"]) == {"org/m@out_boolq", "org/m@out_piqa"}
