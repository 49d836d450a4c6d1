"""EAP ability scoring: irtbridge.estimate_abilities vs mirt::fscores on the same items and responses.

Cases (issue 3): 100,000 respondents x 50 items (2PL) and 10,000 x 500 (3PL); ``--quick`` uses
10,000 x 50 and 2,000 x 200. Both engines use a 61-point grid on [-6, 6] and a N(0, 1) prior.

What is timed:
* irtbridge: ``estimate_abilities(responses, items, model, method="EAP")`` on in-memory arrays,
  validation included (wall clock, best of ``--repeat``).
* mirt: measured inside R with ``system.time()`` around ``fscores()`` only (best of ``--repeat``);
  reading the data and building the fixed-parameter model are not timed. Two variants:
  ``fscores(mod)`` on the data the model was built with (its response patterns already tabulated by
  ``mirt()``), and ``fscores(mod, response.pattern = X)``, the call that matches scoring new responses.
  The ratio uses the faster of the two.

The script also reports the largest |theta| difference between the engines (they sum the same grid,
so it should be ~1e-12). Run: ``.venv/bin/python speed/scoring.py [--quick] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from irtbridge.irt import estimate_abilities

# A fixed R program (no data inside): data and sizes arrive through files and command-line arguments.
R_PROGRAM = r"""
suppressPackageStartupMessages(library(mirt))
args <- commandArgs(trailingOnly = TRUE)
dir <- args[[1L]]
N <- as.integer(args[[2L]])
J <- as.integer(args[[3L]])
itemtype <- args[[4L]]
repeats <- as.integer(args[[5L]])
read_doubles <- function(name, n) {
  con <- file(file.path(dir, name), "rb")
  on.exit(close(con))
  readBin(con, "double", n = n, size = 8L, endian = "little")
}
con <- file(file.path(dir, "responses.bin"), "rb")
x <- readBin(con, "integer", n = N * J, size = 1L, signed = TRUE)
close(con)
resp <- matrix(x, nrow = N, ncol = J, byrow = TRUE)
colnames(resp) <- paste0("item", seq_len(J))
a <- read_doubles("a.bin", J)
b <- read_doubles("b.bin", J)
g <- read_doubles("g.bin", J)
sv <- mirt(resp, 1, itemtype = itemtype, pars = "values", verbose = FALSE)
sv$value[sv$name == "a1"] <- a
sv$value[sv$name == "d"] <- -a * b
sv$value[sv$name == "g"] <- g
sv$est <- FALSE
mod <- mirt(resp, 1, itemtype = itemtype, pars = sv, TOL = NaN, verbose = FALSE)
own <- Inf
pattern <- Inf
for (r in seq_len(repeats)) {
  own <- min(own, system.time(
    fs <- fscores(mod, method = "EAP", quadpts = 61, theta_lim = c(-6, 6), full.scores.SE = TRUE,
                  verbose = FALSE))[["elapsed"]])
  pattern <- min(pattern, system.time(
    fs2 <- fscores(mod, method = "EAP", response.pattern = resp, quadpts = 61, theta_lim = c(-6, 6),
                   verbose = FALSE))[["elapsed"]])
}
writeBin(as.double(fs[, "F1"]), file.path(dir, "theta_mirt.bin"), size = 8L, endian = "little")
writeLines(sprintf("%.6f,%.6f,%s", own, pattern, as.character(packageVersion("mirt"))), file.path(dir, "timing.csv"))
"""

FULL = [(100_000, 50, "2PL"), (10_000, 500, "3PL")]
QUICK = [(10_000, 50, "2PL"), (2_000, 200, "3PL")]


def make_case(n: int, j: int, model: str, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.5, 2.0, j)
    b = rng.normal(0.0, 1.0, j)
    g = rng.uniform(0.05, 0.3, j) if model == "3PL" else np.zeros(j)
    items = pd.DataFrame({"a": a, "b": b, "g": g}, index=[f"item{k + 1}" for k in range(j)])
    theta = rng.normal(0.0, 1.0, n)
    p = g + (1 - g) / (1 + np.exp(-a * (theta[:, None] - b)))
    responses = (rng.uniform(size=p.shape) < p).astype(np.int8)
    return items, responses


def time_irtbridge(items: pd.DataFrame, responses: np.ndarray, model: str, repeats: int) -> tuple[float, np.ndarray]:
    best, theta = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        est = estimate_abilities(responses, items, model=model, method="EAP", quadrature=61, bounds=(-6, 6))
        best = min(best, time.perf_counter() - start)
        theta = est["theta"].to_numpy()
    return best, theta


def time_mirt(items: pd.DataFrame, responses: np.ndarray, model: str, repeats: int) -> tuple[float, float, str, np.ndarray]:
    with tempfile.TemporaryDirectory(prefix="irtb_bench_") as tmp:
        path = Path(tmp)
        (path / "bench.R").write_text(R_PROGRAM)
        np.ascontiguousarray(responses, dtype=np.int8).tofile(path / "responses.bin")
        for col in ("a", "b", "g"):
            items[col].to_numpy(dtype="<f8").tofile(path / f"{col}.bin")
        n, j = responses.shape
        proc = subprocess.run(
            ["Rscript", str(path / "bench.R"), str(path), str(n), str(j), model, str(repeats)],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise SystemExit(f"Rscript failed:\n{proc.stderr}")
        own, pattern, version = (path / "timing.csv").read_text().strip().split(",")
        theta = np.fromfile(path / "theta_mirt.bin", dtype="<f8")
    return float(own), float(pattern), version, theta


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--repeat", type=int, default=1, help="timing repetitions per engine; the best is kept")
    parser.add_argument("--seed", type=int, default=20240603)
    args = parser.parse_args(argv)
    if shutil.which("Rscript") is None:
        raise SystemExit("Rscript is not on PATH; the benchmark needs R with mirt")

    cases = QUICK if args.quick else FULL
    rows = []
    for n, j, model in cases:
        items, responses = make_case(n, j, model, args.seed)
        t_irtb, theta_irtb = time_irtbridge(items, responses, model, args.repeat)
        t_own, t_pattern, version, theta_mirt = time_mirt(items, responses, model, args.repeat)
        t_mirt = min(t_own, t_pattern)
        rows.append(
            {
                "case": f"EAP {model} {n:,} x {j}",
                "irtbridge_s": t_irtb,
                "mirt_fscores(mod)_s": t_own,
                "mirt_fscores(response.pattern)_s": t_pattern,
                "speedup_vs_faster_mirt": t_mirt / t_irtb,
                "max_abs_theta_diff": float(np.max(np.abs(theta_irtb - theta_mirt))),
            }
        )
        print(
            f"{rows[-1]['case']:<24} irtbridge {t_irtb:8.3f} s | mirt {version} fscores(mod) {t_own:8.3f} s, "
            f"response.pattern {t_pattern:8.3f} s | {t_mirt / t_irtb:6.1f}x faster | "
            f"max |dtheta| {rows[-1]['max_abs_theta_diff']:.1e}",
            flush=True,
        )
    table = pd.DataFrame(rows).set_index("case")
    with pd.option_context("display.width", 200, "display.max_columns", 10, "display.float_format", "{:.4g}".format):
        print()
        print(table)
    print("\nmirt timed inside R (system.time around fscores only); irtbridge wall clock in this process.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
