"""Input checks shared by every module.

Each check raises :class:`~irtbridge.exceptions.ValidationError` with a message that names the
parameter (or file and column), shows the bad value, and says what would be accepted.
"""

from __future__ import annotations

import csv
import json
import numbers
import os
import re
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd

from irtbridge._outdir import ctrl_c_noted
from irtbridge.exceptions import ValidationError

__all__ = [
    "check_bool",
    "check_choice",
    "check_number",
    "check_int",
    "check_probability",
    "check_random_state",
    "check_seed",
    "check_binary_labels",
    "check_scores",
    "check_same_length",
    "as_response_matrix",
    "read_csv",
    "read_text",
    "read_json",
    "require_columns",
    "constant_items",
    "numeric_table",
]


def show_value(value: Any, limit: int = 60) -> str:
    """A value as an error message shows it: a short repr on one line; tables and arrays by type and
    shape, long containers by type and length (never a whole object)."""
    shape = getattr(value, "shape", None)
    if shape is not None and not isinstance(value, (numbers.Number, np.generic)):
        dims = " x ".join(map(str, tuple(shape)))
        return f"a {type(value).__name__} of shape ({dims})"
    text = " ".join(repr(value).split())
    if len(text) > limit and isinstance(value, (list, tuple, dict, set, frozenset)):
        return f"a {type(value).__name__} of length {len(value)}"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_choice(value: Any, name: str, choices: Iterable[str], *, ignore_case: bool = False) -> str:
    """Return ``value`` if it is one of ``choices`` (the canonical spelling when ``ignore_case``)."""
    choices = list(choices)
    if isinstance(value, str):
        if value in choices:
            return value
        if ignore_case:
            folded = {c.lower(): c for c in choices}
            if value.lower() in folded:
                return folded[value.lower()]
    raise ValidationError(f"{name}={show_value(value)} is not supported; use one of {', '.join(map(repr, choices))}")


def check_bool(value: Any, name: str) -> bool:
    """Return ``value`` as a bool if it is True or False (a numpy bool included)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValidationError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_number(
    value: Any,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    allow_inf: bool = False,
) -> float:
    """Return ``value`` as a float after checking it is a real number inside the given bounds."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValidationError(f"{name} must be a number, got {show_value(value)}")
    x = float(value)
    if np.isnan(x) or (np.isinf(x) and not allow_inf):
        raise ValidationError(f"{name} must be a finite number, got {x}")
    if low is not None and (x < low or (low_open and x == low)):
        raise ValidationError(f"{name} must be {'>' if low_open else '>='} {low}, got {x}")
    if high is not None and (x > high or (high_open and x == high)):
        raise ValidationError(f"{name} must be {'<' if high_open else '<='} {high}, got {x}")
    return x


