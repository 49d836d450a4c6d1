"""`irtbridge ei`: the Efficiency Index family of a 2 x 2 table, or of a score at every cut-off.

    irtbridge ei --tp 104 --fp 188 --fn 10 --tn 453 [--ci-method logit] [--level 0.95] [--json]
    irtbridge ei FILE.csv --truth COL --score COL [--lower-is-positive] [--json] [--out table.csv]

``--json`` for counts prints ``{"acc": {"value", "lower", "upper"}, ..., "uei": {...}}`` (eight keys,
``null`` for an infinite bound); for a file it prints one object per cut-off.
"""

from __future__ import annotations

import argparse

from irtbridge._constraints import Choice, Int, Number
from irtbridge._outdir import FILE
from irtbridge._validation import check_binary_labels, read_csv, require_columns
from irtbridge.cli._common import SEED, atomic_write_csv, declare_flag, declare_input, print_json
from irtbridge.exceptions import ValidationError

_COUNT_FLAGS = ("tp", "fp", "fn", "tn")
#: a cell of the 2 x 2 table ("1.0" is read as 1, as before)
_COUNT = Int(low=0, allow_none=True, phrase="a count (a whole number >= 0)")
#: the declarations of efficiency_indices (irtbridge.efficiency.indices), which the flags feed; written out here so
#: the CLI starts without importing the efficiency package (tests/cli/test_cli_flags.py checks they are equal)
_INDICES = "irtbridge.efficiency.indices.efficiency_indices"
_LEVEL = Number(low=0.0, high=1.0, low_open=True, high_open=True)
_CI_METHOD = Choice(("logit", "bootstrap", "larner2023"))


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``ei`` subcommand to the ``irtbridge`` command line.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``irtbridge`` parser; the new parser's ``func`` default is set to the function
        that runs it.
    """
    p = sub.add_parser(
        "ei",
        help="Efficiency Index family (EI, BEI, BLEI, QEI, UEI) with confidence intervals",
        description="Efficiency indices of a 2x2 table (--tp --fp --fn --tn) with confidence intervals, "
        "or of a score column at every cut-off (FILE.csv --truth COL --score COL).",
    )
    declare_input(p, "file", what="a cases file",
                  nargs="?", metavar="FILE.csv", help="cases: one row each, with a 0/1 truth column and a score column")
    for name in _COUNT_FLAGS:
        declare_flag(p, f"--{name}", constraint=_COUNT, metavar="N", help=f"number of {name.upper()} cases")
    p.add_argument("--truth", metavar="COL", help="0/1 reference-standard column of FILE.csv (1 = condition present)")
    p.add_argument("--score", metavar="COL", help="score column of FILE.csv")
    p.add_argument("--lower-is-positive", action="store_true",
                   help="a case is test-positive when score <= cut-off (default: score >= cut-off)")
    p.add_argument("--intervals", action="store_true", help="add lower/upper columns to the cut-off table")
    declare_flag(p, "--ci-method", constraint=_CI_METHOD, parameter=f"{_INDICES}:ci_method", default="logit",
                 metavar="METHOD", help="logit (default, closed forms), bootstrap, or larner2023 (the paper's printed SE)")
    declare_flag(p, "--level", constraint=_LEVEL, parameter=f"{_INDICES}:level", default=0.95,
                 help="confidence level (default 0.95)")
    declare_flag(p, "--correction", constraint=Number(low=0.0), parameter=f"{_INDICES}:correction", default=0.0,
                 metavar="C", help="add C to every cell of a table with an empty cell, e.g. 0.5 (default 0)")
    declare_flag(p, "--n-boot", constraint=Int(low=100), parameter=f"{_INDICES}:n_boot", default=2000, metavar="B",
                 help="bootstrap replicates (default 2000)")
    declare_flag(p, "--seed", constraint=SEED, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--json", action="store_true",
                   help="counts: {acc, inacc, ei, ini, bei, blei, qei, uei: {value, lower, upper}}; file: one object per cut-off")
    p.add_argument("--out", metavar="table.csv", help="with FILE.csv: also write the cut-off table to this CSV")
    p.set_defaults(func=run, outputs=(("out", FILE),))


def _options(args: argparse.Namespace) -> dict:
    # every one checked as the command line was read (the declared flags)
    return {"level": args.level, "ci_method": args.ci_method, "correction": args.correction, "n_boot": args.n_boot,
            "random_state": args.seed}


def run(args: argparse.Namespace) -> int:
    """Run ``irtbridge ei`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        The arguments its parser read from the command line.

    Returns
    -------
    int
        The exit status: 0 (errors raise; :func:`irtbridge.cli.main` maps them to exit statuses).
    """
    from irtbridge.efficiency import efficiency_by_cutoff, efficiency_indices  # kept off the CLI's start (~2 s)

    given = [f"--{n}" for n in _COUNT_FLAGS if getattr(args, n) is not None]
    if args.file is not None:
        if given:
            raise ValidationError(
                f"give either FILE.csv with --truth/--score or the four counts, not both (got FILE.csv and {' '.join(given)})"
            )
        if not args.truth or not args.score:
            raise ValidationError("FILE.csv needs --truth COL and --score COL")
        return _run_file(args, efficiency_by_cutoff)
    if args.truth or args.score or args.out:
        raise ValidationError("--truth, --score and --out need FILE.csv; for a 2x2 table give --tp --fp --fn --tn")
    if len(given) != 4:
        missing = [f"--{n}" for n in _COUNT_FLAGS if getattr(args, n) is None]
        raise ValidationError(
            f"missing {' '.join(missing)}; give all four counts --tp --fp --fn --tn (or FILE.csv --truth COL --score COL)"
        )
    counts = {n: getattr(args, n) for n in _COUNT_FLAGS}  # whole numbers >= 0 (the declared flags)
    try:
        result = efficiency_indices(counts["tp"], counts["fp"], counts["fn"], counts["tn"], **_options(args))
    except ValidationError as exc:
        # the library names the parameter (tp, level, ...); the user typed the flag
        raise ValidationError(_flagged(str(exc))) from None
    if args.json:
        print_json(result.to_dict())
    else:
        print(result.summary())
    return 0


def _flagged(message: str) -> str:
    for name in (*_COUNT_FLAGS, "level", "ci_method", "correction", "n_boot"):
        if message.startswith(name + " ") or message.startswith(name + "="):
            return "--" + name.replace("_", "-") + message[len(name):]
    return message


def _run_file(args: argparse.Namespace, efficiency_by_cutoff) -> int:
    data = read_csv(args.file, "cases")
    source = f"cases file {args.file!r}"
    require_columns(data, [args.truth, args.score], source)
    truth, score = data[args.truth], data[args.score]
    if truth.isna().any() or score.isna().any():
        col = args.truth if truth.isna().any() else args.score
        raise ValidationError(
            f"{source}: column {col!r} has {int(data[col].isna().sum())} missing value(s); drop those rows first"
        )
    check_binary_labels(truth, f"{source} column {args.truth!r}")
    try:
        score = score.astype(float)
    except (TypeError, ValueError):
        raise ValidationError(f"{source}: column {args.score!r} must hold numbers") from None
    try:
        table = efficiency_by_cutoff(truth, score, higher_is_positive=not args.lower_is_positive,
                                     intervals=args.intervals, **_options(args))
    except ValidationError as exc:
        raise ValidationError(_flagged(str(exc))) from None
    if args.out:
        atomic_write_csv(args.out, table)
    if args.json:
        print_json(table.reset_index())
    else:
        rule = "score <= cut-off" if args.lower_is_positive else "score >= cut-off"
        print(f"Efficiency indices by cut-off of {args.score!r} against {args.truth!r} (test-positive: {rule})")
        print(table.to_string(float_format=lambda x: f"{x:.3f}"))
    return 0
