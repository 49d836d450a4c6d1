"""Tests of irtbridge.rankstats: Friedman, Nemenyi, critical difference, CD diagram (Demšar 2006).

References: scipy.stats.friedmanchisquare (peer), R's friedman.test / qtukey / ptukey run live,
Demšar's (2006) Table 5 of q_alpha values and his CD example, closed forms (k = 2, perfect agreement),
hand-built rank tables for the groups.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from irtbridge.exceptions import ValidationError
from irtbridge.rankstats import FriedmanResult, NemenyiResult, critical_difference, friedman, nemenyi, plot_cd_diagram
from tests._rrefs import run_r

# Demšar (2006), Table 5: critical values q_alpha for the two-tailed Nemenyi test, k = 2..10
DEMSAR_Q05 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
DEMSAR_Q10 = [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920]

# args: scores.csv out.json alpha; Friedman test, q_alpha and the pairwise Nemenyi p-values in R
R_RANKSTATS = r"""
args <- commandArgs(trailingOnly = TRUE)
x <- as.matrix(read.csv(args[1], check.names = FALSE))
alpha <- as.numeric(args[3])
ft <- friedman.test(x)
n <- nrow(x); k <- ncol(x)
avg <- colMeans(t(apply(-x, 1, rank)))
se <- sqrt(k * (k + 1) / (6 * n))
q <- sqrt(2) * abs(outer(avg, avg, "-")) / se
p <- ptukey(q, k, Inf, lower.tail = FALSE)
diag(p) <- 1
out <- list(statistic = unname(ft$statistic), p_value = ft$p.value, df = unname(ft$parameter),
            q_alpha = qtukey(1 - alpha, k, Inf) / sqrt(2), avg = unname(avg), p = as.vector(p))
writeLines(sprintf("{%s}", paste(sprintf('"%s": [%s]', names(out),
  sapply(out, function(v) paste(sprintf("%.17g", v), collapse = ","))), collapse = ",")), args[2])
