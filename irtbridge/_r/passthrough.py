"""The R side of the typed passthrough (:mod:`irtbridge.mirt`, :mod:`irtbridge.ltm`): conversion and the call.

Python values become R objects by the rules of :func:`to_r_value`, R values come back by those of
:func:`to_py_value`; the call itself runs ``irtb_pass_call`` (``R/irtb_passthrough.R``) through the
envelope of :mod:`irtbridge._r.session`, which turns R errors into :class:`~irtbridge.exceptions.RError`
and R warnings into :class:`~irtbridge.exceptions.RWarning`. The package and function names and every
argument travel as R objects: nothing here becomes R source.

This module knows no irtbridge result types: :mod:`irtbridge._rfunctions` (above the calibration layer)
swaps a ``Calibration`` for its ``r_model`` before the call and turns returned mirt models into results.
"""

from __future__ import annotations

import difflib
import warnings
from collections import Counter
from typing import Any, Iterator, Mapping, Sequence, cast

import numpy as np
import pandas as pd

from irtbridge._r import session
from irtbridge._r.session import RObject
from irtbridge.exceptions import RWarning, ValidationError, find_stack_level

__all__ = ["RList", "accepted_names", "call_function", "exports", "to_py_value", "to_r_value"]

_EXPORTS: dict[str, tuple[str, ...]] = {}
# classes of R lists that are plain containers (mirt marks its printed lists "mirt_list")
_PLAIN_LISTS = {"list", "mirt_list"}
# R's NA_real_: a NaN whose low word is 1954; numpy keeps the payload through a view
_NA_REAL = np.array([0x7FF00000000007A2], dtype=np.uint64).view(np.float64)[0]


