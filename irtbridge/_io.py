"""Output helpers shared by the library and the CLI: JSON-ready values and atomic file writes."""

from __future__ import annotations

import math
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["to_jsonable", "atomic_write_text", "atomic_write_csv", "make_readable"]


def to_jsonable(value: Any) -> Any:
    """Turn numpy/pandas scalars and containers into JSON types; NaN, ±inf and ``pandas.NA`` become ``null``."""
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, pd.DataFrame):
        return [to_jsonable(r) for r in value.to_dict(orient="records")]
    if isinstance(value, pd.Series):
        return to_jsonable(value.to_dict())
    if isinstance(value, np.ndarray):
        return to_jsonable(value.tolist())
    if value is pd.NA:  # e.g. mirt's TOL = NA among a fit's options
        return None
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return v if math.isfinite(v) else None
    return value


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename: never a half-written file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        # mkstemp makes the file private (0600); give it the permissions a plain open() would
        make_readable(tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_csv(path: str | os.PathLike, frame: pd.DataFrame, **kwargs: Any) -> None:
    atomic_write_text(path, frame.to_csv(**kwargs))


def make_readable(*paths: str | os.PathLike) -> None:
    """Give files the permissions a plain ``open()`` would (``0666`` less the umask).

    Temporary files are private (``0600``); results written in a container into a mounted folder must
    be readable by the user outside.
    """
    mode = 0o666 & ~_umask()
    for p in paths:
        os.chmod(p, mode)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
