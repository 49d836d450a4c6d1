"""The tiny benchmark (build_tiny, its bank file, irtbridge tiny, irtbridge estimate --bank).

References: the bank round trip must give identical predictions (exact equality) and an identical item
bank; p-IRT read from the bank file equals p-IRT on the bank in memory; the CLI end to end on a trimmed real
matrix (tests/leaderboard/data/arct_90x120.csv: 90 checkpoints x 120 items of the ARCT set of
nyu-mll/nlu-test-sets) writes every file and its bank predicts what the Python object predicts; the
held-out error table's MAE recomputed here from the held-out models' answers for the sample mean.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irtbridge.cli import main
from irtbridge.exceptions import ValidationError
from irtbridge.leaderboard import build_tiny, estimate_performance, load_bank, load_tiny, validate_tiny
from irtbridge.leaderboard.tiny import answers_from_long, sample_items
from irtbridge.leaderboard.tiny_cv import protocol_splits

DATA = Path(__file__).parent / "data" / "arct_90x120.csv"


@pytest.fixture(scope="module")
def responses():
    return pd.read_csv(DATA, index_col=0).astype(float)


@pytest.fixture(scope="module")
def tiny(responses):
    return build_tiny(responses.iloc[:70], 30, seed=1)


def test_contract(tiny, responses):
    assert len(tiny.items) == 30 and set(tiny.items) <= set(responses.columns)
    out = tiny.predict(responses.iloc[70:][tiny.items])
    assert list(out.columns[:3]) == ["accuracy", "lower", "upper"]
    assert list(out.index) == list(responses.index[70:])
    assert ((out["lower"] <= out["accuracy"]) & (out["accuracy"] <= out["upper"])).all()
    assert "tiny benchmark" in tiny.summary().as_text() and "<" in tiny._repr_html_()


def test_bank_round_trip(tiny, responses, tmp_path):
    path = tiny.save(tmp_path / "bank.json")
    back = load_tiny(path)
    answers = responses.iloc[70:][tiny.items]
    pd.testing.assert_frame_equal(back.predict(answers), tiny.predict(answers), check_exact=True)
    assert back.items == tiny.items and back.method == tiny.method
    bank = load_bank(path)
    np.testing.assert_array_equal(bank.a, tiny.calibration.a)
    direct = estimate_performance(answers, tiny.bank(), tiny.items)
    from_file = estimate_performance(answers, str(path), tiny.items)
    pd.testing.assert_frame_equal(direct, from_file)


def test_exclude_is_never_sampled(responses):
    banned = list(responses.columns[:100])
    t = build_tiny(responses, 15, exclude=banned)
    assert not set(t.items) & set(banned)
    with pytest.raises(ValidationError, match="k = 30 items asked of"):
        build_tiny(responses, 30, exclude=banned)


def test_bad_input_one_line(tiny, responses, tmp_path):
    answers = responses.iloc[70:][tiny.items]
    for bad, msg in [(answers.iloc[:, 1:], "lack"), (answers.replace(1.0, 3.0), "0/1")]:
        with pytest.raises(ValidationError, match=msg) as info:
            tiny.predict(bad)
        assert "\n" not in str(info.value)
    with pytest.raises(ValidationError, match="k = 500 items asked of"):
        build_tiny(responses, 500)
    with pytest.raises(ValidationError, match="not an irtbridge tiny bank"):
        (tmp_path / "not_a_bank.json").write_text("{}")
        load_tiny(tmp_path / "not_a_bank.json")


def test_error_table_mean_by_hand(responses):
    v = validate_tiny(responses, 20, seed=0, method="mean", repeats=1, sizes=[30])
    cal_idx, new_idx = protocol_splits(responses, 0)["extrapolation"]
    row = [r for r in v["errors"] if r["split"] == "extrapolation"][0]
    # the items validate_tiny draws (it is given no exclusions here; build_tiny adds the flagged items to them)
    items = sample_items(tuple(str(c) for c in responses.columns), 20, 0, None)
    truth = responses.iloc[new_idx].mean(axis=1)
    assert row["mae"] == pytest.approx(float(np.abs(responses.iloc[new_idx][items].mean(axis=1) - truth).mean()))
    assert [r["n_calibration"] for r in v["learning_curve"]] == [30]


def test_answers_from_long_hook(tiny, responses):
    wide = responses.iloc[70:72][tiny.items]
    long = wide.stack().rename("score").reset_index().rename(columns={"level_1": "item", responses.index.name: "model"})
    long.insert(1, "task", "arct")
    pd.testing.assert_frame_equal(answers_from_long(long, tiny.items), wide, check_names=False)


def test_cli_end_to_end(tmp_path, responses, capsys):
    out = tmp_path / "tiny"
    assert main(["tiny", str(DATA), "--id-column", "model", "--k", "20", "--out", str(out), "--repeats", "1",
                 "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert {p.name for p in out.iterdir()} == {"items.csv", "bank.json", "errors.csv", "learning_curve.csv",
                                               "summary.json", ".irtbridge-output"}
    assert [r["split"] for r in summary["errors"]] == ["interpolation", "extrapolation"]
    assert summary["learning_curve"][0]["n_calibration"] == 10
    items = pd.read_csv(out / "items.csv")["item"].tolist()
    answers = responses.iloc[:3][items]
    answers.to_csv(tmp_path / "answers.csv")
    assert main(["estimate", str(tmp_path / "answers.csv"), "--id-column", "model", "--bank",
                 str(out / "bank.json"), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["respondents"]
    expected = load_tiny(out).predict(answers)
    assert [r["accuracy"] for r in rows] == pytest.approx(expected["accuracy"].tolist(), abs=1e-12)
    assert {"theta", "se", "accuracy", "lower", "upper"} <= set(rows[0])


def test_cli_bad_input_exits_2(tmp_path, capsys):
    assert main(["tiny", str(DATA), "--id-column", "model", "--k", "500", "--out", str(tmp_path / "t")]) == 2
    err = capsys.readouterr().err.strip()
    assert "k = 500" in err and "\n" not in err
    assert not (tmp_path / "t").exists()


def test_bank_file_feeds_adaptive_evaluate_and_the_estimate_cli(tiny, responses, tmp_path, capsys):
    from irtbridge.leaderboard import adaptive_evaluate

    path = tiny.save(tmp_path / "bank.json")
    row = responses.iloc[75]
    from_file = adaptive_evaluate(lambda item: row[item], str(path), stop=0.5, max_items=15)
    in_memory = adaptive_evaluate(lambda item: row[item], tiny.bank(), stop=0.5, max_items=15)
    assert from_file.items == in_memory.items and from_file.accuracy == in_memory.accuracy
    pd.DataFrame({"item": tiny.items}).to_csv(tmp_path / "items.csv", index=False)
    responses.iloc[70:72][tiny.items].to_csv(tmp_path / "answers.csv")
    assert main(["estimate", str(tmp_path / "answers.csv"), "--id-column", "model", "--calibration", str(path),
                 "--anchors", str(tmp_path / "items.csv"), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["respondents"]
    direct = estimate_performance(responses.iloc[70:72][tiny.items], tiny.bank(), tiny.items)
    assert [r["accuracy"] for r in rows] == pytest.approx(direct["accuracy"].tolist(), abs=1e-12)


def test_build_tiny_never_samples_an_item_its_calibration_flags():
    """Issue 34: an item whose 2PL estimate runs away (answered right by every model, or splitting the models
    perfectly) is never one of the k items, whatever the seed; it is listed in tiny.exclude instead."""
    import warnings

    from irtbridge.leaderboard import build_tiny
    from irtbridge.leaderboard.tiny import runaway_items

    rng = np.random.default_rng(7)
    theta = np.sort(rng.normal(size=60))
    x = (rng.random((60, 20)) < 1 / (1 + np.exp(-(theta[:, None] - np.linspace(-1.5, 1.5, 20))))).astype(float)
    x[:, 0] = 1.0                                  # everyone right: difficulty runs to -infinity
    x[:, 1] = (theta > 0.3).astype(float)          # splits the models perfectly: the slope runs away
    frame = pd.DataFrame(x, columns=[f"q{j}" for j in range(20)], index=[f"m{i}" for i in range(60)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(5):
            tiny = build_tiny(frame, 17, seed=seed)
            flagged = runaway_items(tiny.calibration)
            assert {"q0", "q1"} <= set(flagged)
            assert not set(flagged) & set(tiny.items)
            assert set(flagged) <= set(tiny.exclude)


def test_estimate_scores_a_model_straight_from_its_harness_output(tmp_path, capsys):
    """A bank built on lm-evaluation-harness item ids scores the real metabench sample files of
    pythia-14m through `irtbridge estimate FOLDER --from lm-eval --bank`: the same numbers as
    tiny.predict on the answers read by hand with plain json."""
    import warnings
    from pathlib import Path

    from irtbridge.leaderboard import build_tiny, read_lm_eval

    folder = Path(__file__).parent / "data" / "lm_eval"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ids = sorted(read_lm_eval(folder)["item"])
    rng = np.random.default_rng(11)
    theta = rng.normal(size=50)
    x = (rng.random((50, len(ids))) < 1 / (1 + np.exp(-(theta[:, None] - rng.normal(size=len(ids)))))).astype(float)
    tiny = build_tiny(pd.DataFrame(x, columns=ids, index=[f"m{i}" for i in range(50)]), 12, seed=0)
    tiny.save(tmp_path / "bank.json")
    # the model's answers to the tiny items, read from the sample files without irtbridge
    answers = {}
    for path in folder.rglob("samples_*.jsonl"):
        task = path.name[len("samples_"):].rsplit("_", 1)[0]
        for line in path.read_text().splitlines():
            rec = json.loads(line)
            answers[f"{task}/{rec['doc_hash'][:16]}"] = float(rec["acc"] if "acc" in rec else rec["exact_match"])
    wide = pd.DataFrame([[answers[i] for i in tiny.items]], columns=list(tiny.items), index=["EleutherAI__pythia-14m"])
    expected = tiny.predict(wide)
    assert main(["estimate", str(folder), "--from", "lm-eval", "--bank", str(tmp_path / "bank.json"), "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["respondents"][0]
    assert row["respondent"] == "EleutherAI__pythia-14m" and set(row) >= {"theta", "se", "lower", "upper"}
    assert row["accuracy"] == pytest.approx(float(expected["accuracy"].iloc[0]), abs=1e-12)
    assert main(["estimate", str(folder), "--from", "lm-eval", "--json"]) == 2  # harness output needs a bank


def test_tiny_cli_reads_harness_output(tmp_path, capsys):
    """`irtbridge tiny FOLDER --from helm` builds from HELM run folders (the reader's fixtures: two models,
    so too few for a tiny benchmark: a one-line error naming the count, nothing written)."""
    from pathlib import Path

    helm = Path(__file__).parent / "data" / "helm" / "v1"
    code = main(["tiny", str(helm), "--from", "helm", "--threshold", "0.5", "--k", "3", "--out", str(tmp_path / "t")])
    err = capsys.readouterr().err
    assert code == 2 and "2 model(s)" in err and err.count("\n") == 1 and not (tmp_path / "t").exists()
