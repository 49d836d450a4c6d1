"""`irtbridge leaderboard` end to end, and the files a report writes.

The CSV tables and summary.json must say what the result object says (read back and compared, no
tolerance); bad input exits 2 with one line on stderr and leaves no output folder; the harness path is
exercised with a reader that returns a long table built here (the real readers are issue 32 item 1).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irtbridge.leaderboard
import irtbridge.leaderboard.readers
from irtbridge._outdir import MARKER
from irtbridge.cli import main
from irtbridge.leaderboard import leaderboard_report
from irtbridge.report import write_leaderboard_report
from tests._cli import status


def _matrix(n=60, J=16, seed=2):
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=(n, 1))
    X = (rng.random((n, J)) < 1 / (1 + np.exp(-(theta - np.linspace(-1.5, 1.5, J))))).astype(float)
    frame = pd.DataFrame(X, index=pd.Index([f"org/model-{i}" for i in range(n)], name="model"),
                         columns=[f"item{j}" for j in range(J)])
    frame["item0"] = 1.0
    frame.iloc[4, 5] = np.nan
    return frame


def _long(frame):
    long = frame.stack().rename("score").reset_index()
    long.columns = ["model", "item", "score"]
    long.insert(1, "task", np.where(long["item"].str[-1].isin(list("02468")), "even", "odd"))
    return long


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    frame = _matrix()
    rep = leaderboard_report(_long(frame))
    out = tmp_path_factory.mktemp("lb") / "board"
    return rep, write_leaderboard_report(rep, out), out


@pytest.mark.slow
def test_tables_and_summary_say_what_the_result_says(written):
    rep, files, out = written
    assert files["index"] == out / "index.html" and files["index"].is_file()
    for name, frame in rep.tables().items():
        back = pd.read_csv(out / "tables" / f"{name}.csv", index_col=0 if name != "information" else None,
                           keep_default_na=False, na_values=[""], float_precision="round_trip")
        assert back.shape == frame.shape, name
        for col in frame.columns:
            if pd.api.types.is_float_dtype(frame[col]):
                np.testing.assert_array_equal(back[col].to_numpy(float), frame[col].to_numpy(float), err_msg=name)
    summary = json.loads((out / "summary.json").read_text())
    expected = rep.summary().to_dict()
    assert {k: summary[k] for k in expected} == json.loads(json.dumps(expected))
    assert summary["files"]["index"] == "index.html" and summary["files"]["ranking"] == "tables/ranking.csv"
    ranking = pd.read_csv(out / "tables" / "ranking.csv", index_col=0)
    assert summary["best"]["model"] == ranking.index[0] and summary["best"]["theta"] == ranking["theta"].iloc[0]
    assert summary["flags"]["everyone_right"] == int((rep.items["flag"] == "everyone right").sum()) == 1
    assert summary["headline"]["flags"].startswith("Items to check")
    assert set(pd.read_csv(out / "tables" / "tasks.csv", index_col=0).index) == {"even", "odd"}


def test_save_without_a_page_writes_the_data(tmp_path, written):
    rep = written[0]
    files = rep.save(tmp_path / "data")
    assert "index" not in files and not (tmp_path / "data" / "index.html").exists()
    assert json.loads((tmp_path / "data" / "summary.json").read_text())["report"] is None


def test_a_failing_page_leaves_nothing_half_written(tmp_path, written):
    rep = written[0]
    out = tmp_path / "board"
    out.mkdir()
    (out / "old.txt").write_text("previous run")
    (out / MARKER).write_text("{}")  # irtbridge's folder: a new run may replace it, a failed one must not

    def broken(report, tables):
        raise RuntimeError("page failed")

    with pytest.raises(RuntimeError):
        rep.save(out, page=broken)
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "old.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["board"]


@pytest.mark.slow
def test_cli_end_to_end_matrix_and_json(tmp_path, capsys):
    frame = _matrix()
    frame.to_csv(tmp_path / "m.csv")
    assert main(["leaderboard", str(tmp_path / "m.csv"), "--out", str(tmp_path / "out"), "--top", "3"]) == 0
    text = capsys.readouterr()
    assert "Best model:" in text.out and "native 2PL" in text.err
    assert (tmp_path / "out" / "index.html").is_file() and (tmp_path / "out" / "tables" / "ranking.csv").is_file()
    assert main(["leaderboard", str(tmp_path / "m.csv"), "--out", str(tmp_path / "out2"), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads((tmp_path / "out2" / "summary.json").read_text())
    assert printed["n_models"] == 60 and printed["n_items"] == 16 and printed["saturation"]["top"] == 5


@pytest.mark.slow
def test_cli_harness_path_with_a_reader(tmp_path, capsys, monkeypatch):
    frame = _matrix()
    long = _long(frame)
    seen = []

    def reader(paths, threshold=None):
        seen.append(paths)
        return long

    monkeypatch.setattr(irtbridge.leaderboard.readers.lm_eval, "read_lm_eval", reader)  # the registry row's function
    run = tmp_path / "harness" / "org__model"
    run.mkdir(parents=True)
    (run / "samples_arc_2024-01-01T00-00-00.jsonl").write_text("{}\n")
    assert main(["leaderboard", str(tmp_path / "harness"), "--out", str(tmp_path / "a"), "--json"]) == 0
    auto = json.loads(capsys.readouterr().out)
    assert main(["leaderboard", str(tmp_path / "harness"), "--from", "lm-eval", "--out", str(tmp_path / "b"),
                 "--json"]) == 0
    named = json.loads(capsys.readouterr().out)
    assert seen == [str(tmp_path / "harness")] * 2
    assert auto["n_tasks"] == named["n_tasks"] == 2 and auto["source"] == "lm-eval output"
    assert named["best"] == auto["best"]


def test_cli_real_helm_runs_and_a_broken_one_is_one_line(tmp_path, capsys):
    """The HELM reader's own fixtures (two models) end to end; a truncated file: one line, nothing written."""
    helm = Path(__file__).parent / "data" / "helm" / "v1"
    # narrative_qa's F1 is continuous: refused unless binarised (one line), then read
    assert main(["leaderboard", str(helm), "--out", str(tmp_path / "a0")]) == 2
    assert "binarise" in capsys.readouterr().err
    assert main(["leaderboard", str(helm), "--threshold", "0.5", "--out", str(tmp_path / "a"), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["source"] == "helm output" and printed["n_models"] == 2
    broken = tmp_path / "helm" / "mmlu:subject=anatomy,model=org_model"
    broken.mkdir(parents=True)
    (broken / "per_instance_stats.json").write_text('[{"instance_id": "id1", ')
    assert main(["leaderboard", str(tmp_path / "helm"), "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert "per_instance_stats.json" in err and err.count("\n") == 1 and not (tmp_path / "b").exists()


@pytest.mark.slow
def test_cli_tiny_errors_shown(tmp_path, capsys):
    _matrix().to_csv(tmp_path / "m.csv")
    tiny = tmp_path / "tiny"
    tiny.mkdir()
    pd.DataFrame({"split": ["interpolation", "extrapolation"], "k": [100, 100], "mae": [0.021, 0.034],
                  "coverage": [0.94, 0.91]}).to_csv(tiny / "errors.csv", index=False)
    assert main(["leaderboard", str(tmp_path / "m.csv"), "--tiny", str(tiny), "--out", str(tmp_path / "o")]) == 0
    capsys.readouterr()
    page = (tmp_path / "o" / "index.html").read_text()
    assert "extrapolation" in page and "0.034" in page
    assert pd.read_csv(tmp_path / "o" / "tables" / "tiny_errors.csv")["mae"].tolist() == [0.021, 0.034]
    empty = tmp_path / "notiny"
    empty.mkdir()
    assert main(["leaderboard", str(tmp_path / "m.csv"), "--tiny", str(empty), "--out", str(tmp_path / "p"),
                 "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["tiny"] is None and any("has no errors.csv" in n for n in summary["notes"])


@pytest.mark.parametrize("content, message", [
    ("model,q1,q2\nm1,1,0\nm2,1,x\n", "line 3 (model 'm2'), column 'q2' is 'x'"),
    ("model,q1,q2\nm1,1,0\n", "has 1 model; a leaderboard needs at least 2"),
    ("", "is empty"),
    ("model,item,score\nm1,q1,1\nm2,q1,0.5\n", "line 3, column 'score' is 0.5"),
])
def test_cli_bad_input_exit_2_one_line_nothing_written(tmp_path, capsys, content, message):
    (tmp_path / "in.csv").write_text(content)
    assert main(["leaderboard", str(tmp_path / "in.csv"), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and err.startswith("irtbridge leaderboard: error:")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv"]


def test_cli_bad_options_exit_2(tmp_path, capsys):
    _matrix().to_csv(tmp_path / "m.csv")
    with pytest.raises(SystemExit) as exc:  # refused while the command line is read (the declared --tiny)
        main(["leaderboard", str(tmp_path / "m.csv"), "--tiny", str(tmp_path / "nope"), "--out", str(tmp_path / "o")])
    assert exc.value.code == 2 and f"argument --tiny: {str(tmp_path / 'nope')!r} does not exist" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
    with pytest.raises(SystemExit) as exc:  # refused while the command line is read (the declared --top)
        main(["leaderboard", str(tmp_path / "m.csv"), "--top", "0", "--out", str(tmp_path / "o")])
    assert exc.value.code == 2 and "--top" in capsys.readouterr().err
    assert status(["leaderboard", str(tmp_path / "missing.csv"), "--out", str(tmp_path / "o")]) == 2
    assert not (tmp_path / "o").exists()
