"""read_lm_eval on real lm-evaluation-harness sample files (metabench's, trimmed) and on files built here.

Expected rows, ids and scores are computed in the test from the files with plain ``json`` (not through the
reader); bad input must be one line naming the file and the line.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import warnings
from pathlib import Path

import pytest

from irtbridge.exceptions import DataWarning, ValidationError
from irtbridge.leaderboard import lm_eval_metrics, read_lm_eval, responses_from_long

DATA = Path(__file__).parents[1] / "data" / "lm_eval"
MODEL_DIR = DATA / "EleutherAI__pythia-14m"
FILES = sorted(MODEL_DIR.glob("samples_*.jsonl"))
GSM = next(f for f in FILES if "gsm8k" in f.name)


def _task(path: Path) -> str:
    return path.name[len("samples_"):path.name.rfind("_")]


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _expected(metric_of=lambda task: "exact_match" if "gsm8k" in task else "acc", occurrence=0):
    """{item: score} from the files by plain json: the k-th record of each doc_id is the k-th filter's."""
    out = {}
    for f in FILES:
        task, seen = _task(f), {}
        for rec in _lines(f):
            k = seen.get(rec["doc_id"], 0)
            seen[rec["doc_id"]] = k + 1
            if k == occurrence:
                out[f"{task}/{rec['doc_hash'][:16]}"] = rec[metric_of(task)]
    return out


def _one_line(exc: pytest.ExceptionInfo) -> str:
    text = str(exc.value)
    assert "\n" not in text
    return text


@pytest.fixture
def model_dir(tmp_path):
    target = tmp_path / "out" / MODEL_DIR.name
    shutil.copytree(MODEL_DIR, target)
    return target


def test_real_files_counts_ids_and_scores():
    table = read_lm_eval(DATA)
    assert list(table.columns[:4]) == ["model", "task", "item", "score"]
    assert len(FILES) == 16
    expected = _expected()
    assert len(expected) == 96  # 16 files x 6 documents
    assert len(table) == len(expected)
    assert dict(zip(table["item"], table["score"])) == expected
    assert set(table["model"]) == {"EleutherAI/pythia-14m"}  # the folder's "__" read back as "/"
    assert set(table["task"]) == {_task(f) for f in FILES}
    per_task = table.groupby("task").size()
    for f in FILES:
        assert per_task[_task(f)] == len({r["doc_id"] for r in _lines(f)})
    assert set(table.loc[table["task"].str.contains("gsm8k"), "metric"]) == {"exact_match"}
    assert set(table.loc[~table["task"].str.contains("gsm8k"), "metric"]) == {"acc"}
    wide = responses_from_long(table)
    assert wide.shape == (1, 96)


def test_one_file_and_a_list_of_files_read_the_same_rows():
    one = read_lm_eval(FILES[0])
    assert len(one) == len(_lines(FILES[0]))
    both = read_lm_eval([FILES[0], FILES[1]])
    assert len(both) == len(_lines(FILES[0])) + len(_lines(FILES[1]))


def test_metric_choice_global_and_per_task():
    arc = [f for f in FILES if "arc" in f.name]
    table = read_lm_eval(arc, metric="acc_norm")
    expected = {f"{_task(f)}/{r['doc_hash'][:16]}": r["acc_norm"] for f in arc for r in _lines(f)}
    assert dict(zip(table["item"], table["score"])) == expected
    mixed = read_lm_eval(DATA, metric={"metabench_arc_permute": "acc_norm"})
    chosen = mixed.set_index("item")
    arc_permute = next(f for f in arc if _task(f) == "metabench_arc_permute")
    for r in _lines(arc_permute):
        assert chosen.loc[f"metabench_arc_permute/{r['doc_hash'][:16]}", "score"] == r["acc_norm"]
    assert set(mixed.loc[mixed["task"] != "metabench_arc_permute", "metric"]) <= {"acc", "exact_match"}


def test_a_record_without_the_chosen_metric_is_a_one_line_error():
    mmlu = next(f for f in FILES if "mmlu_permute" in f.name)
    with pytest.raises(ValidationError) as exc:
        read_lm_eval(mmlu, metric="acc_norm")
    assert f"{mmlu}:1: record has no metric 'acc_norm'" in _one_line(exc)


def test_record_missing_its_metric_on_line_3(model_dir):
    f = model_dir / FILES[0].name
    lines = f.read_text(encoding="utf-8").splitlines()
    rec = json.loads(lines[2])
    del rec["acc"]
    lines[2] = json.dumps(rec)
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ValidationError) as exc:
        read_lm_eval(model_dir)
    assert f"{f}:3: record has no metric 'acc'" in _one_line(exc)


