"""Lazy embedded R session: start, lock, fork guard, conversion and the call envelope."""

from __future__ import annotations

import os
import signal
import threading
import warnings
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, cast

import numpy as np
import pandas as pd

from irtbridge.exceptions import (
    RError,
    find_stack_level,
    one_line,
    RPackageMissingError,
    RSessionForkedError,
    RUnavailableError,
    RWarning,
)

R_SOURCE_DIR = Path(__file__).resolve().parent / "R"

# One re-entrant lock for every R call: R is single-threaded, so irtbridge is thread-safe (calls from
# threads queue here) but never thread-parallel. Parallel work uses spawned processes, one R each.
_LOCK = threading.RLock()
_STATE: dict[str, Any] = {}


class RObject:
    """An opaque handle to a live R object (e.g. a fitted mirt model).

    It is valid only in the process that created it and is never pickled.
    """

    __slots__ = ("_robj", "r_class")

    def __init__(self, robj: Any):
        self._robj = robj
        self.r_class = tuple(robj.rclass)

    def __repr__(self) -> str:
        return f"<RObject of R class {'/'.join(self.r_class) or '?'}>"

    def __reduce__(self):
        raise TypeError("an R object handle cannot be pickled; results drop it when they travel")

    @property
    def robj(self) -> Any:
        """The rpy2 object itself (for experts; only in the process that made it)."""
        _check_pid()
        return self._robj


def started() -> bool:
    """Whether R has been started in this process."""
    return "env" in _STATE


def _check_pid() -> None:
    pid = _STATE.get("pid")
    if pid is not None and pid != os.getpid():
        raise RSessionForkedError(
            f"R was started in process {pid} and this is a forked child ({os.getpid()}); R cannot be used "
            "after a fork. Use the 'spawn' start method (multiprocessing.get_context('spawn')) so each "
            "worker starts its own R."
        )


def _start() -> Any:
    """Start R (once per process) and load the irtb_*.R helpers into their own environment."""
    if "env" in _STATE:
        _check_pid()
        return _STATE["env"]
    try:
        import rpy2.rinterface as ri  # rpy2 (and R) load when R starts
    except Exception as exc:  # ImportError, or R's shared library failing to load
        raise RUnavailableError(
            f"R is not available from this Python ({type(exc).__name__}: {exc}). irtbridge needs R and rpy2 "
            "for calibration; run `make setup` (or install R and `pip install irtbridge[r]`)."
        ) from exc
    # Without TZ, R asks timedatectl for the zone and warns where systemd is absent (containers, CI):
    # when TZ is unset, set it to UTC before R starts.
    os.environ.setdefault("TZ", "UTC")
    # rpy2 replaces the SIGINT handler with one that raises inside its C callbacks, where the exception is
    # only printed ("Exception ignored from cffi callback") and R goes on. Keep the process's own handler
    # instead: a worker keeps ignoring SIGINT (its parent owns Ctrl-C), and a call in the main thread
    # installs _on_sigint for its duration (see _interruptible).
    previous = signal.getsignal(signal.SIGINT) if _main_thread() else None
    ri.initr_simple()
    if previous is not None:
        signal.signal(signal.SIGINT, previous)
    env = ri.baseenv["new.env"](parent=ri.globalenv)
    for path in sorted(R_SOURCE_DIR.glob("irtb_*.R")):
        ri.baseenv["sys.source"](ri.StrSexpVector([str(path)]), envir=env)
    _STATE.update(env=env, ri=ri, envelope=env.find("irtb_call"), pid=os.getpid())
    return env


# Conversion works on rpy2's low-level interface only: no conversion rules (which rpy2 keeps per thread
# in a context variable), no pandas2ri (~60x slower than a buffer copy), numeric matrices as one
# memoryview copy each way, names and dimnames put back explicitly.

