"""Estimators of a new model's full-benchmark accuracy from k sampled items, on real leaderboard matrices.

The protocol of Zhang, Dorner & Hardt (NeurIPS 2025): *interpolation*, 25% of the models drawn at random are
new and the others calibrate; *extrapolation*, calibrate on the weakest 50% by full accuracy and predict the
strongest 30%; and the *hard* case (:func:`hard_case`), built from each real matrix: its harder half of the
items, calibrated on the weakest 50% of the models on them (on nlu/mctaco, newsqa and quoref these solve
under 5% of 79-96% of those items), predicting the strongest 30%. For each set, split, k (50, 100) and seed
(5), k items are drawn at random from every item, as ``build_tiny`` draws them (the same items for every
estimator), each estimator of :func:`irtbridge.leaderboard.estimate_accuracy` predicts every new model's
accuracy on all items with a 95% interval (IRT-based ones on the native 2PL of the calibration models with
``calibrate_2pl``'s default prior, as ``build_tiny`` fits it), and the absolute error and whether the
interval covers the truth are recorded. Printed: per
estimator, the mean absolute error averaged over sets (min-max over sets) and the share of new models
covered, for both splits and each k, and the per-set rows.

Beside them, the status quo the issue measured (issue 32, third column): ``anchors-stratified+pirt`` and
``anchors-cluster+pirt`` answer k items chosen by :func:`irtbridge.select_anchors` (``"stratified"``;
``"cluster"`` on the calibration models' response profiles, k-means started with the run's seed) on the
same native 2PL fit of the calibration models (its flagged items, :func:`irtbridge.calibration.results.flags.flag_items`,
never chosen), and predict with :func:`irtbridge.estimate_performance` (p-IRT, no ``validation``) and its
95% interval (the IRT posterior's). Their items are chosen from the calibration models alone, not at
random, so they differ from the estimators' k items.

``ppi-stratified`` and ``mean-stratified`` draw their own k items (seed ``[seed, k, 1]``) stratified
(:mod:`irtbridge.leaderboard.strata`: ``N_STRATA`` strata on the calibration models' share right per item,
flagged and unanswered items a stratum each, proportional allocation) and use the stratified estimator
(``estimate_accuracy(..., strata=)``), as ``build_tiny`` does by default (``design="auto"``). Measured
(issue 39, ``--seeds 5 --k 50 100``, 21 sets; seeds 0-2 and 3-4 (``--first-seed 3``) run apart and joined):
cells of set x split x k with ppi coverage below 0.85: 2 of 126 for ``ppi``, 0 for ``ppi-stratified``
(lowest 0.89); MAE of ``ppi-stratified`` / the better of (mean, aipw): 0.994 / 0.962 / 1.070 at k = 50
(interpolation / extrapolation / hard), 0.915 / 0.945 / 0.952 at k = 100. ``--n-strata 3`` at k = 50:
0.983 / 0.926 / 1.042, one set at 0.84.

Data (fetched from GitHub, never shipped), under ``--data DIR`` (default ``/work/data``):

* ``DIR/nlu/*_irt_all_coded.csv``: nyu-mll/nlu-test-sets ``data/``, 90 checkpoints x one NLU test set each
  (first column ``userid``); sets with fewer than 300 items (cb, copa, wsc, rte) are left out (k = 100
  would be a third of them or more), and by default those with more than 5,500 (mnli, snli, mrqa-nq,
  qamr, squad_v2: ``--max-items`` includes them; their 2PL fits dominate the run time);
* ``DIR/atlas/arc_clean_response_matrix.csv``: Peiyu-Georgia-Li/ATLAS
  ``experiments/arc_by_family_mixtral/clean_response_matrix.csv``, 320 models x 735 ARC items;
* ``DIR/mmlupro/matrix.csv`` or the ``eval_results/*.zip`` files of TIGER-AI-Lab/MMLU-Pro in
  ``DIR/mmlupro/`` (correct = ``pred == answer``; 29 models whose outputs are stored, 12,032 items; left
  out by the item cap unless ``--max-items 12100``);
* ``DIR/psn/combine.csv`` (Joe-Hall-Lee/PSN-IRT, 11 models x 41,871 items) is read but left out: 11
  models give 3 new models and 8 calibration models in interpolation, too few for the protocol.

Run: ``python speed/lm_estimators.py`` (all sets, k = 50 and 100, 5 seeds) or ``--quick`` (four sets,
two seeds, k = 50).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time
import zipfile
from dataclasses import dataclass

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from irtbridge.calibration.results.flags import flag_items  # noqa: E402
from irtbridge.leaderboard.anchors import select_anchors  # noqa: E402
from irtbridge.leaderboard.estimators import (ESTIMATORS, REGISTRY, IRTParameters, calibrate_2pl,  # noqa: E402
                                              calibrate_factors, estimate_accuracy, runaway_items)
from irtbridge.leaderboard.performance import estimate_performance  # noqa: E402
from irtbridge.leaderboard.strata import N_STRATA, item_strata, stratified_draw  # noqa: E402
from irtbridge.leaderboard.tiny_cv import protocol_splits  # noqa: E402

MIN_ITEMS = 300
#: sets above this many items are left out unless --max-items says otherwise (the issue's sets have 277-5,463)
MAX_ITEMS = 5500
#: EM cycles of each calibration (runaway items of small calibrations never converge; 100 keeps the run short)
NCYCLES = 100
MIN_MODELS = 20
#: interpolation and extrapolation (Zhang, Dorner & Hardt) and the hard case (:func:`hard_case`)
SPLITS = ("interpolation", "extrapolation", "hard")
QUICK_SETS = ("nlu/arct", "nlu/commonsenseqa", "nlu/boolq", "atlas/arc")
#: the issue's status quo: select_anchors(calibration, k, method) + estimate_performance (p-IRT)
ANCHOR_METHODS = {"anchors-stratified+pirt": "stratified", "anchors-cluster+pirt": "cluster"}
#: the stratified draw (irtbridge.leaderboard.strata): N_STRATA strata on the calibration models' share right per
#: item (flagged items, unanswered items a stratum each), proportional allocation, the stratified estimator
STRAT_METHODS = {"ppi-stratified": "ppi", "mean-stratified": "mean"}
METHODS = tuple(ESTIMATORS) + tuple(ANCHOR_METHODS) + tuple(STRAT_METHODS)


@dataclass(frozen=True)
class AnchorFit:
    """The script's native 2PL fit as the calibration select_anchors and estimate_performance take."""

    items: pd.DataFrame
    latent_var: float
    flagged_items: tuple[str, ...]
    model: str = "2PL"


