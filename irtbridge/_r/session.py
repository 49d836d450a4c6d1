"""Lazy embedded R session: start, lock, fork guard, conversion and the call envelope."""

from __future__ import annotations

import os
import threading
from collections import Counter
import warnings
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd

from irtbridge.exceptions import (
    RError,
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

    __slots__ = ("_robj", "_pid", "r_class")

    def __init__(self, robj: Any):
        self._robj = robj
        self._pid = os.getpid()
        self.r_class = tuple(robj.rclass) if hasattr(robj, "rclass") else ()

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
        import rpy2.rinterface_lib.embedded  # noqa: F401
        import rpy2.robjects as ro
        from rpy2.robjects import numpy2ri
        from rpy2.robjects.conversion import localconverter
    except Exception as exc:  # ImportError, or R's shared library failing to load
        raise RUnavailableError(
            f"R is not available from this Python ({type(exc).__name__}: {exc}). irtbridge needs R and rpy2 "
            "for calibration; run `make setup` (or install R and `pip install irtbridge[r]`)."
        ) from exc
    base_env = ro.baseenv
    env = ro.r["new.env"](parent=ro.globalenv)
    sys_source = base_env["sys.source"]
    for path in sorted(R_SOURCE_DIR.glob("irtb_*.R")):
        sys_source(ro.StrVector([str(path)]), envir=env)
    _STATE.update(env=env, ro=ro, numpy2ri=numpy2ri, localconverter=localconverter, pid=os.getpid())
    return env


def _converter():
    ro = _STATE["ro"]
    return _STATE["localconverter"](ro.default_converter + _STATE["numpy2ri"].converter)


# ---------------------------------------------------------------------------------------------------
# Python -> R
def to_r(value: Any) -> Any:
    """Convert a Python value to an R object without pandas2ri (numpy2ri for numeric matrices)."""
    ro = _STATE["ro"]
    if value is None:
        return ro.NULL
    if isinstance(value, RObject):
        return value.robj
    if isinstance(value, (bool, np.bool_)):
        return ro.BoolVector([bool(value)])
    if isinstance(value, (int, np.integer)):
        return ro.IntVector([int(value)])
    if isinstance(value, (float, np.floating)):
        return ro.FloatVector([float(value)])
    if isinstance(value, str):
        return ro.StrVector([value])
    if isinstance(value, Mapping):
        return ro.ListVector([(str(k), to_r(v)) for k, v in value.items()]) if value else ro.r["list"]()
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f" and value.ndim == 2:
            with _converter() as cv:
                return cv.py2rpy(np.asfortranarray(value, dtype=np.float64))
        if value.ndim == 1:
            return to_r(value.tolist())
        raise TypeError(f"cannot pass an array of dtype {value.dtype} and shape {value.shape} to R")
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, (bool, np.bool_)) for v in value):
            return ro.BoolVector([bool(v) for v in value])
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
            return ro.IntVector([int(v) for v in value])
        if all(isinstance(v, (int, float, np.integer, np.floating)) for v in value):
            return ro.FloatVector([float(v) for v in value])
        if all(isinstance(v, str) for v in value):
            return ro.StrVector(list(value))
        return ro.r["list"](*[to_r(v) for v in value])
    raise TypeError(f"cannot pass a {type(value).__name__} to R")


# ---------------------------------------------------------------------------------------------------
# R -> Python
def _names(robj: Any) -> list[str] | None:
    ro = _STATE["ro"]
    n = ro.baseenv["names"](robj)
    return None if n is ro.NULL else [str(x) for x in n]


