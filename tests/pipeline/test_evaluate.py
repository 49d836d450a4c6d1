"""`irtbridge evaluate`: the main job end to end, checked against R and closed forms.

One real `irtbridge evaluate --quick` run (two datasets, two spawned workers, each with its own R) feeds
the R-backed checks: the 3PL item parameters equal ltm's `tpm` fitted directly in R on the written
response matrix, the ratings equal PlayerRatings' Glicko-2 on the written match table, and True-Scores,
diagnostics and Efficiency Indices equal their closed forms recomputed from the written tables. The page
is rendered in headless Chromium.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

# helpers in tests/ (pytest puts the folder on sys.path): Chromium rendering and a synthetic evaluation
from tests._chromium import body_attribute, render
from tests._synthetic import synthetic_evaluation

from irtbridge.cli import main
from irtbridge.pipeline import Settings, resolve_datasets
from irtbridge.exceptions import ValidationError
from tests._rrefs import run_r

R_ENV = {**os.environ, "TZ": "UTC", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}


def _read(path: Path, **kw) -> pd.DataFrame:
    return pd.read_csv(path, float_precision="round_trip", **kw)


def _rscript(tmp: Path, code: str, *args: str) -> None:
    script = tmp / "oracle.R"
    script.write_text(code)
    proc = run_r(["Rscript", str(script), *args], capture_output=True, text=True, env=R_ENV)
    assert proc.returncode == 0, proc.stderr[-3000:]


# --------------------------------------------------------------------------------------------------
# bad input: one test per class
# --------------------------------------------------------------------------------------------------

def test_unknown_dataset_exits_2(capsys):
    assert main(["evaluate", "--datasets", "no_such_data", "--out", "unused"]) == 2
    err = capsys.readouterr().err
    assert "no_such_data" in err and "embedded" in err and err.count("\n") == 1


def test_missing_csv_is_rejected():
    with pytest.raises(ValidationError, match="neither an embedded dataset nor an existing .csv"):
        resolve_datasets(["missing.csv:label"])


def test_dataset_given_twice():
    with pytest.raises(ValidationError, match="given twice"):
        resolve_datasets(["iris", "IRIS"])


def test_jobs_must_be_positive(capsys):
    with pytest.raises(SystemExit) as exc:  # refused while the command line is read (the declared --jobs)
        main(["evaluate", "--quick", "--jobs", "0", "--out", "unused"])
    assert exc.value.code == 2
    assert "--jobs" in capsys.readouterr().err


def test_out_must_not_be_a_file(tmp_path, capsys):
    target = tmp_path / "taken"
    target.write_text("x")
    assert main(["evaluate", "--quick", "--datasets", "iris", "--out", str(target)]) == 2
    assert "is a file" in capsys.readouterr().err


@pytest.mark.parametrize("field, value", [("engine", "stan"), ("max_items", 3), ("order", "alphabetical"),
                                          ("pool", "huge"), ("tau", 0.0), ("seed", -1)])
def test_bad_settings(field, value):
    with pytest.raises(ValidationError, match=field):
        Settings(**{field: value})


def test_resolve_names_and_csv(tmp_path):
    csv = tmp_path / "mine.csv"
    pd.DataFrame({"x": [1, 2, 3, 4], "label": [0, 1, 0, 1]}).to_csv(csv, index=False)
    assert resolve_datasets(["sonar", "Wine", f"{csv}:label"]) == ["Sonar", "wine", f"{csv}:label"]
    assert resolve_datasets(None, quick=True) == list(resolve_datasets(None, quick=True))


@pytest.mark.slow
def test_cli_summary_text_and_json(tmp_path, monkeypatch, capsys):
    """The CLI's two closing outputs, on a synthetic evaluation (no R): text summary and --json."""
    import irtbridge.pipeline

    monkeypatch.setattr(irtbridge.pipeline, "evaluate", lambda *a, **k: synthetic_evaluation())
    # a dataset of the run failed ("broken"): exit 1 (test_evaluate_surface checks the message)
    assert main(["evaluate", "--quick", "--datasets", "iris", "--out", str(tmp_path / "a")]) == 1
    text = capsys.readouterr().out
    assert "3 of 4 dataset(s) evaluated" in text and "could not be evaluated: broken" in text
    assert f"report:  {tmp_path / 'a' / 'index.html'}" in text
    assert main(["evaluate", "--quick", "--datasets", "iris", "--out", str(tmp_path / "b"), "--json"]) == 1
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads((tmp_path / "b" / "summary.json").read_text())
    assert printed["ranking"][0]["player"] == "optimal"