def anchor_fit(irt: IRTParameters) -> AnchorFit:
    """Wrap a :func:`calibrate_2pl` fit (no refit): item table ``a, b``, latent variance, flagged items."""
    items = pd.DataFrame({"a": irt.a, "b": irt.b}, index=list(irt.names))
    flags = flag_items(items)
    return AnchorFit(items, float(irt.variance), tuple(str(n) for n in flags.index[flags != ""]))


def _anchor_rows(cal: pd.DataFrame, fit: AnchorFit, answers_all: pd.DataFrame, k: int, seed: int,
                 methods: list[str]) -> dict[str, pd.DataFrame]:
    """Predictions of the anchor methods in ``methods``: anchors from the calibration models only."""
    out = {}
    for method in methods:
        kind = ANCHOR_METHODS[method]
        anchors = select_anchors(fit, k, kind, responses=cal if kind == "cluster" else None, seed=seed)
        out[method] = estimate_performance(answers_all[anchors], fit, anchors)
    return out


def _mmlu_pro(folder: str) -> pd.DataFrame | None:
    path = os.path.join(folder, "matrix.csv")
    if os.path.exists(path):
        return pd.read_csv(path, index_col=0)
    rows = {}
    for z in sorted(glob.glob(os.path.join(folder, "*.zip"))):
        name = os.path.basename(z).replace("model_outputs_", "").replace(".zip", "").replace(".json", "")
        with zipfile.ZipFile(z) as f:
            records = json.loads(f.read(f.namelist()[0]))
        rows[name] = {str(r["question_id"]): float(r.get("pred") == r["answer"]) for r in records if isinstance(r, dict)}
    return pd.DataFrame(rows).T if rows else None