def to_py(robj: Any) -> Any:
    """Convert an R value to plain Python: matrices with dimnames to DataFrames, data.frames to
    DataFrames, named vectors to dicts, length-one unnamed vectors to scalars (NA -> NaN/None)."""
    ro = _STATE["ro"]
    ri = ro.rinterface
    if robj is ro.NULL or isinstance(robj, type(ri.NULL)):
        return None
    rclass = tuple(robj.rclass) if hasattr(robj, "rclass") else ()
    if "data.frame" in rclass:
        cols = _names(robj) or []
        rn = [str(x) for x in ro.baseenv["rownames"](robj)]
        frame = pd.DataFrame({c: _vector(robj[i]) for i, c in enumerate(cols)})
        if not all(r == str(i + 1) for i, r in enumerate(rn)):
            frame.index = rn
        return frame
    if isinstance(robj, (ro.vectors.ListVector, ri.ListSexpVector)) and not isinstance(robj, ri.SexpEnvironment):
        names = _names(robj)
        items = [robj[i] for i in range(len(robj))]
        if names is None:
            return [to_py(x) for x in items]
        return {n: (RObject(x) if _is_model(x) else to_py(x)) for n, x in zip(names, items)}
    if isinstance(robj, ri.SexpVector) and not isinstance(robj, ri.ListSexpVector):
        dim = ro.baseenv["dim"](robj)
        if dim is not ro.NULL and len(dim) == 2:
            with _converter() as cv:
                arr = np.array(cv.rpy2py(robj), dtype=float, copy=True)
            dn = ro.baseenv["dimnames"](robj)
            rows = cols = None
            if dn is not ro.NULL:
                rows = None if dn[0] is ri.NULL else [str(x) for x in dn[0]]
                cols = None if dn[1] is ri.NULL else [str(x) for x in dn[1]]
            return pd.DataFrame(arr, index=rows, columns=cols)
        values = _vector(robj)
        names = _names(robj)
        if names is not None:
            return dict(zip(names, values.tolist() if isinstance(values, np.ndarray) else values))
        if len(values) == 1:
            v = values[0]
            return v.item() if isinstance(v, np.generic) else v
        return values
    return RObject(robj)


def _is_model(robj: Any) -> bool:
    ri = _STATE["ro"].rinterface
    return isinstance(robj, ri.SexpS4) or (
        hasattr(robj, "rclass") and any(c in ("ltm", "rasch", "tpm", "grm", "gpcm") for c in robj.rclass)
    )


def _vector(robj: Any) -> np.ndarray | list:
    ri = _STATE["ro"].rinterface
    if robj.typeof == ri.RTYPES.REALSXP:
        arr = np.array(robj, dtype=float)
        return arr
    if robj.typeof in (ri.RTYPES.INTSXP,):
        if "factor" in tuple(getattr(robj, "rclass", ())):
            levels = list(_STATE["ro"].baseenv["levels"](robj))
            return np.array([None if x == ri.NA_Integer else levels[x - 1] for x in robj], dtype=object)
        vals = list(robj)
        if any(v == ri.NA_Integer for v in vals):
            return np.array([np.nan if v == ri.NA_Integer else float(v) for v in vals])
        return np.array(vals, dtype=np.int64)
    if robj.typeof == ri.RTYPES.LGLSXP:
        vals = list(robj)
        if any(v == ri.NA_Logical for v in vals):
            return np.array([None if v == ri.NA_Logical else bool(v) for v in vals], dtype=object)
        return np.array(vals, dtype=bool)
    if robj.typeof == ri.RTYPES.STRSXP:
        return np.array([None if x is ri.NA_Character else str(x) for x in robj], dtype=object)
    return np.array(list(robj), dtype=object)


# ---------------------------------------------------------------------------------------------------
def call(fun: str, /, *, keep: Iterable[str] = (), **kwargs: Any) -> Any:
    """Run the R helper ``fun`` (defined in ``r/irtb_*.R``) with keyword arguments and return its value.

    Arguments are converted with :func:`to_r` and passed as one R list: no Python string ever becomes R
    source. R warnings are re-raised as :class:`RWarning` here, at the call that caused them; an R error
    becomes :class:`RError` with R's message.
    """
    with _LOCK:
        env = _start()
        _check_pid()
        ro = _STATE["ro"]
        args = ro.ListVector([(k, to_r(v)) for k, v in kwargs.items()]) if kwargs else ro.r["list"]()
        envelope = ro.baseenv["get"]("irtb_call", envir=env)
        out = envelope(ro.StrVector([fun]), args)
        names = _names(out)
        parts = dict(zip(names, [out[i] for i in range(len(out))]))
        warns = [str(w) for w in parts["warnings"]]
        ok = bool(parts["ok"][0])
        if not ok:
            message = str(parts["error"][0])
            rclass = tuple(str(c) for c in parts["error_class"])
            rcall = str(parts["call"][0]) if len(parts["call"]) else ""
            where = f" in {rcall}" if rcall else ""
            err = RError(f"R error{where}: {message}", r_message=message, r_class=rclass, call=rcall)
            err.r_warnings = warns
            raise err
        value = to_py(parts["value"])
    # R often repeats one warning many times in a fit (e.g. "NaNs produced"): say each once, with a count
    for w, n in Counter(warns).items():
        warnings.warn(f"R: {w}" + (f" (x{n})" if n > 1 else ""), RWarning, stacklevel=3)
    return value


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
