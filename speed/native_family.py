"""The native 3PL before and after the item-model family (issue 41): time, log-posterior and held-out fit.

Run it in two checkouts on the same data (it uses only the public API, so it runs on any version): the
stable mode's 3PL (``a1 ~ N(1, 0.5)``, ``d ~ N(0, 3)``, ``g ~ Beta(2, 17)``) is fitted natively on the
classifier-shaped matrices of :func:`irtbridge.decodirt.modes.simulate_classifier_responses` and on LSAT7
with 20% of the answered cells held out (seed 0). Printed per matrix: wall time, EM cycles, the fit's
``logLik + logPrior`` (mirt's log-posterior, on the cells it saw) and the held-out log predictive density:
for every respondent, ``log sum_q post_q prod_j P(y_j | theta_q)`` over its held-out cells ``j``, with
``post`` its posterior on the 61 nodes given its other answers. The same numbers in both checkouts (to
rounding) mean the refactor kept the 3PL; a higher held-out value would be a better fit.

    .venv/bin/python speed/native_family.py [--model 3PL] [--tol 1e-4]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from scipy.special import logsumexp

import irtbridge
from irtbridge.decodirt.modes import STABLE_PRIORS, simulate_classifier_responses
from irtbridge.example_data import response_dataset

PRIORS_4PL = {**STABLE_PRIORS, "u": ("expbeta", 17.0, 2.0)}


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="3PL", choices=("3PL", "4PL"))
    ap.add_argument("--tol", type=float, default=1e-4)
    args = ap.parse_args()
    priors = STABLE_PRIORS if args.model == "3PL" else PRIORS_4PL
    rng = np.random.default_rng(0)
    for name, x in _matrices().items():
        values = x.to_numpy(dtype=float)
        held = (rng.random(values.shape) < 0.2) & ~np.isnan(values)
        train, test = np.where(held, np.nan, values), np.where(held, values, np.nan)
        frame = pd.DataFrame(train, columns=x.columns)
        keep = (frame.nunique() > 1).to_numpy()
        frame = frame.loc[:, keep]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            started = time.perf_counter()
            fit = irtbridge.calibrate(frame, args.model, engine="native", priors=priors, se=False, TOL=args.tol,
                                      technical={"NCYCLES": 5000})
            seconds = time.perf_counter() - started
        logpost = fit.loglik + fit.options["log_prior"]
        print(f"{name:24s} {seconds:7.2f} s  {fit.iterations:4d} cycles  log-posterior {logpost:.9f}  "
              f"held-out {_held_out(fit.items, train[:, keep], test[:, keep]):.9f}")


if __name__ == "__main__":
    main()
