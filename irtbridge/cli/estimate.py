"""`irtbridge estimate RESPONSES.csv --calibration CAL.json --anchors anchors.csv --json`: p-IRT accuracy.

Each respondent (a new model) answered the anchor items only; its accuracy on the whole calibrated item set
is predicted with a 95% interval (:func:`irtbridge.estimate_performance`).

`irtbridge estimate ANSWERS.csv --bank DIR/bank.json`: score new models against a tiny benchmark's frozen
bank (``irtbridge tiny``), offline: theta with its SD and the predicted accuracy with its 95% interval from
the bank's own estimator (:meth:`irtbridge.leaderboard.TinyBenchmark.predict`).
"""

from __future__ import annotations

import argparse
import sys

from irtbridge._constraints import Int
from irtbridge._outdir import FILE
from irtbridge._validation import read_csv, require_columns
from irtbridge.cli._common import (FINITE, add_long_options, atomic_write_csv, declare_flag, declare_input, print_json,
                                   read_calibration, read_responses)
from irtbridge.cli._formats import add_from_option
from irtbridge.exceptions import ValidationError


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``estimate`` subcommand to the ``irtbridge`` command line.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``irtbridge`` parser; the new parser's ``func`` default is set to the function
        that runs it.
    """
    p = sub.add_parser("estimate", help="predict new models' accuracy on the full item set from anchor answers",
                       description="Predict each respondent's share correct on the full calibrated item set from its "
                                   "0/1 answers to the anchor items, with a 95%% interval (p-IRT).")
    declare_input(p, "file", what="a responses file or harness output", kind="any",
                  metavar="RESPONSES.csv", help="0/1 answers: one row per respondent, one column per anchor")
    declare_input(p, "--calibration", what="a calibration of irtbridge calibrate --json", metavar="CAL.json",
                  help="irtbridge calibrate --json output, Calibration.to_json, or a tiny bank.json (p-IRT)")
    declare_input(p, "--anchors", what="an anchors file of irtbridge anchors",
                  metavar="anchors.csv", help="the anchors (irtbridge anchors --out)")
    declare_input(p, "--bank", what="a bank file of irtbridge tiny", metavar="bank.json",
                  help="a tiny benchmark's bank (irtbridge tiny --out DIR): predict with its estimator from "
                       "the answers to its items (instead of --calibration and --anchors)")
    add_from_option(p, "csv", ("csv",),
                    "with --bank: RESPONSES is a CSV (default) or a model's harness output")
    declare_flag(p, "--threshold", constraint=FINITE, metavar="T",
                 help="with --from FORMAT: a continuous metric scores 1 where it is at least T")
    p.add_argument("--id-column", metavar="COL",
                   help="the column naming the respondents (default: the first column, unless it holds only 0/1)")
    add_long_options(p)
    p.add_argument("--respondent", action="append", default=[], metavar="NAME",
                   help="only this respondent (repeatable); an unknown name is an error")
    p.add_argument("--validate", metavar="TRAIN.csv",
                   help="the calibration's own response file: cross-validate the prediction on its respondents and "
                        "use the blend weight and interval scale found there (validate_anchors); advised when the "
                        "calibration has fewer than a few hundred respondents")
    declare_flag(p, "--folds", constraint=Int(low=2), parameter="irtbridge.leaderboard.validation.validate_anchors:folds",
                 default=5, help="cross-validation folds for --validate (default 5)")
    p.add_argument("--out", metavar="estimates.csv", help="also write the estimates to this CSV")
    p.add_argument("--json", action="store_true",
                   help='print {"respondents": [{respondent, theta, theta_se, accuracy, accuracy_se, lower, upper, '
                        '...}]} (se: a deprecated alias of theta_se)')
    p.set_defaults(func=run, outputs=(("out", FILE),))


def read_item_list(path: str, what: str = "anchors") -> list[str]:
    """Item names from a CSV (its ``item`` column, else its first).

    Parameters
    ----------
    path : str
        The CSV file.
    what : str, default "anchors"
        What the file holds, for the error message when it cannot be read.

    Returns
    -------
    list of str
        The item names, missing cells left out.
    """
    frame = read_csv(path, what)
    column = "item" if "item" in frame.columns else frame.columns[0]
    require_columns(frame, [column], f"anchors file {path!r}")
    return [str(a) for a in frame[column].dropna()]


def run(args: argparse.Namespace) -> int:
    """Run ``irtbridge estimate`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        The arguments its parser read from the command line.

    Returns
    -------
    int
        The exit status: 0 (errors raise; :func:`irtbridge.cli.main` maps them to exit statuses).
    """
    from irtbridge.leaderboard import estimate_performance, validate_anchors  # kept off the CLI's start

    if args.source != "csv" and not args.bank:
        raise ValidationError(f"--from {args.source}: harness output is scored against a tiny benchmark's --bank")
    if args.bank:
        if args.calibration or args.anchors or args.validate:
            raise ValidationError("--bank replaces --calibration, --anchors and --validate; give one or the other")
        return _run_bank(args)
    if not (args.calibration and args.anchors):
        raise ValidationError("give --calibration and --anchors (p-IRT), or --bank (a tiny benchmark)")
    calibration = read_calibration(args.calibration)
    anchors = read_item_list(args.anchors)
    data = _respondents(args)
    validation = None
    if args.validate:
        train = read_responses(args, args.validate, models=True)
        validation = validate_anchors(train, calibration, anchors, folds=args.folds, progress=True)
        print(validation, file=sys.stderr)
    result = estimate_performance(data, calibration, anchors, validation=validation)
    return _report(args, result)


def _chosen(args: argparse.Namespace, data, what: str = "respondent"):
    """``data``'s rows named by ``--respondent`` (all rows without it); an unknown name is a one-line error."""
    if not args.respondent:
        return data
    unknown = [r for r in args.respondent if r not in set(data.index)]
    if unknown:
        raise ValidationError(f"{what}(s) {', '.join(map(repr, unknown[:5]))} are not in {args.file!r}")
    return data.loc[args.respondent]


def _respondents(args: argparse.Namespace):
    from irtbridge.leaderboard._answers import unique_names  # kept off the CLI's start (~2 s)

    data = read_responses(args, models=True)
    data.index = data.index.map(str)
    unique_names(data.index, "model", f"{args.file!r}")  # the rule of every leaderboard command
    return _chosen(args, data)


def _harness_answers(args: argparse.Namespace, items):
    """The tiny items' answers of the model(s) in a harness output folder (issue 32: scoring straight from it)."""
    from irtbridge.leaderboard.long import responses_from_long  # kept off the CLI's start (~2 s)
    from irtbridge.leaderboard.readers.registry import read_format  # kept off the CLI's start (~2 s)

    long = read_format(args.source, [args.file], threshold=args.threshold)
    wide = responses_from_long(long.assign(item=long["item"].astype(str)))
    absent = [i for i in items if i not in wide.columns]
    if absent:
        raise ValidationError(f"{args.file}: no answers to {len(absent)} tiny item(s), e.g. {absent[:3]}")
    wide = wide[list(items)].astype(float)
    wide.index.name, wide.columns.name = None, None
    return _chosen(args, wide, "model")


def _run_bank(args: argparse.Namespace) -> int:
    from irtbridge.leaderboard import load_tiny  # kept off the CLI's start

    tiny = load_tiny(args.bank)
    result = tiny.predict(_harness_answers(args, tiny.items) if args.source != "csv" else _respondents(args))
    return _report(args, result)


#: the columns ``estimate`` writes, the vocabulary of every estimate; ``se`` last, a deprecated alias of
#: ``theta_se`` (what this command's ``se`` always was; removed in 0.3.0)
COLUMNS = ("theta", "theta_se", "accuracy", "accuracy_se", "lower", "upper", "predicted_share")


def _report(args: argparse.Namespace, result) -> int:
    factors = [c for c in result.columns if c.startswith(("F", "se_F", "cov_F"))]  # a D-factor bank's columns
    result = result[[c for c in COLUMNS if c in result]].assign(se=result["theta_se"], **{c: result[c] for c in factors})
    result.index.name = "respondent"
    if args.out:
        atomic_write_csv(args.out, result)
    if args.json:
        rows = [{"respondent": r, **{k: float(v) for k, v in row.items()}} for r, row in result.iterrows()]
        print_json({"respondents": rows})
    else:
        print(result.to_string())
    return 0
