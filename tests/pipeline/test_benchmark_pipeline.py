"""Tests of the whole benchmark (run_benchmark): tables, files, figures, and bad input.

One small run is shared by the module (iris from scikit-learn plus wine written to a CSV file, the quick
pool, 20 items per dataset, ltm). References: the paper's formulas recomputed with numpy from the
written item tables (True-Scores, Eqs. 1-2; diagnostics), R's PlayerRatings::glicko2 on the written
matches.csv (the file's period labels must sort in play order; 1e-3 points, the documented optimize()
difference), and pandas/numpy recomputations of what each figure must show.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from irtbridge.decodirt import (
    PAPER_ORDERS,
    plot_bump,
    plot_dataset_parameters,
    plot_item_curves,
    plot_parameter_bins,
    plot_ratings,
    plot_true_scores,
    score_table,
)
from irtbridge.pipeline import BenchmarkResult, Settings, run_benchmark
from irtbridge.exceptions import ValidationError
from tests._rrefs import run_r

pytestmark = pytest.mark.r

ORDERS = ("given",) + PAPER_ORDERS


@pytest.fixture(scope="module")
def wine_csv(tmp_path_factory):
    from sklearn.datasets import load_wine

    bunch = load_wine(as_frame=True)
    frame = bunch.data.assign(label=bunch.target.map(lambda k: f"cultivar{k}"))
    path = tmp_path_factory.mktemp("data") / "wine_local.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def result(wine_csv) -> BenchmarkResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_benchmark(["iris", f"{wine_csv}:label"], Settings(pool="quick", calibration="paper", max_items=20, seed=1),
                             orders=ORDERS, progress=False)


@pytest.fixture(scope="module")
def saved(result, tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    files = result.save(out)
    return out, files


def _p3(theta, items):
    a, b, g = (items[c].to_numpy()[None, :] for c in ("a", "b", "g"))
    with np.errstate(over="ignore"):
        return g + (1 - g) / (1 + np.exp(-a * (np.asarray(theta)[:, None] - b)))


def test_result_shape(result):
    assert list(result.datasets) == ["iris", "wine_local"]
    assert list(result.tournaments) == list(ORDERS)
    assert all(r.ok for r in result.datasets.values())
    for r in result.datasets.values():
        assert r.responses.shape == (19, 20)  # 12 classifiers + 7 artificial, 20 items
    assert result.settings["engine"] == "ltm" and result.settings["model"] == "3PL"
    # two datasets: each sd half holds ceil(2 / 2) = 1
    assert [len(result.tournaments[o].datasets) for o in ORDERS] == [2, 2, 2, 1, 1, 1, 1]


def test_saved_files(saved):
    out, files = saved
    names = {str(f.relative_to(out)) for f in files}
    for stem in ("datasets", "dataset_rankings", "items", "respondents", "calibration_attempts", "dropped_items",
                 "ratings", "rating_history", "matches", "validity", "average_ranks"):
        assert f"{stem}.csv" in names
    assert {"summary.json", "summary.txt", "responses/iris.csv", "responses/wine_local.csv"} <= names
    figures = {n for n in names if n.startswith("figures/")}
    assert {"figures/dataset_parameters.png", "figures/parameter_bins.png", "figures/icc_iris.png",
            "figures/true_scores_wine_local.png", "figures/bump_difficulty.png", "figures/ratings_given.png",
            "figures/cd_given.png"} <= figures
    assert all(f.stat().st_size > 0 for f in files)
    assert not list(out.rglob(".*.tmp")) and not list(out.rglob(".*.png"))  # no temporary leftovers
    payload = json.loads((out / "summary.json").read_text())  # strict JSON: no NaN
    assert set(payload) == {"settings", "datasets", "tournaments", "seconds"}
    assert payload["tournaments"]["given"]["ratings"][0]["rank"] == 1


def test_true_scores_in_the_tables(saved):
    out, _ = saved
    items = pd.read_csv(out / "items.csv", dtype={"item": str})
    resp = pd.read_csv(out / "respondents.csv")
    for name, its in items.groupby("dataset"):
        r = resp[resp["dataset"] == name]
        p = _p3(r["theta"].to_numpy(), its)
        np.testing.assert_allclose(r["true_score"], p.sum(axis=1), rtol=0, atol=1e-9)
        pos = its[its["a"] > 0]
        p_pos = _p3(r["theta_positive"].to_numpy(), pos)
        np.testing.assert_allclose(r["true_score_positive"], p_pos.sum(axis=1), rtol=0, atol=1e-9)


def test_responses_file_round_trip(saved, result):
    out, _ = saved
    back = pd.read_csv(out / "responses" / "iris.csv", index_col=0)
    np.testing.assert_array_equal(back.to_numpy(), result.datasets["iris"].responses.to_numpy())
    assert list(back.columns) == list(result.datasets["iris"].responses.columns)


def test_diagnostics_in_the_tables(saved):
    out, _ = saved
    items = pd.read_csv(out / "items.csv")
    diag = pd.read_csv(out / "datasets.csv").set_index("dataset")
    for name, its in items.groupby("dataset"):
        assert diag.loc[name, "difficulty_mean"] == pytest.approx(its["b"].mean(), abs=1e-9)
        assert diag.loc[name, "discrimination_sd"] == pytest.approx(np.std(its["a"], ddof=1), rel=1e-9)
        assert diag.loc[name, "guessing_median"] == pytest.approx(np.median(its["g"]), abs=1e-12)
        assert diag.loc[name, "share_positive_difficulty"] == pytest.approx((its["b"] > 0).mean())


R_GLICKO = r"""
args <- commandArgs(trailingOnly = TRUE)
suppressPackageStartupMessages(library(PlayerRatings))
games <- read.csv(args[1], stringsAsFactors = FALSE)
games <- games[games$order == args[3], c("period", "player", "opponent", "score")]
fit <- glicko2(games, init = c(1500, 350, 0.06), tau = 0.5, rdmax = Inf)
r <- fit$ratings
write.csv(data.frame(player = r$Player, rating = sprintf("%.17g", r$Rating), rd = sprintf("%.17g", r$Deviation)),
          args[2], row.names = FALSE)