def check_int(value: Any, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` as an int after checking it is a whole number inside ``[low, high]`` (a bool is not)."""
    if isinstance(value, (bool, np.bool_)):
        raise ValidationError(f"{name} must be a whole number, got {value!r}")
    if not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and float(value).is_integer():
            value = int(value)
        else:
            raise ValidationError(f"{name} must be a whole number, got {show_value(value)}")
    v = int(value)
    if low is not None and v < low:
        raise ValidationError(f"{name} must be >= {low}, got {v}")
    if high is not None and v > high:
        raise ValidationError(f"{name} must be <= {high}, got {v}")
    return v


def check_probability(value: Any, name: str, *, open_interval: bool = False) -> float:
    """Return ``value`` as a float in [0, 1] (or (0, 1) when ``open_interval``)."""
    return check_number(value, name, low=0.0, high=1.0, low_open=open_interval, high_open=open_interval)


#: the largest seed numpy and scikit-learn share (``random_state`` < 2**32)
SEED_MAX = 2**32 - 1
#: the largest seed R's ``set.seed`` takes (a 32-bit signed integer): seeds that reach R, and every ``--seed``
R_SEED_MAX = 2**31 - 1


def check_seed(seed: Any, name: str = "seed", *, allow_none: bool = False, high: int = SEED_MAX) -> int | None:
    """Return ``seed`` as an int: a whole number from 0 to ``high`` (``None`` too when ``allow_none``).

    The one seed check of the house: every ``seed``/``random_state`` keyword and every ``--seed`` flag says
    the same thing for a negative, fractional, boolean or text seed, in one line naming the argument.
    ``high`` is :data:`SEED_MAX` for numpy and scikit-learn, :data:`R_SEED_MAX` for a seed that reaches R.

    Examples
    --------
    >>> check_seed(7), check_seed(7.0)
    (7, 7)
    >>> check_seed(-1, "--seed", high=R_SEED_MAX)
    Traceback (most recent call last):
    ...
    irtbridge.exceptions.ValidationError: --seed must be a whole number from 0 to 2147483647, got -1
    """
    if seed is None and allow_none:
        return None
    whole = (isinstance(seed, numbers.Integral)
             or (isinstance(seed, numbers.Real) and np.isfinite(float(seed)) and float(seed).is_integer()))
    if isinstance(seed, (bool, np.bool_)) or not whole or not 0 <= int(seed) <= high:
        none = "None or " if allow_none else ""
        raise ValidationError(f"{name} must be {none}a whole number from 0 to {high}, got {show_value(seed)}")
    return int(seed)


def check_random_state(seed: Any, name: str = "random_state") -> np.random.Generator:
    """Turn ``None``, a seed (:func:`check_seed`), a SeedSequence or a Generator into a
    :class:`numpy.random.Generator`."""
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.SeedSequence) or seed is None:
        return np.random.default_rng(seed)
    try:
        return np.random.default_rng(check_seed(seed, name))
    except ValidationError:
        raise ValidationError(f"{name} must be None, a whole number from 0 to {SEED_MAX} or a numpy Generator, "
                              f"got {show_value(seed)}") from None


def _as_1d_float(values: Any, name: str) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValidationError(f"{name} must be numeric; it holds values that are not numbers") from None
    if arr.ndim != 1:
        raise ValidationError(f"{name} must be one-dimensional, got shape {arr.shape}")
    return arr


def check_binary_labels(y: Any, name: str = "y") -> np.ndarray:
    """Return ``y`` as an int array of 0/1 labels; anything else is an error naming the bad values."""
    arr = _as_1d_float(y, name)
    if arr.size == 0:
        raise ValidationError(f"{name} is empty")
    if np.isnan(arr).any():
        raise ValidationError(f"{name} has {int(np.isnan(arr).sum())} missing value(s); labels must be 0 or 1")
    bad = np.setdiff1d(np.unique(arr), [0.0, 1.0])
    if bad.size:
        shown = ", ".join(f"{v:.6g}" for v in bad[:5]) + (", ..." if bad.size > 5 else "")
        raise ValidationError(f"{name} must hold only the labels 0 and 1, found {bad.size} other value(s): {shown}")
    return arr.astype(np.int8)


def check_scores(scores: Any, name: str = "scores", *, low: float = 0.0, high: float = 1.0) -> np.ndarray:
    """Return ``scores`` as a float array with every value finite and inside ``[low, high]``."""
    arr = np.asarray(_as_1d_float(np.ravel(scores), name)).reshape(np.shape(scores))
    if arr.size == 0:
        raise ValidationError(f"{name} is empty")
    if not np.isfinite(arr).all():
        raise ValidationError(f"{name} has {int((~np.isfinite(arr)).sum())} missing or infinite value(s)")
    if arr.min() < low or arr.max() > high:
        raise ValidationError(f"{name} must lie in [{low}, {high}], found values from {arr.min():g} to {arr.max():g}")
    return arr


def check_same_length(*pairs: tuple[str, Sequence[Any] | np.ndarray]) -> int:
    """Check that every named sequence has the same length and return it."""
    lengths = {name: len(v) for name, v in pairs}
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{k} has {v}" for k, v in lengths.items())
        raise ValidationError(f"lengths differ: {detail}")
    return next(iter(lengths.values()))


def numeric_table(
    data: Any,
    name: str,
    *,
    column: str = "item",
    rows: str = "respondents",
    allow_bool: bool = True,
    hint: str = "NaN for missing",
) -> tuple[np.ndarray, list[str], pd.Index | None]:
    """Check a 2-D numeric table (DataFrame or array) and return ``(values, column_names, row_index)``.

    ``values`` is a float64 C-contiguous copy; array input gets names ``Item1..`` (``column`` title-cased
    plus a number) and no index. Duplicate names and non-numeric columns are errors naming them.
    """
    if isinstance(data, pd.DataFrame):
        names = [str(c) for c in data.columns]
        if len(set(names)) != len(names):
            dup = sorted({n for n in names if names.count(n) > 1})
            raise ValidationError(f"{name} has duplicate {column} names: {', '.join(map(repr, dup))}")

        def numeric(dt) -> bool:
            is_bool = pd.api.types.is_bool_dtype(dt)
            return (pd.api.types.is_numeric_dtype(dt) and not is_bool) or (allow_bool and is_bool)

        bad = [str(c) for c, dt in data.dtypes.items() if not numeric(dt)]
        if bad:
            raise ValidationError(
                f"{name} has non-numeric column(s) {', '.join(map(repr, bad[:5]))}; every {column} must hold numbers ({hint})"
            )
        values = data.to_numpy(dtype=float, na_value=np.nan)
        index = data.index
    else:
        try:
            values = np.array(data, dtype=float)
        except (TypeError, ValueError):
            raise ValidationError(f"{name} holds non-numeric cells; every {column} must hold numbers ({hint})") from None
        if values.ndim != 2:
            raise ValidationError(f"{name} must be two-dimensional ({rows} x {column}s), got shape {values.shape}")
        names = [f"{column.title()}{j + 1}" for j in range(values.shape[1])]
        index = None
    return np.ascontiguousarray(values, dtype=float), names, index


def as_response_matrix(
    data: Any,
    name: str = "responses",
    *,
    dichotomous: bool = False,
    min_items: int = 2,
    allow_constant: bool = True,
) -> tuple[np.ndarray, list[str], pd.Index | None]:
    """Check a respondents x items matrix and return ``(values, item_names, row_index)``.

    ``values`` is a float64 C-contiguous copy with NaN for missing. ``row_index`` is the DataFrame's
    index (``None`` for array input) so results can be labelled like the input.
    """
    values, names, index = numeric_table(data, name)
    if values.size == 0:
        raise ValidationError(f"{name} is empty (shape {values.shape})")
    if values.shape[1] < min_items:
        raise ValidationError(f"{name} has {values.shape[1]} item(s); at least {min_items} are needed")
    if np.isinf(values).any():
        raise ValidationError(f"{name} has infinite values; use NaN for missing responses")
    missing = np.isnan(values)
    empty_cols = [names[j] for j in np.flatnonzero(missing.all(axis=0))]
    if empty_cols:
        raise ValidationError(f"{name}: item(s) {', '.join(map(repr, empty_cols[:10]))} have no responses (all missing)")
    empty_rows = np.flatnonzero(missing.all(axis=1))
    if empty_rows.size:
        labels = list(index[empty_rows[:10]]) if index is not None else (empty_rows[:10] + 1).tolist()
        raise ValidationError(f"{name}: respondent(s) {labels} have no responses (all missing); drop those rows")
    if dichotomous:
        bad = ~missing & (values != 0) & (values != 1)
        if bad.any():
            cols = [names[j] for j in np.flatnonzero(bad.any(axis=0))]
            example = values[bad][0]
            raise ValidationError(
                f"{name}: dichotomous models need 0/1 responses (NaN for missing); "
                f"item(s) {', '.join(map(repr, cols[:10]))} hold other values (e.g. {example:g})"
            )
    elif (~missing & (values != np.round(values))).any():
        cols = [names[j] for j in np.flatnonzero((~missing & (values != np.round(values))).any(axis=0))]
        raise ValidationError(f"{name}: item(s) {', '.join(map(repr, cols[:10]))} hold non-integer categories")
    if not allow_constant:
        const = constant_items(values, names)
        if const:
            raise ValidationError(
                f"{name}: item(s) {', '.join(map(repr, const[:10]))} are answered the same way by every respondent "
                "and carry no information; pass drop_constant=True to drop them with a warning"
            )
    return values, names, index


def constant_items(values: np.ndarray, names: Sequence[str]) -> list[str]:
    """Names of the columns whose observed values are all equal."""
    with np.errstate(invalid="ignore"):
        lo = np.nanmin(values, axis=0)
        hi = np.nanmax(values, axis=0)
    return [names[j] for j in np.flatnonzero(lo == hi)]


def not_utf8(path: str | os.PathLike, what: str = "input") -> ValidationError:
    """The one-line error for a file that is not UTF-8 text, naming the file, the line and the column of its
    first byte that is not (read again from the bytes: a decoder reading in chunks knows no line)."""
    path = os.fspath(path)
    with open(path, "rb") as fh:
        data = fh.read()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return ValidationError(f"{what} file {path!r} is not UTF-8 text: line {line}, column {column} holds the byte "
                               f"0x{data[exc.start]:02x}; save the file as UTF-8")
    return ValidationError(f"{what} file {path!r} is not UTF-8 text; save the file as UTF-8")


def read_text(path: str | os.PathLike, what: str = "input") -> str:
    """The text of a UTF-8 file, a byte-order mark at its start left out (as :func:`read_csv` reads CSV).

    A missing file, a folder, or a byte that is not UTF-8 is a one-line :class:`ValidationError` naming the
    file (and for the byte, its line and column).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "bom.json"
    >>> _ = path.write_bytes(b'\\xef\\xbb\\xbf{"a": 1}')
    >>> read_json(path)
    {'a': 1}
    >>> _ = path.write_bytes(b'{"a":\\n "caf\\xe9"}')
    >>> read_json(path, "bank")
    Traceback (most recent call last):
    ...
    irtbridge.exceptions.ValidationError: bank file '...bom.json' is not UTF-8 text: line 2, column 6 holds the byte 0xe9; ...
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise ValidationError(f"{what} file {path!r} does not exist")
    if os.path.isdir(path):
        raise ValidationError(f"{what} file {path!r} is a directory, not a file")
    try:
        with open(path, encoding="utf-8-sig") as fh:
            return fh.read()
    except UnicodeDecodeError:
        raise not_utf8(path, what) from None
    except OSError as exc:
        raise ValidationError(f"{what} file {path!r}: {exc.strerror or exc}") from None


def read_json(path: str | os.PathLike, what: str = "input") -> Any:
    """A JSON file's value, read by :func:`read_text` (a BOM accepted); invalid JSON is a one-line
    :class:`ValidationError` naming the file, the line and the column."""
    text = read_text(path, what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValidationError(f"{what} file {os.fspath(path)!r} is not valid JSON: {exc.msg} (line {exc.lineno}, "
                              f"column {exc.colno})") from None


def _header(path: str, what: str) -> tuple[list[str], str]:
    """The header fields and the delimiter: ',' unless the header only makes sense split by ';' or a tab."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            first = fh.readline()
    except UnicodeDecodeError:
        raise not_utf8(path, what) from None
    first = first.rstrip("\r\n")
    delimiter = ","
    if "," not in first:
        if ";" in first:
            delimiter = ";"
        elif "\t" in first:
            delimiter = "\t"
    fields: list[str] = next(csv.reader([first], delimiter=delimiter), [])
    return [f.strip() for f in fields], delimiter


def csv_header(path: str | os.PathLike, what: str = "input") -> list[str]:
    """The column names of a CSV file, read from its header alone (the errors of :func:`read_csv`).

    For checks that must come before any work, such as a target column named on the command line.
    """
    path = os.fspath(path)
    if not os.path.isfile(path) or os.path.getsize(path) == 0:
        return list(read_csv(path, what).columns)  # raises read_csv's own one-line error
    return list(_header(path, what)[0])


# numeric-looking fields, by decimal mark (an optional sign and exponent; no thousands separators)
_DOT_NUMBER = re.compile(r"[+-]?(\d+\.\d*|\.\d+)([eE][+-]?\d+)?")
_COMMA_NUMBER = re.compile(r"[+-]?\d*,\d+([eE][+-]?\d+)?")
_SAMPLE_LINES = 5000


def _decimal_mark(path: str, delimiter: str, header: list[str], what: str) -> str:
    """The decimal mark of a file: ``.`` for comma-separated files; for ``;`` or tab files, the mark its
    numeric-looking fields use (first lines read), ``.`` when none has a fractional part."""
    if delimiter == ",":
        return "."
    seen: dict[str, tuple[int, str]] = {}
    with open(path, encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh, delimiter=delimiter)
        next(reader, None)
        for line, row in enumerate(reader, start=2):
            for j, value in enumerate(row):
                text = value.strip()
                for mark, pattern in ((".", _DOT_NUMBER), (",", _COMMA_NUMBER)):
                    if mark not in seen and pattern.fullmatch(text):
                        seen[mark] = (line, header[j] if j < len(header) else f"#{j + 1}")
            if len(seen) == 2 or line > _SAMPLE_LINES:
                break
    if len(seen) == 2:
        (dl, dc), (cl, cc) = seen["."], seen[","]
        raise ValidationError(
            f"{what} file {path!r} writes decimals both with '.' (line {dl}, column {dc!r}) and with ',' "
            f"(line {cl}, column {cc!r}); use one decimal mark throughout"
        )
    return "," if "," in seen else "."


def read_csv(path: str | os.PathLike, what: str = "input") -> pd.DataFrame:
    """Read a CSV file; a missing, empty or unparsable file is a :class:`ValidationError` naming it.

    The header is read first: repeated column names are an error naming them (pandas would rename them
    silently to ``a``, ``a.1``), and a header that only splits on ``;`` (or a tab) is read as a
    semicolon-separated (tab-separated) file. The decimal mark is read from the numbers themselves,
    never guessed from the delimiter: in a semicolon or tab file, numeric-looking fields such as ``0,5``
    make ``,`` the decimal mark, fields such as ``0.5`` make it ``.``; a file that uses both is a
    one-line error naming a line and column of each. A comma-separated file always uses ``.``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "dot.csv").write_text("a;b\\n1;0.25\\n0;1.5\\n")
    >>> read_csv(folder / "dot.csv")["b"].tolist()
    [0.25, 1.5]
    >>> _ = (folder / "comma.csv").write_text("a;b\\n1;0,25\\n0;1,5\\n")
    >>> read_csv(folder / "comma.csv")["b"].tolist()
    [0.25, 1.5]
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise ValidationError(f"{what} file {path!r} does not exist")
    if os.path.isdir(path):
        raise ValidationError(f"{what} file {path!r} is a directory, not a CSV file")
    if os.path.getsize(path) == 0:
        raise ValidationError(f"{what} file {path!r} is empty")
    fields, delimiter = _header(path, what)
    seen: dict[str, int] = {}
    for f in fields:
        seen[f] = seen.get(f, 0) + 1
    repeated = [f for f, n in seen.items() if n > 1 and f]
    if repeated:
        raise ValidationError(
            f"{what} file {path!r} repeats column name(s) {', '.join(map(repr, repeated[:10]))} in its header; "
            "every column needs its own name"
        )
    options = {"sep": delimiter, "decimal": _decimal_mark(path, delimiter, fields, what)}
    interrupted: list[int] = []
    try:
        with ctrl_c_noted(interrupted):
            frame = pd.read_csv(path, **options)
    except pd.errors.EmptyDataError:
        raise ValidationError(f"{what} file {path!r} is empty") from None
    except UnicodeDecodeError:
        if interrupted:
            raise KeyboardInterrupt from None
        raise not_utf8(path, what) from None
    except pd.errors.ParserError as exc:
        if interrupted:  # pandas' C reader turns a Ctrl-C during its read() into a ParserError: give it back
            raise KeyboardInterrupt from None
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ValidationError(f"{what} file {path!r} is not a readable CSV file: {first}") from None
    if frame.shape[0] == 0:
        raise ValidationError(f"{what} file {path!r} has a header but no rows")
    return frame


def require_columns(frame: pd.DataFrame, columns: Iterable[str], source: str) -> None:
    """Raise if any of ``columns`` is not in ``frame``; ``source`` names the file or table."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValidationError(
            f"{source} has no column(s) {', '.join(map(repr, missing))}; "
            f"its columns are {', '.join(map(repr, map(str, frame.columns[:20])))}"
        )
