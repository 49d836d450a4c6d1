"""Rank statistics for comparing algorithms over many datasets (Demšar 2006).

The Friedman test asks whether the algorithms' average ranks over the datasets differ more than
chance would allow; the Nemenyi post-hoc test compares every pair, two algorithms differing when
their average ranks are more than the critical difference (CD) apart; the CD diagram draws both.
These are the classical companions of a Glicko-2 rating: rank statistics weigh every dataset
equally, the rating follows the order in which the datasets are played.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from irtbridge._constraints import Flag, Int, Number, constraints
from irtbridge._plotting import single_axes
from irtbridge._summary import HasSummary, Line, Summary
from irtbridge._ties import stable_argsort, tie_rank
from irtbridge._validation import check_int, check_number
from irtbridge.exceptions import ValidationError

__all__ = [
    "FriedmanResult",
    "NemenyiResult",
    "friedman",
    "nemenyi",
    "critical_difference",
    "plot_cd_diagram",
]


def _as_score_table(scores: Any, name: str = "scores") -> pd.DataFrame:
    if isinstance(scores, pd.DataFrame):
        frame = scores
    else:
        arr = np.asarray(scores)
        if arr.ndim != 2:
            raise ValidationError(f"{name} must be two-dimensional (datasets x algorithms), got shape {arr.shape}")
        frame = pd.DataFrame(arr)
    n, k = frame.shape
    if k < 2:
        raise ValidationError(f"{name} needs at least two algorithms (columns), got {k}")
    if n < 2:
        raise ValidationError(f"{name} needs at least two datasets (rows), got {n}")
    if frame.columns.has_duplicates:
        dup = frame.columns[frame.columns.duplicated()].unique().tolist()
        raise ValidationError(f"{name} has duplicate algorithm columns {dup[:5]}")
    try:
        values = frame.to_numpy(dtype=float, na_value=np.nan)
    except (TypeError, ValueError):
        raise ValidationError(f"{name} must hold numbers (one score per dataset and algorithm)") from None
    bad = ~np.isfinite(values)
    if bad.any():
        rows = frame.index[np.flatnonzero(bad.any(axis=1))].tolist()
        raise ValidationError(
            f"{name} has {int(bad.sum())} missing or infinite value(s) (datasets {rows[:5]}); the Friedman test "
            "needs every algorithm scored on every dataset, so drop or impute those datasets"
        )
    return pd.DataFrame(values, index=frame.index, columns=frame.columns)


def _ranks(frame: pd.DataFrame, higher_is_better: bool) -> pd.DataFrame:
    # rank 1 = best; ties (within the tie tolerance of irtbridge._ties, per dataset) share the average
    # of the ranks they span
    ranked = tie_rank(frame.to_numpy(), descending=higher_is_better)
    return pd.DataFrame(ranked, index=frame.index, columns=frame.columns)


@dataclass(frozen=True)
class FriedmanResult(HasSummary):
    """Friedman test over datasets.

    Attributes
    ----------
    statistic, pvalue : float
        Friedman's chi-square (with the tie correction of R's ``friedman.test``) and its p-value on
        ``df`` = k - 1 degrees of freedom.
    iman_davenport, iman_davenport_pvalue : float
        Iman and Davenport's F statistic and its p-value on (k - 1, (k - 1)(N - 1)) degrees of freedom,
        the less conservative form Demšar recommends.
    df : int
    average_ranks : pandas.Series
        Average rank of each algorithm (1 = best), in column order.
    ranks : pandas.DataFrame
        Rank of each algorithm on each dataset.
    n_datasets, n_algorithms : int
    """

    statistic: float
    pvalue: float
    df: int
    iman_davenport: float
    iman_davenport_pvalue: float
    average_ranks: pd.Series
    ranks: pd.DataFrame = field(repr=False)
    n_datasets: int
    n_algorithms: int

    def summary(self) -> Summary:
        """The test and the average ranks, from the stored numbers.

        Returns
        -------
        Summary
            The test's summary.
        """
        lines = (Line.of("friedman", f"Friedman chi-square {self.statistic:.3f} (df {self.df}), p {self.pvalue:.4g}"),
                 Line.of("iman_davenport", f"Iman-Davenport F {self.iman_davenport:.3f}, p {self.iman_davenport_pvalue:.4g}"),
                 Line.of("size", f"{self.n_algorithms} algorithms on {self.n_datasets} datasets (rank 1 = best)"))
        return Summary("Friedman test", lines, (("average ranks", self.average_ranks.to_frame("rank")),),
                       data={"statistic": self.statistic, "pvalue": self.pvalue, "df": self.df,
                             "average_ranks": self.average_ranks.to_dict()})


@constraints(higher_is_better=Flag())
def friedman(scores: Any, *, higher_is_better: bool = True) -> FriedmanResult:
    """Friedman test of equal average ranks of k algorithms over N datasets.

    Parameters
    ----------
    scores : pandas.DataFrame or 2-D array_like
        Datasets x algorithms (e.g. accuracy, True-Score); no missing values.
    higher_is_better : bool, default True
        Whether a larger score earns the better (smaller) rank.

    Returns
    -------
    FriedmanResult

    Notes
    -----
    With R_j the average rank of algorithm j and t the sizes of tied groups within a dataset,

    .. math:: \\chi^2_F = \\frac{12 \\sum_j (N R_j - N(k+1)/2)^2}{N k (k+1) - \\sum (t^3 - t) / (k - 1)}

    which is Demšar's (2006) :math:`\\frac{12N}{k(k+1)}[\\sum_j R_j^2 - k(k+1)^2/4]` when there are no
    ties, and :math:`F_F = (N-1)\\chi^2_F / (N(k-1) - \\chi^2_F)`. R equivalent:
    ``friedman.test(as.matrix(scores))`` (same statistic and p-value).

    Two scores of one dataset within ``1e-9 * max(1, largest |score| of the dataset)`` tie
    (``irtbridge._ties``): scores equal in exact arithmetic but not in their last bits (an accuracy
    summed in another order) share their rank instead of being ordered by rounding noise.

    Examples
    --------
    >>> import pandas as pd
    >>> acc = pd.DataFrame({"rf": [.9, .8, .85], "nb": [.7, .75, .8], "dt": [.8, .7, .9]})
    >>> round(friedman(acc).statistic, 4)  # rank sums 4, 8, 6: 12/(3*3*4) * 116 - 3*3*4
    2.6667
    """
    frame = _as_score_table(scores)
    ranks = _ranks(frame, higher_is_better)
    n, k = ranks.shape
    r = ranks.to_numpy()
    rank_sums = r.sum(axis=0)
    # tie sizes per dataset: count repeated ranks within each row
    tie_term = 0.0
    for row in r:
        _, counts = np.unique(row, return_counts=True)
        tie_term += float(np.sum(counts**3 - counts))
    denom = n * k * (k + 1) - tie_term / (k - 1)
    if denom <= 0:
        # every dataset ties every algorithm: no evidence of any difference
        chi2 = 0.0
    else:
        chi2 = 12.0 * float(np.sum((rank_sums - n * (k + 1) / 2.0) ** 2)) / denom
    df = k - 1
    pvalue = float(stats.chi2.sf(chi2, df))
    df2 = (k - 1) * (n - 1)
    spread = n * (k - 1) - chi2
    if spread <= 0:
        f_stat, f_p = float("inf"), 0.0
    else:
        f_stat = (n - 1) * chi2 / spread
        f_p = float(stats.f.sf(f_stat, df, df2))
    return FriedmanResult(
        statistic=chi2,
        pvalue=pvalue,
        df=df,
        iman_davenport=float(f_stat),
        iman_davenport_pvalue=f_p,
        average_ranks=pd.Series(r.mean(axis=0), index=frame.columns, name="average_rank"),
        ranks=ranks,
        n_datasets=n,
        n_algorithms=k,
    )


def _q_alpha(k: int, alpha: float) -> float:
    # Demšar's q_alpha: the studentized range quantile for k groups and infinite df, over sqrt(2)
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0))


@constraints(n_algorithms=Int(low=2), n_datasets=Int(low=1), alpha=Number(low=0.0, high=1.0, low_open=True, high_open=True))
def critical_difference(n_algorithms: int, n_datasets: int, alpha: float = 0.05) -> float:
    """Nemenyi critical difference of average ranks.

    Parameters
    ----------
    n_algorithms, n_datasets : int
        k >= 2 algorithms compared on N >= 1 datasets.
    alpha : float, default 0.05
        Family-wise significance level.

    Returns
    -------
    float
        CD; two algorithms differ when their average ranks are more than CD apart.

    Notes
    -----
    :math:`CD = q_\\alpha \\sqrt{k(k+1)/(6N)}` with :math:`q_\\alpha` the studentized range quantile
    for k groups and infinite degrees of freedom divided by sqrt(2) (Demšar 2006, Table 5; R:
    ``qtukey(1 - alpha, k, Inf) / sqrt(2)``).

    Examples
    --------
    >>> round(critical_difference(4, 14), 3)  # Demšar 2006: q_0.05 = 2.569, CD = 1.25
    1.254
    """
    k = check_int(n_algorithms, "n_algorithms", low=2)
    n = check_int(n_datasets, "n_datasets", low=1)
    alpha = check_number(alpha, "alpha", low=0.0, high=1.0, low_open=True, high_open=True)
    return _q_alpha(k, alpha) * float(np.sqrt(k * (k + 1) / (6.0 * n)))


def _ordered(average_ranks: pd.Series) -> pd.Series:
    """Average ranks, best first; equal ranks (within the tie tolerance) in column order."""
    return average_ranks.iloc[stable_argsort(average_ranks.to_numpy(dtype=float))]


def _cliques(average_ranks: pd.Series, cd: float) -> tuple[tuple[Any, ...], ...]:
    ordered = _ordered(average_ranks)
    r = ordered.to_numpy()
    names = list(ordered.index)
    groups: list[tuple[Any, ...]] = []
    last_end = -1
    for i in range(len(r)):
        # farthest algorithm still within CD of algorithm i (ranks are sorted)
        end = int(np.searchsorted(r, r[i] + cd, side="right")) - 1
        if end > i and end > last_end:
            groups.append(tuple(names[i : end + 1]))
            last_end = end
    return tuple(groups)


@dataclass(frozen=True)
class NemenyiResult(HasSummary):
    """Nemenyi post-hoc comparison of all pairs of algorithms.

    Attributes
    ----------
    average_ranks : pandas.Series
        Average rank per algorithm (1 = best), in column order.
    critical_difference, q_alpha, alpha : float
        CD at ``alpha`` and Demšar's q_alpha.
    n_datasets : int
    pvalues : pandas.DataFrame
        Pairwise adjusted p-values (k x k, 1 on the diagonal).
    significant : pandas.DataFrame
        Whether each pair's average ranks differ by more than the CD.
    groups : tuple of tuple
        Maximal runs of algorithms (sorted by average rank) whose ranks lie within one CD: the thick
        bars of the CD diagram. Algorithms that differ from every other one appear in no group.
    """

    average_ranks: pd.Series
    critical_difference: float
    q_alpha: float
    alpha: float
    n_datasets: int
    pvalues: pd.DataFrame = field(repr=False)
    significant: pd.DataFrame = field(repr=False)
    groups: tuple

    def summary(self) -> Summary:
        """The critical difference, the groups within it and the pairwise p-values, from the stored numbers.

        Returns
        -------
        Summary
            The comparison's summary.
        """
        groups = "; ".join(", ".join(map(str, g)) for g in self.groups) or "none"
        lines = (Line.of("cd", f"critical difference {self.critical_difference:.3f} at alpha {self.alpha:g} "
                               f"({self.n_datasets} datasets)"),
                 Line.of("groups", f"within one CD: {groups}"))
        return Summary("Nemenyi post-hoc comparison", lines,
                       (("average ranks", self.average_ranks.to_frame("rank")), ("adjusted p-values", self.pvalues)),
                       data={"critical_difference": self.critical_difference, "alpha": self.alpha,
                             "average_ranks": self.average_ranks.to_dict(), "groups": [list(g) for g in self.groups]})

    def plot(self, **kwargs: Any):
        """Critical-difference diagram; see :func:`plot_cd_diagram`.

        Parameters
        ----------
        **kwargs
            Passed to :func:`plot_cd_diagram` (``ax``, ``title``, ``width``).

        Returns
        -------
        matplotlib.axes.Axes
            The Axes drawn on.
        """
        return plot_cd_diagram(self, **kwargs)


@constraints(alpha=Number(low=0.0, high=1.0, low_open=True, high_open=True), higher_is_better=Flag())
def nemenyi(scores: Any, *, alpha: float = 0.05, higher_is_better: bool = True) -> NemenyiResult:
    """Nemenyi post-hoc test after a Friedman test.

    Parameters
    ----------
    scores : pandas.DataFrame or 2-D array_like
        Datasets x algorithms, no missing values.
    alpha : float, default 0.05
        Family-wise significance level for the CD.
    higher_is_better : bool, default True
        Whether a larger score earns the better (smaller) rank.

    Returns
    -------
    NemenyiResult

    Notes
    -----
    For algorithms i and j with average ranks R_i, R_j over N datasets,
    :math:`q = \\sqrt{2} |R_i - R_j| / \\sqrt{k(k+1)/(6N)}` and the p-value is the upper tail of the
    studentized range distribution with k groups and infinite df (R: ``ptukey(q, k, Inf,
    lower.tail = FALSE)``, as in PMCMRplus' ``frdAllPairsNemenyiTest``). The pair differs at level
    alpha exactly when :math:`|R_i - R_j| > CD`. Ranks within a dataset treat scores within
    ``1e-9 * max(1, largest |score| of the dataset)`` as tied (see :func:`friedman`), and ``groups``
    orders equal average ranks by column.

    Examples
    --------
    >>> import pandas as pd
    >>> acc = pd.DataFrame({"rf": [.9, .8, .85, .9], "nb": [.7, .75, .8, .6], "dt": [.8, .7, .9, .7]})
    >>> res = nemenyi(acc)
    >>> res.average_ranks.round(2).to_dict()
    {'rf': 1.25, 'nb': 2.75, 'dt': 2.0}
    """
    alpha = check_number(alpha, "alpha", low=0.0, high=1.0, low_open=True, high_open=True)
    frame = _as_score_table(scores)
    ranks = _ranks(frame, higher_is_better)
    n, k = ranks.shape
    avg = pd.Series(ranks.to_numpy().mean(axis=0), index=frame.columns, name="average_rank")
    se = np.sqrt(k * (k + 1) / (6.0 * n))
    diff = np.abs(avg.to_numpy()[:, None] - avg.to_numpy()[None, :])
    q = np.sqrt(2.0) * diff / se
    p = stats.studentized_range.sf(q, k, np.inf)
    np.fill_diagonal(p, 1.0)
    p = np.clip(p, 0.0, 1.0)
    q_a = _q_alpha(k, alpha)
    cd = q_a * se
    return NemenyiResult(
        average_ranks=avg,
        critical_difference=float(cd),
        q_alpha=q_a,
        alpha=alpha,
        n_datasets=n,
        pvalues=pd.DataFrame(p, index=frame.columns, columns=frame.columns),
        significant=pd.DataFrame(diff > cd, index=frame.columns, columns=frame.columns),
        groups=_cliques(avg, cd),
    )


@constraints(width=Number(low=0.0, low_open=True))
def plot_cd_diagram(result: NemenyiResult, *, ax: Any = None, title: str | None = None, width: float = 7.0):
    """Demšar's critical-difference diagram.

    Parameters
    ----------
    result : NemenyiResult
        From :func:`nemenyi`.
    ax : matplotlib Axes, optional
        Draw into this Axes; a new figure otherwise.
    title : str, optional
    width : float, default 7.0
        Figure width in inches when a new figure is made.

    Returns
    -------
    matplotlib.axes.Axes

    Notes
    -----
    The axis shows average ranks from 1 (best, left) to k; each algorithm hangs from its average rank
    to a label on the nearer side; thick bars join the groups whose ranks lie within one CD
    (``result.groups``); the bar above the axis has the length of the CD.

    Examples
    --------
    >>> import pandas as pd
    >>> acc = pd.DataFrame({"rf": [.9, .8, .85, .9], "nb": [.7, .75, .8, .6], "dt": [.8, .7, .9, .7]})
    >>> ax = plot_cd_diagram(nemenyi(acc))
    >>> [t.get_text() for t in ax.texts if "(" in t.get_text()]    # average ranks, best first
    ['rf (1.25)', 'dt (2.00)', 'nb (2.75)']
    """
    if not isinstance(result, NemenyiResult):
        raise ValidationError(f"result must be a NemenyiResult from nemenyi(), got {type(result).__name__}")
    ordered = _ordered(result.average_ranks)
    k = len(ordered)
    n_left = (k + 1) // 2
    step = 0.35
    height = 1.2 + step * (max(n_left, k - n_left) + 1) + 0.15 * len(result.groups)
    ax = single_axes(ax, (width, height))
    lo, hi = 1.0, float(k)
    margin = 0.25 * (hi - lo) + 0.5
    ax.set_xlim(lo - margin, hi + margin)
    bottom = -(step * (max(n_left, k - n_left) + 1) + 0.2 + 0.15 * len(result.groups))
    ax.set_ylim(bottom, 1.1)
    ax.axis("off")

    # rank axis with integer ticks
    ax.plot([lo, hi], [0, 0], color="black", lw=1)
    for tick in range(1, k + 1):
        ax.plot([tick, tick], [0, 0.08], color="black", lw=1)
        ax.text(tick, 0.12, str(tick), ha="center", va="bottom", fontsize=9)
    # CD bar
    cd = result.critical_difference
    ax.plot([lo, lo + cd], [0.65, 0.65], color="black", lw=1.5)
    for x in (lo, lo + cd):
        ax.plot([x, x], [0.6, 0.7], color="black", lw=1)
    ax.text(lo + cd / 2, 0.72, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=9)

    # cliques of not-significantly-different algorithms, just under the axis
    for g, group in enumerate(result.groups):
        y = -0.12 - 0.15 * g
        ax.plot([ordered[group[0]] - 0.03, ordered[group[-1]] + 0.03], [y, y], color="black", lw=3, solid_capstyle="round")
    label_top = -0.2 - 0.15 * len(result.groups)
    for pos, (name, rank) in enumerate(ordered.items()):
        if pos < n_left:
            y = label_top - step * (pos + 1)
            x_end, align = lo - margin * 0.6, "right"
        else:
            y = label_top - step * (k - pos)
            x_end, align = hi + margin * 0.6, "left"
        ax.plot([rank, rank, x_end], [0, y, y], color="black", lw=0.8)
        ax.text(x_end + (-0.05 if align == "right" else 0.05), y, f"{name} ({rank:.2f})", ha=align, va="center", fontsize=9)
    if title:
        ax.set_title(title)
    return ax
