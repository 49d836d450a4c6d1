"""The 0/1 answers of new models to a set of items, checked (shared by p-IRT and the design-based estimators)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from irtbridge.exceptions import ValidationError

__all__ = ["answer_matrix", "response_values", "unique_names", "one_row_per_model"]


def answer_matrix(responses: Any, anchors: list[str], what: str = "responses_on_anchors",
                  noun: str = "anchor item") -> tuple[np.ndarray, pd.Index]:
    """The 0/1/NaN values of ``responses``' columns ``anchors`` (one-line errors name ``what``)."""
    if isinstance(responses, pd.Series):
        responses = responses.to_frame().T
    if not isinstance(responses, pd.DataFrame):
        raise ValidationError(f"{what} must be a DataFrame (respondents x {noun}s), got {type(responses).__name__}")
    cols = set(map(str, responses.columns))
    missing = [a for a in anchors if a not in cols]
    if missing:
        raise ValidationError(f"{what} lack {len(missing)} {noun}(s), e.g. {missing[:3]}")
    values = responses.rename(columns=str)[anchors].to_numpy(dtype=float)
    bad = ~np.isnan(values) & ~np.isin(values, (0.0, 1.0))
    if bad.any():
        raise ValidationError(f"{what} must be 0/1 (NaN for unanswered)")
    return values, responses.index


def response_values(frame: Any, what: str) -> np.ndarray:
    if not isinstance(frame, pd.DataFrame):
        raise ValidationError(f"{what} must be a DataFrame (models x items), got {type(frame).__name__}")
    try:
        values = frame.to_numpy(dtype=float)
    except (TypeError, ValueError):
        bad = [str(c) for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
        hint = (f"; column {bad[0]!r} is not numeric (the models' names? pass --id-column {bad[0]} on the command line, "
                "or make it the index)") if bad else ""
        raise ValidationError(f"{what} must be numeric 0/1 (NaN for unanswered){hint}") from None
    invalid = ~np.isnan(values) & ~np.isin(values, (0.0, 1.0))
    if invalid.any():
        r, c = np.argwhere(invalid)[0]
        raise ValidationError(f"{what} must be 0/1 (NaN for unanswered): row {frame.index[r]!r}, column "
                              f"{frame.columns[c]!r} holds {values[r, c]!r}")
    return values


def unique_names(names: Any, what: str, where: str) -> None:
    """A one-line error when a name repeats, "{where}: {what} name(s) ... appear more than once" (item names;
    repeated model rows follow :func:`one_row_per_model`)."""
    seen = pd.Index(list(names))
    if seen.has_duplicates:
        dup = list(dict.fromkeys(seen[seen.duplicated()]))
        raise ValidationError(f"{where}: {what} name(s) {', '.join(map(repr, dup[:5]))} appear more than once")


def one_row_per_model(frame: pd.DataFrame, where: str) -> pd.DataFrame:
    """A matrix with each model once: identical repeated rows count once, differing ones are an error.

    The one rule for repeated models of every leaderboard command (``leaderboard``, ``tiny``, ``estimate``,
    through :func:`irtbridge.leaderboard.inputs.model_column`) and of the Python API
    (:func:`~irtbridge.leaderboard.build_tiny`, :func:`~irtbridge.leaderboard.validate_tiny`).

    Parameters
    ----------
    frame : DataFrame
        Models (the index) x items.
    where : str
        What was read, for the error message.

    Returns
    -------
    DataFrame
        The matrix, index as strings, the first of identical repeats kept.

    Examples
    --------
    >>> frame = pd.DataFrame({"q1": [1.0, 0.0, 1.0], "q2": [0.0, 1.0, 0.0]}, index=["a", "b", "a"])
    >>> one_row_per_model(frame, "responses").index.tolist()
    ['a', 'b']
    """
    if frame.index.isna().any():
        r = int(np.flatnonzero(frame.index.isna())[0])
        raise ValidationError(f"{where}: row {r + 1} has no model name")
    frame = frame.set_axis(frame.index.map(str), axis=0)
    if not frame.index.has_duplicates:
        return frame
    dup = frame.index.duplicated(keep=False)
    same = frame[dup].astype(str).groupby(level=0).nunique(dropna=False).le(1).all(axis=1)
    differ = same.index[~same.to_numpy()].tolist()
    if differ:
        raise ValidationError(f"{where}: model(s) {', '.join(map(repr, differ[:5]))} appear more than once with "
                              "different answers; keep one row per model (identical repeats count once)")
    return frame[~frame.index.duplicated(keep="first")]
