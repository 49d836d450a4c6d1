"""Compare the tables of two `irtbridge evaluate` output folders, row by row, matched by their key columns.

    .venv/bin/python tools/compare-evaluate.py BEFORE_DIR AFTER_DIR [--tol 1e-9]

Prints one line per CSV under tables/ of either folder: equal within the tolerance, or the columns that
differ (largest absolute difference, or "text"), or the folder it is missing from. Wall-time columns
(``seconds`` and every ``*_seconds``) are not compared. ``--tol 0`` asks for exact equality (the same seed
with any ``--jobs`` and on any rerun must give it). Exit status 1 when any table differs, 2 when a folder
has no tables/.
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


def is_timing(column: str) -> bool:
    """Wall-time columns differ from run to run by nature."""
    return column == "seconds" or column.endswith("_seconds")


def differences(before: pd.DataFrame, after: pd.DataFrame, keys: list[str], tol: float) -> list[tuple[str, object]]:
    if before.shape != after.shape:
        return [("shape", f"{before.shape} vs {after.shape}")]
    if keys:
        before = before.sort_values(keys, kind="stable").reset_index(drop=True)
        after = after.sort_values(keys, kind="stable").reset_index(drop=True)
    out: list[tuple[str, object]] = []
    for col in before.columns:
        if is_timing(col):
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
    out.extend((col, "missing before") for col in after.columns if col not in before.columns and not is_timing(col))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--tol", type=float, default=1e-9, help="largest absolute difference taken as equal (0: exact)")
    args = ap.parse_args(argv)
    for folder in (args.before, args.after):
        if not (folder / "tables").is_dir():
            print(f"{folder}: no tables/ folder; is it the --out of irtbridge evaluate?", file=sys.stderr)
            return 2
    names = sorted({p.name for folder in (args.before, args.after) for p in (folder / "tables").glob("*.csv")})
    differ = False
    for name in names:
        paths = [folder / "tables" / name for folder in (args.before, args.after)]
        missing = [str(folder) for folder, path in zip((args.before, args.after), paths) if not path.exists()]
        if missing:
            print(f"{name:36s} missing in {missing[0]}")
            differ = True
            continue
        # round_trip: the numbers exactly as written, so --tol 0 compares what the runs computed
        before, after = (pd.read_csv(path, float_precision="round_trip") for path in paths)
        keys = KEYS.get(name) or [c for c in before.columns if before[c].dtype == object]
        found = differences(before, after, [k for k in keys if k in before.columns and k in after.columns], args.tol)
        differ |= bool(found)
        print(f"{name:36s} " + ("equal" if not found else ", ".join(f"{c}: {v}" for c, v in found[:6])))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
