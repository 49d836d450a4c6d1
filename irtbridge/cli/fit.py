"""`irtbridge fit FILE.csv --model 2PL [--engine mirt] [--json] [--plots DIR]`: does the model fit?

Calibrates with mirt, then prints mirt's global fit (M2, RMSEA, SRMSR, TLI, CFI), the marginal and
empirical reliability, item fit (S-X2 with df, p and RMSEA) and the misfitting items: S-X2 p-value below
0.05 after Benjamini-Hochberg adjustment over the items.
"""

from __future__ import annotations

import argparse
import os

from irtbridge._constraints import Int
from irtbridge._outdir import FOLDER, staged_output
from irtbridge.cli._common import SEED, add_long_options, declare_flag, declare_input, print_json, read_responses
from irtbridge.exceptions import ValidationError


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``fit`` subcommand to the ``irtbridge`` command line.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``irtbridge`` parser; the new parser's ``func`` default is set to the function
        that runs it.
    """
    p = sub.add_parser("fit", help="model fit: M2, reliability, item fit (S-X2) and misfitting items (mirt)",
                       description="Calibrate with mirt, then report global fit (M2), reliability and item fit.")
    declare_input(p, "file", what="a responses file",
                  metavar="FILE.csv", help="responses: one row per respondent, one column per item")
    p.add_argument("--model", default="2PL", help="rasch, 1PL, 2PL, 3PL, 4PL, graded or gpcm (default 2PL)")
    p.add_argument("--engine", default="mirt", help="mirt (the diagnostics are mirt's; ltm is refused)")
    p.add_argument("--id-column", metavar="COL", help="a column that identifies respondents (not an item)")
    add_long_options(p)
    p.add_argument("--json", action="store_true",
                   help='print {"global": {M2, df, p, RMSEA, SRMSR, TLI, CFI}, "reliability": {...}, '
                        '"items": [{item, S_X2, df, p, RMSEA}], "misfitting": [item, ...]}')
    p.add_argument("--na-rm", action="store_true",
                   help="item fit with missing answers: leave out respondents with any (mirt's na.rm = TRUE)")
    declare_flag(p, "--impute", constraint=Int(low=0), default=0, metavar="N",
                 help="item fit with missing answers: impute them N times and average (instead of --na-rm)")
    declare_flag(p, "--seed", constraint=SEED, default=0, help="seed of the imputations (default 0)")
    p.add_argument("--plots", metavar="DIR", help="also write trace lines, item and test information and "
                   "expected-score plots (PNG; mirt's plot types)")
    p.set_defaults(func=run, outputs=(("plots", FOLDER),))


def _report(fit, args: argparse.Namespace) -> dict:
    from irtbridge.calibration.analysis.fitreport import fit_report  # kept off the CLI's start

    return fit_report(fit, na_rm=args.na_rm, impute=args.impute, seed=args.seed)


def _plots(fit, folder: str) -> list[str]:
    import matplotlib  # matplotlib (~0.9 s) loads when a figure is drawn

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # matplotlib (~0.9 s) loads when a figure is drawn

    os.makedirs(folder, exist_ok=True)
    written = []
    # mirt's plot types: "info" is the test information, "infotrace" the item information curves
    for kind in ("trace", "infotrace", "info", "infoSE", "score"):
        ax = fit.plot(kind, legend=len(fit.items) <= 12)
        path = os.path.join(folder, f"{kind}.png")
        tmp = path + ".tmp.png"
        ax.figure.savefig(tmp, dpi=110, bbox_inches="tight")
        os.replace(tmp, path)
        plt.close(ax.figure)
        written.append(path)
    return written


def run(args: argparse.Namespace) -> int:
    """Run ``irtbridge fit`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        The arguments its parser read from the command line.

    Returns
    -------
    int
        The exit status: 0 (errors raise; :func:`irtbridge.cli.main` maps them to exit statuses).
    """
    from irtbridge.calibration import calibrate  # kept off the CLI's start (~2 s)

    if args.engine.lower() != "mirt":
        raise ValidationError(f"--engine {args.engine!r}: fit diagnostics are mirt's; use --engine mirt")
    if args.na_rm and args.impute:
        raise ValidationError("pass --na-rm (leave out incomplete respondents) or --impute N, not both")
    if args.impute < 0:
        raise ValidationError(f"--impute must be 0 or more, got {args.impute}")
    data = read_responses(args)
    incomplete = int(data.isna().any(axis=1).sum())
    if incomplete and not (args.na_rm or args.impute):  # S-X2 needs complete rows: say so before calibrating
        raise ValidationError(f"{args.file!r}: {incomplete} of {len(data)} respondents have missing answers, which "
                              "item fit (S-X2) cannot use; pass --na-rm to leave them out (mirt's na.rm = TRUE) "
                              "or --impute N to impute their answers N times")
    fit = calibrate(data, model=args.model, engine="mirt", se=False)
    report = _report(fit, args)
    if args.plots:
        with staged_output(args.plots, param="--plots", writer="fit") as stage:  # the folder appears whole
            written = _plots(fit, str(stage))
        report["plots"] = [os.path.join(args.plots, os.path.basename(p)) for p in written]
    if args.json:
        print_json(report)
        return 0
    g = report["global"]
    print(f"irtbridge fit: {fit.model} by mirt, {fit.n_respondents} respondents, {len(fit.items)} items")
    if "error" in g:
        print(f"  M2: not available ({g['error']})")
    else:
        print(f"  M2 {g['M2']:.3f} (df {g['df']:.0f}, p {g['p']:.4f})  RMSEA {g['RMSEA']:.3f} "
              f"[{g['RMSEA_5']:.3f}, {g['RMSEA_95']:.3f}]  SRMSR {g['SRMSR']:.3f}  TLI {g['TLI']:.3f}  CFI {g['CFI']:.3f}")
    rel = report["reliability"]
    print(f"  reliability: marginal {rel['marginal']:.3f}, empirical {rel['empirical']:.3f}")
    print(f"  misfitting items ({report['misfit_rule']}): {', '.join(report['misfitting']) or 'none'}")
    for r in report["items"]:
        print(f"    {r['item']:<20} S-X2 {r['S_X2']:8.3f}  df {r['df']:3.0f}  p {r['p']:.4f}  adj. p {r['p_adjusted']:.4f}  "
              f"RMSEA {r['RMSEA']:.3f}")
    return 0
