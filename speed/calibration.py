"""The same mirt fit through irtbridge and in R alone, side by side.

    .venv/bin/python speed/calibration.py [--quick] [--repeat N] [--no-se] [--se-all] [--leaderboard ITEMS]

Shapes: 10,000 respondents x 50 items (2PL), and 150 respondents x 500 items (3PL; the shape of
classifier-evaluation data: instances are items, models are respondents). "R alone" is `Rscript` timing
`mirt(...)` plus the same coefficient extraction with `system.time`; "irtbridge" is the wall time of
`irtbridge.calibrate(data, model)`, the default call (transfer to R, fit, extraction, transfer back), which
is mirt's default call `mirt(x, 1, model)` (`SE = FALSE`). R start-up (starting the embedded R and loading
mirt) is measured once and reported separately. Prints both times, the ratio (goal: at most 1.05x) and the
bridge overhead as a share of R's own time, and the EM cycles each side ran (a different cycle count would
be a different computation, not overhead).

Standard errors (issue 25; skip with ``--no-se``): R alone times `mirt(x, 1, model, SE = TRUE)`; irtbridge
times the default fit and then the first read of `fit.standard_errors` (on demand: the same numbers), and
prints the on-demand time alone, the fit plus it against R's `SE = TRUE`, and how the SEs were computed
(`fit.provenance["se_computed_by"]`: one EM cycle from mirt's last EM iterate, or a full refit). Only the
first shape by default (mirt's Oakes SEs for 1,500 3PL parameters take long on both sides); ``--se-all``
times every shape.

``--leaderboard ITEMS`` adds the shape of an ML leaderboard: 1,000 respondents (models) x ITEMS items with
50% of the cells missing, 2PL. The full 1,000 x 20,000 takes mirt many minutes (EM cost grows with
respondents x items x quadrature points per cycle), so run a smaller ITEMS and extrapolate linearly in
items at the same cycle count; the script prints the extrapolation. On a shared machine all numbers are
noisy: compare the ratio, not the seconds. The two sides alternate fit by fit, and the CPU ratio
(process CPU time: R's own user+sys for R alone, the whole Python process for irtbridge) is the steadier
measure when other jobs share the cores.
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
# warm-up (mirt's lazy-loaded code, first-call costs), as the embedded side's start-up fit does
invisible(suppressWarnings(mirt(x, 1, itemtype = args[2], verbose = FALSE, technical = list(NCYCLES = 2))))
times <- cpu <- numeric(repeats)
for (r in seq_len(repeats)) {
  st <- system.time({
    fit <- mirt(x, 1, itemtype = args[2], SE = se, verbose = FALSE)
    co <- coef(fit, IRTpars = TRUE, simplify = TRUE)$items
    ll <- extract.mirt(fit, "logLik")
  })
  times[r] <- st[["elapsed"]]
  cpu[r] <- st[["user.self"]] + st[["sys.self"]]
}
cat(min(times), extract.mirt(fit, "logLik"), extract.mirt(fit, "iterations"), min(cpu), "\n")
"""


