"""The same mirt fit through irtbridge and in R alone, side by side.

    .venv/bin/python benchmarks/calibration.py [--quick] [--repeat N] [--se]

Shapes: 10,000 respondents x 50 items (2PL), and 150 respondents x 500 items (3PL; the shape of
classifier-evaluation data: instances are items, models are respondents). "R alone" is `Rscript` timing
`mirt(...)` plus the same coefficient extraction with `system.time`; "irtbridge" is the wall time of
`irtbridge.calibrate` (transfer to R, fit, extraction, transfer back). R start-up (starting the embedded
R and loading mirt) is measured once and reported separately. Prints both times, the ratio and the
bridge overhead as a share of R's own time (goal: under 5%).
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

R_TIMER = r"""
args <- commandArgs(trailingOnly = TRUE)
suppressPackageStartupMessages(library(mirt))
x <- as.matrix(read.csv(args[1], check.names = FALSE))
repeats <- as.integer(args[3]); se <- as.logical(args[4])
times <- numeric(repeats)
for (r in seq_len(repeats)) times[r] <- system.time({
  fit <- mirt(x, 1, itemtype = args[2], SE = se, verbose = FALSE)
  co <- coef(fit, IRTpars = TRUE, simplify = TRUE)$items
  ll <- extract.mirt(fit, "logLik")
})[["elapsed"]]
cat(min(times), extract.mirt(fit, "logLik"), "\n")
"""


def simulate(n_people: int, n_items: int, model: str, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=(n_people, 1))
    a = rng.lognormal(0.0, 0.3, size=n_items)
    b = rng.normal(size=n_items)
    g = rng.uniform(0.05, 0.25, size=n_items) if model == "3PL" else np.zeros(n_items)
    p = g + (1 - g) / (1 + np.exp(-a * (theta - b)))
    x = (rng.uniform(size=p.shape) < p).astype(float)
    return pd.DataFrame(x, columns=[f"i{j + 1}" for j in range(n_items)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller shapes (2,000 x 20 and 60 x 100)")
    ap.add_argument("--repeat", type=int, default=3, help="repetitions per side (the minimum is reported)")
    ap.add_argument("--se", action="store_true", help="also compute standard errors on both sides")
    args = ap.parse_args()

    import irtbridge
    from irtbridge._r import session

    t0 = time.perf_counter()
    session.ensure_packages("mirt")
    session.call("irtb_versions", packages=["mirt"])
    irtbridge.calibrate(simulate(200, 5, "2PL", 0), "2PL", se=False)  # loads mirt's namespace
    startup = time.perf_counter() - t0
    print(f"R start-up and mirt load in the embedded R: {startup:.2f} s (once per process)\n")

    shapes = [(10_000, 50, "2PL"), (150, 500, "3PL")] if not args.quick else [(2_000, 20, "2PL"), (60, 100, "3PL")]
    print(f"{'shape':>22} {'model':>5} {'R alone s':>10} {'irtbridge s':>12} {'ratio':>7} {'overhead':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "timer.R"
        script.write_text(R_TIMER)
        for n, j, model in shapes:
            data = simulate(n, j, model, seed=n + j)
            csv = Path(tmp) / "x.csv"
            data.to_csv(csv, index=False)
            out = subprocess.run(
                ["Rscript", str(script), str(csv), model, str(args.repeat), "TRUE" if args.se else "FALSE"],
                check=True, capture_output=True, text=True,
            ).stdout.split()
            r_time, r_loglik = float(out[0]), float(out[1])
            bridge = []
            for _ in range(args.repeat):
                t = time.perf_counter()
                fit = irtbridge.calibrate(data, model, se=args.se)
                bridge.append(time.perf_counter() - t)
            b_time = min(bridge)
            assert abs(fit.loglik - r_loglik) < 1e-6 * max(1.0, abs(r_loglik)), (fit.loglik, r_loglik)
            print(
                f"{f'{n:,} x {j}':>22} {model:>5} {r_time:10.3f} {b_time:12.3f} {b_time / r_time:7.3f} "
                f"{100 * (b_time - r_time) / r_time:8.1f}%"
            )


if __name__ == "__main__":
    main()
