"""read_helm on HELM run folders written to HELM's schema (tests/leaderboard/data/helm/README.md).

Expected scores come from the README's table (by hand) and from the files read with plain ``json``.
"""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import pytest

from irtbridge.exceptions import DataWarning, ValidationError
from irtbridge.leaderboard import read_helm, responses_from_long

SUITE = Path(__file__).parents[1] / "data" / "helm" / "v1"
MMLU = "mmlu:subject=anatomy,method=multiple_choice_joint"
BOOLQ_RUN = "boolq:model=openai_gpt2,data_augmentation=canonical"
BOOLQ = "boolq:data_augmentation=canonical"

# by hand, from the README's table
BY_HAND = {
    ("openai_gpt2", MMLU): [1, 0, 0, 1, 0],
    ("meta_llama-7b", MMLU): [1, 1, 0, 1, 1],
    ("openai_gpt2", BOOLQ): [1, 1, 0, 1],
    ("openai_gpt2", "narrative_qa"): [1 / 3, 0.8, 0.0, 1.0],
    ("meta_llama-7b", "gsm"): [0, 1, 1],
}


def _one_line(exc) -> str:
    assert "\n" not in str(exc.value)
    return str(exc.value)


def _line_of_record(path: Path, n: int) -> int:
    """The line the n-th record starts on, in a file written with json.dumps(..., indent=2)."""
    starts = [i for i, line in enumerate(path.read_text().splitlines(), start=1) if line == "  {"]
    return starts[n - 1]