class RList(RObject):
    """An R list with a class of its own (an S3 object such as ltm's ``descript`` or mirt's ``mirt.model``).

    It stays an R object, so it can be passed back to R as it is; its elements are read by name or
    position (``obj["alpha"]``, ``obj[0]``), converted like any result; :meth:`to_py` converts all of it.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<RList of R class {'/'.join(self.r_class)}: {', '.join(k for k in self.keys() if k)}>"

    def keys(self) -> list[str | None]:
        """The element names (empty strings where R has none)."""
        with session._LOCK:
            names = session._names(self.robj)
        return names or [""] * len(self.robj)

    def __len__(self) -> int:
        return len(self.robj)

    def __iter__(self) -> Iterator[str | None]:
        return iter(self.keys())

    def __getitem__(self, key: str | int) -> Any:
        keys = self.keys()
        if isinstance(key, str):
            if key not in keys:
                raise KeyError(f"{key!r} (this R {'/'.join(self.r_class)} has: {', '.join(k for k in keys if k)})")
            key = keys.index(key)
        with session._LOCK:
            return to_py_value(self.robj[key])

    def to_py(self) -> dict[str, Any] | list[Any]:
        """Every element converted: a dict by name (a list when R gives no names)."""
        with session._LOCK:
            return _list_to_py(self.robj)


# ---------------------------------------------------------------------------------------------------
# Python -> R
#: keys of ``DataFrame.attrs`` that carry an R data.frame's other attributes and its class vector
R_ATTRIBUTES, R_CLASS = "r_attributes", "r_class"


def to_r_value(value: Any, where: str = "argument") -> Any:
    """A Python value as an R object: None -> NULL, scalars -> length-one vectors (a float NaN -> R's NaN,
    ``pandas.NA`` -> R's logical NA: mirt's ``TOL = NaN`` and ``TOL = NA``), numpy arrays -> vectors/matrices
    (NaN -> NA, a missing value), Series -> named vectors (categoricals -> factors), DataFrames ->
    data.frames (column names verbatim, a non-default index as row names), dicts -> named lists,
    lists/tuples -> vectors when of one scalar type else lists, :class:`RObject` -> the object itself.

    Raises TypeError naming ``where`` for anything else (the caller turns it into a ValidationError).
    """
    ri = session._STATE["ri"]
    if value is None or isinstance(value, RObject):
        return session.to_r(value)
    if isinstance(value, (bool, np.bool_, int, np.integer, float, np.floating, str)) or value is pd.NA:
        return session.to_r(value)  # a lone NaN is R's NaN (mirt's TOL = NaN), pandas.NA R's NA (TOL = NA)
    if isinstance(value, pd.DataFrame):
        return _data_frame(value, where)
    if isinstance(value, pd.Series):
        vec = _vector_r(value.to_numpy(), where, value.dtype)
        if not isinstance(value.index, pd.RangeIndex):
            vec = ri.baseenv["names<-"](vec, ri.StrSexpVector([str(i) for i in value.index]))
        return vec
    if isinstance(value, np.ndarray):
        if value.ndim == 2:
            return _matrix(value, where)
        if value.ndim == 1:
            return _vector_r(value, where)
        raise TypeError(f"{where}: a {value.ndim}-D array (pass 1-D or 2-D arrays)")
    if isinstance(value, Mapping):
        return session._named_list({str(k): to_r_value(v, f"{where}[{k!r}]") for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        scalar_types = (bool, np.bool_, int, np.integer, float, np.floating, str)
        if value and all(isinstance(v, scalar_types) for v in value):
            kinds = {"b" if isinstance(v, (bool, np.bool_)) else "s" if isinstance(v, str) else "n" for v in value}
            if len(kinds) == 1:
                return _vector_r(np.asarray(value), where)
        items = [to_r_value(v, f"{where}[{i}]") for i, v in enumerate(value)]
        return ri.ListSexpVector(items)
    raise TypeError(f"{where} is a {type(value).__name__}")


def _vector_r(arr: np.ndarray, where: str, dtype: Any = None) -> Any:
    ri = session._STATE["ri"]
    if isinstance(dtype, pd.CategoricalDtype):
        cat = pd.Categorical(arr, categories=dtype.categories)
        codes = ri.IntSexpVector([ri.NA_Integer if c < 0 else int(c) + 1 for c in cat.codes])
        codes = ri.baseenv["levels<-"](codes, ri.StrSexpVector([str(c) for c in dtype.categories]))
        return ri.baseenv["class<-"](codes, ri.StrSexpVector(["factor"]))
    kind = arr.dtype.kind
    if kind == "b":
        return ri.BoolSexpVector([bool(v) for v in arr])
    if kind in "iu":
        if arr.size and np.abs(arr.astype(np.float64)).max() >= 2**31 - 1:  # beyond R's integers
            return _vector_r(arr.astype(np.float64), where)
        return ri.IntSexpVector.from_memoryview(np.ascontiguousarray(arr, dtype=np.int32).data)
    if kind == "f":
        values = np.where(np.isnan(arr), _NA_REAL, arr.astype(np.float64))
        return ri.FloatSexpVector.from_memoryview(np.ascontiguousarray(values).data)
    if kind in "OUS":
        return _object_vector(arr, where)
    raise TypeError(f"{where} has dtype {arr.dtype}")


def _object_vector(arr: np.ndarray, where: str) -> Any:
    """Strings (None/NaN -> NA), or numbers/booleans held in an object array."""
    ri = session._STATE["ri"]
    present = [v for v in arr if not _missing(v)]
    if all(isinstance(v, str) for v in present):
        return ri.StrSexpVector([ri.NA_Character if _missing(v) else str(v) for v in arr])
    if all(isinstance(v, (bool, np.bool_)) for v in present):
        return ri.BoolSexpVector([ri.NA_Logical if _missing(v) else bool(v) for v in arr])
    if all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in present):
        return _vector_r(np.array([np.nan if _missing(v) else float(v) for v in arr]), where)
    bad = next(type(v).__name__ for v in present if not isinstance(v, (str, int, float, bool)))
    raise TypeError(f"{where} holds a {bad} (columns and vectors hold strings, numbers or booleans)")


def _missing(v: Any) -> bool:
    return v is None or v is pd.NA or v is pd.NaT or (isinstance(v, (float, np.floating)) and np.isnan(v))


def _matrix(value: np.ndarray, where: str) -> Any:
    ri = session._STATE["ri"]
    flat = _vector_r(np.ravel(value, order="F"), where)
    return ri.baseenv["dim<-"](flat, ri.IntSexpVector(list(value.shape)))


def _data_frame(frame: pd.DataFrame, where: str) -> Any:
    """A data.frame built from its columns directly (R's check.names never touches the names)."""
    ri = session._STATE["ri"]
    columns = [_vector_r(frame.iloc[:, j].to_numpy(), f"{where} column {frame.columns[j]!r}", frame.dtypes.iloc[j])
               for j in range(frame.shape[1])]
    out = session._named_list({str(j): col for j, col in enumerate(columns)}, names=False)
    out = ri.baseenv["names<-"](out, ri.StrSexpVector([str(c) for c in frame.columns]))
    default = isinstance(frame.index, pd.RangeIndex) and frame.index.start == 0 and frame.index.step == 1
    rows = (ri.IntSexpVector([ri.NA_Integer, -frame.shape[0]]) if default
            else ri.StrSexpVector([str(i) for i in frame.index]))
    out = ri.baseenv["attr<-"](out, ri.StrSexpVector(["row.names"]), rows)
    # a frame that came from R gets back the attributes it had there (see _frame_to_py)
    for name, value in frame.attrs.get(R_ATTRIBUTES, {}).items():
        if isinstance(value, RObject):
            out = ri.baseenv["attr<-"](out, ri.StrSexpVector([name]), value.robj)
    rclass = frame.attrs.get(R_CLASS, ["data.frame"])
    return ri.baseenv["class<-"](out, ri.StrSexpVector([str(c) for c in rclass]))


# ---------------------------------------------------------------------------------------------------
# R -> Python
def to_py_value(robj: Any) -> Any:
    """An R value as Python: data.frame -> DataFrame (row names as the index unless automatic), matrix ->
    DataFrame with dimnames, other arrays -> ndarray, named vector -> Series, unnamed vector -> ndarray
    (a scalar for length one), factor -> strings, plain list -> dict (all elements named) or list, a list
    with an S3 class -> :class:`RList`, anything else (S4 models, functions, formulas) -> :class:`RObject`.
    """
    ri = session._STATE["ri"]
    t = robj.typeof
    if t == ri.RTYPES.NILSXP:
        return None
    rclass = tuple(robj.rclass)
    if "data.frame" in rclass and t == ri.RTYPES.VECSXP:
        return _frame_to_py(robj)
    if t == ri.RTYPES.VECSXP:
        explicit = ri.baseenv["oldClass"](robj)
        if explicit.typeof != ri.RTYPES.NILSXP and not set(session._strings(explicit) or []) <= _PLAIN_LISTS:
            return RList(robj)
        return _list_to_py(robj)
    if t in (ri.RTYPES.REALSXP, ri.RTYPES.INTSXP, ri.RTYPES.LGLSXP, ri.RTYPES.STRSXP):
        return _atomic_to_py(robj)
    return RObject(robj)


def _frame_to_py(robj: Any) -> pd.DataFrame:
    ri = session._STATE["ri"]
    cols = session._names(robj) or []
    data = {}
    for i, c in enumerate(cols):
        col = robj[i]
        data[c] = session._vector(col) if col.typeof != ri.RTYPES.VECSXP else [to_py_value(x) for x in col]
    frame = pd.DataFrame(data, columns=cols)
    # automatic row names are stored as c(NA, -n) (or 1..n once touched): keep pandas' default index
    info = ri.baseenv[".row_names_info"](robj, ri.IntSexpVector([0]))
    automatic = info.typeof == ri.RTYPES.INTSXP and len(info) == 2 and info[0] == ri.NA_Integer
    rownames = session._strings(ri.baseenv["rownames"](robj)) or []
    if not automatic and not all(r == str(i + 1) for i, r in enumerate(rownames)):
        frame.index = rownames
    # attributes beyond a data.frame's own (e.g. the 'itemtype' mirt keeps on a pars = "values" table, which
    # mirt checks when the table comes back) travel in frame.attrs and are restored by _data_frame
    extra = {}
    for name in session._strings(ri.baseenv["names"](ri.baseenv["attributes"](robj))) or []:
        if name not in ("names", "row.names", "class"):
            extra[name] = RObject(ri.baseenv["attr"](robj, ri.StrSexpVector([name]), exact=ri.BoolSexpVector([True])))
    if extra:
        frame.attrs[R_ATTRIBUTES] = extra
    if tuple(robj.rclass) != ("data.frame",):
        frame.attrs[R_CLASS] = list(robj.rclass)
    return frame


def _list_to_py(robj: Any) -> dict[str, Any] | list[Any]:
    names = session._names(robj)
    items = [to_py_value(robj[i]) for i in range(len(robj))]
    if names is not None and all(names) and len(set(names)) == len(names):
        return dict(zip(cast("list[str]", names), items))  # all(names): no NA among them
    return items


def _atomic_to_py(robj: Any) -> Any:
    ri = session._STATE["ri"]
    values = session._vector(robj)
    dim = ri.baseenv["dim"](robj)
    if dim.typeof != ri.RTYPES.NILSXP:
        shape = tuple(int(d) for d in dim)
        array = values.reshape(shape, order="F")
        if len(shape) != 2:
            return array
        rows = cols = None
        dimnames = ri.baseenv["dimnames"](robj)
        if dimnames.typeof != ri.RTYPES.NILSXP:
            rows, cols = session._strings(dimnames[0]), session._strings(dimnames[1])
        return pd.DataFrame(array, index=rows, columns=cols)
    names = session._names(robj)
    if names is not None:
        return pd.Series(values, index=names)
    if len(values) == 1:
        v = values[0]
        return v.item() if isinstance(v, np.generic) else v
    return values


# ---------------------------------------------------------------------------------------------------
def exports(package: str) -> tuple[str, ...]:
    """The exported functions of an R package (asked once per process)."""
    if package not in _EXPORTS:
        session.ensure_packages(package)
        _EXPORTS[package] = tuple(str(n) for n in np.atleast_1d(session.call("irtb_pass_exports", pkg=package)))
    return _EXPORTS[package]


def accepted_names(package: str, name: str, first: Any = None) -> tuple[str, ...]:
    """The keyword names :func:`call_function` with ``check`` lets through for ``package::name(first, ...)``
    (before ``extra``): the formals of the function, or of the method R dispatches to for ``first``."""
    session.ensure_packages(package)
    return tuple(str(n) for n in np.atleast_1d(session.call("irtb_pass_accepted", pkg=package, name=name, x=first)))


def call_function(package: str, name: str, args: Sequence[Any], kwargs: Mapping[str, Any], *,
                  stacklevel: int | None = None, check: bool = False, extra: Sequence[str] = (), forward: Sequence[str] = (),
                  per_group: bool = False, label: str = "") -> Any:
    """Run ``package::name(*args, **kwargs)`` in R and return its value converted by :func:`to_py_value`.

    Argument names follow ``irtb_pass_call``'s rules (``full_scores`` reaches R as ``full.scores`` when the
    function has that argument; ``seed``). With ``check``, every keyword must name a formal argument of the
    function, or of the method R will dispatch to for the first positional argument (S4: ``selectMethod``,
    S3: ``getS3method``), or be one of ``extra`` (the names its ``...`` hands on), or name a formal of a
    function its ``...`` reaches: each of ``forward`` (the package's exports, e.g. ``fscores`` for ``itemfit``)
    and, with ``per_group`` and a multiple-group fit first, the method each group answers (a
    ``MultipleGroupClass`` method calling it on every group); otherwise nothing runs and a one-line
    :class:`ValidationError` (``label`` names the function) suggests close formal names.
    R's warnings are re-raised as :class:`RWarning` at the user's line (the first frame outside irtbridge,
    :func:`~irtbridge.exceptions.find_stack_level`; ``stacklevel`` frames up from here when given), each
    distinct one once; an R error raises :class:`RError`.
    Raises TypeError (naming the argument) for a value that cannot become an R object.
    """
    with session._LOCK, session._interruptible():
        session._start()
        session._check_pid()
        ri = session._STATE["ri"]
        values = [to_r_value(v, f"argument {i + 1}") for i, v in enumerate(args)]
        values += [to_r_value(v, f"argument {k!r}") for k, v in kwargs.items()]
        arglist = ri.ListSexpVector(values)
        if values:
            arglist = ri.baseenv["names<-"](arglist, ri.StrSexpVector([""] * len(args) + list(kwargs)))
        value, warns = _envelope(package, name, arglist, check, extra, forward, per_group)
    if isinstance(value, RList) and value.r_class == ("irtb_unknown_arguments",):
        raise ValidationError(_unknown_arguments(label or f"{package}::{name}", value["unknown"], value["formals"]))
    for w, n in Counter(warns).items():
        warnings.warn(f"R: {w}" + (f" (x{n})" if n > 1 else ""), RWarning,
                      stacklevel=find_stack_level() if stacklevel is None else stacklevel + 1)
    return value


def _unknown_arguments(label: str, unknown: Any, formals: Any) -> str:
    """The message for keywords no formal takes: the first one, with the closest formal names (compared
    with R's dots and Python's underscores alike, and case-insensitively)."""
    unknown = [str(u) for u in np.atleast_1d(unknown)]
    formals = [str(f) for f in np.atleast_1d(formals)] if formals is not None else []
    key = lambda n: n.lower().replace("_", ".")  # noqa: E731
    by_key = {key(f): f for f in formals}
    bad = unknown[0]
    close = [by_key[key(bad)]] if key(bad) in by_key else [
        by_key[k] for k in difflib.get_close_matches(key(bad), list(by_key), n=3, cutoff=0.6)]
    hint = (f"did you mean {', '.join(repr(c) for c in close)}?" if close
            else f"its arguments: {', '.join(formals[:30])}{' ...' if len(formals) > 30 else ''}")
    more = f" (also {', '.join(map(repr, unknown[1:]))})" if len(unknown) > 1 else ""
    return (f"{label} takes no argument {bad!r}{more}; {hint} (allow_extra=True passes it to R as given, "
            "for a function whose ... takes it)")


def _envelope(package: str, name: str, arglist: Any, check: bool = False, extra: Sequence[str] = (),
              forward: Sequence[str] = (), per_group: bool = False) -> tuple[Any, list[str]]:
    """One envelope call of irtb_pass_call; the value converted while the lock is still held."""
    ri = session._STATE["ri"]
    wrapped = session._named_list({"pkg": ri.StrSexpVector([package]), "name": ri.StrSexpVector([name]),
                                   "args": arglist, "check": ri.BoolSexpVector([bool(check)]),
                                   "extra": ri.StrSexpVector([str(e) for e in extra]),
                                   "forward": ri.StrSexpVector([str(f) for f in forward]),
                                   "per_group": ri.BoolSexpVector([bool(per_group)])})
    out = session._STATE["envelope"](ri.StrSexpVector(["irtb_pass_call"]), wrapped)
    parts = dict(zip(cast("list[str]", session._names(out)), [out[i] for i in range(len(out))]))  # the envelope's names
    warns = cast("list[str]", session._strings(parts["warnings"]) or [])  # R's warning messages are never NA
    if not bool(parts["ok"][0]):
        session._raise_r_error(parts, warns)
    return to_py_value(parts["value"]), warns
