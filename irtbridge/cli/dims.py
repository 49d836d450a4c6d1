"""`irtbridge dims RESPONSES [--max-dims 10] [--holdout 0.1] [--seed S] [--json] [--out DIR]`: how many dimensions.

Holds out a share of each model's answers at random, fits the D-factor 2PL on the rest for D = 1..--max-dims
and predicts the held-out answers (:func:`irtbridge.leaderboard.dims.choose_dimensions`); prints the held-out
log-likelihood, accuracy and Brier score per D beside D = 1 and the D chosen by the one-standard-error rule.

``--json`` prints ``Summary.to_dict()``: ``n_models``, ``n_items``, ``n_heldout``, ``holdout``, ``draws``,
``seed``, ``qmc_points``, ``chosen``, ``best``, ``rule``, ``dims`` (one object per D: ``D``, ``loglik``,
``loglik_se``, ``gain``, ``gain_se``, ``accuracy``, ``accuracy_se``, ``brier``, ``train_loglik``,
``converged``, ``seconds``), ``headline`` and ``notes``. ``--out DIR`` writes ``dims.csv`` (the table),
``summary.json`` (the same object) and ``dims.png`` (held-out log-likelihood against D), atomically.
"""

from __future__ import annotations

import argparse

from irtbridge._constraints import Int, Number
from irtbridge._outdir import FOLDER
from irtbridge.cli._common import (FINITE, SEED, add_long_options, declare_flag, declare_input, print_json,
                                   read_responses)
from irtbridge.cli._formats import add_from_option
from irtbridge.exceptions import ValidationError


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``dims`` subcommand to the ``irtbridge`` command line.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``irtbridge`` parser; the new parser's ``func`` default is set to the function
        that runs it.
    """
    p = sub.add_parser("dims", help="how many dimensions: the D-factor 2PL's held-out prediction of answers, D = 1..10",
                       description="Hold out a share of each model's answers at random, fit the D-factor 2PL on "
                                   "the rest for D = 1..--max-dims, predict the held-out answers, and choose D by "
                                   "held-out log-likelihood (one-standard-error rule; D > 1 only if it beats D = 1 "
                                   "beyond noise).")
    declare_input(p, "file", what="a responses file or harness output", kind="any",
                  metavar="RESPONSES", help="0/1 answers: a CSV or .csv.gz (one row per model, one column "
                                            "per item, empty = unanswered), or with --from FORMAT harness output")
    add_from_option(p, "csv", ("csv",), "what RESPONSES is (default a CSV, or .csv.gz)")
    declare_flag(p, "--threshold", constraint=FINITE, metavar="T",
                 help="with --from FORMAT: a continuous metric scores 1 where it is at least T")
    p.add_argument("--id-column", metavar="COL",
                   help="the column naming the models (default: the first column, unless it holds only 0/1)")
    add_long_options(p)
    declare_flag(p, "--max-dims", constraint=Int(low=1, high=50), default=10, metavar="D",
                 help="compare D = 1..D factors (default 10)")
    declare_flag(p, "--holdout", constraint=Number(low=0.0, high=0.5, low_open=True), default=0.1, metavar="SHARE",
                 help="share of each model's answers held out, in (0, 0.5] (default 0.1)")
    declare_flag(p, "--draws", constraint=Int(low=1), default=1, metavar="N",
                 help="independent hold-out draws, pooled (default 1)")
    declare_flag(p, "--seed", constraint=SEED, default=0, help="seeds the hold-out draws and the QMC points (default 0)")
    declare_flag(p, "--qmc-points", constraint=Int(low=16), default=1024, metavar="N",
                 help="quasi-Monte-Carlo points of the fits with D >= 2 (default 1024)")
    declare_flag(p, "--ncycles", constraint=Int(low=1), default=300, metavar="N",
                 help="EM cycles of each fit at most (default 300)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--out", metavar="DIR", help="write dims.csv, summary.json and dims.png here")
    p.add_argument("--json", action="store_true", help="print the summary as JSON (the shape: module docstring)")
    p.set_defaults(func=run, outputs=(("out", FOLDER),))


def run(args: argparse.Namespace) -> int:
    """Run ``irtbridge dims`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        The arguments its parser read from the command line.

    Returns
    -------
    int
        The exit status: 0 (errors raise; :func:`irtbridge.cli.main` maps them to exit statuses).
    """
    import json
    from pathlib import Path

    from irtbridge._outdir import staged_output
    from irtbridge._parallel import progress_bar
    from irtbridge.leaderboard.dims import choose_dimensions  # kept off the CLI's start

    if args.source == "csv":
        data = read_responses(args, models=True)
    else:  # harness output: the leaderboard command's reader
        from irtbridge.leaderboard.inputs import read_leaderboard_input

        data = read_leaderboard_input([args.file], args.source, threshold=args.threshold).matrix
    data.index = data.index.map(str)
    if data.shape[1] <= args.max_dims + 1:
        raise ValidationError(f"--max-dims {args.max_dims} needs more than {args.max_dims + 1} items; "
                              f"{args.file!r} has {data.shape[1]}")
    bars: list = []  # the bar appears once choose_dimensions has checked everything (bad input: one line only)

    def progress(done: int, total: int, d: int) -> None:
        if not bars:
            bars.append(progress_bar(not args.no_progress and not args.json, total, desc="irtbridge dims", unit="fit"))
        if done:
            bars[0].update(1)

    try:
        result = choose_dimensions(data, max_dims=args.max_dims, holdout=args.holdout, draws=args.draws,
                                   seed=args.seed, qmc_points=args.qmc_points, NCYCLES=args.ncycles,
                                   progress=progress)
    finally:
        for bar in bars:
            bar.close()
    summary = result.summary()
    payload = summary.to_dict()
    if args.out:
        with staged_output(Path(args.out), param="--out", writer="dims") as stage:
            result.table.to_csv(stage / "dims.csv")
            (stage / "summary.json").write_text(json.dumps(payload, indent=2, allow_nan=False), encoding="utf-8")
            _plot(result, stage / "dims.png")
    if args.json:
        print_json(payload)
    else:
        print(summary.as_text())
    return 0


def _plot(result, path) -> None:
    """``dims.png`` when matplotlib is there (the table and the JSON say the same without it)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
    except ImportError:  # pragma: no cover - matplotlib is a dependency of the plots, optional here
        return
    from irtbridge._plotting import close, figure_of

    ax = result.plot()
    fig = figure_of(ax)
    fig.savefig(path, dpi=100, bbox_inches="tight")
    close(fig)