def _read(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        return read_helm(*args, **kwargs)


def test_counts_models_tasks_items_and_main_metrics():
    table = _read(SUITE)
    assert list(table.columns[:4]) == ["model", "task", "item", "score"]
    assert len(table) == sum(len(v) for v in BY_HAND.values()) == 21
    for (model, task), scores in BY_HAND.items():
        part = table[(table["model"] == model) & (table["task"] == task)].sort_values("instance_id")
        assert part["score"].tolist() == pytest.approx(scores)
    metric = table.groupby("task")["metric"].first()
    assert metric.to_dict() == {MMLU: "exact_match", BOOLQ: "quasi_exact_match", "narrative_qa": "f1_score",
                                "gsm": "final_number_exact_match"}
    assert table.loc[table["task"] == MMLU, "item"].str.startswith(f"{MMLU}/id").all()
    assert set(table.loc[table["task"] == BOOLQ, "split"]) == {"valid"}
    assert table["perturbation"].isna().all()
    wide = responses_from_long(table)
    assert wide.shape == (2, 16)  # the two mmlu runs share their 5 items


def test_scores_match_the_files_read_with_plain_json():
    run = SUITE / f"{MMLU},model=openai_gpt2"
    records = json.loads((run / "per_instance_stats.json").read_text())
    expected = {}
    for rec in records:
        if "perturbation" in rec:
            continue
        for stat in rec["stats"]:
            if stat["name"]["name"] == "exact_match":
                expected[f"{MMLU}/{rec['instance_id']}"] = stat["mean"]
    table = read_helm(run)
    assert dict(zip(table["item"], table["score"])) == expected


def test_metric_override_and_threshold():
    narrative = SUITE / "narrative_qa:model=openai_gpt2"
    assert read_helm(narrative, metric="exact_match")["score"].tolist() == [0, 0, 0, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_helm(narrative, threshold=0.5)["score"].tolist() == [0, 1, 0, 1]
    with pytest.warns(DataWarning, match="narrative_qa \\(f1_score\\)"):
        read_helm(narrative)
    both = _read(SUITE, metric={"narrative_qa": "exact_match", MMLU: "prefix_exact_match"})
    assert both.groupby("task")["metric"].first()["narrative_qa"] == "exact_match"
    assert set(both.loc[both["task"] == MMLU, "metric"]) == {"prefix_exact_match"}


def test_trials_splits_and_perturbations(tmp_path):
    boolq = SUITE / BOOLQ_RUN
    assert read_helm(boolq, trial=1)["score"].tolist() == [1, 0, 0, 1]
    with pytest.warns(DataWarning, match="kept continuous"):
        assert read_helm(boolq, trial="mean")["score"].tolist() == [1, 0.5, 0, 1]
    with pytest.raises(ValidationError) as exc:
        read_helm(boolq, trial=2)
    assert "no record of train_trial_index 2" in _one_line(exc)
    perturbed = read_helm(SUITE / f"{MMLU},model=meta_llama-7b", perturbations=True)
    extra = perturbed[perturbed["perturbation"].notna()]
    assert extra["item"].tolist() == [f"{MMLU}/id10/robustness", f"{MMLU}/id11/robustness"]
    assert extra["score"].tolist() == [1, 0]
    assert len(perturbed) == 7
    assert read_helm(boolq, split="valid")["score"].tolist() == [1, 1, 0, 1]
    with pytest.raises(ValidationError, match="no instance left to read \\(none on split 'test'\\)"):
        read_helm(boolq, split="test")
    # a run with instances on both splits: the chosen split's only
    run = tmp_path / "boolq:model=openai_gpt2"
    run.mkdir()
    records = json.loads((boolq / "per_instance_stats.json").read_text())
    for rec in records[:2]:  # trial 0's id100 and id101 move to the test split
        for stat in rec["stats"]:
            stat["name"]["split"] = "test"
    (run / "per_instance_stats.json").write_text(json.dumps(records, indent=2))
    assert read_helm(run, split="test")["instance_id"].tolist() == ["id100", "id101"]
    assert read_helm(run, split="valid")["instance_id"].tolist() == ["id102", "id103"]


def test_bad_input_is_one_line_naming_the_file(tmp_path):
    copy = tmp_path / "v1"
    shutil.copytree(SUITE, copy)
    gsm = copy / "gsm:model=meta_llama-7b" / "per_instance_stats.json"
    text = gsm.read_text()
    gsm.write_text(text[:300])
    with pytest.raises(ValidationError) as exc:
        read_helm(copy)
    assert f"{gsm}:" in _one_line(exc) and "not valid JSON" in str(exc.value)
    records = json.loads(text)
    del records[1]["instance_id"]
    gsm.write_text(json.dumps(records, indent=2))
    with pytest.raises(ValidationError) as exc:
        read_helm(copy)
    assert f"{gsm}:{_line_of_record(gsm, 2)}: record 2 has no str 'instance_id'" in _one_line(exc)
    with pytest.raises(ValidationError) as exc:
        read_helm(copy / "narrative_qa:model=openai_gpt2", metric="rouge_l")
    assert ":2: record 1 (instance 'id200', trial 0) has no stat 'rouge_l'" in _one_line(exc)


def test_folders_named_otherwise_empty_folders_and_a_run_given_twice(tmp_path):
    bad = tmp_path / "some_run"
    bad.mkdir()
    shutil.copy(SUITE / "gsm:model=meta_llama-7b" / "per_instance_stats.json", bad)
    with pytest.raises(ValidationError) as exc:
        read_helm(bad)
    assert "not a HELM run folder" in _one_line(exc) and str(bad) in str(exc.value)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValidationError) as exc:
        read_helm(tmp_path / "empty")
    assert "no HELM per_instance_stats.json files" in _one_line(exc)
    other = tmp_path / "v2"
    shutil.copytree(SUITE / "gsm:model=meta_llama-7b", other / "gsm:model=meta_llama-7b")
    both = read_helm([SUITE, other])  # one run in two suites: two runs of the model, kept apart (issue 39)
    labels = {m for m in both["model"] if m.startswith("meta_llama-7b")}
    assert len(labels) == 2 and all("@" in m for m in labels)
    with pytest.raises(ValidationError, match="trial must be"):
        read_helm(SUITE, trial=-1)
