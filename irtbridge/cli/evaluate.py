"""`irtbridge evaluate [--datasets …] [--out DIR] [--jobs N] [--quick] [--json]`: the main job.

With no arguments it runs offline on the embedded benchmark (real datasets from scikit-learn and from
the R packages mlbench), then writes ``OUT/index.html`` (one self-contained page), ``OUT/tables/*.csv``
and ``OUT/summary.json``. Progress goes to stderr; the closing summary (or, with ``--json``, the content
of ``summary.json``) to stdout.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time

from irtbridge._constraints import Int
from irtbridge._outdir import FOLDER, staged_output
from irtbridge.cli._common import SEED, declare_flag, print_json
from irtbridge.exceptions import ValidationError


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``evaluate`` subcommand to the ``irtbridge`` command line.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``irtbridge`` parser; the new parser's ``func`` default is set to the function
        that runs it.
    """
    p = sub.add_parser(
        "evaluate",
        help="the main job: IRT evaluation of classifiers on real datasets, as an HTML report (offline)",
    )
    p.add_argument("--datasets", nargs="+", metavar="NAME",
                   help="embedded dataset names, or CSV files as PATH.csv[:TARGET] (default: the embedded benchmark)")
    p.add_argument("--out", default="irtbridge-report", metavar="DIR",
                   help="folder for index.html, tables/ and summary.json (default ./irtbridge-report)")
    declare_flag(p, "--jobs", constraint=Int(low=1, allow_none=True), parameter="irtbridge.pipeline.evaluation.evaluate:jobs",
                 default=None, metavar="N",
                 help="worker processes, each with its own R (default: one per CPU)")
    p.add_argument("--quick", action="store_true", help="a reduced run that finishes in well under a minute")
    declare_flag(p, "--seed", constraint=SEED, default=0, help="seed of every random choice (default 0)")
    calibration = p.add_argument("--calibration", default="stable", choices=("stable", "paper"),
                                 help="stable (default) or paper (see docs/calibration-modes.md)")
    p.add_argument("--engine", default=None, metavar="{mirt,native,ltm}",
                   help="the engine tried first: stable mode takes mirt (default) or native; paper mode ltm "
                        "(default; mirt is then the fallback) or mirt (ltm the fallback). Other combinations are "
                        "an error before any work")
    declare_flag(p, "--max-items", constraint=Int(low=10, allow_none=True), default=None, metavar="N",
                 help="cap on the test instances per dataset (default 500; 60 with --quick)")
    p.add_argument("--json", action="store_true", help="print the JSON summary instead of the text summary")
    p.set_defaults(func=run, outputs=(("out", FOLDER),))
    p.fill_help = functools.partial(_fill_help, calibration=calibration)  # irtbridge.cli._Parser.fill_help


def _fill_help(p: argparse.ArgumentParser, calibration: argparse.Action) -> None:
    """The help's texts that name the calibration modes and the embedded datasets (their imports are kept off
    the CLI's start: ~1 s, matplotlib and scipy among them)."""
    from irtbridge.decodirt.classification_data import DEFAULT_DATASETS, QUICK_DATASETS, available_datasets
    from irtbridge.decodirt.modes import CalibrationMode

    stable, paper = CalibrationMode.resolve("stable"), CalibrationMode.resolve("paper")
    p.description = (
        "Fit a pool of classifiers on each dataset, calibrate a 3PL IRT model on their answers to the test "
        f"instances (by default {stable.describe()}), rate the classifiers with Glicko-2 across datasets, "
        "diagnose datasets and instances, and compute the Efficiency Index per classifier; write everything "
        "as one HTML page plus CSV tables and a JSON summary."
    )
    p.epilog = (
        f"Embedded datasets: {', '.join(sorted(available_datasets(), key=str.lower))}. Default: "
        f"{', '.join(DEFAULT_DATASETS)}; --quick: {', '.join(QUICK_DATASETS)} with at most 60 test instances "
        "and a 12-model pool."
    )
    calibration.help = (f"stable (default): {stable.describe()}; paper: {paper.describe()} "
                        "(see docs/calibration-modes.md)")


def run(args: argparse.Namespace) -> int:
    """Run ``irtbridge evaluate`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        The arguments its parser read from the command line.

    Returns
    -------
    int
        The exit status: 1 when any dataset could not be evaluated (the summary names them), else 0.
    """
    from irtbridge.pipeline import Settings, evaluate, resolve_datasets  # kept off the CLI's start (~2 s)
    from irtbridge.report import write_report  # kept off the CLI's start (~2 s)

    if args.jobs is not None and args.jobs < 1:
        raise ValidationError(f"--jobs must be at least 1, got {args.jobs}")
    names = None
    if args.datasets:
        names = [n for item in args.datasets for n in item.split(",") if n.strip()]
    overrides = {"seed": args.seed, "calibration": args.calibration, "engine": args.engine}
    if args.max_items is not None:
        overrides["max_items"] = args.max_items
    settings = Settings.quick_run(**overrides) if args.quick else Settings(**overrides)
    refs = resolve_datasets(names, quick=args.quick, target=settings.target)
    out = os.path.abspath(args.out)
    if os.path.exists(out) and not os.path.isdir(out):
        raise ValidationError(f"--out {args.out!r} is a file; give a folder for the report")

    started = time.perf_counter()
    # one run per folder: OUT is locked for the whole run and replaced only once the new report is whole
    with staged_output(out, param="--out", writer="evaluate") as stage:
        print(f"irtbridge evaluate: {len(refs)} dataset(s): {', '.join(refs)}", file=sys.stderr)
        evaluation = evaluate(refs, settings, jobs=args.jobs, progress=True)
        print("irtbridge evaluate: writing the report", file=sys.stderr)
        files = write_report(evaluation, out, staging=stage)
    elapsed = time.perf_counter() - started

    if args.json:

        with open(files.summary, encoding="utf-8") as fh:
            print_json(json.load(fh))
        return _exit_status(evaluation)
    print(_summary_text(evaluation, files, elapsed))
    return _exit_status(evaluation)


def _exit_status(ev) -> int:
    """1 when any dataset could not be evaluated (the summary names them), else 0."""
    if ev.failed:
        print(f"irtbridge evaluate: {len(ev.failed)} of {len(ev.datasets)} dataset(s) failed: "
              + ", ".join(d.name for d in ev.failed) + " (the report says why)", file=sys.stderr)
        return 1
    return 0


def _summary_text(ev, files, elapsed: float) -> str:
    """The closing text: the Evaluation's own Summary (as the report and summary.json show it), then where
    the files are."""
    minutes, seconds = divmod(elapsed, 60)
    return "\n".join([
        "",
        ev.summary().as_text(),
        "",
        f"{int(minutes)} min {seconds:.0f} s on {ev.provenance.get('jobs', 1)} worker(s)",
        f"report:  {files.index}",
        f"tables:  {files.out / 'tables'}{os.sep} ({len(files.tables)} CSV files) and {files.summary}",
    ])
