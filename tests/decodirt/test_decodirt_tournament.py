"""Tests of the benchmark tournaments: dataset orders and subsets, the match table, Glicko-2 over the
datasets, Friedman/Nemenyi beside it, and the validity check.

References: hand-computed orders (the paper's six, Cardoso et al. (decodIRT) section 5.2) and match tables; R's
PlayerRatings::glicko2 run live on the written match table (Glickman's settings; 1e-3 rating points,
the documented difference of its optimize() volatility search); scipy.stats.friedmanchisquare (peer,
1e-10); hand-built rankings for the validity logic.
"""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from irtbridge.decodirt import ORDERS, PAPER_ORDERS, order_datasets, tournament, validity_check
from irtbridge.exceptions import ValidationError
from tests._rrefs import run_r


@pytest.fixture(scope="module")
def diagnostics() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "status": ["ok", "ok", "ok", "ok", "ok", "failed"],
            "difficulty_mean": [0.5, -1.0, 0.2, -2.0, 1.0, np.nan],
            "discrimination_mean": [3.0, 8.0, -1.0, 2.0, 5.0, np.nan],
            "difficulty_sd": [1.5, 0.4, 2.0, 0.9, 0.4, np.nan],
            "discrimination_sd": [9.0, 1.0, 3.0, 7.0, 2.0, np.nan],
        },
        index=["A", "B", "C", "D", "E", "F"],
    )


@pytest.mark.parametrize(
    "order,expected",
    [
        ("given", ["A", "B", "C", "D", "E"]),  # failed F is never played
        ("difficulty", ["D", "B", "C", "A", "E"]),
        ("discrimination", ["C", "D", "A", "E", "B"]),
        # 5 datasets: ceil(5 / 2) = 3 in each half; ties (B, E at 0.4) keep the input order
        ("difficulty_sd_low", ["B", "E", "D"]),
        ("difficulty_sd_high", ["D", "A", "C"]),
        ("discrimination_sd_low", ["B", "E", "C"]),
        ("discrimination_sd_high", ["C", "D", "A"]),
    ],
)
def test_orders_by_hand(diagnostics, order, expected):
    assert order_datasets(diagnostics, order) == expected


def test_paper_orders_are_the_six():
    assert len(PAPER_ORDERS) == 6 and set(PAPER_ORDERS) < set(ORDERS)


def test_order_fraction(diagnostics):
    assert order_datasets(diagnostics, "difficulty_sd_low", fraction=0.2) == ["B"]
    assert order_datasets(diagnostics, "difficulty_sd_high", fraction=1.0) == ["B", "E", "D", "A", "C"]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(min_value=-5, max_value=5, allow_nan=False), min_size=2, max_size=12))
