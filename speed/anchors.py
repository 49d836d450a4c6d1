"""Anchor items and p-IRT performance estimation, cross-validated over respondents.

Simulated 2PL leaderboards (slopes near 1): the item parameters are calibrated with the native EM engine on
the training respondents; for the held-out respondents, ``k`` anchors are chosen with each method of
:func:`irtbridge.select_anchors` and :func:`irtbridge.estimate_performance` predicts the accuracy on all
items from the anchor answers alone. Printed per method: the mean absolute error of the prediction, the same
with the TRUE item parameters (the floor), the plain mean over the same anchors, and the coverage of the 95%
interval. Goals (issue "leaderboard scale"): MAE at least 25% below the plain anchor mean, within 15% of the
floor, coverage 90-97%.

With ``--evaluate DIR`` it also runs on the response matrices ``irtbridge evaluate`` wrote
(``DIR/tables/responses_*.csv``): 5-fold cross-validation over classifiers, k = a quarter of each dataset's items,
each prediction also made after :func:`irtbridge.validate_anchors` on the fold's training classifiers
(``mae_validated``, ``coverage_validated``): the way to trust an interval from a calibration of ~35 respondents.

    .venv/bin/python speed/anchors.py [--respondents 600] [--items 10000] [--k 100] [--folds 5]
"""

from __future__ import annotations

import argparse
import glob
import multiprocessing
import os
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed

import numpy as np
import pandas as pd

import irtbridge
from irtbridge.irt import as_item_bank
from irtbridge.leaderboard import ANCHOR_METHODS, estimate_performance, select_anchors, validate_anchors


def simulate_leaderboard(n_respondents: int, n_items: int, seed: int = 0):
    """(responses, true item bank): 2PL, a ~ lognormal(0, 0.25), b ~ N(0, 1), theta ~ N(0, 1)."""
    rng = np.random.default_rng(seed)
    a = rng.lognormal(0.0, 0.25, n_items)
    b = rng.normal(0.0, 1.0, n_items)
    theta = rng.normal(0.0, 1.0, n_respondents)
    p = 1.0 / (1.0 + np.exp(-a * (theta[:, None] - b)))
    names = [f"i{j}" for j in range(n_items)]
    x = pd.DataFrame((rng.random(p.shape) < p).astype(np.float32), columns=names,
                     index=[f"m{r}" for r in range(n_respondents)])
    return x, as_item_bank(pd.DataFrame({"a": a, "b": b}, index=names), "2PL")


def cross_validate(x: pd.DataFrame, truth=None, k: int = 100, folds: int = 5, methods=ANCHOR_METHODS,
                   seed: int = 0, validate: int = 0) -> pd.DataFrame:
    """One row per (held-out respondent, method): predicted, floor (true parameters), anchor mean, truth.

    With ``validate`` (a number of folds), also the prediction and interval after :func:`validate_anchors` on
    the training respondents (an inner cross-validation: that many more fits per outer fold).
    """
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(x))
    rows = []
    for fold in np.array_split(order, folds):
        train = x.iloc[np.setdiff1d(order, fold)]
        test = x.iloc[fold]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = irtbridge.calibrate(train, "2PL", engine="native", se=False, drop_constant=True)
        # items every training respondent answered alike are not calibrated: the target is the accuracy
        # on the calibrated items
        test = test[fit.item_names]
        actual = test.mean(axis=1).to_numpy()
        refits = None
        for method in methods:
            anchors = select_anchors(fit, k, method, responses=train if method == "cluster" else None, seed=seed)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the small-calibration warning: measured here instead
                got = estimate_performance(test[anchors], fit, anchors)
            if validate:  # the fold refits are shared by the methods
                check = validate_anchors(train, fit, anchors, folds=validate, seed=seed, refits=refits)
                refits = check.refits
                checked = estimate_performance(test[anchors], fit, anchors, validation=check)
            else:
                checked = got * np.nan
            floor = (estimate_performance(test[anchors], as_item_bank(truth.items.loc[fit.item_names], "2PL"), anchors)
                     if truth is not None else None)
            for r, name in enumerate(test.index):
                rows.append({"respondent": name, "method": method, "truth": actual[r],
                             "predicted": got["accuracy"].iloc[r], "lower": got["lower"].iloc[r],
                             "upper": got["upper"].iloc[r], "anchor_mean": float(test[anchors].iloc[r].mean()),
                             "floor": floor["accuracy"].iloc[r] if floor is not None else np.nan,
                             "validated": checked["accuracy"].iloc[r], "validated_lower": checked["lower"].iloc[r],
                             "validated_upper": checked["upper"].iloc[r]})
    return pd.DataFrame(rows)


