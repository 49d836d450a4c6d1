"""Long-format responses (one row per answered (respondent, item) pair) to a response matrix and back."""

from __future__ import annotations

import gzip
import os
import shutil
import tempfile
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse as sp

from irtbridge._constraints import Flag, constraints
from irtbridge._validation import read_csv, require_columns
from irtbridge.em.core import ResponseData
from irtbridge.exceptions import ValidationError

__all__ = ["responses_from_long", "responses_to_long", "long_to_matrix", "collapse_repeats", "REPEATS_RULE",
           "read_table"]

REPEATS_RULE = ("a (model, item) pair given more than once is one answer when every repeat has the same score, "
                "and an error naming the pair when the scores differ")


def read_table(path: str | os.PathLike, what: str = "responses") -> pd.DataFrame:
    """A CSV file, plain or gzip-compressed (``.csv.gz``), with :func:`irtbridge._validation.read_csv`'s checks.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    what : str, default "responses"
        What it holds, for error messages (which name ``path`` itself).

    Returns
    -------
    DataFrame
        The table.

    Examples
    --------
    >>> import gzip, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "m.csv.gz"
    >>> _ = path.write_bytes(gzip.compress(b"model,q1\\nm1,1\\n"))
    >>> read_table(path).to_dict("list")
    {'model': ['m1'], 'q1': [1]}
    """
    name = os.fspath(path)
    if not name.endswith(".gz"):
        return read_csv(path, what)
    if not os.path.isfile(name):
        return read_csv(path, what)  # read_csv's own one-line error (missing, a folder)
    folder = tempfile.mkdtemp(prefix="irtbridge-gz-")
    plain = os.path.join(folder, os.path.basename(name)[:-3] or "table.csv")
    try:
        try:
            with gzip.open(name, "rb") as src, open(plain, "wb") as dst:
                shutil.copyfileobj(src, dst)
        except (OSError, EOFError) as exc:
            raise ValidationError(f"{what} file {name!r} is not a readable gzip file ({exc})") from None
        try:
            return read_csv(plain, what)
        except ValidationError as exc:
            raise ValidationError(str(exc).replace(repr(plain), repr(name)).replace(plain, name)) from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _frame(data: Any) -> tuple[pd.DataFrame, str]:
    if isinstance(data, pd.DataFrame):
        return data, "long responses"
    if isinstance(data, (str, os.PathLike)):
        return read_table(data, "long responses"), f"long responses file {os.fspath(data)!r}"
    raise ValidationError(f"long responses must be a DataFrame or a CSV path, got {type(data).__name__}")


def collapse_repeats(respondents: pd.Series, items: pd.Series, scores: np.ndarray, source: str,
                     respondent: str = "model") -> np.ndarray:
    """The rule for repeated pairs, the same for every reader and command (:data:`REPEATS_RULE`).

    Parameters
    ----------
    respondents, items : Series
        The pair of each row (as strings).
    scores : ndarray
        Each row's score (float; NaN rows are already left out).
    source : str
        What was read, for the error message.
    respondent : str, default "model"
        What a respondent is called in the message.

    Returns
    -------
    ndarray of bool
        The rows to keep: every row but the later repeats of a pair whose scores all agree.

    Raises
    ------
    ValidationError
        A pair whose repeats disagree, named with its scores (the first few pairs).

    Examples
    --------
    >>> keep = collapse_repeats(pd.Series(["m", "m", "n"]), pd.Series(["q", "q", "q"]), np.array([1.0, 1.0, 0.0]),
    ...                         "example")
    >>> keep.tolist()
    [True, False, True]
    """
    frame = pd.DataFrame({"r": respondents.to_numpy(), "i": items.to_numpy(), "s": scores})
    dup = frame.duplicated(["r", "i"], keep=False).to_numpy()
    if not dup.any():
        return np.ones(len(frame), dtype=bool)
    spread = frame[dup].groupby(["r", "i"], sort=False)["s"].agg(["min", "max"])
    conflicts = spread[spread["min"] != spread["max"]]
    if len(conflicts):
        shown = ", ".join(f"({r!r}, {i!r}): {lo:g} and {hi:g}" for (r, i), (lo, hi) in
                          list(conflicts.iterrows())[:3])
        raise ValidationError(f"{source}: {len(conflicts)} ({respondent}, item) pair(s) are given more than once "
                              f"with different scores, e.g. {shown}; keep one answer per pair (identical repeats "
                              "count once)")
    return ~frame.duplicated(["r", "i"], keep="first").to_numpy()


