"""`irtbridge ingest FORMAT PATHS... --out FILE`: evaluation outputs to one long CSV table.

FORMAT is a row of the reader registry (:data:`irtbridge.leaderboard.readers.registry.READERS`): its
options are the row's, its reader the row's.

The table's first columns are ``model, task, item, score`` (one row per model and item), what
``irtbridge ... --long`` and :func:`irtbridge.leaderboard.responses_from_long` read. Everything is read and
checked before the file is written (atomically: a temporary file, then a rename).
"""

from __future__ import annotations

import argparse

import pandas as pd

from irtbridge._outdir import FILE
from irtbridge.cli._common import FINITE, atomic_write_csv, declare_flag, declare_input, print_json
from irtbridge.cli._formats import FormatChoices
from irtbridge.exceptions import ValidationError

# each command-line option -> the reader keyword it sets (the registry rows say which readers take it)
_OPTION_KEYWORDS = {"metric": "metric", "filter": "filter", "threshold": "threshold", "item_id": "item_id",
                    "model": "model", "split": "split", "trial": "trial", "perturbations": "perturbations",
                    "task": "task", "epoch": "epoch"}


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``ingest`` subcommand to the ``irtbridge`` command line.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``irtbridge`` parser; the new parser's ``func`` default is set to the function
        that runs it.
    """
    p = sub.add_parser("ingest", help="read evaluation-harness outputs (lm-eval, HELM, Inspect AI, ...) into a long CSV",
                       description="Read evaluation outputs in any format of the reader registry into one long "
                                   "table model,task,item,score,...")
    p.add_argument("format", choices=FormatChoices(), metavar="FORMAT",
                   help="the format, one of: %(choices)s")
    declare_input(p, "paths", what="harness output files or folders", kind="any",
                  nargs="+", metavar="PATH", help="files or folders (searched recursively)")
    p.add_argument("--out", metavar="FILE.csv", help="write the long table here (required unless --list-metrics)")
    p.add_argument("--metric", action="append", default=[], metavar="NAME|TASK=NAME",
                   help="the metric (or scorer) read as the score, for every task or (repeatable) one task's; "
                        "default: the task's default (--list-metrics shows it)")
    p.add_argument("--filter", action="append", default=[], metavar="NAME|POSITION|TASK=...",
                   help="lm-eval: the filter read where a task logs several (default its first)")
    declare_flag(p, "--threshold", constraint=FINITE, metavar="T",
                 help="binarise scores: 1 where value >= T, else 0 (default: keep the values)")
    p.add_argument("--item-id", default="doc_hash", metavar="ID",
                   help="lm-eval: doc_hash (default), doc_id or doc:<field>")
    p.add_argument("--model", metavar="NAME", help="the model's name when the paths hold one model")
    p.add_argument("--split", metavar="SPLIT", help="helm: only this split (test, valid)")
    p.add_argument("--trial", default="0", metavar="N|mean", help="helm: train_trial_index read (default 0) or mean")
    p.add_argument("--perturbations", action="store_true", help="helm: also read perturbed instances")
    p.add_argument("--task", metavar="NAME", help="pyirt: the task column (default the file's name)")
    p.add_argument("--epoch", metavar="N|mean|reduced",
                   help="inspect: the epoch read (1, 2, ...), mean over the epochs (default) or reduced (the value "
                        "Inspect's own reducer stored)")
    p.add_argument("--list-metrics", action="store_true",
                   help="list each task's metrics and the default read (formats with a metric list)")
    p.add_argument("--json", action="store_true",
                   help='print {"format", "out", "rows", "models", "tasks", "items", "by_task": [...]}')
    p.set_defaults(func=run, outputs=(("out", FILE),))


def _per_task(values: list[str], option: str, positions: bool = False):
    """``--metric acc`` (every task) or ``--metric TASK=NAME`` (repeatable); None when not given."""
    if not values:
        return None
    plain = [v for v in values if "=" not in v]
    pairs = [v for v in values if "=" in v]
    if plain and (pairs or len(plain) > 1):
        raise ValidationError(f"--{option}: give one NAME for every task, or TASK=NAME entries, not both")

    def value(v: str):
        return int(v) if positions and v.isdigit() else v

    if plain:
        return value(plain[0])
    out = {}
    for v in pairs:
        task, _, name = v.rpartition("=")
        if not task or not name:
            raise ValidationError(f"--{option} {v!r}: expected TASK=NAME")
        out[task] = value(name)
    return out


def _given(args: argparse.Namespace) -> dict:
    """The reader keywords the command line set (options left at their default are not passed)."""
    trial = None
    if args.trial != "0":
        trial = "mean" if args.trial == "mean" else (int(args.trial) if args.trial.isdigit() else None)
        if trial is None:
            raise ValidationError(f"--trial must be a train_trial_index (0, 1, ...) or mean, got {args.trial!r}")
    epoch = None
    if args.epoch is not None:
        epoch = args.epoch if args.epoch in ("mean", "reduced") else (int(args.epoch) if args.epoch.isdigit() else None)
        if epoch is None or epoch == 0:
            raise ValidationError(f"--epoch must be an epoch number (1, 2, ...), mean or reduced, got {args.epoch!r}")
    values = {"metric": _per_task(args.metric, "metric"), "filter": _per_task(args.filter, "filter", positions=True),
              "threshold": args.threshold, "item_id": None if args.item_id == "doc_hash" else args.item_id,
              "model": args.model, "split": args.split, "trial": trial,
              "perturbations": True if args.perturbations else None, "task": args.task, "epoch": epoch}
    return {_OPTION_KEYWORDS[k]: v for k, v in values.items() if v is not None}


def _check_options(args: argparse.Namespace):
    from irtbridge.leaderboard.readers.registry import reader  # kept off the CLI's start (~2 s)

    row = reader(args.format, "format")
    for name in _given(args):
        if name not in row.options:
            raise ValidationError(f"--{name.replace('_', '-')} is not an option of `ingest {args.format}` (its "
                                  f"options: {', '.join('--' + o.replace('_', '-') for o in row.options) or 'none'})")
    if args.list_metrics and row.metrics is None:
        raise ValidationError(f"--list-metrics is not an option of `ingest {args.format}` (formats with a metric "
                              "list: see irtbridge ingest --help)")
    if not args.out and not args.list_metrics:
        raise ValidationError("--out FILE.csv is required (where the long table goes)")
    return row


def summary(table: pd.DataFrame, fmt: str, out: str | None) -> dict:
    """The counts ``--json`` prints: rows, models, tasks, items, and per task its metric and counts.

    Parameters
    ----------
    table : DataFrame
        The long table read (columns ``model``, ``task``, ``item``, ``score`` and, where the format has one,
        ``metric``).
    fmt : str
        The input format's name.
    out : str or None
        The CSV written, or None.

    Returns
    -------
    dict
        Keys ``format``, ``out``, ``rows``, ``models``, ``tasks``, ``items`` and ``by_task`` (one dict per task:
        ``task``, ``metric``, ``models``, ``items``, ``rows``, ``mean_score``).
    """
    by_task = []
    for task, part in table.groupby("task", sort=True):
        metrics = sorted(part["metric"].dropna().unique()) if "metric" in part else []
        by_task.append({"task": task, "metric": ", ".join(map(str, metrics)) or None,
                        "models": int(part["model"].nunique()), "items": int(part["item"].nunique()),
                        "rows": int(len(part)), "mean_score": float(part["score"].mean())})
    return {"format": fmt, "out": out, "rows": int(len(table)), "models": int(table["model"].nunique()),
            "tasks": int(table["task"].nunique()), "items": int(table["item"].nunique()), "by_task": by_task}


def run(args: argparse.Namespace) -> int:
    """Run ``irtbridge ingest`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        The arguments its parser read from the command line.

    Returns
    -------
    int
        The exit status: 0 (errors raise; :func:`irtbridge.cli.main` maps them to exit statuses).
    """
    row = _check_options(args)
    if args.list_metrics:
        listing = row.list_metrics()(args.paths)
        if args.json:
            print_json({"metrics": listing})
        else:
            print(listing.to_csv(index=False), end="")
        return 0
    from irtbridge.leaderboard.readers.registry import read_format  # kept off the CLI's start

    table = read_format(args.format, args.paths, **_given(args))
    atomic_write_csv(args.out, table, index=False)
    info = summary(table, args.format, args.out)
    if args.json:
        print_json(info)
    else:
        print(f"{info['rows']} rows ({info['models']} models, {info['tasks']} tasks, {info['items']} items) "
              f"written to {args.out}")
    return 0
