"""Benchmark: irtbridge's vectorized CAT simulator vs catR's randomCAT, side by side.

The same 300-item 3PL bank and the same true abilities; each examinee gets 30 items chosen by maximum
Fisher information and scored by EAP (33 points on [-4, 4], N(0, 1) prior, D = 1), starting at theta 0.
catR runs one ``randomCAT`` per examinee, timed inside R (R's start-up excluded). Both draw their own
responses, so the estimates agree in distribution, not value by value; the script prints the RMSE of
each against the true abilities as a sanity check. For reference, catsim 0.21 managed about 750 item
administrations per second on this class of machine; the goal here is at least 100x that (75,000/s).

    python speed/cat.py            # 1,000 examinees on both sides (catR takes several minutes)
    python speed/cat.py --quick    # catR on 50 examinees, irtbridge on 1,000; rates compared
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from irtbridge.cat import AbilityEstimator, FixedLengthStopper, FixedPointInitializer, MaxInfoSelector, simulate_cat

HERE = Path(__file__).parent
N_ITEMS, LENGTH, N_EXAMINEES = 300, 30, 1000
GOAL = 75_000


def make_bank(seed: int = 2024) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {"a": rng.uniform(0.5, 2.0, N_ITEMS), "b": rng.normal(0, 1, N_ITEMS), "g": rng.uniform(0.05, 0.25, N_ITEMS),
         "u": np.ones(N_ITEMS)},
        index=[f"i{j + 1}" for j in range(N_ITEMS)],
    )


def run_irtbridge(bank: pd.DataFrame, theta: np.ndarray, repeat: int) -> tuple[float, pd.DataFrame]:
    best, est = np.inf, None
    for r in range(repeat):
        t0 = time.perf_counter()
        res = simulate_cat(
            bank, "3PL", theta=theta, initializer=FixedPointInitializer(0.0), selector=MaxInfoSelector(),
            estimator=AbilityEstimator("EAP", bounds=(-4, 4), quadrature=33), stopper=FixedLengthStopper(LENGTH),
            random_state=r,
        )
        best = min(best, time.perf_counter() - t0)
        est = res.estimates
    return best, est


def run_catr(bank: pd.DataFrame, theta: np.ndarray) -> tuple[float, np.ndarray]:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        bank.rename(columns={"g": "c", "u": "d"})[["a", "b", "c", "d"]].to_csv(tmp / "bank.csv", index=False)
        pd.DataFrame({"theta": theta}).to_csv(tmp / "theta.csv", index=False)
        proc = subprocess.run(
            ["Rscript", str(HERE / "cat_catr.R"), str(tmp / "bank.csv"), str(tmp / "theta.csv"), str(LENGTH),
             str(tmp / "out.csv")],
            capture_output=True, text=True,
        )
        if proc.returncode != 0:
            raise SystemExit(f"catR run failed:\n{proc.stderr}")
        out = pd.read_csv(tmp / "out.csv")
    return float(out["elapsed"].iloc[0]), out["theta"].to_numpy()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="catR on 50 examinees only (minutes -> seconds)")
    ap.add_argument("--examinees", type=int, default=N_EXAMINEES)
    args = ap.parse_args()

    bank = make_bank()
    theta = np.random.default_rng(7).normal(0, 1, args.examinees)
    n_catr = min(50, args.examinees) if args.quick else args.examinees

    t_ib, est = run_irtbridge(bank, theta, repeat=3)
    admin_ib = args.examinees * LENGTH
    t_r, est_r = run_catr(bank, theta[:n_catr])
    admin_r = n_catr * LENGTH

    rate_ib, rate_r = admin_ib / t_ib, admin_r / t_r
    rmse_ib = float(np.sqrt(((est["theta"].to_numpy() - theta) ** 2).mean()))
    rmse_r = float(np.sqrt(((est_r - theta[:n_catr]) ** 2).mean()))
    print(f"bank: {N_ITEMS} 3PL items; {LENGTH} items per examinee; MFI selection, EAP (33 points on [-4, 4]), D = 1")
    print(f"irtbridge simulate_cat: {args.examinees:>5} examinees  {t_ib:9.3f} s  {rate_ib:12,.0f} administrations/s  "
          f"RMSE {rmse_ib:.3f}  (best of 3)")
    print(f"catR randomCAT loop:    {n_catr:>5} examinees  {t_r:9.3f} s  {rate_r:12,.0f} administrations/s  "
          f"RMSE {rmse_r:.3f}")
    if n_catr == args.examinees:
        print(f"time ratio catR / irtbridge: {t_r / t_ib:,.0f}x")
    else:
        print(f"catR timed on {n_catr} examinees (--quick); rate ratio irtbridge / catR: {rate_ib / rate_r:,.0f}x")
    print(f"goal {GOAL:,} administrations/s (100x catsim's ~750/s): {'met' if rate_ib >= GOAL else 'NOT met'} "
          f"({rate_ib / 750:,.0f}x catsim)")


if __name__ == "__main__":
    main()
