"""`irtbridge tiny RESPONSES.csv --k 100 --out DIR`: build a tiny benchmark of your own, with its error table.

Writes, atomically (one folder, :mod:`irtbridge._outdir`):

* ``items.csv``: the k items a new model answers (one column, ``item``);
* ``bank.json``: the frozen bank (item parameters and the calibration models' answers; read offline by
  :func:`irtbridge.leaderboard.load_tiny`, :func:`~irtbridge.leaderboard.load_bank`,
  ``irtbridge estimate --bank``, and as a calibration by ``estimate_performance`` / ``adaptive_evaluate``);
* ``errors.csv``: the cross-validated error (mean absolute error, 95% interval coverage, each with its
  standard error over the ``--repeats`` splits x ``--draws`` item draws, and the coverage's Wilson interval at
  its effective number of predictions) over held-out models, interpolation and extrapolation splits, every
  draw rebuilt on the calibration models of its fold alone;
  a coverage below 0.90 is a warning on stderr and a note of ``summary.json``;
* ``learning_curve.csv``: that error against the number of calibration models (10, 20, 50, 100, ...);
* ``summary.json``: all of the above in one object (also printed by ``--json``);
* ``samples.json``: lm-evaluation-harness's ``--samples`` file of the k items (task -> document indices;
  ``lm_eval ... --samples DIR/samples.json --log_samples``), when every item's document is known: read with
  ``--from lm-eval``, items named ``task/<doc_id>``, or ``--documents items.csv`` (``item, task, doc_id``).
  The bank keeps the documents, so ``irtbridge twophase`` writes the next phase's file.

A new model is scored against the bank with ``irtbridge estimate ANSWERS.csv --bank DIR/bank.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

import pandas as pd

from irtbridge._constraints import Int
from irtbridge._outdir import FOLDER, staged_output
from irtbridge.cli._common import (FINITE, SEED, add_long_options, declare_flag, declare_input, print_json,
                                   read_responses)
from irtbridge.cli._formats import add_from_option
from irtbridge.exceptions import ValidationError

#: the estimators' names and the default, as irtbridge.leaderboard.estimators.REGISTRY holds them (the CLI starts
#: without importing the numerics; tests/leaderboard/test_estimators.py checks the two agree)
ESTIMATORS = ("ppi", "composite", "ppi_irt", "aipw", "mean", "pirt", "gpirt")
DEFAULT_ESTIMATOR = "ppi"
#: the item draws, as irtbridge.leaderboard.tiny.DESIGNS (the same test checks them)
DESIGNS = ("auto", "random", "stratified")
#: the most factors of --factors, as irtbridge.leaderboard.estimators.MAX_FACTORS (the same test checks them)
MAX_FACTORS = 10


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``tiny`` subcommand to the ``irtbridge`` command line.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``irtbridge`` parser; the new parser's ``func`` default is set to the function
        that runs it.
    """
    p = sub.add_parser("tiny", help="build a tiny benchmark: k items that predict a new model's full accuracy",
                       description="Draw k items of a response matrix (models x items, 0/1), freeze a bank that "
                                   "predicts a new model's accuracy on all items from its answers to them (95%% "
                                   "interval), and measure its error on held-out models.")
    declare_input(p, "file", what="a responses file or harness output", kind="any",
                  metavar="RESPONSES", help="0/1 answers: a CSV or .csv.gz (one row per model, one column "
                                            "per item), or with --from FORMAT harness output")
    add_from_option(p, "csv", ("csv",),
                    "what RESPONSES is (default a CSV, or .csv.gz)")
    declare_flag(p, "--threshold", constraint=FINITE, metavar="T",
                 help="with --from FORMAT: a continuous metric scores 1 where it is at least T")
    declare_flag(p, "--k", constraint=Int(low=3), parameter="irtbridge.leaderboard.tiny.build_tiny:k", default=100,
                 help="items a new model answers (default 100)")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="write items.csv, bank.json, errors.csv, learning_curve.csv, summary.json here")
    p.add_argument("--id-column", metavar="COL",
                   help="the column naming the models (default: the first column, unless it holds only 0/1)")
    add_long_options(p)
    declare_flag(p, "--seed", constraint=SEED, default=0, help="seeds the item draw (default 0)")
    p.add_argument("--method", default=DEFAULT_ESTIMATOR, choices=ESTIMATORS,
                   help=f"the estimator the bank predicts with (default {DEFAULT_ESTIMATOR}; see "
                        "irtbridge.leaderboard.estimators)")
    p.add_argument("--design", default="auto", choices=DESIGNS,
                   help="the item draw: random, or stratified on the calibration models' share right per item "
                        "(irtbridge.leaderboard.strata; --method ppi or mean); auto (default): stratified where the "
                        "method allows it and k gives each stratum two items, else random; the bank keeps the strata")
    p.add_argument("--exclude", metavar="items.csv",
                   help="items never sampled (one column, item), e.g. runaway items; still predicted")
    declare_flag(p, "--repeats", constraint=Int(low=1), default=3,
                 help="splits (2PL fits) of the held-out error and of each learning-curve point (default 3)")
    declare_flag(p, "--draws", constraint=Int(low=1), parameter="irtbridge.leaderboard.tiny_cv.validate_tiny:draws",
                 default=10, help="item draws scored on each of those fits (default 10; a draw costs a prediction, "
                                  "not a fit)")
    p.add_argument("--no-validate", action="store_true", help="skip the error table and learning curve")
    p.add_argument("--no-prior", action="store_true",
                   help="fit the 2PL by plain maximum likelihood (default: a weak slope prior a1 ~ N(1, 2), as "
                        "irtbridge leaderboard)")
    declare_flag(p, "--ncycles", constraint=Int(low=1), parameter="irtbridge.leaderboard.tiny.build_tiny:NCYCLES", default=500,
                 help="EM cycles of each native 2PL fit (default 500; validation refits once per split and "
                      "learning-curve point)")
    declare_flag(p, "--factors", constraint=Int(low=1, high=MAX_FACTORS),
                 parameter="irtbridge.leaderboard.tiny.build_tiny:n_factors",
                 default=1, metavar="D",
                 help="factors of the calibration (default 1, the 2PL): D > 1 fits the native exploratory D-factor "
                      "2PL and predicts from a new model's factors (EAP); the bank holds the loadings (version 3)")
    p.add_argument("--documents", metavar="items.csv",
                   help="each item's lm-eval document (columns item, task, doc_id), for samples.json")
    p.add_argument("--json", action="store_true", help="print summary.json")
    p.set_defaults(func=run, outputs=(("out", FOLDER),))


