"""Key scoring of multiple-choice answers: :func:`score_key` (mirt's ``key2binary``, in pandas).

Raw answers (the option each respondent chose: ``1..5``, ``"A".."E"``) become 1 where the answer is the
item's key and 0 otherwise; a missing answer stays missing. The scored matrix is what
:func:`irtbridge.calibrate` fits with a dichotomous model.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence, Set
from typing import Any

import numpy as np
import pandas as pd

from irtbridge._constraints import Flag, constraints
from irtbridge.exceptions import ValidationError

__all__ = ["score_key"]


@constraints(score_missing=Flag())
def score_key(responses: Any, key: Any, *, missing: Any = None, score_missing: bool = False) -> Any:
    """Score multiple-choice answers against a key: 1 where the answer is the key, 0 otherwise.

    Parameters
    ----------
    responses : DataFrame or 2-D array
        One row per respondent, one column per item, holding the option each respondent chose (numbers
        or text such as ``"A"``). NaN/None is a missing answer.
    key : sequence or mapping
        The correct option of each item: a sequence in column order (list, tuple, 1-D array, or a
        :class:`pandas.Series` by item name), or a mapping item → key covering every column. An item with
        several correct options takes a list or set of them (mirt's key matrix with several columns).
        Answers and keys compare as numbers when both read as numbers (``4``, ``4.0`` and ``"4"`` are
        the same answer), otherwise as exact text.
    missing : scalar or collection, optional
        Answer codes that mean "not answered" (e.g. ``8`` in mirt's SAT12): treated as missing.
    score_missing : bool
        Score missing answers as 0 (incorrect) instead of keeping them missing (mirt's
        ``score_missing``).

    Returns
    -------
    DataFrame or ndarray
        Like ``responses`` (same index and columns; an array for array input): float 0/1, NaN where the
        answer is missing.

    Raises
    ------
    ValidationError
        A key of the wrong length, a mapping naming items that are not columns or lacking some, a
        missing key, or responses that are not a 2-D table.

    Notes
    -----
    R equivalent: ``key2binary(fulldata, key, score_missing = FALSE)``: ``fulldata[, i] %in% key[i, ]``
    per item, NA kept where the answer is NA. mirt gives an item whose key is NA a column of zeros;
    here a missing key is an error.

    Examples
    --------
    >>> import pandas as pd
    >>> from irtbridge.calibration import score_key
    >>> answers = pd.DataFrame({"q1": ["A", "B", None], "q2": [3, 1, 8], "q3": [2, 2, 4]})
    >>> score_key(answers, {"q1": "A", "q2": 3, "q3": [2, 4]}, missing=8)
        q1   q2   q3
    0  1.0  1.0  1.0
    1  0.0  0.0  1.0
    2  NaN  NaN  1.0
    """
    frame, as_array = _as_frame(responses)
    columns = [str(c) for c in frame.columns]
    keys = _keys_per_item(key, columns)
    absent = _codes(missing, "missing") if missing is not None else frozenset()
    scored = np.empty(frame.shape, dtype=float)
    for j, (column, accepted) in enumerate(zip(columns, keys)):
        scored[:, j] = _score_column(frame.iloc[:, j], column, accepted, absent, bool(score_missing))
    if as_array:
        return scored
    return pd.DataFrame(scored, index=frame.index, columns=frame.columns)


def _as_frame(responses: Any) -> tuple[pd.DataFrame, bool]:
    if isinstance(responses, pd.DataFrame):
        if responses.shape[1] == 0:
            raise ValidationError("responses has no item columns")
        names = [str(c) for c in responses.columns]
        if len(set(names)) != len(names):
            dup = sorted({n for n in names if names.count(n) > 1})
            raise ValidationError(f"responses has duplicate item names: {', '.join(map(repr, dup))}")
        return responses, False
    if isinstance(responses, np.ndarray) and responses.ndim == 2 and responses.shape[1] > 0:
        return pd.DataFrame(responses), True
    raise ValidationError(f"responses must be a DataFrame or a 2-D array of answers, got {type(responses).__name__}"
                          + (f" of shape {responses.shape}" if isinstance(responses, np.ndarray) else ""))


def _keys_per_item(key: Any, columns: list[str]) -> list[frozenset]:
    """One set of accepted (normalized) answers per column, in column order."""
    if isinstance(key, pd.Series):
        key = {str(k): v for k, v in key.items()}
    if isinstance(key, Mapping):
        given = {str(k): v for k, v in key.items()}
        unknown = [k for k in given if k not in set(columns)]
        if unknown:
            raise ValidationError(f"key: unknown item(s) {', '.join(map(repr, unknown[:10]))} (not columns of "
                                  "responses)")
        lacking = [c for c in columns if c not in given]
        if lacking:
            raise ValidationError(f"key: no key for item(s) {', '.join(map(repr, lacking[:10]))}; give every item "
                                  "a key")
        ordered = [given[c] for c in columns]
    elif isinstance(key, (str, bytes)) or not isinstance(key, (Sequence, np.ndarray)):
        raise ValidationError(f"key must be a sequence of keys in column order or a mapping item -> key, got "
                              f"{type(key).__name__} {key!r}"[:200])
    else:
        ordered = list(np.asarray(key, dtype=object).ravel()) if isinstance(key, np.ndarray) else list(key)
        if len(ordered) != len(columns):
            raise ValidationError(f"key: {len(ordered)} key(s) for {len(columns)} items; give one key per item in "
                                  "column order, or a mapping item -> key")
    return [_codes(k, f"key of item {c!r}") for k, c in zip(ordered, columns)]


def _codes(value: Any, what: str) -> frozenset:
    """The normalized answer codes of one key (one value, or a collection of accepted values)."""
    values = list(value) if isinstance(value, (list, tuple, Set, np.ndarray)) else [value]
    if not values:
        raise ValidationError(f"{what} is empty; give at least one answer")
    codes = [_normalize(v) for v in values]
    if any(c is None for c in codes):
        raise ValidationError(f"{what} is missing (None/NaN); every key must be an answer code")
    return frozenset(codes)


def _normalize(value: Any) -> Any:
    """An answer as a comparable code: a float when it reads as a number, else its text; None if missing."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return None if math.isnan(float(value)) else float(value)
    text = str(value)
    try:
        number = float(text)
    except ValueError:
        return text
    return text if math.isnan(number) or math.isinf(number) else number


def _score_column(column: pd.Series, name: str, accepted: frozenset, absent: frozenset,
                  score_missing: bool) -> np.ndarray:
    """One item: 1.0 where the answer is accepted, 0.0 where not, NaN where missing (unless scored 0)."""
    if pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_bool_dtype(column.dtype):
        values = column.to_numpy(dtype=float, na_value=np.nan)
        numbers = [k for k in accepted if isinstance(k, float)]
        if len(numbers) < len(accepted):
            text = next(k for k in accepted if not isinstance(k, float))
            raise ValidationError(f"key of item {name!r} is {text!r}, but the item's answers are numbers")
        hit = np.isin(values, numbers)
        gone = np.isnan(values) | np.isin(values, [k for k in absent if isinstance(k, float)])
    else:
        codes = [_normalize(v) for v in column.tolist()]
        hit = np.fromiter((c in accepted for c in codes), dtype=bool, count=len(codes))
        gone = np.fromiter((c is None or c in absent for c in codes), dtype=bool, count=len(codes))
    out = hit.astype(float)
    out[gone] = 0.0 if score_missing else np.nan
    return out
