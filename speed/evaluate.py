"""`irtbridge evaluate` with 1 and with 2 worker processes, side by side: wall time and speed-up.

Each run is the command a user types (`irtbridge evaluate --jobs N --out DIR`, a fresh process, R
started in every worker), timed from launch to exit, so worker start-up (spawned interpreters, one R
each) is paid in full. The units are the datasets of the embedded benchmark and the MLC; they are seeded
from `--seed` alone, so both runs must produce the same tables, which is checked after timing.

A worker computes on one thread (irtbridge starts its workers with one BLAS/OpenMP thread). The serial run
gets the same limit here (OPENBLAS_NUM_THREADS=1 ...), otherwise numpy's multi-threaded OpenBLAS would
already put the second core to work in the serial run (the MLPs' matrix products) and the ratio would
measure BLAS threading rather than workers; `--blas-threads` lifts the limit to see that effect.

    python speed/evaluate.py            # the default run (11 datasets, up to 500 test items each)
    python speed/evaluate.py --quick    # the reduced run of `irtbridge evaluate --quick`
    python speed/evaluate.py --engines  # stable mode by mirt and by the native engine, side by side

Goal: a speed-up of at least 1.7x with 2 workers on 2 otherwise idle cores.

``--engines`` runs the same evaluation twice (``--engine mirt``, the default, and ``--engine native``: the
stable mode's 3PL with the same priors, without R) and prints each dataset's calibration-stage seconds
(``calibration_seconds`` of ``tables/datasets.csv``) with the ratio (goal: the native calibration stage at
least 5x faster in total), then whether the report's numbers agree: the ranking of the classifiers, the
hardest dataset, the number of flagged items per dataset, and the largest rating difference.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd


ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def run(jobs: int, out: Path, quick: bool, one_thread: bool, engine: str | None = None) -> tuple[float, dict]:
    cmd = [sys.executable, "-m", "irtbridge", "evaluate", "--jobs", str(jobs), "--out", str(out), "--json"]
    if engine is not None:
        cmd += ["--engine", engine]
    if quick:
        cmd.append("--quick")
    env = {**os.environ, "MPLBACKEND": "Agg", **(ONE_THREAD if one_thread else {})}
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        sys.exit(f"irtbridge evaluate --jobs {jobs} failed:\n{proc.stderr[-3000:]}")
    return elapsed, json.loads(proc.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="time `irtbridge evaluate --quick` instead")
    parser.add_argument("--blas-threads", action="store_true",
                        help="let the serial run use OpenBLAS threads (default: one thread per process, as a worker)")
    parser.add_argument("--engines", action="store_true",
                        help="compare the calibration stage of --engine mirt and --engine native instead")
    parser.add_argument("--jobs", type=int, default=2, help="workers of each run with --engines (default 2)")
    args = parser.parse_args()
    one = not args.blas_threads
    if args.engines:
        return engines(args.quick, one, args.jobs)
    with tempfile.TemporaryDirectory(prefix="irtbridge-bench-") as tmp:
        tmp = Path(tmp)
        t1, s1 = run(1, tmp / "one", args.quick, one)
        print(f"irtbridge evaluate{' --quick' if args.quick else ''} --jobs 1: {t1:8.1f} s", flush=True)
        t2, s2 = run(2, tmp / "two", args.quick, one)
        print(f"irtbridge evaluate{' --quick' if args.quick else ''} --jobs 2: {t2:8.1f} s", flush=True)
        units = {d["dataset"]: d for d in s1["datasets"]}
        per_unit = pd.read_csv(tmp / "one" / "tables" / "datasets.csv", index_col=0)["seconds"]
        mlc = (s1.get("mlc") or {}).get("dataset")
        same = all(
            pd.read_csv(tmp / "one" / "tables" / f"{name}.csv").equals(pd.read_csv(tmp / "two" / "tables" / f"{name}.csv"))
            for name in ("ratings", "instances", "diagnostics", "true_scores")
        )
    print(f"speed-up with 2 workers: {t1 / t2:.2f}x (goal >= 1.7x on 2 idle cores)")
    print(f"same tables from both runs: {'yes' if same else 'NO'}")
    print(f"{len(units)} datasets{' + MLC of ' + mlc if mlc else ''}; the longest dataset unit took "
          f"{per_unit.max():.1f} s of {per_unit.sum():.1f} s in the serial run "
          f"(bound on the speed-up from the split into units: {per_unit.sum() / max(per_unit.sum() / 2, per_unit.max()):.2f}x)")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"cores: {os.cpu_count()}, load average now: {load:.2f} (other processes share the cores); "
          f"BLAS threads per process: {'1' if one else 'default'}")
    if not same:
        sys.exit(1)


def engines(quick: bool, one: bool, jobs: int) -> None:
    """mirt's and the native engine's stable-mode calibration of the same evaluation, side by side."""
    with tempfile.TemporaryDirectory(prefix="irtbridge-bench-") as tmp:
        tmp = Path(tmp)
        runs = {}
        for engine in ("mirt", "native"):
            wall, summary = run(jobs, tmp / engine, quick, one, engine)
            table = pd.read_csv(tmp / engine / "tables" / "datasets.csv", index_col=0)
            ratings = pd.read_csv(tmp / engine / "tables" / "ratings.csv", index_col=0)
            scores = pd.read_csv(tmp / engine / "tables" / "true_scores.csv", index_col=0)
            items = pd.read_csv(tmp / engine / "tables" / "instances.csv", index_col=[0, 1])
            runs[engine] = (wall, summary, table, ratings, scores, items)
            print(f"irtbridge evaluate --engine {engine}: {wall:8.1f} s wall", flush=True)
    cal = pd.DataFrame({e: runs[e][2]["calibration_seconds"] for e in runs})
    cal["ratio"] = cal["mirt"] / cal["native"]
    print("\ncalibration stage per dataset (seconds):")
    print(cal.to_string(float_format=lambda v: f"{v:.2f}"))
    total = cal["mirt"].sum() / cal["native"].sum()
    print(f"total: mirt {cal['mirt'].sum():.1f} s, native {cal['native'].sum():.1f} s, {total:.1f}x (goal >= 5x)")
    (_, s_m, _, r_m, ts_m, it_m), (_, s_n, _, r_n, ts_n, it_n) = runs["mirt"], runs["native"]
    # where the numbers differ: item parameters (unflagged items of both runs), True-Scores, then ratings
    both = it_m.index.intersection(it_n.index)
    fine = both[(it_m.loc[both, "flag"].isna() & it_n.loc[both, "flag"].isna()).to_numpy()]
    gaps = pd.DataFrame({c: (it_m.loc[fine, c] - it_n.loc[fine, c]).abs().groupby(level=0).max() for c in ("a", "b", "g")})
    gaps["true_score"] = (ts_m - ts_n.reindex_like(ts_m)).abs().max(axis=1)
    print("\nlargest difference mirt - native per dataset (a, b, g over items flagged by neither run; "
          "True-Score over respondents):")
    print(gaps.to_string(float_format=lambda v: f"{v:.2e}"))
    order_m = [p for p in r_m.index if r_m.loc[p, "kind"] == "classifier"]
    order_n = [p for p in r_n.index if r_n.loc[p, "kind"] == "classifier"]
    print(f"same classifier ranking: {'yes' if order_m == order_n else 'NO'}"
          + ("" if order_m == order_n else f" (first difference at rank "
             f"{next(i for i, (a, b) in enumerate(zip(order_m, order_n)) if a != b) + 1})"))
    print(f"largest rating difference: {(r_m['rating'] - r_n['rating'].reindex(r_m.index)).abs().max():.1f}")
    if order_m != order_n:
        moved = pd.DataFrame({"rank_mirt": r_m["rank"], "rank_native": r_n["rank"].reindex(r_m.index),
                              "rating_mirt": r_m["rating"], "rating_native": r_n["rating"].reindex(r_m.index),
                              "rd_mirt": r_m["rd"]})
        print("classifiers whose rank differs:\n"
              + moved[moved["rank_mirt"] != moved["rank_native"]].to_string(float_format=lambda v: f"{v:.1f}"))
    print(f"hardest dataset: mirt {s_m['hardest_datasets'][0]}, native {s_n['hardest_datasets'][0]}")
    flags = pd.DataFrame({"mirt": s_m["flagged_items"], "native": s_n["flagged_items"]})
    print("flagged items per dataset:\n" + flags.to_string())


if __name__ == "__main__":
    main()
