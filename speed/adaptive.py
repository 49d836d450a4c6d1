"""Adaptive evaluation: items a new model needs to reach SE <= 0.2, maximum information vs random order.

Simulated: a 2PL bank of ``--items`` items (slopes lognormal around 1, difficulties N(0, 1)), new models
with abilities N(0, 1) whose answers are drawn from the true parameters; each is evaluated by
:func:`irtbridge.adaptive_evaluate` twice, once in maximum-information order (the CAT) and once in random
order, until the posterior SD of theta falls below 0.2. Printed: mean and median items used, how many
reached the target, the mean absolute error of theta and of the predicted accuracy against the truth, and
the ratio random / adaptive.

Real (``--evaluate DIR``): each response matrix an ``irtbridge evaluate`` run wrote
(``DIR/tables/responses_*.csv``) is calibrated (2PL, native EM) and every classifier is re-evaluated from
its own answers in both orders (its answers are the ``answer`` function; a bank this small rarely reaches
SE 0.2, so the SE a classifier ends at and the items used are printed).

    .venv/bin/python speed/adaptive.py [--items 2000] [--models 100] [--target 0.2] [--evaluate /tmp/eval]
"""

from __future__ import annotations

import argparse
import glob
import os
import time
import warnings

import numpy as np
import pandas as pd

import irtbridge
from irtbridge.irt import as_item_bank


def _run(answers: dict, bank, target: float, seed: int) -> dict:
    out = {}
    for selection in ("maxinfo", "random"):
        res = irtbridge.adaptive_evaluate(answers.__getitem__, bank, stop=target, max_items=None,
                                          selection=selection, seed=seed)
        out[selection] = res
    return out


def simulated(n_items: int, n_models: int, target: float, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    items = pd.DataFrame({"a": rng.lognormal(0.0, 0.25, n_items), "b": rng.normal(size=n_items)},
                         index=[f"q{j}" for j in range(n_items)])
    bank = as_item_bank(items, "2PL")
    rows = []
    for m, theta in enumerate(rng.normal(size=n_models)):
        p = 1 / (1 + np.exp(-items["a"].to_numpy() * (theta - items["b"].to_numpy())))
        x = (rng.random(n_items) < p).astype(int)
        for selection, res in _run(dict(zip(items.index, x)), bank, target, m).items():
            rows.append({"selection": selection, "items_used": res.n_items, "reached": res.se <= target,
                         "theta_error": abs(res.theta - theta), "accuracy_error": abs(res.accuracy - x.mean()),
                         "covered": res.lower <= x.mean() <= res.upper})
    return pd.DataFrame(rows)


def real(folder: str, target: float) -> pd.DataFrame:
    rows = []
    for path in sorted(glob.glob(os.path.join(folder, "tables", "responses_*.csv"))):
        x = pd.read_csv(path, index_col=0)
        x = x.loc[:, x.min() != x.max()]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cal = irtbridge.calibrate(x, "2PL", engine="native", se=False)
        for k, (name, row) in enumerate(x.iterrows()):
            answers = {str(c): int(v) for c, v in row.items()}
            for selection, res in _run(answers, cal, target, k).items():
                rows.append({"dataset": os.path.basename(path)[10:-4], "selection": selection, "items": x.shape[1],
                             "items_used": res.n_items, "final_se": res.se, "reached": res.se <= target,
                             "accuracy_error": abs(res.accuracy - row.mean())})
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=2000)
    ap.add_argument("--models", type=int, default=100)
    ap.add_argument("--target", type=float, default=0.2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--evaluate", metavar="DIR", help="also run on an `irtbridge evaluate` output folder")
    args = ap.parse_args()
    started = time.perf_counter()
    sim = simulated(args.items, args.models, args.target, args.seed)
    table = sim.groupby("selection").agg(mean_items=("items_used", "mean"), median_items=("items_used", "median"),
                                         reached=("reached", "mean"), mae_theta=("theta_error", "mean"),
                                         mae_accuracy=("accuracy_error", "mean"), coverage=("covered", "mean"))
    print(f"simulated 2PL bank: {args.items} items, {args.models} new models, stop at SE <= {args.target} "
          f"({time.perf_counter() - started:.0f} s)")
    print(table.round(3).to_string())
    ratio = table.loc["random", "mean_items"] / table.loc["maxinfo", "mean_items"]
    print(f"random order needs {ratio:.1f}x the items of the adaptive order")
    if args.evaluate:
        frame = real(args.evaluate, args.target)
        if frame.empty:
            print(f"\nno response matrices under {args.evaluate}/tables")
            return
        print(f"\nresponse matrices of {args.evaluate} (each classifier re-evaluated from its own answers):")
        print(frame.groupby(["dataset", "items", "selection"]).agg(
            mean_items=("items_used", "mean"), reached=("reached", "mean"), mean_final_se=("final_se", "mean"),
            mae_accuracy=("accuracy_error", "mean")).round(3).to_string())


if __name__ == "__main__":
    main()
