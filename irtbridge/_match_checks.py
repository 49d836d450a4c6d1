"""The checks and codes of a long match table (:data:`irtbridge.matches.MATCH_COLUMNS`), as
:func:`irtbridge.rating.glicko2` reads it: the table and its scores checked, periods and players as codes."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pandas as pd

from irtbridge._validation import require_columns
from irtbridge.exceptions import ValidationError
from irtbridge.matches import MATCH_COLUMNS


def check_score_values(score: np.ndarray, where: str) -> None:
    bad = ~np.isin(score, (0.0, 0.5, 1.0))
    if bad.any():
        values = pd.unique(score[bad])[:5].tolist()
        raise ValidationError(
            f"{where} must be 1 (win), 0.5 (draw) or 0 (loss) for the player; found {values} in {int(bad.sum())} game(s)"
        )


def as_matches(matches: Any, source: str) -> pd.DataFrame:
    if not isinstance(matches, pd.DataFrame):
        raise ValidationError(
            f"{source} must be a pandas DataFrame with columns {', '.join(MATCH_COLUMNS)}; got {type(matches).__name__}"
        )
    require_columns(matches, MATCH_COLUMNS, source)
    if len(matches) == 0:
        raise ValidationError(f"{source} has no matches")
    for col in MATCH_COLUMNS:
        missing = matches[col].isna().to_numpy()
        if missing.any():
            first = matches.index[np.flatnonzero(missing)[0]]
            raise ValidationError(
                f"{source}: column {col!r} has {int(missing.sum())} missing value(s) (first at row {first!r}); "
                "every match needs a period, a player, an opponent and a score"
            )
    return matches


def score_array(column: pd.Series, source: str) -> np.ndarray:
    numeric = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)
    not_number = np.isnan(numeric)
    if not_number.any():
        values = pd.unique(column[not_number])[:5].tolist()
        raise ValidationError(f"{source}: column 'score' holds non-numbers {values}; use 1 (win), 0.5 (draw) or 0 (loss)")
    check_score_values(numeric, f"{source}: column 'score'")
    return numeric


def period_codes(column: pd.Series, source: str) -> tuple[np.ndarray, pd.Index]:
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


def player_codes(player: pd.Series, opponent: pd.Series) -> tuple[np.ndarray, np.ndarray, pd.Index]:
    both = pd.concat([player, opponent], ignore_index=True)
    try:
        codes, uniques = pd.factorize(both, sort=True)
    except TypeError:
        codes, uniques = pd.factorize(both)
    n = len(player)
    return codes[:n], codes[n:], pd.Index(uniques, name="player")
