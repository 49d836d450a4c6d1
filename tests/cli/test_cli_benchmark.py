"""Tests of `irtbridge benchmark [--datasets ...] [--order ...] [--engine ltm|mirt] [--jobs N] [--quick] --out DIR [--json]`.

The CLI run uses two spawned workers (--jobs 2); the reference is the same benchmark run in this process
by the library (jobs=1): spawned workers must give bit-identical tables (same seeds, same R code,
deterministic optimizers). Bad input: one line on stderr and exit 2, the issue's CLI contract.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import pandas as pd
import pytest

from irtbridge.pipeline import Settings, run_benchmark
from irtbridge.cli import main

pytestmark = pytest.mark.r

ARGS = ["--calibration", "paper", "--datasets", "iris", "wine", "--pool", "quick", "--max-items", "20", "--order", "difficulty", "given",
        "--seed", "2"]


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("cli") / "out"
    # a real subprocess: spawned workers and the progress bar behave as for a user
    proc = subprocess.run(
        [sys.executable, "-m", "irtbridge", "benchmark", *ARGS, "--jobs", "2", "--out", str(out), "--json"],
        capture_output=True, text=True,
    )
    return proc, out


@pytest.fixture(scope="module")
def library_run():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_benchmark(["iris", "wine"], Settings(pool="quick", calibration="paper", max_items=20, seed=2),
                             orders=["difficulty", "given"], progress=False, jobs=1)


def test_json_contract(cli_run):
    proc, out = cli_run
    assert proc.returncode == 0, proc.stderr[-3000:]
    payload = json.loads(proc.stdout)
    assert set(payload) == {"settings", "datasets", "tournaments", "seconds", "out", "files"}
    assert payload["out"] == str(out)
    assert [d["dataset"] for d in payload["datasets"]] == ["iris", "wine"]
    assert list(payload["tournaments"]) == ["difficulty", "given"]
    t = payload["tournaments"]["given"]
    assert t["datasets"] == ["iris", "wine"]
    assert list(t["ratings"][0]) == ["rank", "player", "rating", "rd", "volatility", "lower", "upper"]
    assert set(t["validity"]) >= {"valid", "optimal_rank", "pessimal_rank"}
    assert payload["datasets"][0]["attempts"][0]["engine"] == "ltm"
    assert payload["settings"]["jobs"] == 2
    assert "matches.csv" in payload["files"] and "figures/bump_given.png" in payload["files"]
    assert all((out / f).is_file() for f in payload["files"])


def test_progress_goes_to_stderr(cli_run):
    proc, _ = cli_run
    assert "datasets" in proc.stderr  # tqdm's bar; stdout is pure JSON


def test_spawned_workers_match_the_library(cli_run, library_run):
    _, out = cli_run
    for stem, frame in library_run.tables().items():
        written = pd.read_csv(out / f"{stem}.csv")
        assert list(written.columns) == list(frame.columns), stem
        if stem == "calibration_attempts":
            frame = frame.drop(columns="seconds")
            written = written.drop(columns="seconds")
        expected = pd.read_csv(__import__("io").StringIO(frame.to_csv(index=False)))
        pd.testing.assert_frame_equal(written, expected, check_exact=False, rtol=0, atol=0, obj=stem)


def test_text_output(tmp_path, capsys):
    code = main(["benchmark", "--datasets", "iris", "--pool", "GaussianNB,KNN3,SVM,DecisionTree", "--max-items", "12",
                 "--order", "given", "--no-figures", "--no-progress", "--out", str(tmp_path / "o")])
    out = capsys.readouterr().out
    assert code == 0
    assert "== given: 1 dataset(s)" in out and "files written to" in out
    assert not (tmp_path / "o" / "figures").exists()
    ratings = pd.read_csv(tmp_path / "o" / "ratings.csv")
    assert len(ratings) == 4 + 7


@pytest.mark.parametrize(
    "args,match",
    [
        (["--datasets", "iris"], "--out DIR is required"),
        (["--datasets", "no-such-set", "--out", "{tmp}"], "neither an embedded dataset"),
        (["--datasets", "iris", "--order", "hardest", "--out", "{tmp}"], "--order 'hardest'"),
        (["--datasets", "iris", "--engine", "stan", "--out", "{tmp}"], "engine='stan'"),
        (["--datasets", "iris", "--jobs", "0", "--out", "{tmp}"], "argument --jobs: must be >= 1"),
        (["--datasets", "iris", "--pool", "SVM,Nope", "--out", "{tmp}"], "unknown"),
        (["--datasets", "iris", "--out", "{file}"], "not a directory"),
    ],
)
def test_bad_input_exits_2(args, match, tmp_path, capsys):
    (tmp_path / "f.txt").write_text("x")
    args = [a.replace("{tmp}", str(tmp_path / "o")).replace("{file}", str(tmp_path / "f.txt")) for a in args]
    try:
        code = main(["benchmark", *args])
    except SystemExit as exc:  # refused while the command line is read (a declared flag, e.g. --jobs)
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("irtbridge benchmark: error:") and match in err


def test_bad_dataset_in_a_worker_exits_2(tmp_path):
    # the error is raised in a spawned worker, pickled back, and reported as bad input
    path = tmp_path / "lonely.csv"
    pd.DataFrame({"x": range(11), "target": ["a"] * 10 + ["b"]}).to_csv(path, index=False)
    proc = subprocess.run(
        [sys.executable, "-m", "irtbridge", "benchmark", "--datasets", "iris", str(path), "--pool", "quick",
         "--max-items", "12", "--jobs", "2", "--no-progress", "--no-figures", "--out", str(tmp_path / "o")],
        capture_output=True, text=True,
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("irtbridge benchmark: error:")]
    assert len(lines) == 1 and "dataset 'lonely'" in lines[0] and "single instance" in lines[0]


def test_help_lists_the_flags(capsys):
    with pytest.raises(SystemExit):
        main(["benchmark", "--help"])
    text = capsys.readouterr().out
    for flag in ("--datasets", "--order", "--engine", "--jobs", "--quick", "--out", "--json"):
        assert flag in text


def test_benchmark_and_evaluate_share_flags_and_defaults():
    """--quick, --max-items and --jobs mean the same in both commands (--max-test stays as an alias)."""
    import argparse

    from irtbridge.decodirt.classification_data import QUICK_MAX_ITEMS
    from irtbridge.cli import build_parser
    from irtbridge.pipeline import Settings

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    bench, ev = sub.choices["benchmark"], sub.choices["evaluate"]
    for p in (bench, ev):
        assert p.parse_args(["--max-items", "70"]).max_items == 70 and p.parse_args([]).jobs is None
    assert bench.parse_args(["--max-test", "90"]).max_items == 90
    assert Settings.quick_run().max_items == QUICK_MAX_ITEMS == 60
    assert "60 items per dataset" in " ".join(bench.format_help().split())
