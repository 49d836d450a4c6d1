"""Tournaments between respondents across datasets: Glicko-2 beside Friedman/Nemenyi (Cardoso et al., decodIRT, 4.3, 5.2).

Each dataset is a rating period in which all respondents meet round-robin; the one with the higher
score (True-Score by default) wins, scores within ``tolerance`` draw. The order and the subset of the
datasets are parameters: the paper's six are all datasets by increasing mean difficulty or mean
discrimination, and the half with the smallest / largest standard deviation of difficulty or of
discrimination, ordered by increasing standard deviation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from irtbridge._constraints import Choice, Flag, Number, constraints
from irtbridge._summary import Line, Summary
from irtbridge._ties import stable_argsort, tie_greater, tie_rank
from irtbridge._validation import check_choice, check_number
from irtbridge.exceptions import ValidationError

#: respondent columns a tournament can be played on (the per-dataset pipeline's scores of each respondent)
SCORES = ("true_score", "true_score_positive", "theta", "theta_positive", "accuracy")

__all__ = [
    "ORDERS",
    "PAPER_ORDERS",
    "order_datasets",
    "score_table",
    "Validity",
    "validity_check",
    "TournamentResult",
    "tournament",
]

#: order name -> (diagnostic it sorts by, which datasets: "all", "low" or "high" half); "given" keeps
#: the input order
ORDERS: dict[str, tuple[str | None, str]] = {
    "given": (None, "all"),
    "difficulty": ("difficulty_mean", "all"),
    "discrimination": ("discrimination_mean", "all"),
    "difficulty_sd_low": ("difficulty_sd", "low"),
    "difficulty_sd_high": ("difficulty_sd", "high"),
    "discrimination_sd_low": ("discrimination_sd", "low"),
    "discrimination_sd_high": ("discrimination_sd", "high"),
}
#: the six dataset orders/subsets of the paper's Tables 5-9
PAPER_ORDERS = (
    "difficulty", "discrimination", "difficulty_sd_low", "difficulty_sd_high",
    "discrimination_sd_low", "discrimination_sd_high",
)


@constraints(order=Choice(tuple(ORDERS), ignore_case=True), fraction=Number(low=0.0, high=1.0, low_open=True))
def order_datasets(diagnostics: pd.DataFrame, order: str = "difficulty", *, fraction: float = 0.5) -> list[str]:
    """The datasets of a tournament, in the order they are played.

    Parameters
    ----------
    diagnostics : pandas.DataFrame
        From :func:`~irtbridge.decodirt.dataset_diagnostics` (indexed by dataset). Datasets whose
        ``status`` is not ``"ok"`` are left out.
    order : str, default "difficulty"
        One of :data:`ORDERS`.
    fraction : float, default 0.5
        Share of the datasets kept by the ``*_sd_low`` / ``*_sd_high`` subsets.

    Returns
    -------
    list of str

    Notes
    -----
    Sorting is ascending and stable: ties keep the input order, and values within
    ``1e-9 * max(1, largest |value|)`` of each other are ties (``irtbridge._ties``), so rounding noise in
    a diagnostic does not reorder the datasets. The low / high subsets keep
    ``ceil(fraction * N)`` datasets: the first / last ones of the ascending order, still ascending (the
    paper's 30 of 60). With an odd N the two halves share the middle dataset.

    Examples
    --------
    >>> import pandas as pd
    >>> d = pd.DataFrame({"difficulty_sd": [3.0, 1.0, 2.0, 4.0]}, index=["w", "x", "y", "z"])
    >>> order_datasets(d, "difficulty_sd_low"), order_datasets(d, "difficulty_sd_high")
    (['x', 'y'], ['w', 'z'])
    """
    order = check_choice(order, "order", ORDERS, ignore_case=True)
    fraction = check_number(fraction, "fraction", low=0.0, high=1.0, low_open=True)
    frame = diagnostics
    if "status" in frame.columns:
        frame = frame[frame["status"] == "ok"]
    column, part = ORDERS[order]
    if column is None:
        return [str(i) for i in frame.index]
    if column not in frame.columns:
        raise ValidationError(f"order {order!r} needs the diagnostic {column!r}; build diagnostics with dataset_diagnostics()")
    values = frame[column].astype(float)
    values = values[values.notna()]
    ordered = [str(i) for i in values.index[stable_argsort(values.to_numpy())]]
    if part == "all" or not ordered:
        return ordered
    k = max(1, math.ceil(fraction * len(ordered)))
    return ordered[:k] if part == "low" else ordered[len(ordered) - k:]


@constraints(score=Choice(SCORES))
def score_table(results: Any, score: str = "true_score") -> pd.DataFrame:
    """Datasets x respondents table of one respondent column.

    Parameters
    ----------
    results : sequence or mapping of DatasetResult
    score : {"true_score", "true_score_positive", "theta", "theta_positive", "accuracy"}

    Returns
    -------
    pandas.DataFrame
        One row per successfully calibrated dataset (input order), one column per respondent (order of
        first appearance); NaN where a respondent did not take part.
    """
    score = check_choice(score, "score", SCORES)
    values = list(results.values()) if isinstance(results, Mapping) else list(results)
    rows = {r.name: r.respondents[score].astype(float) for r in values if r.ok}
    if not rows:
        raise ValidationError("no dataset was calibrated; there is nothing to compare")
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "dataset"
    table.columns.name = "respondent"
    return table


@dataclass(frozen=True)
class Validity:
    """Whether a ranking puts the optimal respondent first and the pessimal one last.

    Attributes
    ----------
    ranking : str
        What was ranked (e.g. ``"glicko2"``, ``"friedman"``).
    optimal_rank, pessimal_rank : int or None
        Competition ranks (1 = best; a tie shares the best rank for optimal and the worst for
        pessimal); None when the respondent is absent.
    n_players : int
    optimal_first, pessimal_last : bool or None
        None when the respondent is absent.
    """

    ranking: str
    optimal_rank: int | None
    pessimal_rank: int | None
    n_players: int
    optimal_first: bool | None
    pessimal_last: bool | None

    @property
    def valid(self) -> bool | None:
        """True when both hold, False when either fails, None when neither could be checked."""
        checks = [c for c in (self.optimal_first, self.pessimal_last) if c is not None]
        return None if not checks else all(checks)

    def describe(self) -> str:
        """One line for the report: valid, violated (and how), or not checked.

        Returns
        -------
        str
            The line, starting with the ranking's name.
        """
        if self.valid is None:
            return f"{self.ranking}: not checked (no optimal/pessimal respondent)"
        if self.valid:
            return f"{self.ranking}: valid (optimal first, pessimal last of {self.n_players})"
        parts = []
        if self.optimal_first is False:
            parts.append(f"optimal ranks {self.optimal_rank}")
        if self.pessimal_last is False:
            parts.append(f"pessimal ranks {self.pessimal_rank} of {self.n_players}")
        return f"{self.ranking}: VIOLATED ({', '.join(parts)})"

    def to_dict(self) -> dict[str, Any]:
        """The check as plain data.

        Returns
        -------
        dict of str to Any
            ``ranking``, ``valid``, ``optimal_rank``, ``pessimal_rank``, ``n_players``, ``optimal_first``,
            ``pessimal_last``.
        """
        return {
            "ranking": self.ranking, "valid": self.valid, "optimal_rank": self.optimal_rank,
            "pessimal_rank": self.pessimal_rank, "n_players": self.n_players,
            "optimal_first": self.optimal_first, "pessimal_last": self.pessimal_last,
        }


@constraints(higher_is_better=Flag())
def validity_check(
    values: pd.Series,
    *,
    higher_is_better: bool = True,
    ranking: str = "ranking",
    optimal: str = "optimal",
    pessimal: str = "pessimal",
) -> Validity:
    """Check a ranking against the artificial baselines: optimal should be first and pessimal last.

    Parameters
    ----------
    values : pandas.Series
        One value per player (index = player), e.g. final ratings or average ranks.
    higher_is_better : bool, default True
        False for average ranks (1 = best).
    ranking : str
        Label in the result.
    optimal, pessimal : str
        Names of the two baselines.

    Returns
    -------
    Validity

    Notes
    -----
    optimal_rank = 1 + #{players strictly better than optimal}; pessimal_rank = n - #{players strictly
    worse than pessimal}. So optimal tied for first counts as first, and pessimal tied for last as last.
    "Strictly" allows for rounding noise: values within ``1e-9 * max(1, |value|, |baseline's value|)`` of
    the baseline's are ties (``irtbridge._ties``).

    Examples
    --------
    >>> import pandas as pd
    >>> v = validity_check(pd.Series({"optimal": 1600.0, "svm": 1650.0, "pessimal": 1200.0}))
    >>> v.optimal_rank, v.pessimal_rank, v.valid
    (2, 3, False)
    """
    if not isinstance(values, pd.Series):
        raise ValidationError(f"values must be a pandas Series indexed by player, got {type(values).__name__}")
    s = values.astype(float).dropna()
    if not higher_is_better:
        s = -s
    n = len(s)
    opt_rank = pes_rank = None
    opt_first = pes_last = None
    x = s.to_numpy()
    if optimal in s.index:
        opt_rank = 1 + int(tie_greater(x, s[optimal]).sum())
        opt_first = opt_rank == 1
    if pessimal in s.index:
        pes_rank = n - int(tie_greater(s[pessimal], x).sum())
        pes_last = pes_rank == n
    return Validity(ranking, opt_rank, pes_rank, n, opt_first, pes_last)


@dataclass(frozen=True, eq=False)
class TournamentResult:
    """A Glicko-2 tournament over datasets, with the rank statistics beside it.

    Attributes
    ----------
    name : str
        The dataset order/subset (e.g. ``"difficulty"``).
    datasets : tuple of str
        Rating periods in play order (period 1 is the first).
    scores : pandas.DataFrame
        Datasets (play order) x respondents, the score the matches were decided on.
    score : str
        Which score that is.
    tolerance : float
        Scores within it drew.
    matches : pandas.DataFrame
        ``period`` (1, 2, ...), ``dataset``, ``player``, ``opponent``, ``score``: one row per game.
    glicko : Glicko2Result
    ratings : pandas.DataFrame
        The paper's Tables 5-9 layout: ``rank, player, rating, rd, volatility`` (plus ``lower``,
        ``upper``, ``wins``, ``draws``, ``losses``), best first.
    history : pandas.DataFrame
        ``period, dataset, player, rating, rd, volatility, rank`` after every period (rank 1 = best,
        ties share the best rank): the data of the bump charts (Figs. 12-13).
    validity : Validity
        Of the final Glicko-2 ranking.
    friedman, nemenyi : FriedmanResult, NemenyiResult or None
        Over the datasets on which every respondent has a score (None with fewer than two such datasets).
    rank_validity : Validity or None
        Of the Friedman average ranks.
    """

    name: str
    datasets: tuple
    scores: pd.DataFrame = field(repr=False)
    score: str
    tolerance: float
    matches: pd.DataFrame = field(repr=False)
    glicko: Any = field(repr=False)
    ratings: pd.DataFrame = field(repr=False)
    history: pd.DataFrame = field(repr=False)
    validity: Validity
    friedman: Any = field(repr=False)
    nemenyi: Any = field(repr=False)
    rank_validity: Validity | None

    def rating_table(self, digits: int = 3) -> str:
        """The final ranking as text in the paper's layout (rounded for display only).

        Parameters
        ----------
        digits : int, default 3
            Digits shown.

        Returns
        -------
        str
            The table.
        """
        lines = [f"{'Rank':>4}  {'Classifier':<22} {'Rating':>10} {'RD':>8} {'Volatility':>10}"]
        for _, row in self.ratings.iterrows():
            lines.append(
                f"{int(row['rank']):>4}  {str(row['player']):<22.22} {row['rating']:>10.{digits}f} "
                f"{row['rd']:>8.{digits}f} {row['volatility']:>10.{digits}f}"
            )
        return "\n".join(lines)

    def summary(self) -> Summary:
        """The final ranking, its validity and Friedman/Nemenyi on the same scores.

        Returns
        -------
        Summary
            The tournament's summary.
        """
        lines = [Line.of("validity", self.validity.describe())]
        if self.friedman is not None:
            assert self.rank_validity is not None  # computed with friedman
            lines += [Line.of("friedman", f"Friedman chi2 = {self.friedman.statistic:.3f}, p = {self.friedman.pvalue:.3g} "
                                          f"({self.friedman.n_datasets} datasets); Nemenyi CD = "
                                          f"{self.nemenyi.critical_difference:.3f}"),
                      Line.of("rank_validity", self.rank_validity.describe())]
        table = self.ratings.set_index("player")[["rank", "rating", "rd", "volatility", "lower", "upper"]]
        return Summary(f"Glicko-2 tournament {self.name!r}: {len(self.datasets)} dataset(s), score {self.score}",
                       tuple(lines), (("ratings", table),), data=self.to_dict(), digits={"volatility": 5, "*": 2})

    def _repr_html_(self) -> str:
        return self.summary().as_html()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary: datasets, final ratings, validity, Friedman/Nemenyi.

        Returns
        -------
        dict of str to Any
            See above.
        """
        out: dict[str, Any] = {
            "order": self.name,
            "datasets": list(self.datasets),
            "score": self.score,
            "ratings": self.ratings[["rank", "player", "rating", "rd", "volatility", "lower", "upper"]].to_dict(orient="records"),
            "validity": self.validity.to_dict(),
        }
        if self.friedman is not None:
            assert self.rank_validity is not None  # computed with friedman
            out["friedman"] = {
                "statistic": self.friedman.statistic, "pvalue": self.friedman.pvalue, "df": self.friedman.df,
                "iman_davenport": self.friedman.iman_davenport,
                "iman_davenport_pvalue": self.friedman.iman_davenport_pvalue,
                "n_datasets": self.friedman.n_datasets,
                "average_ranks": self.friedman.average_ranks.to_dict(),
            }
            out["nemenyi"] = {
                "critical_difference": self.nemenyi.critical_difference, "alpha": self.nemenyi.alpha,
                "groups": [list(g) for g in self.nemenyi.groups],
            }
            out["rank_validity"] = self.rank_validity.to_dict()
        else:
            out["friedman"] = out["nemenyi"] = out["rank_validity"] = None
        return out


