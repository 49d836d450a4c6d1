"""How many dimensions on real leaderboards: held-out answers predicted by the D-factor 2PL, D = 1..--max-dims.

For each response matrix, :func:`irtbridge.leaderboard.dims.choose_dimensions` holds out 10% of each model's
answers at random (seed 0), fits the D-factor 2PL on the rest and predicts them; printed per set and D: the
held-out log-likelihood per answer, its gain over D = 1 with the paired standard error (clustered by model),
the accuracy, and the chosen D (the one-standard-error rule of the module). The D = 1 row is the
one-dimensional fit the rest is printed beside.

Data (fetched from GitHub, never shipped), under ``--data DIR`` (default ``/work/data``), read as
``speed/lm_estimators.py`` reads them:

* ``DIR/nlu/*_irt_all_coded.csv``: nyu-mll/nlu-test-sets, 90 checkpoints x one NLU test set each;
* ``DIR/atlas/arc_clean_response_matrix.csv``: Peiyu-Georgia-Li/ATLAS, 320 models x 735 ARC items;
* ``DIR/mmlupro/*.zip``: TIGER-AI-Lab/MMLU-Pro's stored outputs, 29 models x 12,032 items.

Sets with more than ``--max-items`` items are cut to that many items drawn at random (seed 0; said in the
output): the D >= 2 fits cost models x items x QMC points per EM cycle, and the machine is shared.

Run: ``nice python speed/dims_real.py --sets atlas/arc nlu/arct --max-dims 5``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from irtbridge.leaderboard.dims import choose_dimensions  # noqa: E402
from lm_estimators import load_sets  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default="/work/data")
    parser.add_argument("--sets", nargs="*", help="set names (default: all found)")
    parser.add_argument("--max-dims", type=int, default=5)
    parser.add_argument("--max-items", type=int, default=800)
    parser.add_argument("--holdout", type=float, default=0.1)
    parser.add_argument("--qmc-points", type=int, default=512)
    parser.add_argument("--ncycles", type=int, default=150)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    sets, notes = load_sets(args.data, max_items=10**9)
    names = args.sets or sorted(sets)
    rows = []
    for name in names:
        frame = sets[name]
        shape = frame.shape
        if frame.shape[1] > args.max_items:
            keep = np.sort(np.random.default_rng(args.seed).choice(frame.shape[1], args.max_items, replace=False))
            frame = frame.iloc[:, keep]
        started = time.perf_counter()
        res = choose_dimensions(frame, max_dims=args.max_dims, holdout=args.holdout, seed=args.seed,
                                qmc_points=args.qmc_points, NCYCLES=args.ncycles)
        took = time.perf_counter() - started
        print(f"\n{name}: {shape[0]} x {shape[1]}" + (f" (cut to {frame.shape[1]} items)" if frame.shape != shape else "")
              + f", {res.facts['n_heldout']} held-out answers, chosen D = {res.chosen} (best {res.best}), {took:.0f} s",
              flush=True)
        print(res.table[["loglik", "gain", "gain_se", "accuracy", "brier", "converged"]].round(4).to_string(), flush=True)
        for d, r in res.table.iterrows():
            rows.append({"set": name, "models": shape[0], "items": frame.shape[1], "D": d, "loglik": r["loglik"],
                         "gain": r["gain"], "gain_se": r["gain_se"], "accuracy": r["accuracy"],
                         "chosen": res.chosen})
    table = pd.DataFrame(rows)
    print("\nPer set (held-out log-likelihood per answer by D; accuracy at D = 1 and at the chosen D):")
    for name, g in table.groupby("set", sort=False):
        g = g.set_index("D")
        c = int(g["chosen"].iloc[0])
        lls = "  ".join(f"{v:.4f}" for v in g["loglik"])
        print(f"| {name} | {int(g['models'].iloc[0])} x {int(g['items'].iloc[0])} | {lls} | "
              f"{g.loc[1, 'accuracy']:.4f} | {c} | {g.loc[c, 'accuracy']:.4f} | "
              f"{g.loc[c, 'gain']:+.4f} +/- {g.loc[c, 'gain_se']:.4f} |")
    for n in notes:
        print("note:", n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