def _names(column: pd.Series, what: str, source: str) -> pd.Series:
    """Respondent or item names as strings; a missing name is an error (never the string 'nan')."""
    missing = column.isna().to_numpy() | column.astype(str).str.strip().eq("").to_numpy()
    if missing.any():
        r = int(np.flatnonzero(missing)[0])
        raise ValidationError(f"{source}: row {r} has no {what} name ({int(missing.sum())} such row(s))")
    return column.astype(str)


@constraints(sparse=Flag())
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
        A missing column, a non-numeric or non-finite score, a missing respondent or item name, or a
        (respondent, item) pair given twice with different scores (the message names the first few;
        identical repeats count once: :data:`REPEATS_RULE`).

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
    finite = values.dropna()
    if (~np.isfinite(finite.to_numpy(dtype=float))).any() or (finite.abs() > np.finfo(np.float32).max).any():
        bad_value = finite[~np.isfinite(finite.to_numpy(dtype=float)) | (finite.abs() > np.finfo(np.float32).max)]
        raise ValidationError(f"{source}: column {score!r} has a value that is not a finite number (of 4-byte "
                              f"precision), e.g. {bad_value.iloc[0]!r}")
    keep = values.notna().to_numpy()
    rows_key = _names(frame[respondent][keep], "respondent", source)
    cols_key = _names(frame[item][keep], "item", source)
    scores = values.to_numpy(dtype=np.float64)[keep]
    if sparse:
        first = collapse_repeats(rows_key, cols_key, scores, source, "respondent")
        r_codes, r_names = pd.factorize(rows_key[first])
        c_codes, c_names = pd.factorize(cols_key[first])
        return _sparse(r_codes, c_codes, scores[first], r_names, c_names, source)
    return long_to_matrix(rows_key, cols_key, scores, source, respondent, item)[0]


def long_to_matrix(respondents: pd.Series, items: pd.Series, scores: np.ndarray, source: str,
                   respondent: str = "model", item: str = "item") -> tuple[pd.DataFrame, int]:
    """The one long-to-matrix converter of every command: checked pairs in, a float32 matrix out.

    Parameters
    ----------
    respondents, items : Series of str
        Each answered row's pair (no missing names, scores not NaN: the caller has checked them).
    scores : ndarray
        Each row's score.
    source : str
        What was read, for error messages.
    respondent, item : str, default "model", "item"
        The names of the matrix's index and columns.

    Returns
    -------
    matrix : DataFrame
        Respondents x items (float32, NaN unanswered; rows and columns in order of first appearance).
    collapsed : int
        How many identical repeated rows counted once (:data:`REPEATS_RULE`; differing ones raise).

    Examples
    --------
    >>> m, n = long_to_matrix(pd.Series(["a", "a", "b"]), pd.Series(["q", "q", "q"]), np.array([1.0, 1.0, 0.0]), "x")
    >>> m.to_dict("index"), n
    ({'a': {'q': 1.0}, 'b': {'q': 0.0}}, 1)
    """
    first = collapse_repeats(respondents, items, scores, source, respondent)
    r_codes, r_names = pd.factorize(respondents[first])
    c_codes, c_names = pd.factorize(items[first])
    out = np.full((len(r_names), len(c_names)), np.nan, dtype=np.float32)
    out[r_codes, c_codes] = scores[first]
    matrix = pd.DataFrame(out, index=pd.Index(r_names, name=respondent), columns=pd.Index(c_names, name=item))
    return matrix, int((~first).sum())


def _sparse(r_codes, c_codes, scores, r_names, c_names, source):
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
