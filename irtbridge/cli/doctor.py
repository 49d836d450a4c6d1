"""`irtbridge doctor [--all] [--json]`: versions of Python, R and the pinned R packages."""

from __future__ import annotations

import argparse

from irtbridge.cli._common import print_json


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``doctor`` subcommand to the ``irtbridge`` command line.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``irtbridge`` parser; the new parser's ``func`` default is set to the function
        that runs it.
    """
    p = sub.add_parser("doctor", help="check Python, R and the pinned R packages",
                       description="Check Python, rpy2, R and each pinned R package (exit 0 only when all are OK).")
    p.add_argument("--all", action="store_true", help="list every locked R package, not only the direct ones")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``irtbridge doctor`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        The arguments its parser read from the command line.

    Returns
    -------
    int
        The exit status: 0 when R and every pinned package are in order, else 1.
    """
    from irtbridge._r.doctor import doctor  # the R boundary loads with the first R call, never on import

    report = doctor(all_packages=args.all)
    if args.json:
        print_json(report)
    else:
        py = report["python"]
        print(f"irtbridge {report['irtbridge']}")
        for k, v in py.items():
            print(f"  {k:<14} {v or 'MISSING'}")
        r = report["r"]
        print(f"  {'R':<14} {r['version'] or 'MISSING: ' + r.get('error', '')}")
        for row in report["r_packages"]:
            have = row["installed"] or "-"
            print(f"  {row['package']:<14} pinned {row['pinned']:<11} installed {have:<11} {row['status']}")
        print("all OK" if report["ok"] else "problems found: run `make setup`")
    return 0 if report["ok"] else 1