def test_sd_halves_are_the_extremes(values):
    d = pd.DataFrame({"difficulty_sd": values}, index=[f"d{i}" for i in range(len(values))])
    low = order_datasets(d, "difficulty_sd_low")
    high = order_datasets(d, "difficulty_sd_high")
    k = -(-len(values) // 2)
    assert len(low) == len(high) == k
    s = d["difficulty_sd"]
    # up to the tie tolerance of irtbridge._ties (values within 1e-9 * max(1, |value|) are ties, kept in
    # input order)
    tol = 1e-9 * max(1.0, float(s.abs().max())) * len(values)
    assert (np.diff(s[low]) >= -tol).all() and (np.diff(s[high]) >= -tol).all()
    # everything kept by "low" is <= everything left out of it, and the mirror for "high"
    rest_low = s.drop(low)
    rest_high = s.drop(high)
    assert rest_low.empty or s[low].max() <= rest_low.min() + tol
    assert rest_high.empty or s[high].min() >= rest_high.max() - tol


@pytest.mark.parametrize("bad,match", [("hardness", "order="), ("DIFFICULTY", None)])
def test_order_names(diagnostics, bad, match):
    if match is None:
        assert order_datasets(diagnostics, bad) == order_datasets(diagnostics, "difficulty")
    else:
        with pytest.raises(ValidationError, match=match):
            order_datasets(diagnostics, bad)


# --------------------------------------------------------------------------------------------------
# match table


@pytest.fixture(scope="module")
def small_scores() -> pd.DataFrame:
    return pd.DataFrame(
        {"optimal": [10.0, 8.0, 9.0], "svm": [7.0, 8.0 + 1e-7, 9.5], "pessimal": [1.0, 2.0, np.nan]},
        index=["iris", "wine", "glass"],
    )


def test_match_table_by_hand(small_scores):
    t = tournament(small_scores, ["wine", "iris", "glass"], name="custom")
    got = t.matches[["period", "dataset", "player", "opponent", "score"]].values.tolist()
    expected = [
        # period 1 = wine: optimal 8 vs svm 8 + 1e-7 is a draw within the default tolerance 1e-6
        [1, "wine", "optimal", "svm", 0.5],
        [1, "wine", "optimal", "pessimal", 1.0],
        [1, "wine", "svm", "pessimal", 1.0],
        [2, "iris", "optimal", "svm", 1.0],
        [2, "iris", "optimal", "pessimal", 1.0],
        [2, "iris", "svm", "pessimal", 1.0],
        # glass: pessimal has no score and sits out; svm 9.5 beats optimal 9
        [3, "glass", "optimal", "svm", 0.0],
    ]
    assert got == expected
    assert t.datasets == ("wine", "iris", "glass")
    assert list(t.scores.index) == ["wine", "iris", "glass"]


def test_exact_tolerance_zero(small_scores):
    t = tournament(small_scores, ["wine"], tolerance=0.0)
    # 8 < 8 + 1e-7: with no tolerance svm wins (1e-7 is far above the tie tolerance 8e-9 of irtbridge._ties)
    assert t.matches.loc[0, "score"] == 0.0


def test_history_ranks_by_hand(small_scores):
    t = tournament(small_scores, ["iris", "wine"])
    h = t.history
    assert h["period"].tolist() == [1, 1, 1, 2, 2, 2]
    assert h["dataset"].tolist() == ["iris"] * 3 + ["wine"] * 3
    # after iris (optimal beat both, svm beat pessimal) the order is optimal, svm, pessimal
    first = h[h["period"] == 1].set_index("player")["rank"]
    assert first.to_dict() == {"optimal": 1, "pessimal": 3, "svm": 2}
    # ranks follow the ratings of each period
    for _, grp in h.groupby("period"):
        expected = grp["rating"].rank(ascending=False, method="min").astype(int)
        assert grp["rank"].tolist() == expected.tolist()


R_GLICKO = r"""
args <- commandArgs(trailingOnly = TRUE)
suppressPackageStartupMessages(library(PlayerRatings))
games <- read.csv(args[1], stringsAsFactors = FALSE)
fit <- glicko2(games[, c("period", "player", "opponent", "score")], init = c(1500, 350, 0.06), tau = 0.5, rdmax = Inf)
r <- fit$ratings
write.csv(data.frame(player = as.character(r$Player), rating = sprintf("%.17g", r$Rating),
                     rd = sprintf("%.17g", r$Deviation), volatility = sprintf("%.17g", r$Volatility)),
          args[2], row.names = FALSE)
"""


@pytest.fixture(scope="module")
def random_scores() -> pd.DataFrame:
    rng = np.random.default_rng(8)
    skill = np.linspace(0, 3, 9)
    values = skill[None, :] + rng.normal(scale=1.0, size=(7, 9))
    table = pd.DataFrame(values, index=[f"ds{i}" for i in range(7)],
                         columns=["optimal"] + [f"m{j}" for j in range(7)] + ["pessimal"])
    table["optimal"] += 10
    table["pessimal"] -= 10
    table.iloc[2, 3] = table.iloc[2, 4]  # one exact tie: a draw
    return table


@pytest.mark.r
def test_ratings_match_playerratings(random_scores, tmp_path):
    order = ["ds3", "ds0", "ds6", "ds1", "ds5", "ds2", "ds4"]
    t = tournament(random_scores, order)
    # every respondent plays every period, so PlayerRatings' postponed RD growth never applies
    t.matches.to_csv(tmp_path / "m.csv", index=False)
    (tmp_path / "g.R").write_text(R_GLICKO)
    run_r(["Rscript", str(tmp_path / "g.R"), str(tmp_path / "m.csv"), str(tmp_path / "r.csv")],
                   check=True, capture_output=True)
    ref = pd.read_csv(tmp_path / "r.csv").set_index("player")
    got = t.ratings.set_index("player")
    assert got.index.tolist() == ref.index.tolist()  # same ranking
    # 1e-3 points and 1e-5 in volatility: PlayerRatings finds the volatility with optimize()
    # (tolerance ~1e-4 on ln sigma^2), irtbridge with Glickman's Illinois iteration to 1e-6
    np.testing.assert_allclose(got.loc[ref.index, "rating"], ref["rating"], rtol=0, atol=1e-3)
    np.testing.assert_allclose(got.loc[ref.index, "rd"], ref["rd"], rtol=0, atol=1e-3)
    np.testing.assert_allclose(got.loc[ref.index, "volatility"], ref["volatility"], rtol=0, atol=1e-5)
    assert t.matches["score"].eq(0.5).sum() == 1


def test_rating_table_layout(random_scores):
    t = tournament(random_scores)
    assert list(t.ratings.columns[:5]) == ["rank", "player", "rating", "rd", "volatility"]
    assert t.ratings["rank"].tolist() == list(range(1, 10))
    assert (np.diff(t.ratings["rating"]) <= 0).all()
    np.testing.assert_allclose(t.ratings["upper"] - t.ratings["rating"], 2 * t.ratings["rd"])
    text = t.rating_table()
    assert text.splitlines()[0].split() == ["Rank", "Classifier", "Rating", "RD", "Volatility"]


def test_friedman_beside_glicko(random_scores):
    t = tournament(random_scores)
    ref = stats.friedmanchisquare(*[random_scores[c] for c in random_scores.columns])
    assert t.friedman.statistic == pytest.approx(ref.statistic, rel=1e-10)
    assert t.friedman.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    # average ranks by hand: rank within each dataset, 1 = highest score, ties averaged
    ranks = random_scores.rank(axis=1, ascending=False).mean()
    np.testing.assert_allclose(t.friedman.average_ranks[ranks.index], ranks, atol=1e-12)
    assert t.nemenyi.n_datasets == 7
    assert t.rank_validity.valid and t.validity.valid


def test_friedman_skips_incomplete_datasets(small_scores):
    t = tournament(small_scores)
    # glass lacks pessimal: the rank tests use iris and wine only
    assert t.friedman.n_datasets == 2
    single = tournament(small_scores, ["iris"])
    assert single.friedman is None and single.nemenyi is None and single.rank_validity is None


def test_bad_tournaments(small_scores):
    with pytest.raises(ValidationError, match="not rows"):
        tournament(small_scores, ["iris", "mnist"])
    with pytest.raises(ValidationError, match="twice"):
        tournament(small_scores, ["iris", "iris"])
    with pytest.raises(ValidationError, match="no datasets"):
        tournament(small_scores, [])
    with pytest.raises(ValidationError, match="DataFrame"):
        tournament(small_scores.to_numpy())
    with pytest.raises(ValidationError, match="tolerance"):
        tournament(small_scores, tolerance=-1)


# --------------------------------------------------------------------------------------------------
# validity check


@pytest.mark.parametrize(
    "values,higher,expected",
    [
        ({"optimal": 1900, "svm": 1700, "pessimal": 1000}, True, (1, 3, True, True, True)),
        # the paper's Table 9: optimal 6th, pessimal 10th of 12
        ({"SVM": 1716.493, "MLP": 1715.031, "KNeighbors": 1644.446, "RandomForest": 1636.772,
          "DecisionTree": 1553.809, "optimal": 1538.281, "majority": 1473.67, "GaussianNB": 1439.852,
          "rand2": 1336.638, "pessimal": 1333.571, "rand1": 1309.886, "minority": 1152.307},
         True, (6, 10, False, False, False)),
        # ties: optimal tied for first still counts as first, pessimal tied for last as last
        ({"optimal": 5.0, "svm": 5.0, "knn": 3.0, "pessimal": 1.0, "rand": 1.0}, True, (1, 5, True, True, True)),
        # average ranks: lower is better
        ({"optimal": 1.2, "svm": 2.0, "pessimal": 2.5}, False, (1, 3, True, True, True)),
        ({"optimal": 2.2, "svm": 2.0, "pessimal": 2.5}, False, (2, 3, False, True, False)),
    ],
)
def test_validity_on_constructed_rankings(values, higher, expected):
    v = validity_check(pd.Series(values, dtype=float), higher_is_better=higher)
    assert (v.optimal_rank, v.pessimal_rank, v.optimal_first, v.pessimal_last, v.valid) == expected
    assert ("VIOLATED" in v.describe()) == (not expected[4])


def test_validity_without_baselines():
    v = validity_check(pd.Series({"svm": 1.0, "knn": 2.0}))
    assert v.valid is None and v.optimal_rank is None and "not checked" in v.describe()
    one = validity_check(pd.Series({"svm": 1.0, "pessimal": 0.0}))
    assert one.valid is True and one.optimal_first is None
    with pytest.raises(ValidationError, match="Series"):
        validity_check({"optimal": 1.0})


def test_table9_through_a_tournament():
    # a tournament whose anchors end in the middle is reported as violated
    scores = pd.DataFrame({"optimal": [5.0, 1.0, 5.0], "svm": [9.0, 9.0, 9.0], "pessimal": [4.0, 8.0, 6.0]},
                          index=["a", "b", "c"])
    t = tournament(scores)
    assert t.validity.valid is False
    assert t.validity.optimal_rank == 3 and t.validity.pessimal_rank == 2