def load_sets(data: str, max_items: int = MAX_ITEMS) -> tuple[dict[str, pd.DataFrame], list[str]]:
    """The response matrices found under ``data`` (models x items), and notes on what was left out."""
    sets: dict[str, pd.DataFrame] = {}
    notes: list[str] = []
    for path in sorted(glob.glob(os.path.join(data, "nlu", "*_irt_all_coded.csv"))):
        name = "nlu/" + os.path.basename(path).replace("_irt_all_coded.csv", "")
        frame = pd.read_csv(path, index_col=0)
        sets[name] = frame
    atlas = os.path.join(data, "atlas", "arc_clean_response_matrix.csv")
    if os.path.exists(atlas):
        sets["atlas/arc"] = pd.read_csv(atlas, index_col=0)
    mp = os.path.join(data, "mmlupro")
    if os.path.isdir(mp):
        frame = _mmlu_pro(mp)
        if frame is not None:
            sets["mmlu-pro"] = frame
    psn = os.path.join(data, "psn", "combine.csv")
    if os.path.exists(psn):
        sets["psn-irt"] = pd.read_csv(psn)
    kept = {}
    for name, frame in sets.items():
        frame = frame.apply(pd.to_numeric, errors="coerce").astype(float)
        frame = frame.loc[:, frame.notna().any(axis=0)]
        frame.columns = [str(c) for c in frame.columns]
        frame.index = [str(i) for i in frame.index]
        if frame.shape[1] < MIN_ITEMS:
            notes.append(f"{name} ({frame.shape[0]} x {frame.shape[1]}): left out, fewer than {MIN_ITEMS} items")
        elif frame.shape[1] > max_items:
            notes.append(f"{name} ({frame.shape[0]} x {frame.shape[1]}): left out, more than {max_items} items "
                         "(--max-items to include it; its 2PL fits take long)")
        elif frame.shape[0] < MIN_MODELS:
            notes.append(f"{name} ({frame.shape[0]} x {frame.shape[1]}): left out, fewer than {MIN_MODELS} models")
        else:
            kept[name] = frame
    return kept, notes


