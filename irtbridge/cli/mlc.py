"""`irtbridge mlc FILE.csv --target COL [--classifier NAME] [--features binary|quartiles] [--seed N] --out DIR [--json]`.

The Machine Learning Capability of a classifier (the MLC paper) on the cases of a CSV file: every column but
the target is a feature; the target holds two classes (class 1 is the larger value: 1, "pos", "yes").
Features become IRT items (0/1 features with a 2PL, or quartile categories with a graded model)
calibrated by mirt in R; the classifier is trained on 70 % of the cases (split within CDI bins) and a CAT
over the test cases of each class gives its MLC.

``--json`` prints one object::

    {"classes": [{"class": 1, "mlc": 0.43, "cases_used": 17, "share_used": 0.0021, "converged": true},
                 {"class": 0, "mlc": 0.78, "cases_used": 19, "share_used": 0.0024, "converged": true}],
     "traditional": {"accuracy": 0.76, "precision": 0.76, "recall": 0.80, "f1": 0.75, "auc": 0.76}}

DIR receives ``mlc_table.csv`` (Tables 4-5 layout), ``cases.csv`` (CDI, split, prediction of every case),
``trajectory_class1.csv`` and ``trajectory_class0.csv`` (the CATs), ``orientation.csv``,
``accuracy_by_mlc.csv``, ``summary.txt`` and the figures (CDI distributions, difficulty KDE, accuracy
vs CDI, CAT trajectories) as PNG.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from irtbridge._outdir import FOLDER, staged_output
from irtbridge._plotting import close, figure_of
from irtbridge._validation import read_csv, require_columns
from irtbridge.cli._common import SEED, atomic_write_csv, atomic_write_text, declare_flag, declare_input, print_json
from irtbridge.exceptions import ValidationError


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``mlc`` subcommand to the ``irtbridge`` command line.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``irtbridge`` parser; the new parser's ``func`` default is set to the function
        that runs it.
    """
    from irtbridge.mlc import CLASSIFIERS, FEATURES  # kept off the CLI's start (~2 s)

    p = sub.add_parser(
        "mlc",
        help="Machine Learning Capability of a classifier via a CAT over cases (the MLC paper)",
        description=(
            "Evaluate a classifier with the Machine Learning Capability procedure (Kline et al.): case "
            "difficulty from an IRT calibration of the features (mirt, in R), a split within difficulty bins, "
            "and a computer-adaptive test over the test cases of each class. Every column but --target is a "
            "feature and must be numeric."
        ),
    )
    declare_input(p, "file", what="a CSV file", metavar="FILE.csv", help="CSV file with a header row, one case per row")
    p.add_argument("--target", required=True, metavar="COL", help="column with the two classes")
    p.add_argument("--classifier", default="mlp", choices=CLASSIFIERS, metavar="NAME",
                   help=f"classifier: {', '.join(CLASSIFIERS)} (default mlp, a small neural network)")
    p.add_argument("--features", default="binary", choices=FEATURES,
                   help="binary: 0/1 features, 2PL (default); quartiles: features cut at their quartiles, graded model")
    declare_flag(p, "--seed", constraint=SEED, default=0, help="seed of the split, the classifier and the CAT noise (default 0)")
    p.add_argument("--out", required=True, metavar="DIR", help="directory for the tables and figures")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.set_defaults(func=run, outputs=(("out", FOLDER),))


def run(args: argparse.Namespace) -> int:
    """Run ``irtbridge mlc`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        The arguments its parser read from the command line.

    Returns
    -------
    int
        The exit status: 0 (errors raise; :func:`irtbridge.cli.main` maps them to exit statuses).
    """
    # kept off the CLI's start (~2 s)
    from irtbridge.mlc import (
        evaluate_mlc,
        plot_accuracy_by_cdi,
        plot_cat_trajectories,
        plot_cdi_distributions,
        plot_difficulty_kde,
    )

    frame = read_csv(args.file, "mlc input")
    require_columns(frame, [args.target], args.file)
    y = frame[args.target]
    X = frame.drop(columns=[args.target])
    if X.shape[1] == 0:
        raise ValidationError(f"{args.file} has no feature column besides --target {args.target!r}")
    if y.isna().any():
        raise ValidationError(
            f"column {args.target!r} (--target) has {int(y.isna().sum())} missing value(s); drop those rows"
        )
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise ValidationError(f"--out {args.out!r} exists and is not a directory")

    result = evaluate_mlc(X, y, args.classifier, features=args.features, random_state=args.seed)

    with staged_output(out, param="--out", writer="mlc") as stage:  # the folder appears whole
        atomic_write_csv(stage / "mlc_table.csv", result.table())
        atomic_write_csv(stage / "cases.csv", result.cases.rename_axis("case"))
        for cat in result.classes:
            atomic_write_csv(stage / f"trajectory_class{cat.label}.csv", cat.trajectory)
        atomic_write_csv(stage / "orientation.csv", result.orientation.rename_axis("feature"))
        atomic_write_csv(stage / "accuracy_by_mlc.csv", result.accuracy_by_mlc())
        atomic_write_text(stage / "summary.txt", result.summary().as_text() + "\n")
        _save_figures(result, stage, Path(args.file).stem,
                      (plot_cdi_distributions, plot_difficulty_kde, plot_accuracy_by_cdi, plot_cat_trajectories))

    if args.json:
        print_json(result.to_dict())
    else:
        print(result.summary())
        print(f"\ntables and figures written to {out}")
    return 0


def _save_figures(result, out: Path, name: str, plots) -> None:
    import matplotlib  # only when figures are written; the backend must be chosen before pyplot loads

    matplotlib.use("Agg")
    for plot in plots:
        fig = figure_of(plot(result, title=name))
        target = out / f"{plot.__name__.removeprefix('plot_')}.png"
        tmp = target.with_name(f".{target.name}.tmp.png")
        fig.savefig(tmp, dpi=110)
        tmp.replace(target)
        close(fig)