# ---------------------------------------------------------------------------------------------------
# Python -> R
def to_r(value: Any) -> Any:
    """Convert a Python value to an R object (numeric matrices by one buffer copy)."""
    ri = _STATE["ri"]
    if value is None:
        return ri.NULL
    if isinstance(value, RObject):
        return value.robj
    if isinstance(value, (bool, np.bool_)):
        return ri.BoolSexpVector([bool(value)])
    if isinstance(value, (int, np.integer)):
        return ri.IntSexpVector([int(value)])
    if isinstance(value, (float, np.floating)):
        return ri.FloatSexpVector([float(value)])  # a NaN stays R's NaN (mirt's TOL = NaN)
    if isinstance(value, str):
        return ri.StrSexpVector([value])
    if value is pd.NA:  # R's NA (logical, as R's bare NA: mirt's TOL = NA)
        return ri.BoolSexpVector([ri.NA_Logical])
    if isinstance(value, Mapping):
        return _named_list({str(k): to_r(v) for k, v in value.items()})
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fiub" and value.ndim == 2:
            column_major = np.ravel(np.asarray(value, dtype=np.float64), order="F")
            vec = ri.FloatSexpVector.from_memoryview(column_major.data)
            return ri.baseenv["dim<-"](vec, ri.IntSexpVector(list(value.shape)))
        if value.ndim == 1:
            return to_r(value.tolist())
        raise TypeError(f"cannot pass an array of dtype {value.dtype} and shape {value.shape} to R")
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, (bool, np.bool_)) for v in value):
            return ri.BoolSexpVector([bool(v) for v in value])
        if value and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
            return ri.IntSexpVector([int(v) for v in value])
        if value and all(isinstance(v, (int, float, np.integer, np.floating)) for v in value):
            return ri.FloatSexpVector([float(v) for v in value])
        if value and all(isinstance(v, str) for v in value):
            return ri.StrSexpVector(list(value))
        return _named_list({str(i): to_r(v) for i, v in enumerate(value)}, names=False)
    raise TypeError(f"cannot pass a {type(value).__name__} to R")


def _named_list(items: Mapping[str, Any], names: bool = True) -> Any:
    """An R list built from R objects directly."""
    ri = _STATE["ri"]
    lst = ri.ListSexpVector(list(items.values()))
    if names and items:
        lst = ri.baseenv["names<-"](lst, ri.StrSexpVector(list(items)))
    return lst


# ---------------------------------------------------------------------------------------------------
# R -> Python
def _strings(robj: Any) -> list[str | None] | None:
    """A character vector as a list (NA -> None). A long one with few distinct values (a data set's text
    columns) crosses as its distinct strings and R's ``match`` codes: rpy2 reads strings one at a time."""
    ri = _STATE["ri"]
    if robj.typeof == ri.RTYPES.NILSXP:
        return None

    def each(vector: Any) -> list[str | None]:
        return [None if x is ri.NA_Character else str(x) for x in vector]

    if len(robj) > 1000:
        distinct = ri.baseenv["unique"](robj)
        if 4 * len(distinct) < len(robj):
            codes = np.array(ri.baseenv["match"](robj, distinct).memoryview(), dtype=np.int64).ravel()
            return np.array(each(distinct), dtype=object)[codes - 1].tolist()
    return each(robj)


def _names(robj: Any) -> list[str | None] | None:
    return _strings(_STATE["ri"].baseenv["names"](robj))