def hard_case(frame: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """The hard case built from a real matrix: the harder half of its items (share right over all models below
    the median item's), calibrated on the weakest 50% of the models on them, predicting the strongest 30%."""
    share = frame.mean(axis=0)
    hard = frame.loc[:, share < share.median()]
    n = hard.shape[0]
    by_acc = np.argsort(hard.mean(axis=1).to_numpy(), kind="stable")
    return hard, by_acc[: int(round(0.5 * n))], by_acc[n - int(round(0.3 * n)):]


def _uses_irt(method: str) -> bool:
    """Whether ``method``'s prediction depends on the IRT calibration (so a D-factor run repeats it)."""
    return method in ANCHOR_METHODS or REGISTRY[STRAT_METHODS.get(method, method)].needs_irt


def run_set(name: str, frame: pd.DataFrame, ks: list[int], seeds: list[int], methods: list[str],
            splits: tuple[str, ...] = SPLITS, n_strata: int = N_STRATA, factors: tuple[int, ...] = (1,)) -> list[dict]:
    """Every D of ``factors``: the IRT-based methods on a D-factor calibration (:func:`calibrate_factors`, the
    default priors, as ``build_tiny(n_factors=D)``), named ``METHOD[D=d]`` for D > 1; the others once. The
    comparison is paired: a D-factor run answers the same items as the 1-D one (the stratified draws take
    their strata from the 1-D calibration's flags), so only the IRT feature differs."""
    rows = []
    one_d: dict[tuple, IRTParameters] = {}  # the 1-D calibrations, shared: the strata of every D's draw
    for D in factors:
        chosen = methods if D == 1 else [m for m in methods if _uses_irt(m) and m not in ANCHOR_METHODS]
        if chosen:
            rows += _run_set(name, frame, ks, seeds, chosen, splits, n_strata, D, one_d)
    return rows


def _run_set(name: str, frame: pd.DataFrame, ks: list[int], seeds: list[int], methods: list[str],
             splits: tuple[str, ...], n_strata: int, D: int, one_d: dict[tuple, IRTParameters]) -> list[dict]:
    rows = []
    label = (lambda m: m) if D == 1 else (lambda m: f"{m}[D={D}]")
    cal_cache: dict[tuple, IRTParameters] = one_d if D == 1 else {}
    plain = [m for m in methods if m not in ANCHOR_METHODS and m not in STRAT_METHODS]
    stratified = [m for m in methods if m in STRAT_METHODS]
    anchored = [m for m in methods if m in ANCHOR_METHODS]
    hard = hard_case(frame) if "hard" in splits else None
    for seed in seeds:
        folds = [(split, frame, cal_idx, new_idx) for split, (cal_idx, new_idx) in protocol_splits(frame, seed).items()]
        if hard is not None:
            folds.append(("hard", *hard))
        for split, data, cal_idx, new_idx in folds:
            if split not in splits:
                continue
            truth_all = data.mean(axis=1).to_numpy()
            cal = data.iloc[cal_idx]
            key = (split, tuple(cal_idx))
            if key not in cal_cache:  # the user's calibration: calibrate_2pl's default prior, as build_tiny fits
                cal_cache[key] = (calibrate_2pl(cal, NCYCLES=NCYCLES) if D == 1
                                  else calibrate_factors(cal, D, NCYCLES=NCYCLES))
            irt = cal_cache[key]
            fit = anchor_fit(irt) if anchored else None
            for k in ks:
                rng = np.random.default_rng([seed, k])
                # the sample frame is every item (build_tiny's draw); flagged items keep a fallback feature
                items = list(data.columns[np.sort(rng.choice(data.shape[1], k, replace=False))])
                answers = data.iloc[new_idx][items]
                truth = truth_all[new_idx]
                preds = {m: estimate_accuracy(cal, items, answers, m, calibration=irt) for m in plain}
                if stratified:  # its own draw: k items stratified on the calibration (seed [seed, k, 1])
                    if key not in one_d:
                        one_d[key] = calibrate_2pl(cal, NCYCLES=NCYCLES)
                    labels = item_strata(cal, n_strata, calibration=one_d[key])
                    pos = stratified_draw(labels, k, np.random.default_rng([seed, k, 1]))
                    s_items = list(data.columns[pos])
                    s_answers = data.iloc[new_idx][s_items]
                    for m in stratified:
                        preds[m] = estimate_accuracy(cal, s_items, s_answers, STRAT_METHODS[m], calibration=irt,
                                                     strata=labels)
                if fit is not None:
                    preds.update(_anchor_rows(cal, fit, data.iloc[new_idx], k, seed, anchored))
                for method in methods:
                    out = preds[method]
                    err = np.abs(out["accuracy"].to_numpy() - truth)
                    cov = (out["lower"].to_numpy() <= truth) & (truth <= out["upper"].to_numpy())
                    rows.append({"set": name, "split": split, "k": k, "seed": seed, "method": label(method),
                                 "mae": float(err.mean()), "coverage": float(cov.mean()), "n_new": len(new_idx),
                                 "width": float((out["upper"] - out["lower"]).mean()),
                                 "flagged": len(runaway_items(irt))})
    return rows


def _progress(done: pd.DataFrame, methods: list[str]) -> None:
    """One set's MAE / coverage per split, k and method (seeds averaged), to stderr as the run goes."""
    means = done.groupby(["split", "k", "method"])[["mae", "coverage"]].mean()
    for (split, k), sub in means.groupby(level=[0, 1]):
        cells = sub.droplevel([0, 1])
        text = "; ".join(f"{m} {cells.loc[m, 'mae']:.3f}/{cells.loc[m, 'coverage']:.2f}" for m in methods)
        print(f"    {split} k={k}: {text}", file=sys.stderr, flush=True)


def report(results: pd.DataFrame, methods: list[str]) -> None:
    per_set = results.groupby(["split", "k", "method", "set"])[["mae", "coverage", "width"]].mean().reset_index()
    n_sets = per_set["set"].nunique()
    for k in sorted(results["k"].unique()):
        print(f"\n== k = {k}: mean absolute error over {n_sets} sets, mean (min-max over sets); 95% interval coverage")
        lines = []
        for split in [sp for sp in SPLITS if sp in set(results["split"])]:
            cells = {}
            aipw = per_set[(per_set.split == split) & (per_set.k == k) & (per_set.method == "aipw")].set_index("set")["mae"]
            for method in methods:
                sub = per_set[(per_set.split == split) & (per_set.k == k) & (per_set.method == method)].set_index("set")
                cov = results[(results.split == split) & (results.k == k) & (results.method == method)]
                cov = float((cov["coverage"] * cov["n_new"]).sum() / cov["n_new"].sum())
                beats = int((sub["mae"] < aipw.reindex(sub.index)).sum()) if len(aipw) else 0
                cells[method] = (f"{sub['mae'].mean():.4f} ({sub['mae'].min():.3f}-{sub['mae'].max():.3f}); "
                                 f"cov {cov:.3f}; < aipw on {beats}/{len(sub)}")
            lines.append((split, cells))
        width = max(8, *(len(m) for m in methods))
        for method in methods:
            print(f"  {method:{width}s} " + " | ".join(f"{split}: {cells[method]}" for split, cells in lines))
        for split in [sp for sp in SPLITS if sp in set(results["split"])]:
            sub = per_set[(per_set.split == split) & (per_set.k == k)].groupby("method")["mae"].mean()
            best = min(sub.get("mean", np.inf), sub.get("aipw", np.inf))
            for name in [m for m in ("ppi", "ppi-stratified") if m in sub.index]:
                cov = per_set[(per_set.split == split) & (per_set.k == k) & (per_set.method == name)]
                low = cov[cov["coverage"] < 0.85]["set"].tolist()
                print(f"  {split}: {name} / better of (mean, aipw) = {sub.get(name, np.nan) / best:.3f}; "
                      f"{name} coverage per set min {cov['coverage'].min():.3f}; sets below 0.85: {low or 'none'}")
    print("\n== per set (MAE / coverage, seeds averaged)")
    table = per_set.pivot_table(index=["set", "split", "k"], columns="method", values=["mae", "coverage"])
    with pd.option_context("display.width", 250, "display.max_rows", 1000, "display.max_columns", 40):
        print(table.round(3).to_string())


def factor_ratios(results: pd.DataFrame, labels: list[str]) -> None:
    """Per split and k: the MAE of each D-factor method over its 1-D version (mean over sets of the per-set MAE,
    seeds averaged), its coverage beside the 1-D one, and the sets where it is lower."""
    per_set = results.groupby(["split", "k", "method", "set"])[["mae", "coverage"]].mean().reset_index()
    print("\n== D-factor calibration against the 1-D one: MAE ratio (mean MAE over sets), coverage, sets better")
    for label in [m for m in labels if "[D=" in m]:
        base = label.split("[")[0]
        for (split, k), sub in per_set.groupby(["split", "k"]):
            one = sub[sub.method == base].set_index("set")
            many = sub[sub.method == label].set_index("set")
            if one.empty or many.empty:
                continue
            better = int((many["mae"] < one["mae"].reindex(many.index)).sum())
            print(f"  {label:24s} {split:13s} k={k:<4d} MAE {many['mae'].mean():.4f} / {one['mae'].mean():.4f} = "
                  f"{many['mae'].mean() / one['mae'].mean():.3f}; coverage {many['coverage'].mean():.3f} / "
                  f"{one['coverage'].mean():.3f}; lower MAE on {better}/{len(many)} sets")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="/work/data", help="folder with nlu/, atlas/, mmlupro/, psn/ (see the docstring)")
    parser.add_argument("--quick", action="store_true", help="four sets, two seeds, k = 50")
    parser.add_argument("--k", type=int, nargs="+", default=None)
    parser.add_argument("--seeds", type=int, default=None)
    parser.add_argument("--first-seed", type=int, default=0,
                        help="seeds FIRST .. FIRST + SEEDS - 1 (add seeds to an earlier run's --csv)")
    parser.add_argument("--n-strata", type=int, default=N_STRATA,
                        help=f"strata of the stratified draws (default {N_STRATA}, as build_tiny)")
    parser.add_argument("--sets", nargs="+", default=None, help="only these sets (e.g. nlu/boolq atlas/arc)")
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--csv", help="also write the raw rows to this CSV (rewritten after each set)")
    parser.add_argument("--max-items", type=int, default=MAX_ITEMS, help=f"leave out larger sets (default {MAX_ITEMS})")
    parser.add_argument("--splits", nargs="+", default=list(SPLITS), choices=SPLITS)
    parser.add_argument("--factors", type=int, nargs="+", default=[1],
                        help="numbers of factors of the IRT calibration (default 1): each D > 1 repeats the IRT-based "
                             "methods on calibrate_factors(cal, D), named METHOD[D=d]")
    args = parser.parse_args(argv)
    if any(D < 1 for D in args.factors):
        parser.error("--factors: every D must be at least 1")
    if not os.path.isdir(args.data):
        print(f"lm_estimators: no data folder {args.data!r}; fetch the repositories named in the docstring and "
              "extract them there (or pass --data DIR)", file=sys.stderr)
        return 2
    sets, notes = load_sets(args.data, args.max_items)
    if not sets:
        print(f"lm_estimators: no response matrix found under {args.data!r} (see the docstring for the layout)",
              file=sys.stderr)
        return 2
    chosen = args.sets or (list(QUICK_SETS) if args.quick else list(sets))
    unknown = [s for s in chosen if s not in sets]
    if unknown:
        print(f"lm_estimators: unknown set(s) {unknown}; found {sorted(sets)}", file=sys.stderr)
        return 2
    ks = args.k or ([50] if args.quick else [50, 100])
    seeds = list(range(args.first_seed, args.first_seed + (args.seeds or (2 if args.quick else 5))))
    for note in notes:
        print("note:", note)
    print("sets:", ", ".join(f"{s} {sets[s].shape[0]}x{sets[s].shape[1]}" for s in chosen))
    labels = [m for m in args.methods] + [f"{m}[D={D}]" for D in args.factors if D > 1 for m in args.methods
                                          if _uses_irt(m) and m not in ANCHOR_METHODS]
    rows = []
    for name in chosen:
        started = time.perf_counter()
        done = run_set(name, sets[name], ks, seeds, args.methods, tuple(args.splits), args.n_strata,
                       tuple(args.factors))
        rows += done
        print(f"  {name}: {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
        _progress(pd.DataFrame(done), labels)
        if args.csv:
            pd.DataFrame(rows).to_csv(args.csv, index=False)
    results = pd.DataFrame(rows)
    report(results, labels)
    if len(args.factors) > 1:
        factor_ratios(results, labels)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
