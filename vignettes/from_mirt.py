"""From R's mirt to irtbridge: each R call next to its Python equivalent, with both results.

    python vignettes/from_mirt.py --out DIR [--quick]

The R side is run for real (Rscript, plain mirt and ltm calls) so the two columns can be compared number
for number; the Python side is irtbridge. Saves the item characteristic curves to DIR.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

import irtbridge
from irtbridge.example_data import response_dataset

R_SIDE = r"""
suppressPackageStartupMessages({ library(mirt); library(ltm); library(jsonlite) })
data <- expand.table(LSAT7)
fit <- mirt(data, 1, itemtype = "2PL", SE = TRUE, verbose = FALSE)
items <- coef(fit, IRTpars = TRUE, simplify = TRUE)$items
eap <- fscores(fit, method = "EAP", full.scores.SE = TRUE, verbose = FALSE)
se_a <- sapply(coef(fit, IRTpars = TRUE, printSE = TRUE)[colnames(data)], function(m) m["SE", "a"])
fit_ltm <- ltm(LSAT ~ z1)
cat(toJSON(list(a = unname(items[, "a"]), b = unname(items[, "b"]),
                se_a = unname(se_a), loglik = extract.mirt(fit, "logLik"), theta = eap[1:5, "F1"], se = eap[1:5, "SE_F1"],
                ltm_a = unname(coef(fit_ltm)[, "Dscrmn"])), digits = NA, auto_unbox = TRUE))
"""

STEPS = [
    ("data <- expand.table(LSAT7)", 'data = response_dataset("LSAT7")'),
    ('fit <- mirt(data, 1, itemtype = "2PL")', 'fit = irtbridge.calibrate(data, "2PL")'),
    ("coef(fit, IRTpars = TRUE, simplify = TRUE)$items", "fit.items"),
    ('coef(mirt(data, 1, "2PL", SE = TRUE), IRTpars = TRUE, printSE = TRUE)', "fit.standard_errors  (on first read)"),
    ('extract.mirt(fit, "logLik")', "fit.loglik"),
    ('fscores(fit, method = "EAP", full.scores.SE = TRUE)', 'fit.abilities("EAP")'),
    ("(no R equivalent: native scoring from any item table)", 'irtbridge.estimate_abilities(data, fit, method="EAP")'),
    ("ltm(LSAT ~ z1)", 'irtbridge.calibrate(response_dataset("LSAT"), "2PL", engine="ltm")'),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--quick", action="store_true", help="accepted for symmetry; this walkthrough is already quick")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    width = max(len(r) for r, _ in STEPS)
    print(f"{'R (mirt / ltm)':<{width}}   irtbridge")
    for r_call, py_call in STEPS:
        print(f"{r_call:<{width}}   {py_call}")

    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "side.R"
        script.write_text(R_SIDE)
        r = json.loads(subprocess.run(["Rscript", str(script)], check=True, capture_output=True, text=True).stdout)

    data = response_dataset("LSAT7")
    fit = irtbridge.calibrate(data, "2PL")
    eap = fit.abilities("EAP")
    native = irtbridge.estimate_abilities(data, fit, method="EAP")
    fit_ltm = irtbridge.calibrate(response_dataset("LSAT"), "2PL", engine="ltm")

    table = pd.DataFrame(
        {"a (R)": r["a"], "a (irtbridge)": fit.items["a"].to_numpy(),
         "b (R)": r["b"], "b (irtbridge)": fit.items["b"].to_numpy()},
        index=fit.items.index,
    )
    print("\nItem parameters, mirt called from R vs through irtbridge:")
    print(table.round(6).to_string())
    print(f"\nlog-likelihood: R {r['loglik']:.8f}   irtbridge {fit.loglik:.8f}")
    se_gap = float(np.max(np.abs(fit.standard_errors["a"].to_numpy() - np.asarray(r["se_a"]))))
    print(f"SE(a), mirt's SE = TRUE vs fit.standard_errors read afterwards: largest difference {se_gap:.2e}")
    assert se_gap < 1e-8
    print("\nFirst five EAP scores (theta, se):")
    scores = pd.DataFrame({"R theta": r["theta"], "irtbridge theta": eap["theta"].iloc[:5].to_numpy(),
                           "native theta": native["theta"].iloc[:5].to_numpy(),
                           "R se": r["se"], "irtbridge se": eap["se"].iloc[:5].to_numpy()})
    print(scores.round(6).to_string(index=False))
    gap = float(np.max(np.abs(fit.items["a"].to_numpy() - np.asarray(r["a"]))))
    print(f"\nlargest |a| difference, R vs irtbridge: {gap:.2e}")
    print(f"ltm's 2PL discriminations: R {np.round(r['ltm_a'], 4).tolist()}, irtbridge {fit_ltm.items['a'].round(4).tolist()}")
    assert gap < 1e-8

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    theta = np.linspace(-4, 4, 161)
    probs = irtbridge.irt.response_probability(theta, fit)
    fig, ax = plt.subplots(figsize=(6, 4))
    for j, name in enumerate(fit.items.index):
        ax.plot(theta, np.asarray(probs)[:, j], label=name)
    ax.set(xlabel="ability θ", ylabel="P(correct)", title="LSAT7, 2PL item characteristic curves")
    ax.legend(frameon=False)
    fig.tight_layout()
    fig.savefig(args.out / "lsat7_icc.png", dpi=120)
    print(f"\nsaved {args.out / 'lsat7_icc.png'}")


if __name__ == "__main__":
    main()
