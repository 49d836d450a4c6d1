"""Does :func:`irtbridge.adaptive_evaluate`'s 95% interval cover real held-out models' accuracy?

For each set and seed, the interpolation split of :func:`irtbridge.leaderboard.tiny_cv.protocol_splits` (25%
of the models held out) and the extrapolation split (calibrate on the weakest 50%, test the strongest 30%):
a native 2PL on the calibration models, either plain maximum likelihood (``none``) or with the leaderboard's
weak slope prior ``a1 ~ N(1, 2)`` (``prior``), 100 EM cycles; each held-out model then takes the adaptive test,
answering from its row of the matrix, and its predicted accuracy's interval is checked against its accuracy
on all items. Rules: ``old`` (the CAT, stop at posterior SD < 0.2 from the first item, the p-IRT posterior
interval of :func:`irtbridge.estimate_performance`: the behaviour before issue 39) and ``cat``
(``selection="maxinfo"``: at least 20 items, SD < 0.2, the interval widened by the asked items' leave-one-out
residuals), both capped at 100 items; ``twophase`` (``selection="twophase"``, 50 items expected: 25 at random,
25 drawn by the 2PL prediction's uncertainty; the difference estimator and its design-based interval) and
``twophase100`` (the default of :func:`irtbridge.adaptive_evaluate`: ``"twophase"`` with 100 items expected).
``--rules`` and ``--priors`` choose among them.

Data as ``speed/lm_twophase.py`` (``--data``, default ``/work/data-twophase``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lm_twophase import load_sets  # noqa: E402

from irtbridge.irt import as_item_bank  # noqa: E402
from irtbridge.leaderboard.adaptive import adaptive_evaluate  # noqa: E402
from irtbridge.leaderboard.performance import estimate_performance  # noqa: E402
from irtbridge.leaderboard.tiny_cv import protocol_splits  # noqa: E402

SETS = ("nlu/arct", "nlu/boolq", "nlu/commonsenseqa", "nlu/winogrande", "nlu/mutual", "atlas/arc")
RULES = {"old": {"selection": "maxinfo", "min_items": 1}, "cat": {"selection": "maxinfo"},
         "twophase": {"selection": "twophase", "max_items": 50}, "twophase100": {"selection": "twophase"}}
PRIORS = {"none": None, "prior": {"a1": ("norm", 1.0, 2.0)}}


def fit(cal: pd.DataFrame, priors) -> object:
    from irtbridge.em import fit_em, prepare_responses

    res = fit_em(prepare_responses(cal.to_numpy(), list(cal.columns)), "2PL", NCYCLES=100, priors=priors)
    a = np.asarray(res.a, dtype=float)
    b = np.clip(-np.asarray(res.d, dtype=float) / np.where(a != 0, a, 1.0), -50, 50)
    return as_item_bank(pd.DataFrame({"a": a, "b": b}, index=list(cal.columns)), "2PL")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="/work/data-twophase")
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--rules", default=",".join(RULES), help="comma-separated rules (default all)")
    parser.add_argument("--priors", default=",".join(PRIORS), help="comma-separated calibrations (default both)")
    args = parser.parse_args()
    rules = {r: RULES[r] for r in args.rules.split(",")}
    priors_used = {p: PRIORS[p] for p in args.priors.split(",")}
    sets = load_sets(args.data)
    rows = []
    for name in args.sets.split(","):
        frame = sets[name]
        t0 = time.time()
        for seed in range(args.seeds):
            for split, (cal_idx, new_idx) in protocol_splits(frame, seed).items():
                for prior, priors in priors_used.items():
                    bank = fit(frame.iloc[cal_idx], priors)
                    max_a = float(np.abs(bank.a).max())
                    for i in new_idx:
                        row = frame.iloc[i]
                        truth = float(row.mean())
                        for rule, options in rules.items():
                            with warnings.catch_warnings():
                                warnings.simplefilter("ignore")
                                res = adaptive_evaluate(row.__getitem__, bank, 0.2, **{"max_items": 100, **options},
                                                        seed=int(i))
                            lower, upper = res.lower, res.upper
                            if rule == "old":  # the interval before issue 39: p-IRT's posterior alone
                                with warnings.catch_warnings():
                                    warnings.simplefilter("ignore")
                                    old = estimate_performance(pd.DataFrame([res.responses], columns=list(res.items)),
                                                               bank, list(res.items)).iloc[0]
                                lower, upper = old["lower"], old["upper"]
                            rows.append({"set": name, "split": split, "prior": prior, "rule": rule, "max_a": max_a,
                                         "n_items": res.n_items, "error": abs(res.accuracy - truth),
                                         "covered": lower <= truth <= upper, "width": upper - lower})
        print(f"{name}: {time.time() - t0:.0f}s", file=sys.stderr)
    out = pd.DataFrame(rows)
    agg = out.groupby(["split", "prior", "rule"]).agg(coverage=("covered", "mean"), mae=("error", "mean"),
                                                      items=("n_items", "mean"), width=("width", "mean"),
                                                      max_a=("max_a", "max"),
                                                      n=("covered", "size"))
    print(agg.to_string(float_format=lambda v: f"{v:.3f}"))
    print(out.groupby(["set", "prior", "rule"])["covered"].mean().unstack("rule").to_string(float_format=lambda v: f"{v:.3f}"))


if __name__ == "__main__":
    main()
