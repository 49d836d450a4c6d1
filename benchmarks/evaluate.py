"""`irtbridge evaluate` with 1 and with 2 worker processes, side by side: wall time and speed-up.

Each run is the command a user types (`irtbridge evaluate --jobs N --out DIR`, a fresh process, R
started in every worker), timed from launch to exit, so worker start-up (spawned interpreters, one R
each) is paid in full. The units are the datasets of the embedded benchmark and the MLC; they are seeded
from `--seed` alone, so both runs must produce the same tables, which is checked after timing.

A worker computes on one thread (irtbridge starts its workers with one BLAS/OpenMP thread). The serial run
gets the same limit here (OPENBLAS_NUM_THREADS=1 ...), otherwise numpy's multi-threaded OpenBLAS would
already put the second core to work in the serial run (the MLPs' matrix products) and the ratio would
measure BLAS threading rather than workers; `--blas-threads` lifts the limit to see that effect.

    python benchmarks/evaluate.py            # the default run (11 datasets, up to 500 test items each)
    python benchmarks/evaluate.py --quick    # the reduced run of `irtbridge evaluate --quick`

Goal: a speed-up of at least 1.7x with 2 workers on 2 otherwise idle cores.
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


def run(jobs: int, out: Path, quick: bool, one_thread: bool) -> tuple[float, dict]:
    cmd = [sys.executable, "-m", "irtbridge", "evaluate", "--jobs", str(jobs), "--out", str(out), "--json"]
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
    args = parser.parse_args()
    one = not args.blas_threads
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


if __name__ == "__main__":
    main()