"""


def random_scores(seed: int, n: int = 12, k: int = 5, ties: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(n, k)) + np.linspace(0, 1, k)
    if ties:
        values = np.round(values)  # coarse scores: many ties within datasets
    return pd.DataFrame(values, index=[f"ds{i}" for i in range(n)], columns=[f"alg{j}" for j in range(k)])


# --------------------------------------------------------------------------------------------------
# Friedman


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_friedman_matches_scipy(seed, ties):
    scores = random_scores(seed, ties=ties)
    res = friedman(scores)
    ref = stats.friedmanchisquare(*scores.to_numpy().T)
    # same formula in another arrangement: agreement to rounding
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12, abs=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-10, abs=1e-15)
    assert res.df == 4 and res.n_datasets == 12 and res.n_algorithms == 5


def test_iman_davenport_closed_form():
    scores = random_scores(3)
    res = friedman(scores)
    chi2 = stats.friedmanchisquare(*scores.to_numpy().T).statistic
    n, k = scores.shape
    # Demšar (2006), eq. for F_F on (k - 1, (k - 1)(N - 1)) degrees of freedom
    f = (n - 1) * chi2 / (n * (k - 1) - chi2)
    assert res.iman_davenport == pytest.approx(f, rel=1e-12)
    assert res.iman_davenport_pvalue == pytest.approx(stats.f.sf(f, k - 1, (k - 1) * (n - 1)), rel=1e-10)


def test_friedman_perfect_agreement_closed_form():
    # every dataset ranks the algorithms 1..k: R_j = j, so chi2_F = 12N/(k(k+1)) [k(k+1)(2k+1)/6 -
    # k(k+1)^2/4] = N (k - 1), and F_F divides by zero: infinite, p = 0
    n, k = 7, 4
    scores = pd.DataFrame(np.tile(np.arange(k, 0, -1.0), (n, 1)), columns=list("abcd"))
    res = friedman(scores)
    assert res.statistic == pytest.approx(n * (k - 1), rel=1e-12)
    assert res.average_ranks.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert math.isinf(res.iman_davenport) and res.iman_davenport_pvalue == 0.0


def test_friedman_lower_is_better_reverses_ranks():
    scores = random_scores(4)
    up = friedman(scores)
    down = friedman(-scores, higher_is_better=False)
    assert np.allclose(up.average_ranks, down.average_ranks, rtol=0, atol=1e-12)
    reverse = friedman(scores, higher_is_better=False)
    # ranks r and k + 1 - r
    assert np.allclose(up.average_ranks + reverse.average_ranks, scores.shape[1] + 1, rtol=0, atol=1e-12)
    assert isinstance(up, FriedmanResult) and list(up.ranks.columns) == list(scores.columns)


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 9), st.integers(2, 8), st.integers(0, 10_000))
def test_friedman_rank_identities(n, k, seed):
    scores = pd.DataFrame(np.random.default_rng(seed).integers(0, 4, size=(n, k)).astype(float))
    res = friedman(scores)
    # each dataset hands out ranks 1..k: the average ranks sum to k(k+1)/2
    assert res.average_ranks.sum() == pytest.approx(k * (k + 1) / 2, rel=1e-12)
    assert res.statistic >= -1e-12 and 0.0 <= res.pvalue <= 1.0
    ref = stats.friedmanchisquare(*scores.to_numpy().T) if k >= 3 else None
    if ref is not None and np.isfinite(ref.statistic):
        assert res.statistic == pytest.approx(ref.statistic, rel=1e-9, abs=1e-9)


# --------------------------------------------------------------------------------------------------
# Nemenyi and the critical difference


@pytest.mark.parametrize("k", range(2, 11))
def test_q_alpha_matches_demsar_table_5(k):
    # CD / sqrt(k(k+1)/(6N)) is q_alpha. Demšar divided 3-decimal studentized-range table values by
    # sqrt(2) and printed 3 decimals again (2.343 for 3.314 / sqrt(2) = 2.3434, exact 2.3437), so
    # the printed value can be off by 0.0005 / sqrt(2) + 0.0005 < 0.00086
    for alpha, table in ((0.05, DEMSAR_Q05), (0.10, DEMSAR_Q10)):
        n = 10
        q = critical_difference(k, n, alpha) / math.sqrt(k * (k + 1) / (6 * n))
        assert abs(q - table[k - 2]) < 0.00086


def test_critical_difference_demsars_example():
    # Demšar (2006), section 3.2.2: four classifiers on 14 datasets, CD = 2.569 * sqrt(4*5/(6*14)) = 1.25
    assert abs(critical_difference(4, 14) - 2.569 * math.sqrt(20 / 84)) < 0.0005 * math.sqrt(20 / 84)
    assert round(critical_difference(4, 14), 2) == 1.25


def test_nemenyi_two_algorithms_closed_form():
    # with k = 2 the studentized range of two normals is |Z1 - Z2| ~ |N(0, 2)|:
    # p = 2 (1 - Phi(|R1 - R2| / sqrt(k(k+1)/(6N))))
    scores = random_scores(6, n=15, k=2)
    res = nemenyi(scores)
    diff = abs(res.average_ranks.iloc[0] - res.average_ranks.iloc[1])
    p = 2 * stats.norm.sf(diff / math.sqrt(2 * 3 / (6 * 15)))
    assert res.pvalues.iloc[0, 1] == pytest.approx(p, rel=1e-6)
    assert res.q_alpha == pytest.approx(stats.norm.ppf(0.975), rel=1e-6)


def test_nemenyi_groups_hand_built_staircase():
    # 14 datasets where a > b > c > d every time: average ranks 1, 2, 3, 4; CD(4, 14) = 1.2536, so
    # neighbours (1 apart) are within CD and everything 2 or more apart differs
    scores = pd.DataFrame(np.tile([4.0, 3.0, 2.0, 1.0], (14, 1)), columns=list("abcd"))
    res = nemenyi(scores)
    assert res.groups == (("a", "b"), ("b", "c"), ("c", "d"))
    sig = res.significant
    assert not sig.loc["a", "b"] and sig.loc["a", "c"] and sig.loc["a", "d"] and sig.loc["b", "d"]
    assert (sig.to_numpy() == sig.to_numpy().T).all()


def test_nemenyi_groups_hand_built_two_blocks():
    # a/b swap ranks 1-2 and c/d swap 3-4 on alternate datasets: ranks 1.5, 1.5, 3.5, 3.5; the two
    # blocks are 2 apart (> CD 1.2536) and each block is one group
    rows = [[4.0, 3.0, 2.0, 1.0], [3.0, 4.0, 1.0, 2.0]] * 7
    res = nemenyi(pd.DataFrame(rows, columns=list("abcd")))
    assert res.average_ranks.tolist() == [1.5, 1.5, 3.5, 3.5]
    assert res.groups == (("a", "b"), ("c", "d"))
    assert res.significant.loc["a", "c"] and not res.significant.loc["c", "d"]


def test_nemenyi_significance_agrees_with_pvalues():
    res = nemenyi(random_scores(7, n=30, k=6), alpha=0.05)
    off = ~np.eye(6, dtype=bool)
    # |R_i - R_j| > CD  <=>  p < alpha (same studentized-range quantile)
    assert ((res.pvalues.to_numpy() < 0.05) == res.significant.to_numpy())[off].all()
    assert isinstance(res, NemenyiResult)


@pytest.mark.r
@pytest.mark.parametrize("seed, ties, alpha", [(21, False, 0.05), (22, True, 0.05), (23, True, 0.10)])
def test_friedman_and_nemenyi_against_r(tmp_path, seed, ties, alpha):
    scores = random_scores(seed, n=10, k=6, ties=ties)
    script = tmp_path / "rankstats.R"
    script.write_text(R_RANKSTATS)
    scores.to_csv(tmp_path / "scores.csv", index=False)
    run_r(["Rscript", str(script), str(tmp_path / "scores.csv"), str(tmp_path / "out.json"), repr(alpha)],
                   check=True, capture_output=True, text=True)
    ref = json.loads((tmp_path / "out.json").read_text())
    f = friedman(scores)
    nm = nemenyi(scores, alpha=alpha)
    # friedman.test: same statistic (with R's tie correction) to rounding
    assert f.statistic == pytest.approx(ref["statistic"][0], rel=1e-12)
    assert f.pvalue == pytest.approx(ref["p_value"][0], rel=1e-10)
    assert f.df == ref["df"][0]
    assert np.allclose(f.average_ranks, ref["avg"], rtol=0, atol=1e-12)
    # qtukey/ptukey use their own numerical integration (R documents ~1e-6 relative accuracy for
    # qtukey's iteration): 1e-6 relative on q_alpha and 1e-6 absolute on the p-values
    assert nm.q_alpha == pytest.approx(ref["q_alpha"][0], rel=1e-6)
    p = np.asarray(ref["p"]).reshape(6, 6, order="F")
    assert np.allclose(nm.pvalues.to_numpy(), p, rtol=0, atol=1e-6)


# --------------------------------------------------------------------------------------------------
# CD diagram


def test_cd_diagram_draws_every_algorithm_and_group():
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.axes import Axes

    scores = pd.DataFrame(np.tile([4.0, 3.0, 2.0, 1.0, 0.0], (14, 1)), columns=["rf", "svm", "knn", "nb", "dt"])
    res = nemenyi(scores)
    ax = plot_cd_diagram(res, title="CD")
    assert isinstance(ax, Axes)
    texts = [t.get_text() for t in ax.texts]
    for name, rank in res.average_ranks.items():
        assert f"{name} ({rank:.2f})" in texts
    assert f"CD = {res.critical_difference:.2f}" in texts
    thick = [line for line in ax.lines if line.get_linewidth() == 3]
    # CD(5, 14) = 2.728 * sqrt(30 / 84) = 1.63: each neighbour pair (1 apart) is a group, no triple
    assert len(thick) == len(res.groups) == 4
    import matplotlib.pyplot as plt

    fig2, ax2 = plt.subplots()
    assert res.plot(ax=ax2) is ax2
    plt.close("all")


# --------------------------------------------------------------------------------------------------
# bad input: one test per class


def test_bad_input_missing_values():
    scores = random_scores(0)
    scores.iloc[2, 1] = np.nan
    with pytest.raises(ValidationError, match=r"1 missing or infinite value\(s\) \(datasets \['ds2'\]\)"):
        friedman(scores)


def test_bad_input_too_few_algorithms_or_datasets():
    with pytest.raises(ValidationError, match="at least two algorithms"):
        friedman(pd.DataFrame({"a": [1.0, 2.0]}))
    with pytest.raises(ValidationError, match="at least two datasets"):
        nemenyi(pd.DataFrame({"a": [1.0], "b": [2.0]}))
    with pytest.raises(ValidationError, match="n_algorithms must be >= 2"):
        critical_difference(1, 10)


def test_bad_input_not_numeric_or_not_a_table():
    with pytest.raises(ValidationError, match="must hold numbers"):
        friedman(pd.DataFrame({"a": ["x", "y"], "b": [1.0, 2.0]}))
    with pytest.raises(ValidationError, match="two-dimensional"):
        friedman([1.0, 2.0, 3.0])


def test_bad_input_duplicate_algorithms():
    with pytest.raises(ValidationError, match="duplicate algorithm columns"):
        nemenyi(pd.DataFrame([[1.0, 2.0], [2.0, 1.0]], columns=["a", "a"]))


def test_bad_input_alpha():
    with pytest.raises(ValidationError, match="alpha must be < 1"):
        nemenyi(random_scores(0), alpha=1.0)
    with pytest.raises(ValidationError, match="alpha must be > 0"):
        critical_difference(3, 10, alpha=0)


def test_bad_input_plot_needs_a_nemenyi_result():
    with pytest.raises(ValidationError, match="NemenyiResult"):
        plot_cd_diagram(friedman(random_scores(0)))
