"""Tests of `irtbridge ei` (irtbridge/cli/ei.py) through the real dispatcher.

Expected numbers come from Larner (2023) (the MACE table TP=104, FP=188, FN=10, TN=453) and from closed
forms; the dispatcher is `irtbridge.cli.main`, so exit codes and the one-line error are the real ones.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import irtbridge.cli as cli

COUNTS = ["--tp", "104", "--fp", "188", "--fn", "10", "--tn", "453"]
KEYS = ["acc", "inacc", "ei", "ini", "bei", "blei", "qei", "uei"]


@pytest.fixture
def run(monkeypatch, capsys):
    # only this subcommand is registered, so the test does not depend on other commands' modules
    monkeypatch.setattr(cli, "COMMANDS", ["irtbridge.cli.ei"])

    def _run(*argv: str) -> tuple[int, str, str]:
        try:
            code = cli.main(["ei", *argv])
        except SystemExit as exc:  # refused while the command line is read (argparse), e.g. --seed
            code = exc.code
        out, err = capsys.readouterr()
        return code, out, err

    return _run


def test_ei_is_registered():
    assert "irtbridge.cli.ei" in cli.COMMANDS


def test_counts_json_has_exactly_the_eight_indices(run):
    code, out, err = run(*COUNTS, "--json")
    assert code == 0 and err == ""
    d = json.loads(out)
    assert list(d) == KEYS
    assert all(list(v) == ["value", "lower", "upper"] for v in d.values())
    # closed forms: EI = (104 + 453)/(188 + 10), InI its reciprocal; float rounding only
    assert d["ei"]["value"] == pytest.approx(557 / 198, rel=1e-12)
    assert d["ini"]["value"] == pytest.approx(198 / 557, rel=1e-12)
    # default: logit interval exp(log(557/198) +/- 1.959964 sqrt(1/557 + 1/198))
    half = 1.959963984540054 * math.sqrt(1 / 557 + 1 / 198)
    assert d["ei"]["lower"] == pytest.approx(557 / 198 * math.exp(-half), rel=1e-12)


def test_larner2023_reproduces_the_paper(run):
    code, out, _ = run(*COUNTS, "--ci-method", "larner2023", "--json")
    d = json.loads(out)
    # the paper's EI 2.81 (2.46-3.21), 2 decimals; Inacc interval 0.231-0.294, 3 decimals
    assert (d["ei"]["lower"], d["ei"]["upper"]) == (pytest.approx(2.46, abs=0.005), pytest.approx(3.21, abs=0.005))
    assert (d["inacc"]["lower"], d["inacc"]["upper"]) == (pytest.approx(0.231, abs=5e-4), pytest.approx(0.294, abs=5e-4))


def test_level_changes_the_width(run):
    d95 = json.loads(run(*COUNTS, "--json")[1])
    d80 = json.loads(run(*COUNTS, "--level", "0.8", "--json")[1])
    assert d80["ei"]["lower"] > d95["ei"]["lower"] and d80["ei"]["upper"] < d95["ei"]["upper"]


def test_perfect_classifier_json_uses_null_for_inf(run):
    code, out, _ = run("--tp", "10", "--fp", "0", "--fn", "0", "--tn", "20", "--json")
    d = json.loads(out)
    assert code == 0 and d["ei"]["value"] is None and d["ei"]["upper"] is None and d["ei"]["lower"] > 1
    assert d["ini"]["value"] == 0.0


def test_bootstrap_is_seeded(run):
    args = (*COUNTS, "--ci-method", "bootstrap", "--n-boot", "500", "--json")
    a = json.loads(run(*args, "--seed", "4")[1])
    b = json.loads(run(*args, "--seed", "4")[1])
    c = json.loads(run(*args, "--seed", "5")[1])
    assert a == b and a != c


def test_human_output_reports_p_q_and_classification(run):
    code, out, _ = run(*COUNTS)
    assert code == 0
    assert "prevalence P = 0.151" in out and "level Q = 0.387" in out
    assert "moderate increase" in out and "ei " in out


@pytest.mark.parametrize(
    "argv, message",
    [
        # the flags are declared (irtbridge.cli._common.declare_flag): refused while the command line is read
        (["--tp", "-1", "--fp", "1", "--fn", "1", "--tn", "1"], "argument --tp: must be a count (a whole number >= 0), got -1"),
        (["--tp", "1", "--fp", "2.5", "--fn", "1", "--tn", "1"], "argument --fp: must be a count (a whole number >= 0), got 2.5"),
        (["--tp", "1", "--fp", "1", "--fn", "many", "--tn", "1"],
         "argument --fn: must be a count (a whole number >= 0), got 'many'"),
        (["--tp", "1", "--fp", "1", "--fn", "1"], "missing --tn"),
        (["--tp", "0", "--fp", "0", "--fn", "0", "--tn", "0"], "all 0"),
        ([*COUNTS, "--level", "95"], "argument --level: must be < 1.0"),
        ([*COUNTS, "--level", "high"], "argument --level: must be a number"),
        ([*COUNTS, "--ci-method", "wald"], "argument --ci-method: invalid choice: 'wald'"),
        ([*COUNTS, "--correction", "-1"], "argument --correction: must be >= 0"),
        ([*COUNTS, "--n-boot", "3", "--ci-method", "bootstrap"], "argument --n-boot: must be >= 100"),
        ([*COUNTS, "--seed", "-2", "--ci-method", "bootstrap"], "--seed: must be a whole number from 0 to"),
        ([__file__, *COUNTS], "not both"),
        (["--truth", "dx", *COUNTS], "need FILE.csv"),
        ([__file__, "--truth", "dx"], "needs --truth COL and --score COL"),
        ([], "missing --tp --fp --fn --tn"),
    ],
)
def test_bad_input_exits_2_with_one_line(run, argv, message):
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("irtbridge ei: error: ")
    assert message in err


@pytest.fixture
def cases_csv(tmp_path):
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 200)
    s = np.round(rng.normal(y * 1.5, 1.0)).astype(int)
    path = tmp_path / "cases.csv"
    pd.DataFrame({"id": range(200), "dx": y, "score": s}).to_csv(path, index=False)
    return path, y, s


def test_file_table_json(run, cases_csv):
    path, y, s = cases_csv
    code, out, err = run(str(path), "--truth", "dx", "--score", "score", "--json")
    assert code == 0 and err == ""
    rows = json.loads(out)
    assert [r["cutoff"] for r in rows] == sorted(set(s.tolist()))
    for r in rows:
        pred = s >= r["cutoff"]
        # counts by direct tallying, EI as the ratio of correct to incorrect
        tp, fp = int(np.sum(pred & (y == 1))), int(np.sum(pred & (y == 0)))
        fn, tn = int(np.sum(~pred & (y == 1))), int(np.sum(~pred & (y == 0)))
        assert (r["tp"], r["fp"], r["fn"], r["tn"]) == (tp, fp, fn, tn)
        if fp + fn:
            assert r["ei"] == pytest.approx((tp + tn) / (fp + fn), rel=1e-12)
        assert set(KEYS) <= set(r)


def test_file_table_lower_is_positive_and_out(run, cases_csv, tmp_path):
    path, y, s = cases_csv
    out_csv = tmp_path / "table.csv"
    code, out, _ = run(str(path), "--truth", "dx", "--score", "score", "--lower-is-positive", "--intervals", "--out", str(out_csv))
    assert code == 0 and "score <= cut-off" in out
    table = pd.read_csv(out_csv, index_col="cutoff")
    cut = int(np.median(s))
    assert table.loc[cut, "tp"] == int(np.sum((s <= cut) & (y == 1)))
    assert {"ei_lower", "ei_upper", "uei_lower"} <= set(table.columns)


@pytest.mark.parametrize(
    "frame, argv, message",
    [
        (pd.DataFrame({"dx": [0, 1, 2], "score": [1, 2, 3]}), ["--truth", "dx", "--score", "score"], "column 'dx' must hold only the labels 0 and 1"),
        (pd.DataFrame({"dx": [0, 1, 1], "score": [1, 2, 3]}), ["--truth", "dx", "--score", "nope"], "has no column(s) 'nope'"),
        (pd.DataFrame({"dx": [0, 1, 1], "score": [1, None, 3]}), ["--truth", "dx", "--score", "score"], "column 'score' has 1 missing value(s)"),
        (pd.DataFrame({"dx": [0, 1, 1], "score": ["a", "b", "c"]}), ["--truth", "dx", "--score", "score"], "column 'score' must hold numbers"),
    ],
)
def test_bad_file_exits_2(run, tmp_path, frame, argv, message):
    path = tmp_path / "bad.csv"
    frame.to_csv(path, index=False)
    code, _, err = run(str(path), *argv)
    assert code == 2 and err.count("\n") == 1 and message in err


def test_missing_file_exits_2(run, tmp_path):
    code, _, err = run(str(tmp_path / "none.csv"), "--truth", "a", "--score", "b")
    assert code == 2 and "does not exist" in err


@pytest.mark.slow
def test_console_script_entry_point(tmp_path):
    # the installed dispatcher end to end, in a fresh interpreter, with only this subcommand loaded
    code = (
        "import sys, irtbridge.cli as c; c.COMMANDS = ['irtbridge.cli.ei']; "
        "sys.exit(c.main(sys.argv[1:]))"
    )
    ok = subprocess.run([sys.executable, "-c", code, "ei", *COUNTS, "--json"], capture_output=True, text=True)
    assert ok.returncode == 0 and list(json.loads(ok.stdout)) == KEYS
    bad = subprocess.run([sys.executable, "-c", code, "ei", "--tp", "x", "--fp", "1", "--fn", "1", "--tn", "1"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and bad.stdout == ""