def summarize(frame: pd.DataFrame) -> pd.DataFrame:
    err = lambda col: (frame[col] - frame["truth"]).abs()  # noqa: E731
    out = pd.DataFrame({
        "mae": err("predicted").groupby(frame["method"]).mean(),
        "mae_floor": err("floor").groupby(frame["method"]).mean(),
        "mae_anchor_mean": err("anchor_mean").groupby(frame["method"]).mean(),
        "coverage": ((frame["lower"] <= frame["truth"]) & (frame["truth"] <= frame["upper"])).groupby(frame["method"]).mean(),
    })
    out["vs_anchor_mean"] = out["mae"] / out["mae_anchor_mean"] - 1.0
    out["vs_floor"] = out["mae"] / out["mae_floor"] - 1.0
    if frame["validated"].notna().any():
        out["mae_validated"] = err("validated").groupby(frame["method"]).mean()
        out["coverage_validated"] = ((frame["validated_lower"] <= frame["truth"])
                                     & (frame["truth"] <= frame["validated_upper"])).groupby(frame["method"]).mean()
    return out


def _evaluate_one(path: str, methods, validate: int) -> list[dict]:
    x = pd.read_csv(path, index_col=0)
    x = x.loc[:, x.min() != x.max()]
    k = max(5, x.shape[1] // 4)
    s = summarize(cross_validate(x, None, k=k, folds=5, methods=methods, validate=validate))
    return [{"dataset": os.path.basename(path)[10:-4], "method": method, "items": x.shape[1], "k": k,
             "mae": r["mae"], "mae_anchor_mean": r["mae_anchor_mean"], "coverage": r["coverage"],
             "mae_validated": r["mae_validated"], "coverage_validated": r["coverage_validated"]}
            for method, r in s.iterrows()]


def evaluate_tables(folder: str, methods=("random", "stratified"), jobs: int = 1, validate: int = 5) -> pd.DataFrame:
    """5-fold cross-validation over classifiers on the response matrices of an ``irtbridge evaluate`` run,
    one dataset per spawned process (``jobs`` at a time)."""
    paths = sorted(glob.glob(os.path.join(folder, "tables", "responses_*.csv")))
    rows: list[dict] = []
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        for done in as_completed([pool.submit(_evaluate_one, p, methods, validate) for p in paths]):
            part = done.result()
            print(pd.DataFrame(part).round(4).to_string(index=False, header=not rows), flush=True)
            rows += part
    return pd.DataFrame(rows).sort_values(["dataset", "method"])


def simulated(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    x, truth = simulate_leaderboard(args.respondents, args.items, args.seed)
    table = summarize(cross_validate(x, truth, k=args.k, folds=args.folds, seed=args.seed))
    print(f"simulated 2PL leaderboard: {args.respondents} respondents x {args.items} items, k = {args.k} anchors, "
          f"{args.folds}-fold cross-validation over respondents ({time.perf_counter() - started:.0f} s)")
    print(table.round(4).to_string())
    print("goals: vs_anchor_mean <= -0.25, vs_floor <= 0.15, coverage in [0.90, 0.97]")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--respondents", type=int, default=600)
    ap.add_argument("--items", type=int, default=10000)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--evaluate", metavar="DIR", help="also run on an `irtbridge evaluate` output folder")
    ap.add_argument("--skip-simulated", action="store_true", help="only the --evaluate part")
    ap.add_argument("--validate-folds", type=int, default=5, help="inner folds of validate_anchors (default 5)")
    ap.add_argument("--jobs", type=int, default=2, help="--evaluate datasets in parallel (spawned processes)")
    args = ap.parse_args()
    if not args.skip_simulated:
        simulated(args)
    if args.evaluate:
        print(f"\nresponse matrices of {args.evaluate} (5 folds over classifiers, k = items / 4):")
        table = evaluate_tables(args.evaluate, jobs=args.jobs, validate=args.validate_folds)
        print("mean over datasets:")
        print(table.groupby("method")[["mae", "mae_anchor_mean", "coverage", "mae_validated", "coverage_validated"]]
              .mean().round(4).to_string())


if __name__ == "__main__":
    main()
