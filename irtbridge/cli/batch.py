"""`irtbridge batch MANIFEST [--scheduler local|ADDRESS] [--workers N] [--out DIR] [--retries N] [--json]`.

Runs the units of a manifest (see :mod:`irtbridge.batch` for its format) on Dask distributed: a local
cluster of spawned single-threaded worker processes by default (one R each), or an existing scheduler
(``tcp://HOST:8786``). The manifest is checked whole first: any problem (an unknown kind or option, a
string where a boolean belongs, ...) is one line naming the unit and the option, exit 2, and nothing
runs. Completed units are skipped on a rerun; a unit that fails is reported with its error (its folder
then holds only ``unit.json`` saying so) and the exit code is 1, the other units being kept.

``--json`` prints ``OUT/batch.json``: ``{"manifest", "out", "scheduler", "workers", "retries", "seconds",
"counts": {"done", "skipped", "failed"}, "units": [{"id", "kind", "status", "error", "seconds",
"attempts", "interrupted", "worker"}, …]}``.
"""

from __future__ import annotations

import argparse
import json

from irtbridge._constraints import Int
from irtbridge.cli._common import declare_flag, declare_input


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``batch`` subcommand to the ``irtbridge`` command line.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``irtbridge`` parser; the new parser's ``func`` default is set to the function
        that runs it.
    """
    p = sub.add_parser(
        "batch",
        help="many analyses in parallel on Dask distributed (resumable)",
        description=(
            "Run every unit of MANIFEST (a .json or .csv list of units: id, kind, data file, options) in "
            "parallel. Kinds: calibrate, abilities, fit, dataset, hardness, ei, rate. The manifest is checked "
            "whole before any unit runs. Each unit writes OUT/units/<id>/ atomically (a failed unit: its "
            "unit.json alone); a rerun skips completed units."
        ),
    )
    declare_input(p, "manifest", what="a .json or .csv manifest", metavar="MANIFEST", help="manifest file (.json or .csv)")
    p.add_argument("--scheduler", default="local", metavar="local|ADDRESS",
                   help="'local' (a local cluster, default), 'serial' (in this process), or a Dask scheduler "
                        "address such as tcp://10.0.0.5:8786")
    declare_flag(p, "--workers", constraint=Int(low=1, allow_none=True), default=None, metavar="N",
                 help="worker processes of the local cluster (default: one per CPU)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="output folder (default: the manifest's \"output\", else MANIFEST-results)")
    declare_flag(p, "--retries", constraint=Int(low=0, allow_none=True), default=None, metavar="N",
                 help="re-runs of a unit after a transient error (file system, memory); an error the same "
                      "input would raise again is not retried (default: the manifest's, else 1)")
    p.add_argument("--json", action="store_true", help="print the batch summary (batch.json) as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``irtbridge batch`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        The arguments its parser read from the command line.

    Returns
    -------
    int
        The exit status: 1 when any unit failed, else 0.
    """
    from irtbridge.batch import run_batch  # kept off the CLI's start (~2 s)
    from irtbridge.cli._common import print_json  # kept off the CLI's start (~2 s)

    result = run_batch(args.manifest, out=args.out, scheduler=args.scheduler, workers=args.workers,
                       retries=args.retries, progress=not args.json)
    if args.json:
        with open(result.out / "batch.json", encoding="utf-8") as fh:
            print_json(json.load(fh))
    else:
        print(result.summary())
    return 1 if result.n_failed else 0