def test_filters_by_position_in_files_before_the_filter_key():
    recs = _lines(GSM)
    assert len(recs) == 12 and len({r["doc_id"] for r in recs}) == 6  # each document once per filter
    first = read_lm_eval(GSM)
    second = read_lm_eval(GSM, filter=1)
    assert set(first["filter"]) == {"#0"} and set(second["filter"]) == {"#1"}
    task = _task(GSM)
    assert dict(zip(second["item"], second["score"])) == {f"{task}/{r['doc_hash'][:16]}": r["exact_match"]
                                                          for r in recs[6:]}
    with pytest.raises(ValidationError) as exc:
        read_lm_eval(GSM, filter="strict-match")
    assert "predate the 'filter' key" in _one_line(exc) and str(GSM) in str(exc.value)
    with pytest.raises(ValidationError, match="out of range"):
        read_lm_eval(GSM, filter=2)
    # a position for every task applies where a task logs several filters; a task's own entry must exist
    whole = read_lm_eval(DATA, filter=1)
    assert set(whole["filter"]) == {"#0", "#1"} and len(whole) == 96
    with pytest.raises(ValidationError, match="'metabench_arc_permute' has 1 filter"):
        read_lm_eval(DATA, filter={"metabench_arc_permute": 1})


def _hash(i: int) -> str:
    return hashlib.sha256(str(i).encode()).hexdigest()


def _write_jsonl(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_filters_by_name_from_v047(tmp_path):
    recs = []
    for name, scores in (("strict-match", [0.0, 1.0, 0.0]), ("flexible-extract", [1.0, 1.0, 0.0])):
        for i, s in enumerate(scores):
            recs.append({"doc_id": i, "doc": {"q": i}, "filter": name, "metrics": ["exact_match"],
                         "doc_hash": _hash(i), "exact_match": s})
    _write_jsonl(tmp_path / "org__m" / "samples_gsm8k_2025-01-02T03-04-05.000001.jsonl", recs)
    default = read_lm_eval(tmp_path)
    assert default["score"].tolist() == [0.0, 1.0, 0.0] and set(default["filter"]) == {"strict-match"}
    flexible = read_lm_eval(tmp_path, filter="flexible-extract")
    assert flexible["score"].tolist() == [1.0, 1.0, 0.0]
    assert read_lm_eval(tmp_path, filter=1)["score"].tolist() == [1.0, 1.0, 0.0]
    listing = lm_eval_metrics(tmp_path)
    assert listing[["filter", "metric", "records", "default"]].values.tolist() == [
        ["strict-match", "exact_match", 3, True], ["flexible-extract", "exact_match", 3, False]]


def test_item_ids(tmp_path):
    arc = next(f for f in FILES if "arc_permute" in f.name)
    recs = _lines(arc)
    by_id = read_lm_eval(arc, item_id="doc_id")
    assert by_id["item"].tolist() == [f"metabench_arc_permute/{r['doc_id']}" for r in recs]
    by_field = read_lm_eval(arc, item_id="doc:id")
    assert by_field["item"].tolist() == [f"metabench_arc_permute/{r['doc']['id']}" for r in recs]
    with pytest.raises(ValidationError) as exc:
        read_lm_eval(arc, item_id="doc:nope")
    assert f"{arc}:1:" in _one_line(exc)
    with pytest.raises(ValidationError, match="item_id must be"):
        read_lm_eval(arc, item_id="hash")


def test_latest_run_wins_with_one_warning(model_dir):
    older = []
    for f in FILES[:2]:  # two tasks run twice: an older run with every score flipped
        recs = _lines(f)
        for r in recs:
            r["acc"] = 1.0 - r["acc"]
        older.append(_write_jsonl(model_dir / f"samples_{_task(f)}_2024-11-25T09-00-00.000000.jsonl", recs))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = read_lm_eval(model_dir)
    ours = [w for w in caught if issubclass(w.category, DataWarning)]
    assert len(ours) == 1 and "2 task run(s) left out" in str(ours[0].message)
    assert dict(zip(table["item"], table["score"])) == _expected()


def test_model_name_and_groups_from_results_json(model_dir):
    results = {"model_name": "EleutherAI/pythia-14m", "model_name_sanitized": "EleutherAI__pythia-14m",
               "group_subtasks": {"metabench": ["metabench_arc", "metabench_mmlu_permute"],
                                  "metabench_arc": ["metabench_arc_permute"], "metabench_arc_permute": []}}
    (model_dir / "results_2024-11-26T10-52-00.000000.json").write_text(json.dumps(results), encoding="utf-8")
    table = read_lm_eval(model_dir)
    assert set(table["model"]) == {"EleutherAI/pythia-14m"}
    groups = table.groupby("task")["group"].first()
    assert groups["metabench_arc_permute"] == "metabench" and groups["metabench_mmlu_permute"] == "metabench"
    assert groups.isna().sum() == 14
    assert set(read_lm_eval(model_dir, model="pythia")["model"]) == {"pythia"}


def test_two_models_in_one_folder(model_dir):
    for name, stamp in (("EleutherAI/pythia-14m", "10-52"), ("EleutherAI/pythia-70m", "11-52")):
        (model_dir / f"results_2024-11-26T{stamp}-00.000000.json").write_text(json.dumps({"model_name": name}))
    with pytest.raises(ValidationError) as exc:
        read_lm_eval(model_dir)
    assert "two models in one folder" in _one_line(exc) and str(model_dir) in str(exc.value)


def test_truncated_line(model_dir):
    f = model_dir / FILES[3].name
    text = f.read_text(encoding="utf-8")
    f.write_text(text[: len(text) - 200], encoding="utf-8")  # cut inside the last line
    n = len(text[: len(text) - 200].splitlines())
    with pytest.raises(ValidationError) as exc:
        read_lm_eval(model_dir)
    assert f"{f}:{n}: not valid JSON" in _one_line(exc) and "truncated" in str(exc.value)


def test_mixed_formats_empty_folder_and_empty_file(model_dir, tmp_path):
    (model_dir / "pretrained__x_arc.jsonl").write_text(json.dumps([{"doc_id": 0, "acc": 1.0}], indent=2))
    with pytest.raises(ValidationError) as exc:
        read_lm_eval(model_dir)
    assert "mixed formats" in _one_line(exc)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValidationError) as exc:
        read_lm_eval(tmp_path / "empty")
    assert "no lm-evaluation-harness sample files" in _one_line(exc)
    empty = tmp_path / "m" / "samples_arc_2024-01-01T00-00-00.000001.jsonl"
    empty.parent.mkdir()
    empty.write_text("")
    with pytest.raises(ValidationError) as exc:
        read_lm_eval(empty)
    assert f"{empty}:1: empty file" in _one_line(exc)
    with pytest.raises(ValidationError, match="does not exist"):
        read_lm_eval(tmp_path / "nowhere")


