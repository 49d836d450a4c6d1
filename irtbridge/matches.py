"""Match tables for Glicko-2: the columns of a long match table and round-robin tournaments from scores.

A match table has one row per game: ``period, player, opponent, score`` with the score 1 (win),
0.5 (draw) or 0 (loss) for ``player``. :func:`round_robin` builds one from a table of scores;
:func:`irtbridge.rating.glicko2` rates it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from irtbridge._constraints import Number, constraints
from irtbridge._ties import tie_greater
from irtbridge._validation import check_number
from irtbridge.exceptions import ValidationError

__all__ = ["MATCH_COLUMNS", "round_robin"]

#: The columns of a match table, in order.
MATCH_COLUMNS = ("period", "player", "opponent", "score")


@constraints(tolerance=Number(low=0.0))
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
