"""ltm's MAP scores of every respondent: ltm alone and through irtbridge, side by side.

    .venv/bin/python speed/ltm_scores.py [--repeat N]

"R alone" times ltm's own call for every row, ``factor.scores(fit, method = "EB", resp.patterns = X)``
(one ``optim`` per row); "irtbridge" times ``fit.abilities("MAP")`` on the same fit, which asks ltm for each
distinct answer pattern once and gives every row its pattern's score (the numbers are ltm's:
tests/calibration/test_calibration.py compares them with the per-row call to 1e-8). Shapes: ltm's LSAT
(1,000 x 5, 2PL), Abortion (379 x 4, 2PL) and Science (392 x 4, graded). Prints both times and the ratio.
"""

from __future__ import annotations

import argparse
import subprocess
import time
import warnings

R_TIMER = r"""
args <- commandArgs(trailingOnly = TRUE)
suppressPackageStartupMessages(library(ltm))
x <- switch(args[1], LSAT = LSAT, Abortion = Abortion, Science = Science[c(1, 3, 4, 7)])
fit <- if (args[2] == "graded") grm(x) else ltm(x ~ z1)
best <- Inf
for (r in seq_len(as.integer(args[3])))
  best <- min(best, system.time(factor.scores(fit, method = "EB", resp.patterns = x))[["elapsed"]])
cat(best, "\n")
"""

CASES = [("LSAT", "2PL"), ("Abortion", "2PL"), ("Science", "graded")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed calls on each side (the fastest is kept)")
    args = parser.parse_args(argv)

    from irtbridge import calibrate
    from irtbridge.example_data import response_dataset

    print(f"{'data':10s} {'model':7s} {'rows':>5s} {'R alone':>9s} {'irtbridge':>10s} {'ratio':>7s}")
    for name, model in CASES:
        proc = subprocess.run(["Rscript", "-e", R_TIMER, name, model, str(args.repeat)], capture_output=True,
                              text=True, check=True)
        r_alone = float(proc.stdout.split()[0])
        data = response_dataset(name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ltm's grm says "NaNs produced" while fitting Science, in R too
            fit = calibrate(data, model=model, engine="ltm")
        fit.abilities("EAP")  # the R session and ltm are loaded before timing
        best = float("inf")
        for _ in range(args.repeat):
            start = time.perf_counter()
            fit.abilities("MAP")
            best = min(best, time.perf_counter() - start)
        print(f"{name:10s} {model:7s} {len(data):5d} {r_alone:8.3f}s {best:9.3f}s {best / r_alone:6.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