def test_the_v040_one_array_form(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    args = "pretrained=EleutherAI/pythia-160m,dtype=float"
    (out / "results.json").write_text(json.dumps({"results": {}, "configs": {"arc_easy": {}, "arc": {}},
                                                  "config": {"model": "hf", "model_args": args}}))
    records = [{"doc_id": i, "doc": {"id": f"q{i}"}, "target": "A", "arguments": [], "resps": [],
                "filtered_resps": [], "acc": float(i == 1), "acc_norm": 1.0} for i in range(3)]
    (out / "pretrained__EleutherAI__pythia-160m,dtype__float_arc_easy.jsonl").write_text(json.dumps(records, indent=2))
    table = read_lm_eval(out, metric="acc")  # arc's own default is acc_norm (Open LLM Leaderboard)
    model = "EleutherAI/pythia-160m"
    assert table[["model", "task", "item", "score"]].values.tolist() == [
        [model, "arc_easy", "arc_easy/0", 0.0], [model, "arc_easy", "arc_easy/1", 1.0],
        [model, "arc_easy", "arc_easy/2", 0.0]]
    del records[2]["acc"]
    text = json.dumps(records, indent=2)
    (out / "pretrained__EleutherAI__pythia-160m,dtype__float_arc_easy.jsonl").write_text(text)
    third = [i for i, line in enumerate(text.splitlines(), start=1) if line == "  {"][2]
    with pytest.raises(ValidationError) as exc:
        read_lm_eval(out, metric="acc")
    assert f"arc_easy.jsonl:{third}: record has no metric 'acc'" in _one_line(exc)
    (out / "results.json").unlink()
    with pytest.raises(ValidationError) as exc:
        read_lm_eval(out)
    assert "needs the results.json" in _one_line(exc)


def test_non_binary_metrics_continuous_or_binarised(tmp_path):
    recs = [{"doc_id": i, "doc": {}, "doc_hash": _hash(i), "mc1": float(v > 0.5), "mc2": v}
            for i, v in enumerate([0.25, 0.5, 0.75])]
    path = _write_jsonl(tmp_path / "org__m" / "samples_truthfulqa_mc2_2024-01-01T00-00-00.000001.jsonl", recs)
    with pytest.warns(DataWarning, match="kept continuous: truthfulqa_mc2 \\(mc2\\)"):
        kept = read_lm_eval(path, metric="mc2")
    assert kept["score"].tolist() == [0.25, 0.5, 0.75]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        binary = read_lm_eval(path, metric="mc2", threshold=0.5)
    assert binary["score"].tolist() == [0.0, 1.0, 1.0]
    # no acc, no exact_match: the first numeric metric the record carries
    assert set(read_lm_eval(path)["metric"]) == {"mc1"}
