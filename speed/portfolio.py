"""Benchmark: algorithm-portfolio evaluation, irtbridge vs airt 0.2.2 (R) on the same data.

Both sides calibrate in R (EstCRM / mirt); airt then computes goodness, effectiveness and the latent trait
analysis in R (per-dataset loops, ggplot2 + mgcv for the splines), irtbridge natively. irtbridge runs with
``convention="airt"`` so both compute the same numbers; the script checks the AUCs agree, then prints
each side's time (airt's measured inside R, without R's start-up), the ratio, and irtbridge's native share.

    python speed/portfolio.py            # classification_cts (235 x 10) and a 2000 x 10 synthetic set
    python speed/portfolio.py --quick    # classification_cts only
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit

from irtbridge.exceptions import DataWarning
from irtbridge.portfolio import airt_performance, bin_performance, evaluate_portfolio

R_TIMER = r"""
suppressMessages({library(airt); library(mirt)})
args <- commandArgs(TRUE)
cts <- read.csv(args[1], check.names = FALSE)
poly <- read.csv(args[2], check.names = FALSE)
n <- ncol(cts)
t_crm <- system.time({
  mod <- cirtmodel(cts, rep(1, n), rep(0, n))
  gc <- model_goodness_crm(mod); ec <- effectiveness_crm(mod)
  lta <- suppressMessages(suppressWarnings(latent_trait_analysis(cts, mod$model$param, rep(0, n), rep(1, n), epsilon = 0)))
})[["elapsed"]]
t_poly <- system.time({
  pm <- pirtmodel(poly, vpara = FALSE)
  gp <- model_goodness_poly(pm); ep <- effectiveness_poly(pm)
})[["elapsed"]]
jsonlite::write_json(list(t_crm = t_crm, t_poly = t_poly, crm_goodness = as.numeric(gc$goodnessAUC),
                          poly_goodness = as.numeric(gp$goodnessAUC),
                          occupancy = lta$strengths$proportions$Proportion),
                     args[3], digits = NA, auto_unbox = TRUE)
"""


def synthetic(n: int, seed: int) -> pd.DataFrame:
    """Accuracy-like performance of 10 algorithms that differ in level and discrimination."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n)
    a = np.linspace(0.5, 2.5, 10)
    b = np.linspace(-2.0, -0.5, 10)
    perf = expit(a * (theta[:, None] - b) + rng.normal(scale=0.6, size=(n, 10)))
    return pd.DataFrame(np.clip(perf.round(4), 0.0, 1.0), columns=[f"alg{j}" for j in range(10)])


def irtbridge_times(cts: pd.DataFrame, poly: pd.DataFrame, repeat: int) -> dict:
    """Best-of-``repeat`` wall times; the native part is each run's time minus its own R calibration."""
    best = {"crm": np.inf, "poly": np.inf, "native_crm": np.inf, "native_poly": np.inf}
    out = {}
    for _ in range(repeat):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DataWarning)
            t0 = time.perf_counter()
            ev = evaluate_portfolio(cts, "continuous", min_item=0, max_item=1, convention="airt")
            t1 = time.perf_counter()
            ep = evaluate_portfolio(poly, "polytomous", convention="airt")
            t2 = time.perf_counter()
        best["crm"] = min(best["crm"], t1 - t0)
        best["poly"] = min(best["poly"], t2 - t1)
        best["native_crm"] = min(best["native_crm"], t1 - t0 - ev.calibration.provenance["fit_seconds"])
        best["native_poly"] = min(best["native_poly"], t2 - t1 - ep.calibration.provenance["fit_seconds"])
        out = {"ev_crm": ev, "ev_poly": ep}
    return {**best, **out}


def run(name: str, cts: pd.DataFrame, repeat: int) -> None:
    poly = bin_performance(cts, 5, min_value=0, max_value=1)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        cts.to_csv(tmp / "cts.csv", index=False)
        poly.to_csv(tmp / "poly.csv", index=False)
        (tmp / "t.R").write_text(R_TIMER)
        subprocess.run(["Rscript", str(tmp / "t.R"), str(tmp / "cts.csv"), str(tmp / "poly.csv"), str(tmp / "o.json")],
                       check=True, capture_output=True)
        r = json.loads((tmp / "o.json").read_text())
    ib = irtbridge_times(cts, poly, repeat)
    gap_crm = np.abs(ib["ev_crm"].algorithms["goodness_auc"].to_numpy() - r["crm_goodness"]).max()
    gap_poly = np.abs(ib["ev_poly"].algorithms["goodness_auc"].to_numpy() - r["poly_goodness"]).max()
    occ = ib["ev_crm"].occupancy["proportion"].to_numpy()
    gap_occ = np.abs(np.sort(occ) - np.sort(np.atleast_1d(r["occupancy"]))).max() if occ.size == np.size(r["occupancy"]) else np.inf
    print(f"\n{name}: {cts.shape[0]} datasets x {cts.shape[1]} algorithms")
    print(f"  max |AUC diff| CRM {gap_crm:.1e}, polytomous {gap_poly:.1e}; occupancy {gap_occ:.1e}")
    print(f"  {'':<34}{'airt (R)':>10}{'irtbridge':>11}{'ratio':>8}{'native part':>13}")
    print(f"  {'CRM: fit + goodness + eff. + LTA':<34}{r['t_crm']:>9.2f}s{ib['crm']:>10.2f}s"
          f"{r['t_crm'] / ib['crm']:>7.1f}x{ib['native_crm']:>12.3f}s")
    print(f"  {'gpcm: fit + goodness + eff.':<34}{r['t_poly']:>9.2f}s{ib['poly']:>10.2f}s"
          f"{r['t_poly'] / ib['poly']:>7.1f}x{ib['native_poly']:>12.3f}s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="classification_cts only")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        cts = airt_performance("classification_cts")
    print("airt's times are measured inside R (no R start-up); irtbridge's include the R calibration through the "
          "bridge\n(R already started) and, for gpcm, a latent trait analysis airt does not offer.")
    run("classification_cts", cts, args.repeat)
    if not args.quick:
        run("synthetic", synthetic(2000, seed=1), args.repeat)


if __name__ == "__main__":
    main()
