"""Machine Learning Capability (the MLC paper, Kline et al.) with irtbridge: a CAT over cases.

    python vignettes/mlc_cat.py --out DIR [--quick]

The paper evaluated a neural network on two balanced data sets of opposite kinds: MIMIC-III (many
features, each weakly related to in-hospital death, coded 0/1 and calibrated with a 2PL) and Pulsar
(four continuous features strongly related to the class, cut at their quartiles and calibrated with a
graded model). MIMIC needs credentialed access and Pulsar a download, so this walk-through uses two
offline data sets chosen the same way:

* **DNA splice junctions** (R package mlbench, 3,186 sequences): 180 binary indicators (nucleotide x
  position), each weakly related to whether the sequence holds an exon/intron boundary (class 1, "ei" or
  "ie") or not (class 0, "n"); balanced by undersampling "n" -> 3,064 cases.
* **Wisconsin diagnostic breast cancer** (scikit-learn, 569 tumours): four continuous features
  (worst radius, texture, concave points, smoothness), strongly related to malignancy (class 1);
  balanced by undersampling benign -> 424 cases.

For each it prints the evaluation in the layout of the paper's Tables 4-5, the CAT start values, the
share of the data the MLC needed (the paper: under 1 %) and the accuracy of the test cases below vs
above the MLC (the paper's "Practical Application"), and saves Figs. 4-9. ``--quick`` calibrates DNA on
the 40 positions around the junction (positions 24-37) instead of all 60, and skips the repeated seeds
and the extra models. Runs offline (DNA comes from R through irtbridge's bridge).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from irtbridge.example_data import r_dataset  # noqa: E402
from irtbridge.exceptions import ConvergenceWarning, DataWarning  # noqa: E402
from irtbridge.mlc import (  # noqa: E402
    balance_classes,
    case_difficulty,
    evaluate_mlc,
    plot_accuracy_by_cdi,
    plot_cat_trajectories,
    plot_cdi_distributions,
    plot_difficulty_kde,
    plot_mlc_plane,
)

pd.set_option("display.width", 120)

# The MLC paper, Tables 4-5 (MLC value, cases used, share of the data)
PAPER = pd.DataFrame(
    {
        "MLC": [0.43, 0.78, 0.12, 0.32],
        "cases": [17, 19, 18, 17],
        "share": ["0.21%", "0.22%", "0.55%", "0.52%"],
        "accuracy below MLC": ["87.5%", "91%", "94.7%", "96.8%"],
    },
    index=["MIMIC died (1)", "MIMIC lived (0)", "Pulsar pulsar (1)", "Pulsar non-pulsar (0)"],
)


def save(drawn, out: str, name: str) -> None:
    fig = np.atleast_1d(drawn)[0].figure  # the plot functions return the Axes they drew on
    fig.savefig(os.path.join(out, name), dpi=110)
    plt.close(fig)


def load_dna(quick: bool, seed: int) -> tuple[pd.DataFrame, pd.Series]:
    d = r_dataset("mlbench", "DNA")
    X = d.drop(columns="Class").astype(float)
    if quick:
        # positions 24-37 around the junction (3 indicators per position): V70..V111
        X = X[[f"V{i}" for i in range(70, 112)]]
    y = pd.Series(np.where(d["Class"] == "n", "neither", "boundary"), index=d.index, name="class")
    return balance_classes(X, y, random_state=seed)


def load_breast_cancer(seed: int) -> tuple[pd.DataFrame, pd.Series]:
    from sklearn.datasets import load_breast_cancer

    bc = load_breast_cancer(as_frame=True)
    X = bc.data[["worst radius", "worst texture", "worst concave points", "worst smoothness"]]
    y = pd.Series(np.where(bc.target == 0, "malignant", "benign"), index=X.index, name="class")
    return balance_classes(X, y, random_state=seed)


def report(name: str, res) -> None:
    print(f"\n--- {name}: Tables 4-5 layout ---")
    table = res.table()
    shown = table.assign(share=table["share"].map(lambda v: f"{100 * v:.2f}%"))
    print(shown.to_string(float_format=lambda v: f"{v:.4f}"))
    for c in res.classes:
        print(
            f"class {c.label}: start CDI_0 = {c.start:+.3f} (25th percentile of {c.n_pool} test cases), "
            f"MLC {c.mlc:+.3f} after {c.cases_used} cases ({100 * c.share_used:.2f}% of the data, "
            f"{'converged' if c.converged else 'NOT converged: ' + c.stop})"
            + (" -- every case right: Eq. 11's half-case correction, a lower bound" if c.extreme else "")
        )
    print("accuracy of the test cases at/below vs above the MLC (grouped by predicted class):")
    print(res.accuracy_by_mlc().to_string(float_format=lambda v: f"{v:.3f}"))
    o = res.orientation
    print(
        f"orientation (training part): {int((o['orientation'] > 0).sum())} feature(s) rise with class 1, "
        f"{int((o['orientation'] < 0).sum())} fall; {int(o['concordant'].sum())}/{len(o)} load on the CDI scale "
        f"in the same direction; calibration scale x {res.cdi_sign:+d}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="directory for the figures")
    ap.add_argument("--quick", action="store_true", help="fewer DNA features, one seed, two models")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    seed = 2021
    # mirt's iteration-limit warning on the graded fit of four very discriminating features, and the
    # MLP's convergence chatter, are expected here; the results carry their own convergence flags
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    warnings.filterwarnings("ignore", message=".*Stochastic Optimizer.*")

    print("The MLC paper (Tables 4-5), for reference:")
    print(PAPER.to_string())

    datasets = {
        "DNA (2PL on binary features)": (*load_dna(args.quick, seed), "binary", "boundary", "dna"),
        "Breast cancer (graded on quartiles)": (*load_breast_cancer(seed), "quartiles", "malignant", "breast_cancer"),
    }
    models = ["mlp", "logistic"] if args.quick else ["mlp", "logistic", "random_forest", "knn"]
    plane = {}
    for name, (X, y, features, positive, slug) in datasets.items():
        t0 = time.perf_counter()
        difficulty = case_difficulty(X, features)
        took = time.perf_counter() - t0
        print(f"\n=== {name}: {len(X)} cases, {X.shape[1]} features; CDIs from mirt in {took:.1f} s ===")
        res = evaluate_mlc(X, y, "mlp", features=features, positive=positive, difficulty=difficulty, random_state=seed)
        report(f"{name}, neural network", res)
        save(plot_cdi_distributions(res, title=name), args.out, f"fig4_5_cdi_{slug}.png")
        save(plot_difficulty_kde(res, title=name), args.out, f"fig6_kde_{slug}.png")
        save(plot_accuracy_by_cdi(res, title=name), args.out, f"fig7_accuracy_{slug}.png")
        save(plot_cat_trajectories(res, title=name), args.out, f"fig8_cat_{slug}.png")
        plane[f"{slug}: mlp"] = res

        # the same CDIs (calibrated once) for other models: Fig. 9 compares them
        for model in models[1:]:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DataWarning)
                other = evaluate_mlc(
                    X, y, model, features=features, positive=positive, difficulty=difficulty, random_state=seed
                )
            plane[f"{slug}: {model}"] = other
            acc = other.accuracy_by_mlc()
            print(
                f"{model:>14}: accuracy {other.traditional.loc['accuracy', 'value']:.3f}; "
                + "; ".join(
                    f"class {k}: MLC {other.mlc[k]:+.3f} ({other.cat(k).cases_used} cases), accuracy "
                    f"{acc.loc[k, 'accuracy_below']:.3f} below (n={acc.loc[k, 'n_below']}) vs "
                    f"{acc.loc[k, 'accuracy_above']:.3f} above (n={acc.loc[k, 'n_above']})"
                    for k in (1, 0)
                )
            )

        if not args.quick:
            # the MLC is a noisy statistic (Eq. 9 moves by ln((R + 1) / R) with each case): its spread over
            # seeds, and the case counts of the default stopping rule
            rows = []
            for s in range(10):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DataWarning)
                    r = evaluate_mlc(
                        X, y, "mlp", features=features, positive=positive, difficulty=difficulty, random_state=s
                    )
                rows += [(s, c.label, c.mlc, c.cases_used, c.converged) for c in r.classes]
            spread = pd.DataFrame(rows, columns=["seed", "class", "mlc", "cases", "converged"])
            print("\nover 10 seeds (split, network, CAT noise):")
            print(spread.groupby("class").agg(mlc_mean=("mlc", "mean"), mlc_sd=("mlc", "std"),
                                              cases_median=("cases", "median"), cases_min=("cases", "min"),
                                              cases_max=("cases", "max"), converged=("converged", "mean"))
                  .to_string(float_format=lambda v: f"{v:.3f}"))

    print("\n--- Fig. 9: the MLC plane (x: class 1, y: class 0) ---")
    print(pd.DataFrame({k: v.mlc for k, v in plane.items()}).T.rename(columns={1: "MLC class 1", 0: "MLC class 0"})
          [["MLC class 1", "MLC class 0"]].to_string(float_format=lambda v: f"{v:+.3f}"))
    save(plot_mlc_plane(plane), args.out, "fig9_mlc_plane.png")
    print(f"\nfigures written to {args.out}")


if __name__ == "__main__":
    main()