"""


@pytest.mark.parametrize("order", ["difficulty", "discrimination"])
def test_written_matches_replay_in_playerratings(saved, order, tmp_path):
    out, _ = saved
    (tmp_path / "g.R").write_text(R_GLICKO)
    run_r(["Rscript", str(tmp_path / "g.R"), str(out / "matches.csv"), str(tmp_path / "r.csv"), order],
                   check=True, capture_output=True)
    ref = pd.read_csv(tmp_path / "r.csv").set_index("player")
    ratings = pd.read_csv(out / "ratings.csv")
    got = ratings[ratings["order"] == order].set_index("player").loc[ref.index]
    np.testing.assert_allclose(got["rating"], ref["rating"], rtol=0, atol=1e-3)
    np.testing.assert_allclose(got["rd"], ref["rd"], rtol=0, atol=1e-3)


def test_orders_follow_the_diagnostics(result):
    d = result.diagnostics
    easy_first = d.sort_values("difficulty_mean").index.tolist()
    assert list(result.tournaments["difficulty"].datasets) == easy_first
    assert list(result.tournaments["discrimination"].datasets) == d.sort_values("discrimination_mean").index.tolist()
    assert result.tournaments["difficulty_sd_low"].datasets == (d["difficulty_sd"].idxmin(),)
    assert result.tournaments["difficulty_sd_high"].datasets == (d["difficulty_sd"].idxmax(),)


def test_score_table_and_validity(result, saved):
    out, _ = saved
    resp = pd.read_csv(out / "respondents.csv")
    table = score_table(result.datasets)
    expected = resp.pivot(index="dataset", columns="respondent", values="true_score").loc[table.index, table.columns]
    np.testing.assert_allclose(table.to_numpy(), expected.to_numpy(), rtol=0, atol=1e-12)
    validity = pd.read_csv(out / "validity.csv")
    for order, t in result.tournaments.items():
        row = validity[(validity["order"] == order) & (validity["ranking"] == "glicko2")].iloc[0]
        r = t.ratings.set_index("player")["rating"]
        # "strictly better" beyond rounding noise: ratings within 1e-9 relative are ties (pessimal and a random
        # respondent with the same record get the same rating up to its last bits)
        tol = 1e-9 * r.abs().max()
        assert row["optimal_rank"] == 1 + int((r > r["optimal"] + tol).sum())
        assert row["pessimal_rank"] == len(r) - int((r < r["pessimal"] - tol).sum())


def test_summary_text(result):
    text = result.summary()
    assert "== difficulty:" in text and "rating" in text and "glicko2:" in text
    assert repr(result).startswith("BenchmarkResult(datasets=2")


# --------------------------------------------------------------------------------------------------
# figures


def test_item_curves_show_the_3pl(result):
    r = result.datasets["iris"]
    ax = plot_item_curves(r, names=list(r.items.index[:3]))
    lines = ax.get_lines()
    assert len(lines) == 3
    for line, (name, row) in zip(lines, r.items.iloc[:3].iterrows()):
        x, y = line.get_data()
        expected = _p3(x, r.items.loc[[name]])[:, 0]
        np.testing.assert_allclose(y, expected, atol=1e-12)
    default = plot_item_curves(r, n=4)
    assert 4 <= len(default.get_lines()) <= 5


def test_dataset_parameter_figures(result):
    d = result.diagnostics
    ax = plot_dataset_parameters(d)
    heights = [p.get_height() for p in ax.patches]
    np.testing.assert_allclose(heights, d["difficulty_mean"].sort_values(ascending=False).to_numpy())
    ax = plot_parameter_bins(d, n_bins=6)  # 2 datasets: 2 bins of one
    heights = [p.get_height() for p in ax.patches]
    np.testing.assert_allclose(heights, d["difficulty_mean"].sort_values(ascending=False).to_numpy())


def test_bins_by_hand():
    d = pd.DataFrame({"difficulty_mean": [1.0, 2.0, 3.0, 4.0, 5.0], "discrimination_mean": [5.0, 4, 3, 2, 1]},
                     index=list("abcde"))
    ax = plot_parameter_bins(d, n_bins=2)
    # hardest first: (5, 4, 3) and (2, 1)
    np.testing.assert_allclose([p.get_height() for p in ax.patches], [4.0, 1.5])


def test_true_score_figure(result):
    r = result.datasets["wine_local"]
    axes = plot_true_scores(r)
    assert len(axes) == 2
    widths = [p.get_width() for p in axes[0].patches]
    np.testing.assert_allclose(widths, np.sort(r.respondents["true_score"].to_numpy()))


def test_bump_and_ratings_figures(result):
    t = result.tournaments["difficulty"]
    ax = plot_bump(t)
    lines = ax.get_lines()
    assert len(lines) == 19
    ratings = t.history.pivot(index="period", columns="player", values="rating")
    # rank = 1 + the number of players rated higher beyond rounding noise (1e-9 relative): equal records tie
    tol = 1e-9 * ratings.abs().to_numpy().max()
    ranks = ratings.apply(lambda row: pd.Series([1 + int((row > v + tol).sum()) for v in row], index=row.index), axis=1)
    seen = sorted(tuple(line.get_ydata()) for line in lines)
    expected = sorted(tuple(ranks[p].to_numpy()) for p in ranks.columns)
    assert seen == expected
    ax = plot_ratings(t)
    offsets = ax.collections[-1].get_offsets()
    np.testing.assert_allclose(np.sort(offsets[:, 0]), np.sort(t.ratings["rating"].to_numpy()))


def test_plot_bad_input():
    with pytest.raises(ValidationError):
        plot_bump(object())
    with pytest.raises(ValidationError):
        plot_item_curves(pd.DataFrame({"x": [1]}))


# --------------------------------------------------------------------------------------------------
# bad input (checked before any work starts)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"datasets": ["iris", "IRIS"]}, "repeat a name"),
        ({"datasets": ["nope"]}, "neither an embedded dataset"),
        ({"datasets": []}, "empty"),
        ({"datasets": ["iris"], "orders": ["hardest"]}, "order="),
        ({"datasets": ["iris"], "jobs": 0}, "jobs"),
        ({"datasets": ["iris"], "score": "elo"}, "score="),
        ({"datasets": ["iris"], "settings": "quick"}, "settings must be an irtbridge Settings"),
    ],
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValidationError, match=match):
        run_benchmark(progress=False, **kwargs)


@pytest.mark.parametrize(
    "options,old,match",
    [
        ({"engine": "stan"}, {"engine": "stan"}, "engine="),
        ({"pool": "huge"}, {"pool": "huge"}, "pool="),
        ({"ability_method": "WLE"}, {"ability_method": "WLE"}, "ability_method="),
        ({"max_items": 1}, {"max_test": 1}, "max_items"),
    ],
)
def test_bad_settings(options, old, match):
    # the options are checked once, when Settings is made (before run_benchmark loads anything);
    # irtbridge 0.1's keywords of run_benchmark build the same Settings, after a DeprecationWarning
    with pytest.raises(ValidationError, match=match):
        Settings(**options)
    with pytest.warns(DeprecationWarning, match="run_benchmark"), pytest.raises(ValidationError, match=match):
        run_benchmark(["iris"], progress=False, **old)


def test_old_keywords_build_the_same_settings():
    from irtbridge.pipeline.benchmark import _old_keywords

    with pytest.warns(DeprecationWarning, match=r"run_benchmark\(max_test=\) moved to Settings.max_items"):
        fields = _old_keywords({"max_test": 40, "random_state": 2, "tau": 0.3, "calibration": "paper"})
    assert Settings(**fields) == Settings(max_items=40, seed=2, tau=0.3, calibration="paper")
