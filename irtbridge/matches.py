"""Match tables for Glicko-2: the checks of a long match table and round-robin tournaments from scores.

A match table has one row per game: ``period, player, opponent, score`` with the score 1 (win),
0.5 (draw) or 0 (loss) for ``player``. :func:`round_robin` builds one from a table of scores;
:func:`irtbridge.rating.glicko2` rates it.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pandas as pd

from irtbridge._ties import tie_greater
from irtbridge._validation import check_number, require_columns
from irtbridge.exceptions import ValidationError

__all__ = ["MATCH_COLUMNS", "round_robin"]

#: The columns of a match table, in order.
MATCH_COLUMNS = ("period", "player", "opponent", "score")
_MATCH_COLUMNS = MATCH_COLUMNS


def _check_score_values(score: np.ndarray, where: str) -> None:
    bad = ~np.isin(score, (0.0, 0.5, 1.0))
    if bad.any():
        values = pd.unique(score[bad])[:5].tolist()
        raise ValidationError(
            f"{where} must be 1 (win), 0.5 (draw) or 0 (loss) for the player; found {values} in {int(bad.sum())} game(s)"
        )


def _as_matches(matches: Any, source: str) -> pd.DataFrame:
    if not isinstance(matches, pd.DataFrame):
        raise ValidationError(
            f"{source} must be a pandas DataFrame with columns {', '.join(_MATCH_COLUMNS)}; got {type(matches).__name__}"
        )
    require_columns(matches, _MATCH_COLUMNS, source)
    if len(matches) == 0:
        raise ValidationError(f"{source} has no matches")
    for col in _MATCH_COLUMNS:
        missing = matches[col].isna().to_numpy()
        if missing.any():
            first = matches.index[np.flatnonzero(missing)[0]]
            raise ValidationError(
                f"{source}: column {col!r} has {int(missing.sum())} missing value(s) (first at row {first!r}); "
                "every match needs a period, a player, an opponent and a score"
            )
    return matches


def _score_array(column: pd.Series, source: str) -> np.ndarray:
    numeric = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)
    not_number = np.isnan(numeric)
    if not_number.any():
        values = pd.unique(column[not_number])[:5].tolist()
        raise ValidationError(f"{source}: column 'score' holds non-numbers {values}; use 1 (win), 0.5 (draw) or 0 (loss)")
    _check_score_values(numeric, f"{source}: column 'score'")
    return numeric


def _period_codes(column: pd.Series, source: str) -> tuple[np.ndarray, pd.Index]:
    if isinstance(column.dtype, pd.CategoricalDtype) and column.cat.ordered:
        # an ordered categorical (what round_robin returns) is played in category order
        used = pd.unique(column.cat.codes.to_numpy())
        order = np.sort(used)
        codes = np.searchsorted(order, column.cat.codes.to_numpy())
        labels = pd.CategoricalIndex(column.cat.categories[order], categories=column.cat.categories[order], ordered=True)
        return codes, labels
    if column.dtype == object:
        # pandas would quietly sort mixed types (numbers before text); refuse instead of guessing
        kinds = {"number" if isinstance(v, numbers.Real) else type(v).__name__ for v in pd.unique(column)}
        if len(kinds) > 1:
            raise ValidationError(
                f"{source}: column 'period' mixes values that cannot be sorted ({', '.join(sorted(kinds))}); "
                "periods are rated in sorted order, so use all numbers or all strings (or an ordered categorical)"
            )
    codes, uniques = pd.factorize(column, sort=True)
    return codes, pd.Index(uniques)


def _player_codes(player: pd.Series, opponent: pd.Series) -> tuple[np.ndarray, np.ndarray, pd.Index]:
    both = pd.concat([player, opponent], ignore_index=True)
    try:
        codes, uniques = pd.factorize(both, sort=True)
    except TypeError:
        codes, uniques = pd.factorize(both)
    n = len(player)
    return codes[:n], codes[n:], pd.Index(uniques, name="player")


def round_robin(scores: Any, *, tolerance: float = 0.0) -> pd.DataFrame:
    """Turn per-period scores of respondents into a round-robin match table.

    Parameters
    ----------
    scores : pandas.DataFrame or 2-D array_like
        Periods x players (e.g. datasets x classifiers holding True-Scores). Rows are the periods in
        the order they are to be rated; NaN means the player does not take part in that period.
    tolerance : float, default 0.0
        Two scores within ``tolerance`` of each other make a draw (0 = only ties draw, as in the
        decodIRT paper; ties are judged up to rounding noise, see Notes).

    Returns
    -------
    pandas.DataFrame
        Columns ``period``, ``player``, ``opponent``, ``score``: every pair of players present in a
        period meets once (player = the earlier column), the higher score wins (1), the lower loses
        (0), a draw scores 0.5. ``period`` is an ordered categorical of the row labels in row order, so
        :func:`glicko2` rates them in that order (save ``period.cat.codes`` if you write it to a file
        whose labels would not sort that way).

    Notes
    -----
    ``score(i, j) = 0.5 if |s_i - s_j| <= tolerance, else 1[s_i > s_j]``. A period with P players yields
    P (P - 1) / 2 games. The comparison allows for rounding noise (``irtbridge._ties``): a draw is
    ``|s_i - s_j| <= tolerance + 1e-9 * max(1, |s_i|, |s_j|)``, so ``tolerance=0`` draws scores equal in
    exact arithmetic whatever their last bits, and a difference of exactly ``tolerance`` draws.

    Examples
    --------
    >>> import pandas as pd
    >>> ts = pd.DataFrame({"rf": [0.9, 0.7], "nb": [0.8, 0.7]}, index=["iris", "wine"])
    >>> round_robin(ts)[["player", "opponent", "score"]].to_numpy().tolist()
    [['rf', 'nb', 1.0], ['rf', 'nb', 0.5]]
    """
    tolerance = check_number(tolerance, "tolerance", low=0.0)
    if isinstance(scores, pd.DataFrame):
        frame = scores
    else:
        arr = np.asarray(scores)
        if arr.ndim != 2:
            raise ValidationError(f"scores must be two-dimensional (periods x players), got shape {arr.shape}")
        frame = pd.DataFrame(arr)
    if frame.shape[0] == 0 or frame.shape[1] < 2:
        raise ValidationError(f"scores needs at least one period and two players, got shape {frame.shape}")
    if frame.columns.has_duplicates:
        dup = frame.columns[frame.columns.duplicated()].unique().tolist()
        raise ValidationError(f"scores has duplicate player columns {dup[:5]}")
    if frame.index.has_duplicates:
        dup = frame.index[frame.index.duplicated()].unique().tolist()
        raise ValidationError(f"scores has duplicate period labels {dup[:5]}; each row must be its own period")
    try:
        values = frame.to_numpy(dtype=float, na_value=np.nan)
    except (TypeError, ValueError):
        raise ValidationError("scores must hold numbers (NaN where a player sits a period out)") from None
    if np.isinf(values).any():
        raise ValidationError("scores has infinite values; use NaN where a player sits a period out")

    n_periods, n_players = values.shape
    first, second = np.triu_indices(n_players, k=1)
    a = values[:, first]
    b = values[:, second]
    both = ~(np.isnan(a) | np.isnan(b))
    with np.errstate(invalid="ignore"):
        # a draw up to rounding noise too: |a - b| = tolerance in exact arithmetic may come out a few ulps
        # above it (0.4 - 0.3 > 0.1), and with tolerance 0 equal scores may differ in their last bits
        draw = ~tie_greater(np.abs(a - b), tolerance, scale=np.maximum(np.abs(a), np.abs(b)))
        result = np.where(draw, 0.5, np.where(a > b, 1.0, 0.0))
    rows, pairs = np.nonzero(both)  # row-major: periods stay in row order
    labels = frame.index
    period = pd.Categorical(labels[rows], categories=labels, ordered=True)
    columns = frame.columns
    return pd.DataFrame(
        {
            "period": period,
            "player": columns[first[pairs]],
            "opponent": columns[second[pairs]],
            "score": result[rows, pairs],
        }
    )
