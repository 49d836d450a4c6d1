"""Leaderboards that say what they do not know (issue 39, item 5 and cause 4).

Each case failed on main before this change:

* two groups of models that share no item were ranked on one scale without a word: now each group is
  ranked on its own (column ``group``) with a warning naming the groups, or refused;
* a model whose only unanswered item was answered by one other model got "accuracy 0.867 [0.867, 0.867]":
  now no interval has width zero, and a predicted accuracy's interval is at least Wilson's on as many items;
* six models answering almost disjoint tasks (one on 10 items, ranked among the others): models that answered
  few items are marked, items answered by few models flagged;
* lm-evaluation-harness runs made with ``--limit`` (real, trimmed: tests/leaderboard/data/lm_eval_limit) were
  not detected: now the reader's ``limit`` column carries ``config.limit`` and the leaderboard marks them;
* the CLI's warnings (a dropped older run) reached stderr only: now the same text is in the HTML page's
  notes and in ``summary.json``'s ``notes``.

Expected numbers come from hand counts, the roots of Wilson's defining equation, R's
``prop.test(correct = FALSE)`` and a plain union-find over the model-item graph, never from the code under
test.
"""

from __future__ import annotations

import json
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import optimize

from irtbridge.cli import build_parser, main
from irtbridge.exceptions import DataWarning, ValidationError
from irtbridge.leaderboard import leaderboard_report, read_lm_eval
from irtbridge.leaderboard.diagnostics import (MIN_ITEMS, MIN_MODELS, connected_groups, predicted_interval,
                                               wilson_interval)

Z = 1.959963984540054
LIMIT_RUNS = Path(__file__).parent / "data" / "lm_eval_limit"


