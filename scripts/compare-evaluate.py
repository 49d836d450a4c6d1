"""Compare the tables of two `irtbridge evaluate` output folders, row by row, matched by their key columns.

    .venv/bin/python scripts/compare-evaluate.py BEFORE_DIR AFTER_DIR [--tol 1e-9]

Prints one line per CSV under tables/: equal within the tolerance, or the columns that differ (largest absolute
difference, or "text"). Wall-time columns (``seconds``) are not compared. Exit status 1 when any table differs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

KEYS = {"ratings.csv": ["player"], "rating_history.csv": ["dataset", "player"],
        "respondents.csv": ["dataset", "respondent"], "instances.csv": ["dataset", "instance"],
        "true_scores.csv": ["dataset"], "diagnostics.csv": ["dataset"]}


def differences(before: pd.DataFrame, after: pd.DataFrame, keys: list[str], tol: float) -> list[tuple[str, object]]:
    if before.shape != after.shape:
        return [("shape", f"{before.shape} vs {after.shape}")]
    if keys:
        before = before.sort_values(keys, kind="stable").reset_index(drop=True)
        after = after.sort_values(keys, kind="stable").reset_index(drop=True)
    out: list[tuple[str, object]] = []
    for col in before.columns:
        if col == "seconds":
            continue
        if col not in after.columns:
            out.append((col, "missing after"))
        elif pd.api.types.is_numeric_dtype(before[col]) and pd.api.types.is_numeric_dtype(after[col]):
            x, y = before[col].to_numpy(float), after[col].to_numpy(float)
            same_nan = np.isnan(x) == np.isnan(y)
            gap = np.abs(x - y)[~np.isnan(x) & ~np.isnan(y)]
            worst = float(gap.max()) if gap.size else 0.0
            if worst > tol or not same_nan.all():
                out.append((col, worst if same_nan.all() else "NaN in one run only"))
        elif not (before[col].astype(str) == after[col].astype(str)).all():
            out.append((col, "text"))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--tol", type=float, default=1e-9)
    args = ap.parse_args()
    differ = False
    for path in sorted((args.before / "tables").glob("*.csv")):
        other = args.after / "tables" / path.name
        if not other.exists():
            print(f"{path.name}: missing in {args.after}")
            differ = True
            continue
        before, after = pd.read_csv(path), pd.read_csv(other)
        keys = KEYS.get(path.name) or [c for c in before.columns if before[c].dtype == object]
        found = differences(before, after, [k for k in keys if k in before.columns], args.tol)
        differ |= bool(found)
        print(f"{path.name:36s} " + ("equal" if not found else ", ".join(f"{c}: {v}" for c, v in found[:6])))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