def simulate(n_people: int, n_items: int, model: str, seed: int, missing: float = 0.0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=(n_people, 1))
    a = rng.lognormal(0.0, 0.3, size=n_items)
    b = rng.normal(size=n_items)
    g = rng.uniform(0.05, 0.25, size=n_items) if model == "3PL" else np.zeros(n_items)
    p = g + (1 - g) / (1 + np.exp(-a * (theta - b)))
    x = (rng.uniform(size=p.shape) < p).astype(float)
    if missing:
        x[rng.uniform(size=x.shape) < missing] = np.nan
    return pd.DataFrame(x, columns=[f"i{j + 1}" for j in range(n_items)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller shapes (2,000 x 20 and 60 x 100)")
    ap.add_argument("--repeat", type=int, default=3, help="repetitions per side (the minimum is reported)")
    ap.add_argument("--no-se", action="store_true", help="skip the standard-error timings")
    ap.add_argument("--se-all", action="store_true", help="time standard errors on every shape, not just the first")
    ap.add_argument("--leaderboard", type=int, metavar="ITEMS", default=0,
                    help="add a 1,000 x ITEMS 2PL with 50%% missing cells (the full shape is 20,000 items)")
    args = ap.parse_args()

    import irtbridge
    from irtbridge._r import session

    t0 = time.perf_counter()
    session.ensure_packages("mirt")
    session.call("irtb_versions", packages=["mirt"])
    irtbridge.calibrate(simulate(200, 5, "2PL", 0), "2PL", se=False)  # loads mirt's namespace
    startup = time.perf_counter() - t0
    print(f"R start-up and mirt load in the embedded R: {startup:.2f} s (once per process)\n")

    shapes = [(10_000, 50, "2PL", 0.0), (150, 500, "3PL", 0.0)] if not args.quick else [(2_000, 20, "2PL", 0.0),
                                                                                      (60, 100, "3PL", 0.0)]
    if args.leaderboard:
        shapes.append((1_000, args.leaderboard, "2PL", 0.5))
    t = time.perf_counter()
    for _ in range(20):
        session.call("irtb_versions", packages=["mirt"])
    print(f"one envelope round trip (irtb_versions): {(time.perf_counter() - t) / 20 * 1e3:.2f} ms\n")
    se_rows = []
    print(f"{'shape':>22} {'model':>5} {'R alone s':>10} {'irtbridge s':>12} {'ratio':>7} {'overhead':>9} {'cycles R/bridge':>16} {'CPU ratio':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "timer.R"
        script.write_text(R_TIMER)

        def r_alone(csv: Path, model: str, se: bool) -> list[str]:
            return subprocess.run(["Rscript", str(script), str(csv), model, "1", "TRUE" if se else "FALSE"],
                                  check=True, capture_output=True, text=True).stdout.split()

        for k, (n, j, model, missing) in enumerate(shapes):
            data = simulate(n, j, model, seed=n + j, missing=missing)
            csv = Path(tmp) / "x.csv"
            data.to_csv(csv, index=False)
            with_se = not args.no_se and (k == 0 or args.se_all)
            # the two sides alternate, one fit each per round, so a change in machine load hits both
            r_times, bridge, r_cpu, b_cpu = [], [], [], []
            r_se, b_se, b_total = [], [], []
            for _ in range(args.repeat):
                out = r_alone(csv, model, False)
                r_times.append(float(out[0]))
                r_loglik, r_cycles = float(out[1]), int(out[2])
                r_cpu.append(float(out[3]))
                t, c = time.perf_counter(), time.process_time()
                fit = irtbridge.calibrate(data, model)  # the default call: mirt's default, SE = FALSE
                bridge.append(time.perf_counter() - t)
                b_cpu.append(time.process_time() - c)
                if with_se:
                    r_se.append(float(r_alone(csv, model, True)[0]))
                    t = time.perf_counter()
                    fit.standard_errors  # on demand: mirt's SE = TRUE numbers for this fit
                    b_se.append(time.perf_counter() - t)
                    b_total.append(bridge[-1] + b_se[-1])
            r_time, b_time = min(r_times), min(bridge)
            assert abs(fit.loglik - r_loglik) < 1e-6 * max(1.0, abs(r_loglik)), (fit.loglik, r_loglik)
            label = f"{n:,} x {j:,}" + (f" {missing:.0%} NA" if missing else "")
            print(
                f"{label:>22} {model:>5} {r_time:10.3f} {b_time:12.3f} {b_time / r_time:7.3f} "
                f"{100 * (b_time - r_time) / r_time:8.1f}% {f'{r_cycles}/{fit.iterations}':>16} "
                f"{min(b_cpu) / min(r_cpu):10.3f}"
            )
            if with_se:
                se_rows.append((label, model, r_time, min(r_se), min(b_se), min(b_total),
                                fit.provenance.get("se_computed_by", "?")))
            if missing and j < 20_000:
                scale = 20_000 / j
                print(f"{'':>22} extrapolated to 1,000 x 20,000 at the same cycles: R alone ~{r_time * scale:,.0f} s, "
                      f"irtbridge ~{b_time * scale:,.0f} s")
    if se_rows:
        print("\nstandard errors: mirt(x, 1, model, SE = TRUE) in R alone vs the default fit, then fit.standard_errors")
        print(f"{'shape':>22} {'model':>5} {'R SE=FALSE':>11} {'R SE=TRUE':>10} {'on-demand SE':>13} "
              f"{'fit + SE':>9} {'ratio':>7}  computed by")
        for label, model, r_plain, r_full, on_demand, total, how in se_rows:
            print(f"{label:>22} {model:>5} {r_plain:11.3f} {r_full:10.3f} {on_demand:13.3f} {total:9.3f} "
                  f"{total / r_full:7.3f}  {how}")
        print("(ratio: the default fit plus the on-demand SEs over R's SE = TRUE fit; the on-demand SEs alone "
              "compare with R's SE = TRUE minus SE = FALSE)")

if __name__ == "__main__":
    main()
