"""`irtbridge rate MATCHES.csv [--tau 0.5] [--json]`: Glicko-2 ratings from a table of matches."""

from __future__ import annotations

import argparse

from irtbridge._constraints import Number
from irtbridge._outdir import FILE
from irtbridge._validation import read_csv
from irtbridge.cli._common import atomic_write_csv, declare_flag, declare_input, print_json


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``rate`` subcommand to the ``irtbridge`` command line.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``irtbridge`` parser; the new parser's ``func`` default is set to the function
        that runs it.
    """
    p = sub.add_parser(
        "rate",
        help="Glicko-2 ratings from a CSV of matches",
        description=(
            "Rate players with Glickman's Glicko-2 from a CSV with columns period, player, opponent, score "
            "(1 win, 0.5 draw, 0 loss for player; each game once). Periods are rated in sorted order."
        ),
    )
    declare_input(p, "matches", what="a matches file",
                  metavar="MATCHES.csv", help="one row per game: period, player, opponent, score")
    declare_flag(p, "--tau", constraint=Number(low=0.0, low_open=True), parameter="irtbridge.rating.glicko2:tau", default=0.5,
                 help="system constant tau (default 0.5)")
    p.add_argument("--json", action="store_true",
                   help='print {"ratings": [{player, rating, rd, volatility, lower, upper}, ...]}, best first')
    p.add_argument("--history", metavar="history.csv",
                   help="also write the ratings after every period (period, player, rating, rd, volatility, games)")
    p.set_defaults(func=run, outputs=(("history", FILE),))


def run(args: argparse.Namespace) -> int:
    """Run ``irtbridge rate`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        The arguments its parser read from the command line.

    Returns
    -------
    int
        The exit status: 0 (errors raise; :func:`irtbridge.cli.main` maps them to exit statuses).
    """
    from irtbridge.rating import glicko2  # kept off the CLI's start (~2 s)

    source = f"matches file {args.matches!r}"
    frame = read_csv(args.matches, "matches")
    result = glicko2(frame, tau=args.tau, source=source)
    if args.history:
        atomic_write_csv(args.history, result.history, index=False)
    if args.json:
        table = result.ratings.reset_index()[["player", "rating", "rd", "volatility", "lower", "upper"]]
        print_json({"ratings": table})
    else:
        print(result.summary())
    return 0