def run(args: argparse.Namespace) -> int:
    """Run ``irtbridge tiny`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        The arguments its parser read from the command line.

    Returns
    -------
    int
        The exit status: 0 (errors raise; :func:`irtbridge.cli.main` maps them to exit statuses).
    """
    from irtbridge.cli.estimate import read_item_list  # kept off the CLI's start (~2 s)
    from irtbridge.leaderboard import build_tiny, validate_tiny  # kept off the CLI's start
    from irtbridge.leaderboard.estimators import DEFAULT_PRIORS  # kept off the CLI's start (~2 s)
    from irtbridge.leaderboard.tiny_cv import MIN_MODELS  # kept off the CLI's start (~2 s)

    if args.source == "csv":
        data = read_responses(args, models=True)
    else:  # harness output: the leaderboard command's reader (one line for a bad file, nothing half-read)
        from irtbridge.leaderboard.inputs import read_leaderboard_input  # kept off the CLI's start (~2 s)

        data = read_leaderboard_input([args.file], args.source, threshold=args.threshold).matrix
    data.index = data.index.map(str)
    exclude = read_item_list(args.exclude, "--exclude") if args.exclude else None

    from irtbridge.cli.twophase import documents_of  # kept off the CLI's start (~2 s)
    from irtbridge.leaderboard.samples_file import write_samples  # kept off the CLI's start (~2 s)

    documents = documents_of(args, [str(c) for c in data.columns])  # --documents checked before the fit
    ncycles, repeats, draws = args.ncycles, args.repeats, args.draws  # --ncycles, --seed, --repeats, --draws: declared
    priors = None if args.no_prior else DEFAULT_PRIORS
    if not args.no_validate and data.shape[0] < MIN_MODELS:  # refused before the fit, not after it
        raise ValidationError(f"{args.file!r} has {data.shape[0]} model(s); validating a tiny benchmark needs at least "
                              f"{MIN_MODELS} (pass --no-validate to build it without the error table)")
    tiny = build_tiny(data, args.k, seed=args.seed, exclude=exclude, method=args.method, priors=priors,
                      NCYCLES=ncycles, design=args.design, n_factors=args.factors)  # checks, then fits
    if not args.no_validate:
        tiny = tiny.with_validation(validate_tiny(data, args.k, args.seed, exclude=list(tiny.exclude), method=tiny.method,
                                                  repeats=repeats, draws=draws, priors=priors, NCYCLES=ncycles,
                                                  design=args.design, n_factors=args.factors))
    tiny = replace(tiny, documents=documents)
    summary = tiny.summary_dict()
    out = Path(args.out)
    with staged_output(out, param="--out", writer="tiny") as stage:
        pd.DataFrame({"item": tiny.items}).to_csv(stage / "items.csv", index=False)
        tiny.save(stage / "bank.json")
        stats = ["n_held_out", "draws", "mae", "mae_se", "coverage", "coverage_se", "coverage_lower", "coverage_upper"]
        pd.DataFrame(summary["errors"], columns=["split", "k", "n_calibration", *stats]
                     ).to_csv(stage / "errors.csv", index=False)
        pd.DataFrame(summary["learning_curve"], columns=["n_calibration", *stats]
                     ).to_csv(stage / "learning_curve.csv", index=False)
        if all(i in tiny.documents for i in tiny.items):
            write_samples(stage / "samples.json", tiny.items, tiny.documents)
        (stage / "summary.json").write_text(json.dumps({**summary, "out": str(out)}, indent=2), encoding="utf-8")
    if not all(i in tiny.documents for i in tiny.items):
        print("irtbridge tiny: samples.json not written: the items' lm-eval documents are unknown (read with --from "
              "lm-eval, name items task/<doc_id>, or pass --documents items.csv)", file=sys.stderr)
    if args.json:
        print_json({**summary, "out": str(out)})
    else:
        print(tiny.summary().as_text())
    return 0
