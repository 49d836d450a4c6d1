"""`irtbridge portfolio FILE.csv --model continuous|polytomous [--min …] [--max …] --out DIR [--json]`.

Algorithm-portfolio evaluation with IRT (airt, Kandanaarachchi & Smith-Miles 2020) of a performance CSV: one row per dataset, one
numeric column per algorithm (e.g. accuracy). ``--id COL``, a first column that is not numeric, or a
first column with an empty header (pandas' index) names the datasets.

``--json`` prints one object::

    {"algorithms": [{"algorithm": "J48", "discrimination": 1.67, "anomalous": false, "stability": 0.60,
                     "goodness_auc": 0.97, "effectiveness_auc_actual": 0.87,
                     "effectiveness_auc_predicted": 0.89}, ...],
     "occupancy": [{"algorithm": "J48", "proportion": 0.47}, ...]}

Every run writes into DIR: ``algorithms.csv``, ``datasets.csv`` (easiness per dataset), ``predicted.csv``,
``occupancy.csv``, ``weakness_occupancy.csv``, ``goodness_curves.csv``, ``effectiveness_curves.csv``,
``latent_curves.csv``, ``strengths.csv``, ``weaknesses.csv``, ``portfolio.json`` (the ``--json`` object),
``summary.txt`` and the figures (PNG).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

from irtbridge._constraints import Int, Number
from irtbridge._outdir import FOLDER, staged_output
from irtbridge._validation import read_csv, require_columns
from irtbridge.cli._common import (atomic_write_csv, atomic_write_text, declare_flag, declare_input, print_json,
                                   to_jsonable)
from irtbridge.exceptions import ValidationError


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``portfolio`` subcommand to the ``irtbridge`` command line.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``irtbridge`` parser; the new parser's ``func`` default is set to the function
        that runs it.
    """
    p = sub.add_parser(
        "portfolio",
        help="evaluate an algorithm portfolio with continuous or polytomous IRT (airt)",
        description=(
            "Algorithm-portfolio evaluation with IRT (airt): algorithms are the items, datasets the respondents. "
            "Reports each algorithm's discrimination, anomalousness, stability, model goodness and "
            "effectiveness, and the share of datasets (ordered by easiness) on which each algorithm is the best."
        ),
    )
    declare_input(p, "file", what="a performance file",
                  metavar="FILE.csv", help="performance: one row per dataset, one column per algorithm")
    p.add_argument("--model", required=True, choices=["continuous", "polytomous"],
                   help="continuous response model (EstCRM) or polytomous model (mirt) on performance levels")
    p.add_argument("--min", dest="min_item", metavar="X[,X...]",
                   help="lowest possible performance: one number, or one per algorithm separated by commas "
                   "(default: each column's minimum); with --bins, the low end of the binning scale")
    p.add_argument("--max", dest="max_item", metavar="X[,X...]",
                   help="highest possible performance, like --min (default: each column's maximum)")
    p.add_argument("--out", required=True, metavar="DIR", help="directory for the tables and figures")
    p.add_argument("--json", action="store_true", help="print {algorithms: [...], occupancy: [...]} as JSON")
    p.add_argument("--id", metavar="COL", help="column that names the datasets")
    declare_flag(p, "--bins", metavar="K",
                 constraint=Int(low=2, allow_none=True, phrase="a whole number of at least 2 (the polytomous model's levels)"),
                 help="polytomous model: bin continuous performance into K equal-width levels first (airt uses 5)")
    p.add_argument("--irt-model", default="gpcm", choices=["gpcm", "graded"],
                   help="polytomous model: generalized partial credit (airt's, default) or graded response")
    p.add_argument("--scale", choices=["single", "multiple"],
                   help="continuous model: rescale to [0, 1] over all algorithms (single) or per algorithm")
    declare_flag(p, "--epsilon", constraint=Number(low=0.0), default=0.0,
                 help="tolerance of the strengths and weaknesses (default 0, as the airt vignette)")
    p.add_argument("--convention", default="irtbridge", choices=["irtbridge", "airt"],
                   help="irtbridge (default) or airt 0.2.2's own computation of goodness and effectiveness")
    p.add_argument("--no-figures", action="store_true", help="write the tables only")
    p.set_defaults(func=run, outputs=(("out", FOLDER),))


def _bound(text: str | None, flag: str, names: list[str]):
    if text is None:
        return None
    parts = [t.strip() for t in text.split(",")]
    try:
        values = [float(t) for t in parts]
    except ValueError:
        raise ValidationError(f"{flag} {text!r} must be a number or comma-separated numbers") from None
    if len(values) == 1:
        return values[0]
    if len(values) != len(names):
        raise ValidationError(
            f"{flag} has {len(values)} values for {len(names)} algorithm columns; give one or one per algorithm"
        )
    return values