def to_py(robj: Any) -> Any:
    """Convert an R value to plain Python: matrices with dimnames to DataFrames, data.frames to
    DataFrames, named vectors to dicts, length-one unnamed vectors to scalars, NA to NaN/None; model
    objects (S4, ltm lists) to :class:`RObject` handles."""
    ri = _STATE["ri"]
    t = robj.typeof
    if t == ri.RTYPES.NILSXP:
        return None
    rclass = tuple(robj.rclass)
    if t == ri.RTYPES.S4SXP or any(c in _MODEL_CLASSES for c in rclass):
        return RObject(robj)
    if "data.frame" in rclass:
        cols = _names(robj) or []
        rownames = _strings(ri.baseenv["rownames"](robj)) or []
        frame = pd.DataFrame({c: _vector(robj[i]) for i, c in enumerate(cols)})
        if not all(r == str(i + 1) for i, r in enumerate(rownames)):
            frame.index = rownames
        return frame
    if t == ri.RTYPES.VECSXP:
        names = _names(robj)
        items = [robj[i] for i in range(len(robj))]
        if names is None:
            return [to_py(x) for x in items]
        return {n: to_py(x) for n, x in zip(names, items)}
    if t in (ri.RTYPES.REALSXP, ri.RTYPES.INTSXP, ri.RTYPES.LGLSXP, ri.RTYPES.STRSXP):
        dim = ri.baseenv["dim"](robj)
        if dim.typeof != ri.RTYPES.NILSXP and len(dim) == 2:
            n, m = int(dim[0]), int(dim[1])
            arr = _vector(robj)
            arr = np.asarray(arr, dtype=float if t != ri.RTYPES.STRSXP else object).reshape((n, m), order="F")
            row_names = col_names = None
            dimnames = ri.baseenv["dimnames"](robj)
            if dimnames.typeof != ri.RTYPES.NILSXP:
                row_names, col_names = _strings(dimnames[0]), _strings(dimnames[1])
            return pd.DataFrame(arr, index=row_names, columns=col_names)
        values = _vector(robj)
        names = _names(robj)
        if names is not None:
            return dict(zip(names, values.tolist()))
        if len(values) == 1:
            v = values[0]
            return v.item() if isinstance(v, np.generic) else v
        return values
    return RObject(robj)


_MODEL_CLASSES = ("ltm", "rasch", "tpm", "grm", "gpcm", "SingleGroupClass", "MultipleGroupClass")


def _vector(robj: Any) -> np.ndarray:
    """An atomic R vector as a numpy array (copied out of R's memory); NA becomes NaN or None."""
    ri = _STATE["ri"]
    t = robj.typeof
    if t == ri.RTYPES.REALSXP:
        return np.array(robj.memoryview(), dtype=np.float64, copy=True).ravel(order="F")
    if t == ri.RTYPES.INTSXP:
        raw = np.array(robj.memoryview(), dtype=np.int64, copy=True).ravel(order="F")
        na = raw == ri.NA_Integer
        if "factor" in tuple(robj.rclass):
            levels = np.array((_strings(ri.baseenv["levels"](robj)) or []) + [None], dtype=object)
            return levels[np.where(na, len(levels) - 1, raw - 1)]
        return np.where(na, np.nan, raw) if na.any() else raw
    if t == ri.RTYPES.LGLSXP:
        raw = np.array(robj.memoryview(), dtype=np.int64, copy=True).ravel(order="F")
        na = raw == ri.NA_Logical
        if na.any():
            return np.array([None if m else bool(x) for x, m in zip(raw, na)], dtype=object)
        return raw.astype(bool)
    if t == ri.RTYPES.STRSXP:
        return np.array(_strings(robj), dtype=object)
    return np.array([to_py(x) for x in robj], dtype=object)


# ---------------------------------------------------------------------------------------------------
def call(fun: str, /, *, keep: Iterable[str] = (), **kwargs: Any) -> Any:
    """Run the R helper ``fun`` (defined in ``irtbridge/_r/R/irtb_*.R``) with keyword arguments and return its value.

    Arguments are converted with :func:`to_r` and passed as one R list: no Python string ever becomes R
    source. R warnings are re-raised as :class:`RWarning` here, at the call that caused them; an R error
    becomes :class:`RError` with R's message.
    """
    with _LOCK, _interruptible():
        _start()
        _check_pid()
        value, warns = _call_locked(fun, kwargs)
    # R often repeats one warning many times in a fit (e.g. "NaNs produced"): say each once, with a count
    for w, n in Counter(warns).items():
        warnings.warn(f"R: {w}" + (f" (x{n})" if n > 1 else ""), RWarning, stacklevel=find_stack_level())
    return value


