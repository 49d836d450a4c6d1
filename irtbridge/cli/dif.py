"""`irtbridge dif FILE.csv --groups COLUMN --model 2PL [--json]`: differential item functioning (mirt DIF).

Fits mirt's multipleGroup on the groups in COLUMN and runs mirt's DIF: ``--scheme add`` (default) starts
from the configural model and constrains each item's parameters equal across groups in turn;
``--scheme drop`` starts from the fully invariant model with free latent means and variances and frees
each item in turn. One row per item: X2, df, p, p adjusted over items (``--p-adjust``, mirt's holm by
default), AIC and BIC differences.
"""

from __future__ import annotations

import argparse

from irtbridge._validation import read_csv, require_columns
from irtbridge.cli._common import P_ADJUST, declare_input, folded, print_json
from irtbridge.exceptions import ValidationError


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``dif`` subcommand to the ``irtbridge`` command line.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``irtbridge`` parser; the new parser's ``func`` default is set to the function
        that runs it.
    """
    p = sub.add_parser("dif", help="differential item functioning between groups (mirt multipleGroup + DIF)",
                       description="Test every item for DIF between the groups of a column (mirt's DIF).")
    declare_input(p, "file", what="a responses file", metavar="FILE.csv", help="responses plus one group column")
    p.add_argument("--groups", required=True, metavar="COLUMN", help="the column holding each respondent's group")
    p.add_argument("--model", default="2PL", help="rasch, 2PL, 3PL, 4PL, graded, gpcm, ... (default 2PL)")
    p.add_argument("--which", default="a1,d", help="mirt parameters tested together, comma-separated (default a1,d)")
    p.add_argument("--scheme", default="add", type=str.lower, choices=("add", "drop"),
                   help="add (default) or drop, as mirt's DIF")
    p.add_argument("--items", help="comma-separated items to test (default: all)")
    p.add_argument("--p-adjust", default="holm", type=folded(P_ADJUST), choices=P_ADJUST,
                   help="R's p.adjust method over items (default holm, as mirt)")
    p.add_argument("--id-column", metavar="COL", help="a column that identifies respondents (not an item)")
    p.add_argument("--no-se", action="store_true", help="skip standard errors in the group fit")
    p.add_argument("--json", action="store_true",
                   help='print {"items": [{item, X2, df, p, p_adjusted, AIC, BIC}], "groups", "model", "scheme", "which"}')
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``irtbridge dif`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        The arguments its parser read from the command line.

    Returns
    -------
    int
        The exit status: 0 (errors raise; :func:`irtbridge.cli.main` maps them to exit statuses).
    """
    from irtbridge.calibration.fit.groups import calibrate_groups, check_dif_which, dif  # kept off the CLI's start

    data = read_csv(args.file, "responses")
    require_columns(data, [args.groups] + ([args.id_column] if args.id_column else []), f"responses file {args.file!r}")
    if args.id_column:
        data = data.set_index(args.id_column)
    groups = data.pop(args.groups)
    scheme = args.scheme.lower()
    which = [w.strip() for w in args.which.split(",") if w.strip()]
    if not which:
        raise ValidationError("--which names no parameter; give mirt's names, e.g. a1,d")
    items = [i.strip() for i in args.items.split(",")] if args.items else None
    unknown = [i for i in items or [] if i not in set(map(str, data.columns))]
    if unknown:  # before the multiple-group fit, not after it
        raise ValidationError(f"--items: {', '.join(map(repr, unknown[:5]))} is not an item of {args.file!r}; its items "
                              f"are {', '.join(map(repr, map(str, data.columns[:20])))}")
    invariance = [*map(str, data.columns), "free_means", "free_var"] if scheme == "drop" else []
    # --which before the multiple-group fit, not in mirt's DIF after it
    check_dif_which(data, groups, args.model, which, items, invariance, name="--which")
    fit = calibrate_groups(data, groups, args.model, invariance=invariance, se=not args.no_se)
    table = dif(fit, which, scheme, items, p_adjust=args.p_adjust)
    if args.json:
        rows = [{"item": str(k), "X2": r["X2"], "df": r["df"], "p": r["p"], "p_adjusted": r["p_adjusted"],
                 "AIC": r["AIC"], "BIC": r["BIC"]} for k, r in table.iterrows()]
        print_json({"items": rows, "groups": list(fit.groups), "model": fit.model, "scheme": scheme, "which": which,
                    "p_adjust": args.p_adjust})
    else:
        print(f"DIF ({scheme}, {'+'.join(which)}) between groups {', '.join(fit.groups)}; {fit.model} by mirt")
        print(table.to_string(float_format=lambda v: f"{v:.4f}"))
    return 0
