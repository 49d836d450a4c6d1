"""How the report pages show numbers and tables: the cell formatters and the template's table, shared by the
evaluation report (:mod:`irtbridge.report.context`) and the leaderboard report (:mod:`irtbridge.report.leaderboard`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd


def fmt(value: Any, digits: int = 2) -> str:
    if value is None:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isnan(v):
            return "\u2013"
        if math.isinf(v):
            return "\u221e" if v > 0 else "\u2212\u221e"
        if v != 0 and (abs(v) >= 1e5 or abs(v) < 10 ** (-digits)):
            return f"{v:.{max(digits - 1, 1)}e}"
        return f"{v:,.{digits}f}"
    return str(value)


def interval(lo: Any, hi: Any, digits: int = 1) -> str:
    # an en dash between the ends: a comma would also be the thousands separator ("1,776.4 \u2013 2,053.2")
    return f"{fmt(lo, digits)} \u2013 {fmt(hi, digits)}"


@dataclass(frozen=True)
class Table:
    columns: list[str]
    rows: list[list[str]]
    classes: list[str]  # one CSS class per row ("" or "artificial", "bad", ...)
    numeric: list[bool]
    csv: str = ""


Column = tuple[str, Callable[[Any], str]]  # a table column: its heading and the formatter of its cells


def table(frame: pd.DataFrame, columns: Mapping[str, Column], *,
          index_label: str | None = None, row_class: Callable[[Any, pd.Series], str] | None = None,
          csv: str = "") -> Table:
    names = ([index_label] if index_label else []) + [label for label, _ in columns.values()]
    rows, classes = [], []
    for key, row in frame.iterrows():
        cells = [str(key)] if index_label else []
        cells += [cell(row[col]) if col in row.index else "" for col, (_, cell) in columns.items()]
        rows.append(cells)
        classes.append(row_class(key, row) if row_class else "")
    numeric = ([False] if index_label else []) + [
        col in frame.columns and pd.api.types.is_numeric_dtype(frame[col]) and not pd.api.types.is_bool_dtype(frame[col])
        for col in columns
    ]
    return Table(names, rows, classes, numeric, csv)


def dec(digits: int) -> Callable[[Any], str]:
    return lambda v: fmt(v, digits)


def pct(v: Any) -> str:
    return "\u2013" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{100 * float(v):.0f}%"