def source_file(path: str | Path) -> None:
    """Source an R file into the bridge's environment, so that :func:`call` can run its functions.

    For tests and extensions that bring their own R helpers; the path reaches R as a string object, never
    as R source.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"R source file not found: {path}")
    with _LOCK:
        env = _start()
        _check_pid()
        ri = _STATE["ri"]
        ri.baseenv["sys.source"](ri.StrSexpVector([str(path.resolve())]), envir=env)


_INTERRUPT = {"pending": False}


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _on_sigint(signum: int, frame: Any) -> None:  # noqa: ARG001
    """Ctrl-C while R evaluates: ask R to stop (R checks the flag at its next interrupt check, which
    calls back into Python, where this handler runs) and remember to raise KeyboardInterrupt after."""
    _INTERRUPT["pending"] = True
    if "ri" in _STATE:
        from rpy2.rinterface_lib import callbacks, openrlib  # rpy2 (and R) load when R starts

        # R answers an interrupt by printing a newline to its error console, which rpy2 would show as
        # "R[write to console]:": mute it for the rest of this call (restored by _interruptible)
        _INTERRUPT.setdefault("console", callbacks.consolewrite_warnerror)
        callbacks.consolewrite_warnerror = lambda text: None
        openrlib.rlib.R_interrupts_pending = 1


@contextmanager
def _interruptible() -> Iterator[None]:
    """Make Ctrl-C stop R's evaluation in the main thread and surface as KeyboardInterrupt.

    Only where Python's own handler is installed (the main thread of a process that has not chosen to
    ignore SIGINT, as workers do); nested calls keep the outer handler.
    """
    if not _main_thread() or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    _INTERRUPT["pending"] = False
    signal.signal(signal.SIGINT, _on_sigint)
    try:
        yield
    except Exception:
        if _INTERRUPT["pending"]:
            raise KeyboardInterrupt from None
        raise
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        if "console" in _INTERRUPT:
            from rpy2.rinterface_lib import callbacks  # rpy2 (and R) load when R starts

            callbacks.consolewrite_warnerror = _INTERRUPT.pop("console")
    if _INTERRUPT["pending"]:
        raise KeyboardInterrupt


def _call_locked(fun: str, kwargs: dict[str, Any]) -> tuple[Any, list[str]]:
    """Run one envelope call (the caller holds the lock); return the value and R's warnings."""
    ri = _STATE["ri"]
    args = _named_list({k: to_r(v) for k, v in kwargs.items()})
    out = _STATE["envelope"](ri.StrSexpVector([fun]), args)
    parts = dict(zip(cast("list[str]", _names(out)), [out[i] for i in range(len(out))]))  # the envelope's names
    warns = cast("list[str]", _strings(parts["warnings"]) or [])  # R's warning messages are never NA
    if not bool(parts["ok"][0]):
        _raise_r_error(parts, warns)
    value = to_py(parts["value"])
    return value, warns


def _raise_r_error(parts: Mapping[str, Any], warns: list[str]) -> None:
    """The envelope's failed result as :class:`RError` (R's message, condition classes, call)."""
    message = str(parts["error"][0])
    rclass = tuple(cast("list[str]", _strings(parts["error_class"]) or []))  # class names are never NA
    rcall = str(parts["call"][0]) if len(parts["call"]) else ""
    where = f" in {rcall}" if rcall else ""
    # one line (R's messages often span several); r_message keeps R's own text
    err = RError(f"R error{where}: {one_line(message)}", r_message=message, r_class=rclass, call=rcall)
    err.r_warnings = warns
    raise err


_PACKAGES_OK: set[str] = set()


def ensure_packages(*packages: str) -> None:
    """Raise :class:`RPackageMissingError` unless every named R package is installed."""
    todo = [p for p in packages if p not in _PACKAGES_OK]
    if not todo:
        return
    versions = call("irtb_versions", packages=list(todo))["packages"]
    for p in todo:
        v = versions.get(p)
        if v is None or (isinstance(v, float) and np.isnan(v)):
            raise RPackageMissingError(
                p,
                f"R package {p!r} is not installed. Install the pinned version with `make setup` "
                f"(runs `Rscript r/install.R`), or in R: install.packages({p!r}).",
            )
        _PACKAGES_OK.add(p)


def r_versions(packages: Iterable[str]) -> dict[str, Any]:
    """R's version and the installed version (or None) of each package."""
    out = call("irtb_versions", packages=list(packages))
    pk = {k: (None if v is None or (isinstance(v, float) and np.isnan(v)) else v) for k, v in out["packages"].items()}
    return {"r": out["r"], "packages": pk}