# --------------------------------------------------------------------------------------------------
# the real run
# --------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("evaluate") / "report"
    proc = subprocess.run(
        [sys.executable, "-m", "irtbridge", "evaluate", "--quick", "--datasets", "iris", "Sonar", "--out", str(out),
         "--jobs", "2"],
        capture_output=True, text=True, env={**os.environ, "MPLBACKEND": "Agg"},
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return out, proc


@pytest.mark.r
@pytest.mark.slow
def test_cli_outputs(run):
    out, proc = run
    summary = json.loads((out / "summary.json").read_text())
    assert summary["report"] == str(out / "index.html") and (out / "index.html").is_file()
    assert f"report:  {out / 'index.html'}" in proc.stdout  # the closing summary says where the page is
    assert "Ranking sanity check passed" in proc.stdout
    assert "irtbridge evaluate" in proc.stderr and "writing the report" in proc.stderr  # progress on stderr
    assert [d["dataset"] for d in summary["datasets"]] == ["iris", "Sonar"]
    assert all(d["error"] is None for d in summary["datasets"])
    assert summary["provenance"]["jobs"] == 2
    for name in ("ratings", "diagnostics", "instances", "matches", "true_scores", "ei_pooled", "mlc", "responses_Sonar"):
        assert (out / "tables" / f"{name}.csv").is_file(), name
    assert summary["mlc"]["dataset"] == "Sonar" and len(summary["mlc"]["classes"]) == 2


@pytest.mark.r
@pytest.mark.slow
def test_items_equal_mirt_with_priors_called_directly(run, tmp_path):
    # the default calibration mode ("stable"): mirt's 3PL with the priors of irtbridge.decodirt.modes,
    # written here as plain mirt calls on the parameter table
    out, _ = run
    responses = _read(out / "tables" / "responses_Sonar.csv", index_col=0)
    items = _read(out / "tables" / "instances.csv")
    ours = items[items["dataset"] == "Sonar"].set_index("instance")
    ours.index = ours.index.astype(str)
    assert (ours["calibration"] == "stable").all() if "calibration" in ours else True
    data = tmp_path / "responses.csv"
    responses[[c for c in responses.columns if c in ours.index]].to_csv(data, index=False)
    _rscript(tmp_path, (
        "args <- commandArgs(TRUE)\n"
        "suppressMessages(library(mirt))\n"
        "d <- read.csv(args[1], check.names = FALSE)\n"
        "sv <- mirt(d, 1, itemtype = '3PL', pars = 'values', verbose = FALSE)\n"
        "a <- sv$name == 'a1'; sv$prior.type[a] <- 'norm'; sv$prior_1[a] <- 1; sv$prior_2[a] <- 0.5\n"
        "i <- sv$name == 'd'; sv$prior.type[i] <- 'norm'; sv$prior_1[i] <- 0; sv$prior_2[i] <- 3\n"
        "g <- sv$name == 'g'; sv$prior.type[g] <- 'expbeta'; sv$prior_1[g] <- 2; sv$prior_2[g] <- 17\n"
        "fit <- mirt(d, 1, itemtype = '3PL', pars = sv, verbose = FALSE)\n"
        "cf <- coef(fit, IRTpars = TRUE, simplify = TRUE)$items\n"
        "write.csv(data.frame(item = colnames(d), a = cf[, 'a'], b = cf[, 'b'], g = cf[, 'g']), args[2], row.names = FALSE)\n"
    ), str(data), str(tmp_path / "mirt.csv"))
    ref = _read(tmp_path / "mirt.csv").astype({"item": str}).set_index("item")
    ref = ref.loc[ours.index]
    # the same engine, data, priors and defaults: equal up to CSV round trips
    for col in ("a", "b", "g"):
        np.testing.assert_allclose(ours[col].to_numpy(), ref[col].to_numpy(), rtol=1e-7, atol=1e-9, err_msg=col)
    assert ours[["a"]].abs().max().iloc[0] < 10 or ours.loc[ours["a"].abs() >= 10, "flag"].fillna("").ne("").all()


@pytest.mark.r
@pytest.mark.slow
def test_ratings_equal_playerratings(run, tmp_path):
    out, _ = run
    _rscript(tmp_path, (
        "args <- commandArgs(TRUE)\n"
        "suppressMessages(library(PlayerRatings))\n"
        "m <- read.csv(args[1], stringsAsFactors = FALSE)\n"
        "r <- glicko2(m[, c('period', 'player', 'opponent', 'score')], init = c(1500, 350, 0.06), tau = 0.5,\n"
        "             rdmax = Inf)$ratings\n"
        "write.csv(r[, c('Player', 'Rating', 'Deviation', 'Volatility')], args[2], row.names = FALSE)\n"
    ), str(out / "tables" / "matches.csv"), str(tmp_path / "pr.csv"))
    ref = _read(tmp_path / "pr.csv").set_index("Player")
    ours = _read(out / "tables" / "ratings.csv", index_col=0)
    ref = ref.loc[ours.index]
    # every respondent plays every period, so PlayerRatings' lag rule never applies; what remains is its
    # optimize() on the volatility (tolerance ~1e-4 on ln sigma^2) and its 400/ln 10 scale: documented in
    # irtbridge.rating.glicko2 as ~1e-4 points on small tournaments. 0.01 points leaves room for two periods.
    np.testing.assert_allclose(ours["rating"], ref["Rating"], atol=0.01)
    np.testing.assert_allclose(ours["rd"], ref["Deviation"], atol=0.01)
    np.testing.assert_allclose(ours["volatility"], ref["Volatility"], atol=1e-5)
    assert ours.index[0] == "optimal" and ours.index[-1] == "pessimal"


@pytest.mark.r
@pytest.mark.slow
def test_true_scores_diagnostics_and_ei_closed_forms(run):
    out, _ = run
    tables = out / "tables"
    items = _read(tables / "instances.csv")
    resp = _read(tables / "respondents.csv").set_index(["dataset", "respondent"])
    for name in ("iris", "Sonar"):
        it = items[items["dataset"] == name]
        theta = resp.loc[name, "theta"].to_numpy()
        # Cardoso et al. (decodIRT), Eqs. 1-2: TS(theta) = sum_i g_i + (u_i - g_i) / (1 + exp(-a_i (theta - b_i)))
        z = it["a"].to_numpy()[None, :] * (theta[:, None] - it["b"].to_numpy()[None, :])
        p = it["g"].to_numpy() + (it["u"].to_numpy() - it["g"].to_numpy()) * expit(z)
        np.testing.assert_allclose(resp.loc[name, "true_score"].to_numpy(), p.sum(axis=1), rtol=1e-9)
        diag = _read(tables / "diagnostics.csv", index_col=0).loc[name]
        assert diag["difficulty_mean"] == pytest.approx(it["b"].mean(), rel=1e-12)
        assert diag["share_negative_discrimination"] == pytest.approx((it["a"] < 0).mean(), abs=0)
        responses = _read(tables / f"responses_{name}.csv", index_col=0)
        np.testing.assert_allclose(resp.loc[name, "accuracy"].to_numpy(), responses.mean(axis=1).to_numpy(), rtol=1e-12)

    ei = _read(tables / "ei_per_dataset.csv").set_index(["dataset", "classifier"]).loc["Sonar"]
    sonar = items[items["dataset"] == "Sonar"]
    responses = _read(tables / "responses_Sonar.csv", index_col=0)
    # each classifier's table covers every item; TP + TN are exactly its correct answers
    assert ((ei[["tp", "fp", "fn", "tn"]].sum(axis=1)) == len(sonar)).all()
    np.testing.assert_array_equal((ei["tp"] + ei["tn"]).to_numpy(), responses.loc[ei.index].sum(axis=1).to_numpy())
    positives = int((sonar["label"] == "R").sum())  # mlbench Sonar: 97 R vs 111 M, R is the minority
    assert ((ei["tp"] + ei["fn"]) == positives).all()
    np.testing.assert_allclose(ei["ei"], (ei["tp"] + ei["tn"]) / (ei["fp"] + ei["fn"]), rtol=1e-12)
    assert sonar["hardness_rd"].between(0, 1).all() and items.loc[items["dataset"] == "iris", "hardness_rd"].isna().all()


@pytest.mark.r
@pytest.mark.slow
def test_report_renders_in_chromium(run, tmp_path):
    out, _ = run
    shown = render(out / "index.html", tmp_path)
    assert shown.screenshot.stat().st_size > 50_000
    assert body_attribute(shown.dom, "data-probe") == "done"
    assert body_attribute(shown.dom, "data-broken-images") == "0"
    assert int(body_attribute(shown.dom, "data-images")) >= 7  # ranking, history, CD, heat map, datasets, instances, EI, MLC
    for section in ("summary", "evaluated", "ranking", "datasets", "instances", "mlc", "ei", "notes"):
        assert f'id="{section}"' in shown.dom
    assert "Not computed" not in shown.dom  # the MLC ran
    assert shown.console == []


@pytest.mark.r
@pytest.mark.slow
@pytest.mark.xdist_group("quick_runs")
def test_results_do_not_depend_on_the_number_of_workers(quick_runs):
    # two multi-class sets (no MLC unit), run with one and with two workers: the session's quick runs
    # (tests/conftest.py), which tests/pipeline/test_determinism.py compares table by table
    one, two = ({"summary": json.loads((quick_runs[name] / "summary.json").read_text()),
                 **{table: _read(quick_runs[name] / "tables" / f"{table}.csv") for table in ("ratings", "instances")}}
                for name in ("jobs1", "jobs2"))
    assert two["summary"]["provenance"]["jobs"] == 2 and one["summary"]["provenance"]["jobs"] == 1
    pd.testing.assert_frame_equal(_untimed(one["ratings"]), _untimed(two["ratings"]), rtol=1e-9)
    pd.testing.assert_frame_equal(_untimed(one["instances"]), _untimed(two["instances"]), rtol=1e-9)


def _untimed(frame: pd.DataFrame) -> pd.DataFrame:
    """Without its wall-time columns (the one thing two runs may differ in)."""
    return frame.drop(columns=[c for c in frame.columns if c == "seconds" or c.endswith("_seconds")])


def test_modules_import_without_r(fresh_python):
    code = ("import sys, irtbridge.pipeline, irtbridge.report, irtbridge.batch, irtbridge.cli\n"
            "irtbridge.cli.build_parser()\n"
            "print('rpy2' in sys.modules, any(m.startswith('irtbridge._r') for m in sys.modules))")
    proc = fresh_python.run(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "False"]
