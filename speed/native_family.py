"""The native 2PL/3PL/4PL before and after the item-model family (issue 41): time, log-posterior, held-out fit.

The stable mode's 3PL (``a1 ~ N(1, 0.5)``, ``d ~ N(0, 3)``, ``g ~ Beta(2, 17)``; the 2PL keeps the priors on
``a1`` and ``d``, the 4PL adds ``u ~ expbeta(17, 2)``) is fitted natively on the classifier-shaped matrices of
:func:`irtbridge.decodirt.modes.simulate_classifier_responses` and on LSAT7 with 20% of the answered cells
held out (seed 0). Printed per matrix: wall time (the fastest of ``--repeat`` fits), EM cycles, the fit's
``logLik + logPrior`` (mirt's log-posterior, on the cells it saw) and the held-out log predictive density:
for every respondent, ``log sum_q post_q prod_j P(y_j | theta_q)`` over its held-out cells ``j``, with
``post`` its posterior on the 61 nodes given its other answers. The same numbers in both checkouts (to
rounding) mean the refactor kept the model; a higher held-out value would be a better fit.

It uses only the public API, so it runs on any version: ``--against DIR`` runs the same fits, interleaved
with these, on the checkout ``DIR`` (this file run with ``DIR`` first on ``PYTHONPATH``) and prints the
time ratio (this checkout / ``DIR``) and the held-out difference per matrix.

    nice .venv/bin/python speed/native_family.py [--model 3PL] [--tol 1e-4] [--repeat 3] [--against ../main]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import warnings

import numpy as np
import pandas as pd
from scipy.special import logsumexp

import irtbridge
from irtbridge.decodirt.modes import STABLE_PRIORS, simulate_classifier_responses
from irtbridge.example_data import response_dataset

PRIORS = {"2PL": {k: STABLE_PRIORS[k] for k in ("a1", "d")}, "3PL": STABLE_PRIORS,
          "4PL": {**STABLE_PRIORS, "u": ("expbeta", 17.0, 2.0)}}


def _matrices() -> dict[str, pd.DataFrame]:
    out = {"LSAT7": response_dataset("LSAT7")}
    for n, j in ((40, 200), (132, 500)):
        x, _, _ = simulate_classifier_responses(n, j, seed=0)
        out[f"classifiers {n} x {j}"] = x
    return out


def _held_out(items: pd.DataFrame, train: np.ndarray, test: np.ndarray) -> float:
    theta = np.linspace(-6, 6, 61)
    a, b, g, u = (items[c].to_numpy() for c in ("a", "b", "g", "u"))
    p = g + (u - g) / (1 + np.exp(-a * (theta[:, None] - b)))  # nodes x items
    lp, lq = np.log(p), np.log1p(-p)

    def loglik(y: np.ndarray) -> np.ndarray:  # respondents x nodes
        seen = ~np.isnan(y)
        right, wrong = np.where(seen, y == 1, 0.0), np.where(seen, y != 1, 0.0)
        return right @ lp.T + wrong @ lq.T

    prior = -0.5 * theta**2
    post = loglik(train) + prior
    post -= logsumexp(post, axis=1, keepdims=True)
    return float(logsumexp(post + loglik(test), axis=1).sum())


def fit_all(model: str, tol: float, only: str | None = None) -> dict[str, dict[str, float]]:
    """Per matrix (or only the matrix ``only``): seconds, cycles, log-posterior and held-out density."""
    rng = np.random.default_rng(0)
    out = {}
    for name, x in _matrices().items():
        values = x.to_numpy(dtype=float)
        held = (rng.random(values.shape) < 0.2) & ~np.isnan(values)  # drawn for every matrix: same cells
        if only is not None and name != only:
            continue
        train, test = np.where(held, np.nan, values), np.where(held, values, np.nan)
        frame = pd.DataFrame(train, columns=x.columns)
        keep = (frame.nunique() > 1).to_numpy()
        frame = frame.loc[:, keep]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            started = time.perf_counter()
            fit = irtbridge.calibrate(frame, model, engine="native", priors=PRIORS[model], se=False, TOL=tol,
                                      technical={"NCYCLES": 5000})
            seconds = time.perf_counter() - started
        items = fit.items.reindex(columns=["a", "b", "g", "u"])
        items = items.fillna({"g": 0.0, "u": 1.0})
        out[name] = {"seconds": seconds, "cycles": float(fit.iterations),
                     "logpost": float(fit.loglik + fit.options.get("log_prior", 0.0)),
                     "held_out": _held_out(items, train[:, keep], test[:, keep])}
    return out


def _run(checkout: str | None, model: str, tol: float, name: str) -> dict[str, float]:
    """One fit of one matrix in a fresh interpreter on ``checkout`` (None: this one)."""
    root = checkout or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "PYTHONPATH": os.path.abspath(root)}
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--model", model, "--tol", str(tol),
                           "--only", name, "--json"], env=env, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)[name]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="3PL", choices=tuple(PRIORS))
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--repeat", type=int, default=1, help="fits per matrix and checkout; the fastest is kept")
    ap.add_argument("--against", metavar="DIR", help="another checkout to time the same fits on")
    ap.add_argument("--only", help=argparse.SUPPRESS)
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.json:
        print(json.dumps(fit_all(args.model, args.tol, args.only)))
        return
    for name in _matrices():
        here: list[dict[str, float]] = []
        there: list[dict[str, float]] = []
        for _ in range(args.repeat):  # interleaved, so both checkouts see the same machine load
            here.append(_run(None, args.model, args.tol, name))
            if args.against:
                there.append(_run(args.against, args.model, args.tol, name))
        best = min(here, key=lambda r: r["seconds"])
        line = (f"{name:24s} {best['seconds']:7.2f} s  {best['cycles']:4.0f} cycles  "
                f"log-posterior {best['logpost']:.9f}  held-out {best['held_out']:.9f}")
        if there:
            other = min(there, key=lambda r: r["seconds"])
            line += (f"  | against: {other['seconds']:7.2f} s  {other['cycles']:4.0f} cycles  "
                     f"held-out {other['held_out']:.9f}  time ratio {best['seconds'] / other['seconds']:.2f}  "
                     f"held-out gain {best['held_out'] - other['held_out']:+.2e}")
        print(line, flush=True)


if __name__ == "__main__":
    main()
