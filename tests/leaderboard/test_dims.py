"""`irtbridge dims` end to end, the choice rule on simulated data of known dimension, and bad input.

The end-to-end run reads a real leaderboard fixture (nyu-mll/nlu-test-sets' ARCT, 90 checkpoints x 120 items,
``data/arct_90x120.csv``); what it writes (dims.csv, summary.json) must say what it prints with ``--json``, and
the held-out count is computed here from the file. The rule is tested twice: on per-cell log-likelihoods made
here (where the answer follows from the numbers by hand), and on data simulated with one and with two factors
(each must be found).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irtbridge.cli import main
from irtbridge.exceptions import ValidationError
from irtbridge.leaderboard.dims import _choose, choose_dimensions, holdout_cells
from tests._cli import status

ARCT = Path(__file__).parent / "data" / "arct_90x120.csv"


def _simulate(n_factors: int, n=300, J=40, seed=5) -> np.ndarray:
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=(n, 2))
    a = np.zeros((J, 2))
    if n_factors == 2:  # two clusters of items, each loading on its own factor
        a[: J // 2, 0] = rng.uniform(1.0, 2.0, J // 2)
        a[J // 2:, 1] = rng.uniform(1.0, 2.0, J - J // 2)
    else:
        a[:, 0] = rng.uniform(1.0, 2.0, J)
    d = rng.normal(size=J)
    return (rng.random((n, J)) < 1 / (1 + np.exp(-(theta @ a.T + d)))).astype(float)


@pytest.mark.slow
@pytest.mark.parametrize("n_factors", [1, 2])
def test_the_known_dimension_is_chosen(n_factors):
    res = choose_dimensions(_simulate(n_factors), dims=[1, 2, 3], holdout=0.2, qmc_points=256, seed=1)
    assert res.chosen == n_factors
    assert list(res.table.index) == [1, 2, 3]
    if n_factors == 2:  # better than D = 1 beyond one standard error, in log-likelihood and in accuracy
        gain = res.table.loc[2]
        assert gain["gain"] > gain["gain_se"] > 0
        assert gain["accuracy"] > res.table.loc[1, "accuracy"]


def test_the_rule_on_cells_made_by_hand():
    rows = np.repeat(np.arange(50), 4)  # 50 models, 4 held-out cells each
    rng = np.random.default_rng(0)
    base = -0.6 + 0.1 * rng.standard_normal(rows.size)
    noise = 0.05 * rng.standard_normal(rows.size)
    # D = 2 better than D = 1 by 0.002 on average with a paired SE near 0.05 / sqrt(200): within noise -> 1
    small = {1: base, 2: base + 0.002 + noise}
    se = np.sqrt(50 / 49 * np.sum(np.bincount(rows, weights=small[2] - small[1] - (small[2] - small[1]).mean()) ** 2)) / 200
    assert (small[2] - small[1]).mean() < se
    assert _choose([1, 2], small, rows) == (2, 1) or _choose([1, 2], small, rows)[1] == 1
    # D = 2 better by 0.05 (far beyond noise), D = 3 by 0.0501 (not beyond D = 2's one SE) -> best 3, chosen 2
    big = {1: base, 2: base + 0.05 + noise, 3: base + 0.0501 + noise + 0.01 * rng.standard_normal(rows.size)}
    best, chosen = _choose([1, 2, 3], big, rows)
    assert chosen == 2 and best in (2, 3)


def test_holdout_takes_a_share_of_each_models_answers():
    observed = np.ones((5, 30), dtype=bool)
    observed[1, 10:] = False  # 10 answers
    observed[2, 1:] = False  # one answer: nothing to hold out
    held = holdout_cells(observed, 0.1, np.random.default_rng(3))
    assert held.sum(axis=1).tolist() == [3, 1, 0, 3, 3]
    assert not (held & ~observed).any()


def test_dims_end_to_end_on_a_real_leaderboard(tmp_path, capsys):
    out = tmp_path / "dims"
    code = main(["dims", str(ARCT), "--max-dims", "3", "--qmc-points", "128", "--ncycles", "100", "--json",
                 "--out", str(out)])
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    frame = pd.read_csv(ARCT, index_col=0)
    answered = frame.notna().sum(axis=1).to_numpy()
    assert printed["n_models"], printed["n_items"] == frame.shape
    assert printed["n_heldout"] == int(sum(min(max(round(0.1 * k), 1), k - 1) for k in answered))
    assert [r["D"] for r in printed["dims"]] == [1, 2, 3]
    assert printed["chosen"] in (1, 2, 3) and printed["rule"].startswith("the smallest D")
    assert set(printed["headline"]) >= {"data", "chosen", "one", "rule"}
    assert json.loads((out / "summary.json").read_text()) == printed
    table = pd.read_csv(out / "dims.csv", index_col="D", float_precision="round_trip")
    for row in printed["dims"]:
        for key in ("loglik", "gain", "accuracy", "brier"):
            assert table.loc[row["D"], key] == row[key]
    assert (out / "dims.png").stat().st_size > 0
    chosen = printed["dims"][printed["chosen"] - 1]
    if printed["chosen"] > 1:  # the goal: a chosen D > 1 predicts better than D = 1 beyond its standard error
        assert chosen["gain"] > chosen["gain_se"]


def test_text_output_prints_the_table_beside_d1(capsys):
    assert main(["dims", str(ARCT), "--max-dims", "2", "--qmc-points", "64", "--ncycles", "50", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "D = 1: held-out log-likelihood" in text and "Held-out prediction per D" in text


@pytest.mark.parametrize("flags, names", [
    (["--holdout", "0.7"], "--holdout"),
    (["--holdout", "0"], "--holdout"),
    (["--max-dims", "0"], "--max-dims"),
    (["--draws", "0"], "--draws"),
    (["--max-dims", "200"], "--max-dims"),
    (["--seed", "-1"], "--seed"),
])
def test_bad_flags_are_one_line_before_any_work(flags, names, tmp_path, capsys):
    out = tmp_path / "o"
    try:
        code = main(["dims", str(ARCT), *flags, "--out", str(out)])
    except SystemExit as exc:  # argparse's own refusal (a flag's type), one line too
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and names in err
    assert not out.exists()


def test_bad_files_are_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("model,a,b,c,d,e\nm1,1,0,2,1,0\nm2,0,1,1,0,1\n")
    assert main(["dims", str(bad), "--max-dims", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "2" in err
    few = tmp_path / "few.csv"
    few.write_text("model,a,b,c\nm1,1,0,1\nm2,0,1,1\nm3,1,1,0\nm4,0,0,1\n")
    assert main(["dims", str(few), "--max-dims", "3"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--max-dims" in err
    assert status(["dims", str(tmp_path / "missing.csv")]) == 2
    assert "\n" not in capsys.readouterr().err.strip()


@pytest.mark.parametrize("kwargs, name", [
    ({"holdout": 0.9}, "holdout"), ({"dims": [0, 2]}, "dims"), ({"draws": 0}, "draws"), ({"seed": -2}, "seed"),
    ({"qmc_points": 3}, "qmc_points"), ({"max_dims": 0}, "max_dims"),
])
def test_bad_arguments_name_the_parameter(kwargs, name):
    with pytest.raises(ValidationError, match=name):
        choose_dimensions(_simulate(1, n=20, J=10), **kwargs)


def test_cells_must_be_binary():
    x = _simulate(1, n=20, J=10)
    x[3, 4] = 0.5
    with pytest.raises(ValidationError, match="0, 1 or empty"):
        choose_dimensions(x, max_dims=2)


@pytest.mark.slow
def test_the_leaderboard_report_prints_dimensions_beside_the_2pl(tmp_path, capsys):
    out = tmp_path / "board"
    assert main(["leaderboard", str(ARCT), "--dims", "2", "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    dm = summary["dimensions"]
    table = pd.read_csv(out / "tables" / "dimensions.csv", index_col="D", float_precision="round_trip")
    assert list(table.index) == [1, 2] and dm["chosen"] in (1, 2)
    assert dm["loglik_1"] == table.loc[1, "loglik"] and dm["loglik"] == table.loc[dm["chosen"], "loglik"]
    assert summary["headline"]["dimensions"].startswith(f"Dimensions by held-out answers: D = {dm['chosen']}")
    assert summary["headline"]["fit"].startswith("Native 2PL")  # the one-dimensional fit stays
    page = (out / "index.html").read_text()
    assert "How many dimensions" in page and "tables/dimensions.csv" in page


def test_the_leaderboard_report_has_no_dimensions_unless_asked(tmp_path, capsys):
    assert main(["leaderboard", str(ARCT), "--out", str(tmp_path / "b"), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert "dimensions" not in summary and not (tmp_path / "b" / "tables" / "dimensions.csv").exists()
    with pytest.raises(SystemExit) as exc:  # refused while the command line is read (the declared --dims)
        main(["leaderboard", str(ARCT), "--dims", "0", "--out", str(tmp_path / "c")])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--dims" in err and not (tmp_path / "c").exists()