def _read(args: argparse.Namespace) -> pd.DataFrame:
    frame = read_csv(args.file, "performance")
    if args.id:
        require_columns(frame, [args.id], f"performance file {args.file!r}")
        frame = frame.set_index(args.id)
    elif frame.shape[1] > 1 and (not pd.api.types.is_numeric_dtype(frame.dtypes.iloc[0])
                                 or str(frame.columns[0]).startswith("Unnamed: 0")):
        # dataset names, or the blank-headed index column pandas' to_csv writes
        frame = frame.set_index(frame.columns[0])
    if frame.index.has_duplicates:
        dup = frame.index[frame.index.duplicated()][0]
        raise ValidationError(f"dataset names must be unique; {dup!r} appears more than once in {args.file!r}")
    frame.index.name = "dataset"
    return frame


def run(args: argparse.Namespace) -> int:
    """Run ``irtbridge portfolio`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        The arguments its parser read from the command line.

    Returns
    -------
    int
        The exit status: 0 (errors raise; :func:`irtbridge.cli.main` maps them to exit statuses).
    """
    from irtbridge.portfolio import bin_performance, evaluate_portfolio  # kept off the CLI's start (~2 s)

    frame = _read(args)
    names = [str(c) for c in frame.columns]
    lo = _bound(args.min_item, "--min", names)
    hi = _bound(args.max_item, "--max", names)
    if args.model == "polytomous":
        if args.scale:
            raise ValidationError("--scale applies to --model continuous")
        if args.bins is not None:
            if isinstance(lo, list) or isinstance(hi, list):
                raise ValidationError("with --bins, --min and --max take one number each (one scale for all algorithms)")
            frame = bin_performance(frame, args.bins, min_value=lo, max_value=hi)
        elif lo is not None or hi is not None:
            raise ValidationError("--min/--max need --bins with --model polytomous (they set the binning scale)")
        evaluation = evaluate_portfolio(frame, "polytomous", irt_model=args.irt_model, epsilon=args.epsilon,
                                        convention=args.convention)
    else:
        if args.bins is not None:
            raise ValidationError("--bins applies to --model polytomous")
        evaluation = evaluate_portfolio(frame, "continuous", min_item=lo, max_item=hi, scale=args.scale,
                                        epsilon=args.epsilon, convention=args.convention)

    with staged_output(args.out, param="--out", writer="portfolio") as stage:  # the folder appears whole
        _write(evaluation, args, stage)
    if args.json:
        print_json(evaluation.to_dict())
    else:
        print(evaluation.summary())
        print(f"\nwrote tables{'' if args.no_figures else ' and figures'} to {args.out}")
    return 0


def _write(evaluation, args: argparse.Namespace, out: Path) -> None:
    algorithms = evaluation.algorithms
    atomic_write_csv(out / "algorithms.csv", algorithms, index_label="algorithm")
    atomic_write_csv(out / "datasets.csv", evaluation.datasets, index_label="dataset")
    atomic_write_csv(out / "predicted.csv", evaluation.predicted, index_label="dataset")
    atomic_write_csv(out / "occupancy.csv", evaluation.occupancy, index=False)
    atomic_write_csv(out / "weakness_occupancy.csv", evaluation.latent.weakness_occupancy, index=False)
    atomic_write_csv(out / "goodness_curves.csv", evaluation.goodness_curves)
    eff = pd.concat({"actual": evaluation.effectiveness_actual, "predicted": evaluation.effectiveness_predicted},
                    names=["curve"]).reset_index()
    atomic_write_csv(out / "effectiveness_curves.csv", eff, index=False)
    atomic_write_csv(out / "latent_curves.csv", evaluation.latent.curves)
    atomic_write_csv(out / "strengths.csv", evaluation.latent.strengths.astype(np.int8))
    atomic_write_csv(out / "weaknesses.csv", evaluation.latent.weaknesses.astype(np.int8))
    atomic_write_text(out / "portfolio.json", json.dumps(to_jsonable(evaluation.to_dict()), indent=2, allow_nan=False) + "\n")
    atomic_write_text(out / "summary.txt", evaluation.summary().as_text() + "\n")
    if not args.no_figures:
        from irtbridge.portfolio.plots import save_figures  # kept off the CLI's start (~2 s)

        save_figures(evaluation, out)
