"""`irtbridge hardness FILE.csv --label COL --score COL [--score COL ...] --method rd [--json]`.

Cost-sensitive instance hardness (Prudêncio, cost-sensitive instance hardness) of the instances in a CSV file:
one 0/1 label column and one score column ``P(label = 1)`` per model of the pool.

``--json`` prints one object::

    {"method": "rd", "threshold": 0.5, "n_instances": 10, "models": ["m1", "m2"],
     "instances": [{"index": 0, "label": 1, "hardness": 0.47}, ...],
     "classes": [{"class": 0, "n": 6, "hardness": 0.27}, {"class": 1, "n": 4, "hardness": 0.25}]}

``index`` is the 0-based data row of the file, or the value of ``--id COL`` when given. A class absent
from the file has ``"hardness": null``.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from irtbridge._validation import check_binary_labels, check_scores, read_csv, require_columns
from irtbridge.cli._common import FINITE, declare_flag, declare_input, print_json
from irtbridge.exceptions import ValidationError

_TOP = 10  # hardest instances listed by the text output


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``hardness`` subcommand to the ``irtbridge`` command line.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``irtbridge`` parser; the new parser's ``func`` default is set to the function
        that runs it.
    """
    from irtbridge.hardness import METHODS  # kept off the CLI's start (~2 s)

    p = sub.add_parser(
        "hardness",
        help="cost-sensitive instance hardness from model scores",
        description=(
            "Instance and class hardness (area under instance cost curves, Prudencio 2020) of the rows of a "
            "CSV file. Labels must be 0/1; each --score column holds one model's P(label = 1) in [0, 1]. "
            "Several --score columns form a pool and their hardness is averaged."
        ),
    )
    declare_input(p, "file", what="a CSV file", metavar="FILE.csv", help="CSV file with a header row")
    p.add_argument("--label", required=True, metavar="COL", help="column of 0/1 labels")
    p.add_argument(
        "--score", required=True, action="append", metavar="COL",
        help="column of scores P(label = 1) of one model; repeat for a pool",
    )
    p.add_argument(
        "--method", default="rd", choices=METHODS,
        help="threshold choice method: sf score-fixed, sd score-driven, rd rate-driven (default), "
        "su score-uniform, ru rate-uniform",
    )
    declare_flag(p, "--threshold", constraint=FINITE, default=None, help="fixed threshold of --method sf (default 0.5)")
    p.add_argument("--id", metavar="COL", help="column that identifies the instances (default: the row number)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``irtbridge hardness`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        The arguments its parser read from the command line.

    Returns
    -------
    int
        The exit status: 0 (errors raise; :func:`irtbridge.cli.main` maps them to exit statuses).
    """
    from irtbridge.hardness import class_hardness, instance_hardness  # kept off the CLI's start (~2 s)

    if args.threshold is not None and args.method != "sf":  # it would be ignored without a word
        raise ValidationError(f"--threshold is the fixed threshold of --method sf; --method {args.method} "
                              "chooses its own (drop --threshold or pass --method sf)")
    if args.threshold is None:
        args.threshold = 0.5
    duplicated = sorted({c for c in args.score if args.score.count(c) > 1})
    if duplicated:
        raise ValidationError(f"--score {duplicated[0]!r} is given more than once; name each model's column once")
    # a column in two roles would score the labels against themselves (or name instances by a label/score)
    for flag, column in (("--label", args.label), ("--id", args.id)):
        if column is not None and column in args.score:
            raise ValidationError(f"--score {column!r} is also the {flag} column; a model's scores and {flag} "
                                  "must be different columns")
    if args.id is not None and args.id == args.label:
        raise ValidationError(f"--id {args.id!r} is also the --label column; give the column naming the instances")
    frame = read_csv(args.file, "hardness input")
    columns = [args.label, *args.score] + ([args.id] if args.id else [])
    require_columns(frame, columns, args.file)

    if args.id:
        ids = frame[args.id]
        if ids.isna().any() or ids.duplicated().any():
            raise ValidationError(f"column {args.id!r} (--id) must hold a unique, non-missing id per row")
        index = pd.Index(ids, name=args.id)
    else:
        index = pd.RangeIndex(len(frame))
    labels = pd.Series(
        check_binary_labels(_numeric(frame[args.label], args.label, "recode it to 0/1"), f"column {args.label!r}").astype(int),
        index=index,
    )
    pool = pd.DataFrame(
        np.vstack([check_scores(_numeric(frame[col], col, "it must hold P(label = 1)"), f"column {col!r}")
                   for col in args.score]),
        index=list(args.score),
        columns=index,
    )
    hardness = instance_hardness(labels, pool, args.method, args.threshold)
    classes = class_hardness(labels, pool, args.method, args.threshold)
    counts = labels.value_counts().reindex([0, 1], fill_value=0)

    if args.json:
        print_json(
            {
                "method": args.method,
                "threshold": args.threshold,
                "n_instances": int(len(labels)),
                "models": list(args.score),
                "instances": [
                    {"index": i, "label": int(lab), "hardness": float(h)}
                    for i, lab, h in zip(index.tolist(), labels.to_numpy(), hardness.to_numpy())
                ],
                "classes": [
                    {"class": k, "n": int(counts[k]), "hardness": float(classes[k])} for k in (0, 1)
                ],
            }
        )
        return 0

    print(f"instance hardness, method {args.method}: {len(labels)} instances, {len(args.score)} model(s)")
    for k in (0, 1):
        value = "n/a (no instance)" if counts[k] == 0 else f"{classes[k]:.4f}"
        print(f"  class {k} ({counts[k]} instances): {value}")
    top = hardness.sort_values(ascending=False, kind="stable").head(_TOP)
    print(f"hardest {len(top)} instance(s):")
    for i, h in top.items():
        print(f"  {i}  label {labels[i]}  hardness {h:.4f}")
    return 0


def _numeric(column: pd.Series, name: str, fix: str) -> np.ndarray:
    if not (pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column)):
        example = column.dropna().astype(str).head(3).tolist()
        raise ValidationError(f"column {name!r} must be numeric, found values such as {example}; {fix}")
    return column.to_numpy(dtype=float, na_value=np.nan)
