"""Parquet files for the readers: with pyarrow where it can be imported, otherwise with R's nanoparquet.

nanoparquet (CRAN, pinned in ``irtbridge/_r/R/packages.lock``) is called through the R boundary
(``irtbridge._r``, helpers in ``_r/R/irtb_parquet.R``). It reads flat columns and one-level lists, not
structs: a reader that needs a nested column (lighteval's ``metric``, the Open LLM Leaderboard v1's
``metrics``) says so in one line when pyarrow is absent.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from irtbridge.exceptions import ValidationError

__all__ = ["have_pyarrow", "parquet_columns", "read_parquet", "NESTED_NEEDS_PYARROW"]

NESTED_NEEDS_PYARROW = ("nanoparquet, the R reader used where pyarrow cannot be imported, reads flat columns "
                        "only; install pyarrow to read it")


def have_pyarrow() -> bool:
    """Whether pyarrow can be imported here (then it reads every parquet file, nested columns included)."""
    return importlib.util.find_spec("pyarrow") is not None


def _not_parquet(path: Path, exc: Exception) -> ValidationError:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return ValidationError(f"{path}: not a readable parquet file ({first})")


def parquet_columns(path: Path) -> dict[str, bool]:
    """The file's top-level columns, each with whether it can be read here (always, with pyarrow)."""
    if have_pyarrow():
        import pyarrow.parquet as pq  # pyarrow loads when a parquet file is read

        try:
            return {name: True for name in pq.ParquetFile(path).schema_arrow.names}
        except Exception as exc:  # pyarrow raises its own error classes for a damaged file
            raise _not_parquet(path, exc) from None
    from irtbridge._r import session  # the R boundary loads with the first R call, never on import

    session.ensure_packages("nanoparquet")
    try:
        table = session.call("irtb_parquet_columns", path=str(path))
    except Exception as exc:  # an RError: nanoparquet's message names what is wrong with the file
        raise _not_parquet(path, exc) from None
    return {str(n): bool(r) for n, r in zip(table["name"], table["readable"])}


def _plain(value: Any) -> Any:
    return value.tolist() if isinstance(value, np.ndarray) else value


def read_parquet(path: Path, columns: list[str]) -> pd.DataFrame:
    """The chosen columns of a parquet file (struct cells as dicts, list cells as lists).

    A nested column asked for without pyarrow is a one-line error naming the file and the column.
    """
    if have_pyarrow():
        import pyarrow.parquet as pq  # pyarrow loads when a parquet file is read

        try:
            frame = pq.read_table(path, columns=columns).to_pandas()
        except Exception as exc:  # pyarrow's own error classes
            raise _not_parquet(path, exc) from None
        return frame.apply(lambda col: col.map(_plain)) if len(frame) else frame
    readable = parquet_columns(path)
    nested = [c for c in columns if not readable.get(c, True)]
    if nested:
        raise ValidationError(f"{path}: column {nested[0]!r} is nested; {NESTED_NEEDS_PYARROW}")
    from irtbridge._r import session  # the R boundary loads with the first R call, never on import

    try:
        frame = session.call("irtb_parquet_read", path=str(path), columns=list(columns))
    except Exception as exc:
        raise _not_parquet(path, exc) from None
    return frame.reset_index(drop=True)
