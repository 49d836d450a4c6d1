"""Parameter recovery on classifier-shaped data: the two calibration modes of irtbridge evaluate.

Simulates 3PL data shaped like a classifier benchmark (about 40 respondents, 200 items, mostly easy, ~5%
negative slopes, guessing up to 0.25; :func:`irtbridge.decodirt.simulate_classifier_responses`), fits both
modes of :func:`irtbridge.decodirt.calibrate_classifier_responses` on each replication and prints the RMSE
of b, a and g against the true values, the median absolute error of b, the Spearman correlation of true
and estimated (EAP) abilities, and how many slopes exceed 10 where the true |a| is below 4.

    .venv/bin/python speed/recovery.py [--replications 20] [--respondents 40] [--items 200]
"""

from __future__ import annotations

import argparse
import time
import warnings
from typing import Callable

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from irtbridge.decodirt import calibrate_classifier_responses, simulate_classifier_responses
from irtbridge.irt import estimate_abilities

MODES = ("paper", "stable")


def fit_mode(x: pd.DataFrame, mode: str) -> pd.DataFrame:
    """irtbridge's fit of ``x`` in one mode: its item table (``a, b, g``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return calibrate_classifier_responses(x, mode).items


def replication(seed: int, n_respondents: int, n_items: int,
                fit: Callable[[pd.DataFrame, str], pd.DataFrame] = fit_mode) -> list[dict]:
    """One simulated matrix fitted in both modes by ``fit`` (``(x, mode) -> items``): one row of errors per
    mode."""
    x, theta, truth = simulate_classifier_responses(n_respondents, n_items, seed=seed)
    keep = x.columns[x.min() != x.max()]
    x, truth = x[keep], truth.loc[keep]
    rows = []
    for mode in MODES:
        started = time.perf_counter()
        try:
            items = fit(x, mode)
        except Exception as exc:  # a failed fit is a result of the comparison, not a crash
            rows.append({"mode": mode, "seed": seed, "failed": str(exc)[:80]})
            continue
        est = items.loc[truth.index]
        ability = estimate_abilities(x, items[["a", "b", "g"]], model="3PL", method="EAP")["theta"].to_numpy()
        err_b = est["b"] - truth["b"]
        rows.append({
            "mode": mode, "seed": seed, "failed": "",
            "rmse_b": float(np.sqrt(np.mean(err_b**2))), "median_abs_b": float(np.median(np.abs(err_b))),
            "rmse_a": float(np.sqrt(np.mean((est["a"] - truth["a"]) ** 2))),
            "rmse_g": float(np.sqrt(np.mean((est["g"] - truth["g"]) ** 2))),
            "spearman_theta": float(spearmanr(ability, theta)[0]),
            "a_above_10": int(((est["a"].abs() > 10) & (truth["a"].abs() < 4)).sum()),
            "seconds": time.perf_counter() - started,
        })
    return rows


def recovery(replications: int = 20, n_respondents: int = 40, n_items: int = 200, seed: int = 0,
             fit: Callable[[pd.DataFrame, str], pd.DataFrame] = fit_mode) -> pd.DataFrame:
    """Every replication's errors, one row per (replication, mode); ``fit`` as :func:`replication`'s."""
    rows = []
    for k in range(replications):
        rows += replication(seed + k, n_respondents, n_items, fit)
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replications", type=int, default=20)
    ap.add_argument("--respondents", type=int, default=40)
    ap.add_argument("--items", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    frame = recovery(args.replications, args.respondents, args.items, args.seed)
    ok = frame[frame["failed"] == ""]
    table = ok.groupby("mode")[["rmse_b", "median_abs_b", "rmse_a", "rmse_g", "spearman_theta", "a_above_10", "seconds"]].mean()
    table["a_above_10"] = ok.groupby("mode")["a_above_10"].sum()
    table["failed_fits"] = frame.groupby("mode")["failed"].apply(lambda s: int((s != "").sum()))
    print(f"parameter recovery: {args.replications} replications of {args.respondents} respondents x {args.items} items "
          "(means over replications; a_above_10 = total slopes > 10 where the true |a| < 4)")
    print(table.round(3).to_string())
    ratio = table.loc["stable", "rmse_b"] / table.loc["paper", "rmse_b"]
    print(f"stable / paper RMSE of b: {ratio:.3f} (goal: <= 0.5)")


if __name__ == "__main__":
    main()
