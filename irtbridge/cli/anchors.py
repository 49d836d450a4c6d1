"""`irtbridge anchors CAL.json --k 100 --method stratified --out anchors.csv`: choose anchor items."""

from __future__ import annotations

import argparse

import pandas as pd

from irtbridge._constraints import Int
from irtbridge._outdir import FILE
from irtbridge.cli._common import (SEED, add_long_options, atomic_write_csv, declare_flag, declare_input, print_json,
                                   read_calibration, read_responses)

# irtbridge.leaderboard.anchors.ANCHOR_METHODS (kept off the CLI's start; tests/cli/test_cli_choices.py)
ANCHOR_METHODS = ("random", "stratified", "cluster")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``anchors`` subcommand to the ``irtbridge`` command line.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``irtbridge`` parser; the new parser's ``func`` default is set to the function
        that runs it.
    """
    p = sub.add_parser("anchors", help="choose k anchor items of a calibration (random, stratified, cluster)",
                       description="Choose k anchor items of a calibrated item set, for estimating a new model's "
                                   "accuracy from its answers to them alone (irtbridge estimate).")
    declare_input(p, "calibration", what="a calibration of irtbridge calibrate --json",
                  metavar="CAL.json", help="irtbridge calibrate --json output or Calibration.to_json")
    declare_flag(p, "--k", constraint=Int(low=1), parameter="irtbridge.leaderboard.anchors.select_anchors:k", default=100,
                 help="how many anchors (default 100)")
    p.add_argument("--method", default="stratified", type=str.lower, choices=ANCHOR_METHODS,
                   help="random, stratified (default) or cluster")
    p.add_argument("--responses", metavar="FILE.csv",
                   help="the calibration's response file: --method cluster clusters the items' response profiles")
    p.add_argument("--id-column", metavar="COL", help="a column of --responses that identifies respondents")
    add_long_options(p)
    declare_flag(p, "--seed", constraint=SEED, default=0, help="seeds random and cluster (default 0)")
    p.add_argument("--out", metavar="anchors.csv", help="write the anchors here (one column, item)")
    p.add_argument("--json", action="store_true", help='print {"method", "k", "anchors": [item, ...]}')
    p.set_defaults(func=run, outputs=(("out", FILE),))


def run(args: argparse.Namespace) -> int:
    """Run ``irtbridge anchors`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        The arguments its parser read from the command line.

    Returns
    -------
    int
        The exit status: 0 (bad input raises before any work; :func:`irtbridge.cli.main` turns it into exit status 2).
    """
    from irtbridge.leaderboard import select_anchors  # kept off the CLI's start

    calibration = read_calibration(args.calibration)
    responses = read_responses(args, args.responses) if args.responses else None
    anchors = select_anchors(calibration, args.k, args.method, responses=responses, seed=args.seed)
    if args.out:
        atomic_write_csv(args.out, pd.DataFrame({"item": anchors}), index=False)
    if args.json:
        print_json({"method": args.method, "k": len(anchors), "anchors": anchors})
    elif not args.out:
        print("\n".join(anchors))
    return 0
