"""Classifier benchmarking with IRT and Glicko-2 across real datasets (decodIRT, Cardoso et al.).

Run:  python vignettes/irt_glicko_benchmark.py --out DIR [--quick] [--jobs N]

Full run: the 11 offline datasets of ``irtbridge.decodirt.DEFAULT_DATASETS`` (scikit-learn's iris,
wine, breast_cancer, digits and mlbench's OpenML-CC18 members BreastCancer, PimaIndiansDiabetes,
Vehicle, Vowel, Ionosphere, Sonar, Glass), the default pool (the paper's 12 models + 24 variants + 7
artificial respondents = 43), test sets capped at 500 items, 3PL by ltm (mirt as fallback). Two to
four minutes on two cores: ltm's ``tpm`` needs 15-40 s for 250 items and 1-2.5 minutes for 500.
``--quick``: iris, wine and Sonar, the quick pool (19 respondents), 40 items each: well under a minute.

1. Decoding the benchmark (section 5.1): item parameters per dataset (Table 4, Figs. 7-8), the share of
   "truly challenging" datasets (mean difficulty > 0) and of datasets with negative discrimination.
2. True-Scores with all items vs positively discriminating items (Fig. 9).
3. Glicko-2 tournaments in the paper's six dataset orders (Tables 5-9, Figs. 12-13) beside Friedman /
   Nemenyi, and where the artificial respondents land: on a well-behaved subset optimal should be first,
   pessimal last, and majority / minority / random below every real classifier.
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import pandas as pd

from irtbridge.decodirt import DEFAULT_DATASETS, QUICK_DATASETS
from irtbridge.pipeline import Settings, run_benchmark

ARTIFICIAL = ("optimal", "pessimal", "majority", "minority", "rand1", "rand2", "rand3")


def placement(t) -> str:
    """Where the artificial respondents end in a tournament's final ranking."""
    r = t.ratings.set_index("player")["rank"]
    real = r.drop([a for a in ARTIFICIAL if a in r.index])
    baselines = [a for a in ARTIFICIAL[2:] if a in r.index]
    below = all(r[a] > real.max() for a in baselines)
    return (f"optimal #{r['optimal']}, pessimal #{r['pessimal']} of {len(r)}; majority/minority/random "
            f"{'all below' if below else 'NOT all below'} the {len(real)} real classifiers "
            f"(best baseline #{min(r[a] for a in baselines)}, worst real classifier #{real.max()})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="directory for tables and figures")
    parser.add_argument("--quick", action="store_true", help="three small datasets, quick pool, 40 items")
    parser.add_argument("--jobs", type=int, default=2, help="datasets in parallel (spawned workers, one R each)")
    args = parser.parse_args(argv)
    out = Path(args.out)

    if args.quick:
        datasets, pool, max_items = list(QUICK_DATASETS), "quick", 40
    else:
        datasets, pool, max_items = list(DEFAULT_DATASETS), "default", 500
    with warnings.catch_warnings():
        # ltm's start values and the Hessian of these nearly separable matrices warn on every dataset;
        # the warnings are kept in each DatasetResult
        warnings.simplefilter("ignore")
        settings = Settings(pool=pool, max_items=max_items, calibration="paper", engine="ltm")
        res = run_benchmark(datasets, settings, jobs=args.jobs,
                            orders=["difficulty", "discrimination", "difficulty_sd_low", "difficulty_sd_high",
                                    "discrimination_sd_low", "discrimination_sd_high"])
    d = res.diagnostics
    pd.set_option("display.width", 160)

    print(f"== 1. Decoding the benchmark: {len(d)} datasets, {int(d['n_respondents'].iloc[0])} respondents, "
          f"3PL by ltm ({res.seconds:.0f} s)\n")
    table4 = d.sort_values("difficulty_mean", ascending=False)[
        ["n_items", "engine", "difficulty_mean", "discrimination_mean", "guessing_mean",
         "difficulty_sd", "discrimination_sd", "share_negative_discrimination"]]
    print(table4.to_string(float_format=lambda v: f"{v:.3f}"))
    calib = pd.DataFrame([(n, a.engine, a.status, round(a.seconds, 1)) for n, r in res.datasets.items() for a in r.attempts],
                         columns=["dataset", "engine", "status", "seconds"])
    print("\ncalibration attempts (engine fallback is recorded here):")
    print(calib.to_string(index=False))
    ok = d[d["status"] == "ok"]
    print(f"\nmean difficulty > 0 ('truly challenging'): {100 * (ok['difficulty_mean'] > 0).mean():.1f}% of the datasets "
          "(paper, OpenML-CC18: 16.66%)")
    print(f"mean discrimination > 0: {100 * (ok['discrimination_mean'] > 0).mean():.1f}% (paper: > 90%)")
    print(f"datasets with some negatively discriminating items: {int((ok['share_negative_discrimination'] > 0).sum())}")
    print("\nrank of each dataset by each diagnostic (1 = largest):")
    print(res.rankings[["difficulty_mean", "discrimination_mean", "difficulty_sd", "discrimination_sd",
                        "share_negative_discrimination"]].to_string())

    print("\n== 2. True-Scores: all items vs items with a > 0 (Fig. 9)\n")
    print(d[["valid_true_score", "valid_true_score_positive"]].rename(
        columns={"valid_true_score": "optimal top & pessimal bottom (all items)",
                 "valid_true_score_positive": "(a > 0 only)"}).to_string())
    flipped = d.index[(d["valid_true_score"] == False) & (d["valid_true_score_positive"] == True)].tolist()  # noqa: E712
    if flipped:
        print(f"the paper's 'ilpd' effect (fixed by dropping a < 0 items) on: {', '.join(flipped)}")

    print("\n== 3. Glicko-2 tournaments (each dataset a rating period, round-robin on True-Scores)\n")
    for order, t in res.tournaments.items():
        print(f"-- {order}: {len(t.datasets)} datasets: {', '.join(t.datasets)}")
        print(t.rating_table())
        print(t.validity.describe())
        if t.friedman is not None:
            print(f"Friedman chi2 = {t.friedman.statistic:.2f} (p = {t.friedman.pvalue:.2g}), Nemenyi CD = "
                  f"{t.nemenyi.critical_difference:.2f}; {t.rank_validity.describe()}")
        print(f"artificial respondents: {placement(t)}\n")
    low = [o for o in ("difficulty_sd_low", "discrimination_sd_low") if o in res.tournaments]
    print("well-behaved subsets (smallest variation of the item parameters, the paper's recommendation):")
    for o in low:
        print(f"  {o}: {res.tournaments[o].validity.describe()}; {placement(res.tournaments[o])}")

    files = res.save(out)
    figures = sorted(f.name for f in files if f.suffix == ".png")
    print(f"\nwrote {len(files)} files to {out}: tables (CSV), summary.json and {len(figures)} figures, e.g. "
          f"{', '.join(figures[:4])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