def _simulate(n, J, seed, prefix="m", item_prefix="q"):
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n)
    b = np.linspace(-1.5, 1.5, J)
    X = (rng.random((n, J)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(float)
    return pd.DataFrame(X, index=[f"{prefix}{i}" for i in range(n)], columns=[f"{item_prefix}{j}" for j in range(J)])


def _wilson_roots(p, n):
    """Wilson's limits as the roots of (p - q)^2 = z^2 q (1 - q) / n (Wilson 1927)."""
    f = lambda q: (p - q) ** 2 - Z**2 * q * (1 - q) / n  # noqa: E731
    lo = 0.0 if p == 0 else optimize.brentq(f, 0.0, p - 1e-12)
    hi = 1.0 if p == 1 else optimize.brentq(f, p + 1e-12, 1.0)
    return lo, hi


# --- connectivity -----------------------------------------------------------------------------------------

def _two_groups():
    a = _simulate(40, 12, seed=3, prefix="a", item_prefix="x")
    b = _simulate(25, 10, seed=4, prefix="b", item_prefix="y")
    return pd.concat([a, b])  # a's models answered only x items, b's only y items: NaN across


def test_connected_groups_by_hand():
    X = np.full((5, 6), np.nan)
    X[0, [0, 1]] = 1  # models 0, 1, 3 linked through items 0, 1, 2; models 2, 4 through item 4; item 5 unanswered
    X[1, [1, 2]] = 0
    X[3, 2] = 1
    X[2, [3, 4]] = 1
    X[4, 4] = 0
    models, items = connected_groups(X)
    assert models.tolist() == [0, 0, 1, 0, 1]
    assert items.tolist() == [0, 0, 0, 1, 1, 2]


def _union_find_partition(mask):
    """The components of the model-item graph by a plain union-find, as sets of ('m', i) / ('i', j) nodes."""
    parent = {}

    def root(v):
        parent.setdefault(v, v)
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    for i in range(mask.shape[0]):
        root(("m", i))
    for j in range(mask.shape[1]):
        root(("i", j))
    for i, j in zip(*np.nonzero(mask)):
        parent[root(("m", i))] = root(("i", j))
    out = {}
    for v in parent:
        out.setdefault(root(v), set()).add(v)
    return {frozenset(c) for c in out.values()}


@pytest.mark.parametrize("seed, share", [(0, 0.05), (1, 0.1), (2, 0.3), (3, 1.0)])
def test_connected_groups_match_a_union_find(seed, share):
    rng = np.random.default_rng(seed)
    mask = rng.random((40, 60)) < share
    X = np.where(mask, 1.0, np.nan)
    models, items = connected_groups(X)
    got = {}
    for i, g in enumerate(models):
        got.setdefault(("g", g), set()).add(("m", i))
    for j, g in enumerate(items):
        got.setdefault(("g", g), set()).add(("i", j))
    assert {frozenset(c) for c in got.values()} == _union_find_partition(mask)
    sizes = [int((models == g).sum()) for g in range(models.max() + 1)]
    assert sizes == sorted(sizes, reverse=True)  # numbered by size, most models first


def test_two_disjoint_groups_are_ranked_each_on_its_own_with_a_warning():
    frame = _two_groups()
    with pytest.warns(DataWarning, match=r"2 groups that share no item: group 1 \[a0, a1, a2, a3, \.\.\. \(40 models\)\] "
                                         r"on 12 item\(s\); group 2 \[b0, b1, b2, b3, \.\.\. \(25 models\)\] on 10"):
        rep = leaderboard_report(frame)
    rk = rep.ranking
    assert rk.loc[[f"a{i}" for i in range(40)], "group"].eq(1).all()
    assert rk.loc[[f"b{i}" for i in range(25)], "group"].eq(2).all()
    # ranks within each group: 1..n (ties share the lower rank), the table group 1 first
    for g, n in ((1, 40), (2, 25)):
        ranks = rk.loc[rk["group"] == g, "rank"]
        assert ranks.min() == 1 and ranks.max() <= n and ranks.is_monotonic_increasing
    assert list(rk["group"]) == [1] * 40 + [2] * 25
    # each group's models answered every item of their group: observed accuracy on it, not a prediction
    assert (rk["accuracy_kind"] == "observed").all()
    np.testing.assert_array_equal(rk.loc["b3", "accuracy"], frame.loc["b3", [f"y{j}" for j in range(10)]].mean())
    assert [g["n_models"] for g in rep.facts["groups"]] == [40, 25]
    assert any("share no item" in n for n in rep.notes)
    assert "2 groups that share no item" in rep.summary().as_text()


def test_disjoint_groups_refused_when_asked():
    with pytest.raises(ValidationError, match="share no item") as exc:
        leaderboard_report(_two_groups(), disconnected="refuse")
    assert "\n" not in str(exc.value)
    with pytest.raises(ValidationError, match="disconnected must be one of"):
        leaderboard_report(_two_groups(), disconnected="no")


def test_cli_refuses_disjoint_groups_with_exit_2_and_no_folder(tmp_path, capsys):
    path = tmp_path / "m.csv"
    _two_groups().to_csv(path, index_label="model")
    out = tmp_path / "board"
    assert main(["leaderboard", str(path), "--out", str(out), "--disconnected", "refuse"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "share no item" in err[-1]  # the progress line, then the one-line error
    assert not out.exists()


# --- no interval of width zero ---------------------------------------------------------------------------

def test_an_item_answered_by_one_model_gives_no_zero_width_interval():
    frame = _simulate(30, 15, seed=5)
    frame["solo"] = np.nan
    frame.loc["m0", "solo"] = 1.0  # answered by one model: left out of the 2PL, every other model lacks it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        rep = leaderboard_report(frame)
    rk = rep.ranking
    width = rk["accuracy_upper"] - rk["accuracy_lower"]
    assert (width > 0.05).all()  # on main: 0 for the 29 models that answered every item but "solo"
    predicted = rk[rk["accuracy_kind"] == "predicted"]
    assert len(predicted) == 29
    # never narrower than Wilson's interval on as many items (16) at the predicted accuracy
    for _, row in predicted.iterrows():
        lo, hi = _wilson_roots(row["accuracy"], 16)
        assert row["accuracy_lower"] <= lo + 1e-9 and row["accuracy_upper"] >= hi - 1e-9
    assert rep.items.loc["solo", "flag"] == "answered once"


def test_predicted_interval_is_wilson_widened_by_the_spread():
    for acc, sd, n in ((0.867, 0.0, 15), (0.5, 0.03, 40), (0.95, 0.01, 200), (0.0, 0.02, 12)):
        lo, hi = _wilson_roots(acc, n)
        got_lo, got_hi = predicted_interval(acc, sd, n)
        assert float(got_lo) == pytest.approx(max(acc - np.hypot(acc - lo, Z * sd), 0.0), abs=1e-9)
        assert float(got_hi) == pytest.approx(min(acc + np.hypot(hi - acc, Z * sd), 1.0), abs=1e-9)
        assert float(got_hi) - float(got_lo) > 0


@pytest.mark.r
def test_without_spread_it_is_r_prop_test_wilson(tmp_path):
    """R's prop.test(correct = FALSE) gives Wilson's score interval for one proportion."""
    cases = [(13, 15), (0, 12), (12, 12), (81, 263), (1, 1), (7, 16)]
    script = tmp_path / "wilson.R"
    script.write_text("cases <- read.csv(commandArgs(TRUE)[1])\n"
                      "ci <- t(mapply(function(k, n) suppressWarnings(prop.test(k, n, correct = FALSE))$conf.int, "
                      "cases$k, cases$n))\n"
                      "write.csv(data.frame(lower = ci[, 1], upper = ci[, 2]), commandArgs(TRUE)[2], row.names = FALSE)\n")
    pd.DataFrame(cases, columns=["k", "n"]).to_csv(tmp_path / "cases.csv", index=False)
    subprocess.run(["Rscript", str(script), str(tmp_path / "cases.csv"), str(tmp_path / "out.csv")], check=True,
                   capture_output=True)
    ref = pd.read_csv(tmp_path / "out.csv")
    k, n = np.array(cases).T
    for lo, hi in (wilson_interval(k, n), predicted_interval(k / n, 0.0, n)):
        np.testing.assert_allclose(lo, ref["lower"], atol=1e-12)
        np.testing.assert_allclose(hi, ref["upper"], atol=1e-12)
    assert (ref["upper"] - ref["lower"] > 0).all()  # R's Wilson interval is never of width zero either


# --- few answers: models and items --------------------------------------------------------------------------

def test_six_models_on_almost_disjoint_tasks_are_marked():
    rng = np.random.default_rng(8)
    tasks = {t: [f"{t}/{j}" for j in range(60)] for t in "ABCDEF"}
    cols = [i for t in "ABCDEF" for i in tasks[t]]
    frame = pd.DataFrame(np.nan, index=[f"m{i}" for i in range(6)], columns=cols)
    shared = [tasks["A"][j] for j in range(10)]  # every model answers A's first 10 items
    for i, t in enumerate("ABCDEF"):
        mine = shared if i == 5 else list(dict.fromkeys(shared + tasks[t]))  # m5 answered only the 10 shared items
        frame.loc[f"m{i}", mine] = (rng.random(len(mine)) < 0.3 + 0.1 * i).astype(float)
    frame = frame.dropna(axis=1, how="all")
    with pytest.warns(DataWarning, match=r"1 model\(s\) answered fewer than 30 items.*m5 \(10 items, rank \d+ in group 1\)"):
        rep = leaderboard_report(frame)
    rk = rep.ranking
    assert rk.loc["m5", "marks"] == "10 item(s) answered (fewer than 30)"
    assert (rk.drop(index="m5")["marks"] == "").all()
    assert rep.facts["marks"]["few_items"] == 1 and rep.facts["marks"]["min_items"] == MIN_ITEMS
    # items answered by one model (B..F's own, and A's beyond the shared 10) are "answered once"; the shared 10 by
    # all six, none "few answers" (2 <= answers < min(5, 6 / 2) = 3 would be)
    assert (rep.items.loc[shared, "flag"] != "few answers").all()
    assert rep.items.loc["B/3", "flag"] == "answered once"


def test_items_answered_by_few_models_are_flagged():
    frame = _simulate(40, 12, seed=9)
    frame["pair"] = np.nan
    frame.loc[["m0", "m1"], "pair"] = [1.0, 0.0]  # 2 answers: fewer than min(5, 40 / 2)
    frame["four"] = np.nan
    frame.loc[["m0", "m1", "m2", "m3"], "four"] = [1.0, 0.0, 1.0, 0.0]
    frame["five"] = np.nan
    frame.loc[["m0", "m1", "m2", "m3", "m4"], "five"] = [1.0, 0.0, 1.0, 0.0, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        rep = leaderboard_report(frame)
        strict = leaderboard_report(frame, min_models=6)
    assert rep.items.loc[["pair", "four", "five"], "few_answers"].tolist() == [True, True, False]
    assert rep.items.loc[["pair", "four"], "flag"].tolist() == ["few answers", "few answers"]
    assert strict.items.loc["five", "few_answers"] and strict.items.loc["five", "flag"] == "few answers"
    assert rep.facts["flags"]["few_answers"] == 2 and MIN_MODELS == 5
    assert "2 answered by fewer than 5 models" in rep.summary().as_text()


# --- lm-evaluation-harness --limit runs (real, trimmed) -----------------------------------------------------------

def test_reader_carries_the_limit_of_each_run():
    with pytest.warns(DataWarning, match="left out as older runs"):
        table = read_lm_eval(LIMIT_RUNS)
    models = ["LGAI-EXAONE/EXAONE-3.0-7.8B-Instruct", "gpt-4o", "upstage/SOLAR-10.7B-Instruct-v1.0"]
    assert sorted(table["model"].unique()) == models
    assert (table["limit"] == 10.0).all() and len(table) == 30  # --limit 10: 10 documents of 1,267 each
    # the scores as published: gpt-4o's results file says exact_match 0.3, SOLAR's later run 0.8
    assert table.groupby("model")["score"].sum().to_dict() == dict(zip(models, [0.0, 3.0, 8.0]))


def test_leaderboard_marks_limit_runs_and_not_the_others():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        limited = read_lm_eval(LIMIT_RUNS)
    full = limited.copy()  # the same answers under other names, as if run without --limit
    full["model"] = "full-" + full["model"].str.split("/").str[-1]
    full["limit"] = None
    with pytest.warns(DataWarning, match=r"3 model\(s\) were run with lm-evaluation-harness's --limit.*"
                                         r"gpt-4o: winogrande \(limit 10\)"):
        rep = leaderboard_report(pd.concat([limited, full], ignore_index=True))
    marks = rep.ranking["marks"]
    assert (marks[marks.index.str.startswith("full-")] == "").all()
    assert marks["gpt-4o"] == "--limit run: winogrande (limit 10)"
    assert rep.facts["marks"]["limited"] == 3
    assert "were run with lm-evaluation-harness's --limit" in rep.summary().as_text()


# --- every warning reaches the notes: CLI stderr, HTML, summary.json ----------------------------------------------

def test_a_warning_says_the_same_on_stderr_in_the_page_and_in_summary_json(tmp_path, capsys):
    out = tmp_path / "board"
    assert main(["leaderboard", str(LIMIT_RUNS), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    dropped = next(line for line in err.splitlines() if "left out as older runs" in line)
    text = dropped.split("DataWarning: ", 1)[1]
    assert "samples_winogrande_2024-12-23T14-36-36.300029.jsonl left out" in text
    summary = json.loads((out / "summary.json").read_text())
    assert text in summary["notes"]
    page = (out / "index.html").read_text()
    import html

    assert html.escape(text) in page and "No warnings." not in page
    limit_line = next(line for line in err.splitlines() if "--limit" in line and "DataWarning" in line)
    assert limit_line.split("DataWarning: ", 1)[1] in summary["notes"]


def test_cli_defaults_are_the_library_defaults():
    args = build_parser().parse_args(["leaderboard", __file__])
    assert (args.min_items, args.min_models, args.disconnected) == (MIN_ITEMS, MIN_MODELS, "per-group")
