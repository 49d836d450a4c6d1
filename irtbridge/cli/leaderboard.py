"""`irtbridge leaderboard RESPONSES... --out DIR [--from KIND] [--tiny DIR] [--json]`: a leaderboard report.

Models that share no item (a model-item graph in pieces) are ranked per group or refused (``--disconnected``);
models with few answers (``--min-items``), items with few answers (``--min-models``) and lm-evaluation-harness
runs made with ``--limit`` are marked; every warning printed on stderr is also in the report's notes.

Reads a response matrix (models x items, 0/1, empty = unanswered), a long table (``model, task, item,
score``) or harness output in any format of the reader registry (lm-evaluation-harness, HELM, Inspect
AI, ...), fits the native 2PL and writes ``OUT/index.html`` (one self-contained page), ``OUT/tables/*.csv``
and ``OUT/summary.json``; the folder appears whole or not at all. Bad input is one line on stderr and exit 2,
before any fitting. Progress goes to stderr; the closing summary (or, with ``--json``, the content of
``summary.json``) to stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from irtbridge._constraints import FsPath, Int
from irtbridge._outdir import FOLDER, staged_output
from irtbridge.cli._common import FINITE, declare_flag, declare_input
from irtbridge.cli._formats import add_from_option
from irtbridge.exceptions import ValidationError


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``leaderboard`` subcommand to the ``irtbridge`` command line.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``irtbridge`` parser; the new parser's ``func`` default is set to the function
        that runs it.
    """
    p = sub.add_parser(
        "leaderboard",
        help="a leaderboard report: models ranked with intervals, broken items, saturation, test information",
        description=(
            "Fit the native 2PL to a leaderboard's responses and write one self-contained HTML page: the models "
            "ranked by ability and accuracy with 95% intervals, the items that look mis-keyed or broken "
            "(everyone right, everyone wrong, negative discrimination: Rodriguez et al. 2021), saturation, the "
            "test information curve, a per-task breakdown and a tiny benchmark's error table; plus CSV tables "
            "and a JSON summary."
        ),
        epilog=("RESPONSES: a CSV response matrix (model names in the first column, one column per item, cells 1, 0 "
                "or empty) or a long CSV table with columns model, item, score (and task); or harness output "
                "folders/files in a registered format (detected by default; --from names it)."),
    )
    declare_input(p, "responses", what="a responses file or harness output", kind="any",
                  nargs="+", metavar="RESPONSES", help="a CSV file, or harness output folders/files")
    add_from_option(p, "auto", ("auto", "matrix", "long"),
                    "what RESPONSES is (default auto: harness output by its files, a CSV by its header)")
    p.add_argument("--id-column", metavar="COL",
                   help="the matrix column naming the models (default: the first column, unless it holds only 0/1)")
    p.add_argument("--out", default="irtbridge-leaderboard", metavar="DIR",
                   help="folder for index.html, tables/ and summary.json (default ./irtbridge-leaderboard)")
    declare_flag(p, "--top", constraint=Int(low=1), default=5, metavar="N",
                 help="how many leading models the saturation counts (default 5)")
    declare_flag(p, "--threshold", constraint=FINITE, metavar="T",
                 help="harness output: a continuous metric (F1, mc2, ...) scores 1 where it is at least T")
    p.add_argument("--no-prior", action="store_true",
                   help="fit the 2PL by plain maximum likelihood (default: a weak slope prior a1 ~ N(1, 2))")
    p.add_argument("--disconnected", default="per-group", choices=("per-group", "refuse"),
                   help="when the models fall into groups that share no item: rank each group on its own, with a "
                        "warning naming the groups (default), or refuse (exit 2)")
    declare_flag(p, "--min-items", constraint=Int(low=1), default=30, metavar="N",
                 help="mark models that answered fewer than N items and than half the items (default 30)")
    declare_flag(p, "--min-models", constraint=Int(low=1), default=5, metavar="N",
                 help="flag items answered by fewer than N models and than half the models (default 5)")
    declare_flag(p, "--tiny", constraint=FsPath(must_exist=True, kind="dir", what="the --out folder of irtbridge tiny"),
                 parameter="irtbridge.leaderboard.inputs.read_tiny_errors:folder", metavar="DIR",
                 help="the --out folder of irtbridge tiny: its errors.csv is shown")
    declare_flag(p, "--dims", constraint=Int(low=1, high=50, allow_none=True), metavar="D",
                 help="also compare D = 1..D factors by held-out answers (as irtbridge dims), beside the 2PL")
    p.add_argument("--json", action="store_true", help="print the JSON summary instead of the text summary")
    p.set_defaults(func=run, outputs=(("out", FOLDER),))


def run(args: argparse.Namespace) -> int:
    """Run ``irtbridge leaderboard`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        The arguments its parser read from the command line.

    Returns
    -------
    int
        The exit status: 0 (errors raise; :func:`irtbridge.cli.main` maps them to exit statuses).
    """
    from irtbridge.leaderboard.inputs import read_leaderboard_input, read_tiny_errors  # kept off the CLI's start (~2 s)
    from irtbridge.leaderboard.report import leaderboard_report  # kept off the CLI's start (~2 s)
    from irtbridge.report.leaderboard import write_leaderboard_report  # kept off the CLI's start (~2 s)

    for flag, value in (("--top", args.top), ("--min-items", args.min_items), ("--min-models", args.min_models)):
        if value < 1:
            raise ValidationError(f"{flag} must be at least 1, got {value}")
    if args.dims is not None and not 1 <= args.dims <= 50:
        raise ValidationError(f"--dims must be from 1 to 50, got {args.dims}")
    out = os.path.abspath(args.out)
    if os.path.exists(out) and not os.path.isdir(out):
        raise ValidationError(f"--out {args.out!r} is a file; give a folder for the report")
    # every check before any work: the responses, the tiny benchmark's folder
    data = read_leaderboard_input(args.responses, args.source, id_column=args.id_column, threshold=args.threshold)
    tiny, tiny_source = read_tiny_errors(args.tiny) if args.tiny else (None, "")
    started = time.perf_counter()
    with staged_output(out, param="--out", writer="leaderboard") as stage:
        n, j = data.matrix.shape
        print(f"irtbridge leaderboard: {n:,} models x {j:,} items from {data.source}; fitting the native 2PL",
              file=sys.stderr)
        prior = {} if not args.no_prior else {"priors": None}
        report = leaderboard_report(data, top=args.top, tiny_errors=tiny, tiny_source=tiny_source, progress=True,
                                    disconnected=args.disconnected, min_items=args.min_items,
                                    min_models=args.min_models, dims=args.dims, **prior)
        print("irtbridge leaderboard: writing the report", file=sys.stderr)
        files = write_leaderboard_report(report, out, staging=stage)
    elapsed = time.perf_counter() - started
    if args.json:
        from irtbridge.cli._common import print_json  # kept off the CLI's start (~2 s)

        with open(files["summary"], encoding="utf-8") as fh:
            print_json(json.load(fh))
        return 0
    print("\n".join(["", report.summary().as_text(), "", f"{elapsed:.1f} s",
                     f"report:  {files['index']}",
                     f"tables:  {os.path.join(out, 'tables')}{os.sep} and {files['summary']}"]))
    return 0
