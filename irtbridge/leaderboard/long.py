"""Long-format responses (one row per answered (respondent, item) pair) to a response matrix and back."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pandas as pd

from irtbridge._validation import read_csv, require_columns
from irtbridge.exceptions import ValidationError

__all__ = ["responses_from_long", "responses_to_long"]


def _frame(data: Any) -> tuple[pd.DataFrame, str]:
    if isinstance(data, pd.DataFrame):
        return data, "long responses"
    if isinstance(data, (str, os.PathLike)):
        return read_csv(data, "long responses"), f"long responses file {os.fspath(data)!r}"
    raise ValidationError(f"long responses must be a DataFrame or a CSV path, got {type(data).__name__}")


def responses_from_long(data: Any, respondent: str = "model", item: str = "item", score: str = "score", *,
                        sparse: bool = False) -> Any:
    """The response matrix of a long table: respondents x items, NaN where a respondent did not answer.

    Parameters
    ----------
    data : DataFrame or path to a CSV file
        One row per answered pair.
    respondent, item, score : str
        Column names (defaults ``model``, ``item``, ``score``). Scores are numbers (0/1 for dichotomous
        models); a missing score counts as unanswered.
    sparse : bool, default False
        False: a float32 DataFrame (4 bytes a cell; rows and columns in order of first appearance).
        True: an :class:`irtbridge.em.core.ResponseData` holding only the answered cells (sparse 0/1
        matrices), which ``calibrate(..., engine="native")`` takes directly; for 0/1 scores only.

    Returns
    -------
    DataFrame or ResponseData
        The matrix; with ``sparse=True`` the answered cells only.

    Raises
    ------
    ValidationError
        A missing column, a non-numeric score, or a (respondent, item) pair given twice (the message names
        the first few).

    Examples
    --------
    >>> long = pd.DataFrame({"model": ["m1", "m1", "m2"], "item": ["q1", "q2", "q2"], "score": [1, 0, 1]})
    >>> responses_from_long(long)
    item   q1   q2
    model
    m1    1.0  0.0
    m2    NaN  1.0
    """
    frame, source = _frame(data)
    require_columns(frame, [respondent, item, score], source)
    frame = frame[[respondent, item, score]]
    values = pd.to_numeric(frame[score], errors="coerce")
    bad = values.isna() & frame[score].notna()
    if bad.any():
        raise ValidationError(f"{source}: column {score!r} has non-numeric value(s), e.g. {frame[score][bad].iloc[0]!r}")
    keep = values.notna().to_numpy()
    rows_key, cols_key = frame[respondent][keep].astype(str), frame[item][keep].astype(str)
    dup = pd.DataFrame({"r": rows_key, "i": cols_key}).duplicated(keep=False).to_numpy()
    if dup.any():
        pairs = list(dict.fromkeys(zip(rows_key[dup], cols_key[dup])))
        shown = ", ".join(f"({r!r}, {i!r})" for r, i in pairs[:5])
        raise ValidationError(f"{source}: {len(pairs)} (respondent, item) pair(s) appear more than once: {shown}"
                              f"{' …' if len(pairs) > 5 else ''}")
    r_codes, r_names = pd.factorize(rows_key)
    c_codes, c_names = pd.factorize(cols_key)
    scores = values.to_numpy(dtype=np.float64)[keep]
    if sparse:
        return _sparse(r_codes, c_codes, scores, r_names, c_names, source)
    out = np.full((len(r_names), len(c_names)), np.nan, dtype=np.float32)
    out[r_codes, c_codes] = scores
    return pd.DataFrame(out, index=pd.Index(r_names, name=respondent), columns=pd.Index(c_names, name=item))


def _sparse(r_codes, c_codes, scores, r_names, c_names, source):
    from scipy import sparse as sp

    from irtbridge.em.core import ResponseData

    if not np.isin(scores, (0.0, 1.0)).all():
        raise ValidationError(f"{source}: sparse=True takes 0/1 scores only")
    shape = (len(r_names), len(c_names))
    correct = scores == 1.0
    A = sp.csr_matrix((np.ones(int(correct.sum())), (r_codes[correct], c_codes[correct])), shape=shape)
    M = sp.csr_matrix((np.ones(len(scores)), (r_codes, c_codes)), shape=shape)
    return ResponseData(A, M, tuple(c_names), pd.Index(r_names))


def responses_to_long(responses: pd.DataFrame, respondent: str = "model", item: str = "item",
                      score: str = "score") -> pd.DataFrame:
    """The long table of a response matrix: one row per answered cell (NaN cells are left out).

    Parameters
    ----------
    responses : DataFrame
        Respondents x items.
    respondent, item, score : str
        The column names.

    Returns
    -------
    DataFrame
        Columns ``respondent``, ``item``, ``score`` (as named).

    Examples
    --------
    >>> wide = pd.DataFrame({"q1": [1.0, np.nan], "q2": [0.0, 1.0]}, index=["m1", "m2"])
    >>> responses_to_long(wide)
      model item  score
    0    m1   q1    1.0
    1    m1   q2    0.0
    2    m2   q2    1.0
    """
    if not isinstance(responses, pd.DataFrame):
        raise ValidationError(f"responses must be a DataFrame, got {type(responses).__name__}")
    values = responses.to_numpy(dtype=float)
    rows, cols = np.nonzero(~np.isnan(values))
    return pd.DataFrame({respondent: responses.index.to_numpy()[rows], item: responses.columns.to_numpy()[cols],
                         score: values[rows, cols]})