@constraints(tolerance=Number(low=0.0))
def tournament(
    scores: pd.DataFrame,
    datasets: Sequence[str] | None = None,
    *,
    name: str = "given",
    score: str = "true_score",
    tolerance: float = 1e-6,
    tau: float = 0.5,
    alpha: float = 0.05,
) -> TournamentResult:
    """Play the datasets as Glicko-2 rating periods, round-robin, and rank-test the same scores.

    Parameters
    ----------
    scores : pandas.DataFrame
        Datasets x respondents (e.g. from :func:`score_table`); NaN sits a respondent out of a period.
    datasets : sequence of str, optional
        Which rows to play, in this order (default: all, in row order); see :func:`order_datasets`.
    name : str, default "given"
        Label of the tournament.
    score : str, default "true_score"
        Label of what ``scores`` holds.
    tolerance : float, default 1e-6
        Scores at most this far apart draw. The paper draws only on equal True-Scores; the small default
        absorbs floating-point noise between respondents with the same response pattern.
    tau : float, default 0.5
        Glicko-2 system constant.
    alpha : float, default 0.05
        Level of the Nemenyi critical difference.

    Returns
    -------
    TournamentResult

    Notes
    -----
    In period t (dataset t of the order) each pair (i, j) plays once: score 1 if s_i - s_j > tolerance,
    0.5 if ``|s_i - s_j| <= tolerance``, else 0 (:func:`irtbridge.rating.round_robin`, which allows for
    rounding noise on top of ``tolerance``); ratings start at
    1500 / 350 / 0.06 and are updated by :func:`irtbridge.rating.glicko2` period after period; in
    ``ratings`` and ``history`` ratings within ``1e-9 * max(1, largest |rating|)`` share the best rank
    (``irtbridge._ties``). Friedman
    and Nemenyi (:mod:`irtbridge.rankstats`) weigh every dataset equally, whatever the order.

    Examples
    --------
    >>> import pandas as pd
    >>> ts = pd.DataFrame({"optimal": [9.0, 8.0], "svm": [7.0, 6.0], "pessimal": [1.0, 2.0]},
    ...                   index=["iris", "wine"])
    >>> t = tournament(ts)
    >>> t.ratings["player"].tolist(), t.validity.valid
    (['optimal', 'svm', 'pessimal'], True)
    """
    from irtbridge.rankstats import friedman, nemenyi  # rankstats and rating (~60 ms) load when a tournament runs
    from irtbridge.rating import glicko2, round_robin  # rankstats and rating (~60 ms) load when a tournament runs

    if not isinstance(scores, pd.DataFrame):
        raise ValidationError(f"scores must be a pandas DataFrame (datasets x respondents), got {type(scores).__name__}")
    tolerance = check_number(tolerance, "tolerance", low=0.0)
    if datasets is None:
        datasets = [str(i) for i in scores.index]
    datasets = [str(d) for d in datasets]
    if not datasets:
        raise ValidationError(f"tournament {name!r} has no datasets to play")
    if len(set(datasets)) != len(datasets):
        raise ValidationError(f"datasets lists a dataset twice: {sorted({d for d in datasets if datasets.count(d) > 1})}")
    table = scores.rename(index=str)
    unknown = [d for d in datasets if d not in table.index]
    if unknown:
        raise ValidationError(f"datasets {unknown[:5]} are not rows of scores ({', '.join(map(str, table.index[:10]))})")
    table = table.loc[datasets]
    table.columns = pd.Index([str(c) for c in table.columns], name="respondent")

    # integer periods 1..T so that any file written from the matches sorts in play order
    periods = table.copy()
    periods.index = pd.RangeIndex(1, len(table) + 1, name="period")
    matches = round_robin(periods, tolerance=tolerance)
    matches["period"] = matches["period"].astype(int)
    matches.insert(1, "dataset", np.asarray(datasets, dtype=object)[matches["period"].to_numpy() - 1])
    if matches.empty:
        raise ValidationError(f"tournament {name!r}: no two respondents share a dataset, so no game can be played")
    result = glicko2(matches, tau=tau)

    ratings = result.ratings.reset_index()
    ratings.insert(0, "rank", tie_rank(ratings["rating"].to_numpy(), method="min", descending=True).astype(int))
    ratings = ratings[["rank", "player", "rating", "rd", "volatility", "lower", "upper", "wins", "draws", "losses"]]
    history = result.history.copy()
    history.insert(1, "dataset", np.asarray(datasets, dtype=object)[history["period"].to_numpy(dtype=int) - 1])
    history["rank"] = history.groupby("period")["rating"].transform(
        lambda r: tie_rank(r.to_numpy(), method="min", descending=True)
    ).astype(int)
    validity = validity_check(result.ratings["rating"], ranking="glicko2")

    complete = table.dropna(axis=0, how="any")
    fr = nm = rank_validity = None
    if len(complete) >= 2 and complete.shape[1] >= 2:
        fr = friedman(complete)
        nm = nemenyi(complete, alpha=alpha)
        rank_validity = validity_check(fr.average_ranks, higher_is_better=False, ranking="friedman")
    return TournamentResult(
        name=name, datasets=tuple(datasets), scores=table, score=score, tolerance=tolerance, matches=matches,
        glicko=result, ratings=ratings, history=history, validity=validity, friedman=fr, nemenyi=nm,
        rank_validity=rank_validity,
    )
