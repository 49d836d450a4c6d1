"""`irtbridge calibrate` and `irtbridge abilities`: item calibration and scoring of a response CSV."""

from __future__ import annotations

import argparse
import math
import os

from irtbridge._constraints import Int
from irtbridge._catalogue import ENGINE_COLUMNS, KERNEL_MODELS, engine_models
from irtbridge._outdir import FILE
from irtbridge._validation import read_text
from irtbridge.cli._common import (ENGINES, ESTIMATION_METHODS, SCORING_METHODS, add_long_options, atomic_write_csv,
                                   declare_flag, declare_input, folded, print_json, read_responses)
from irtbridge.exceptions import ValidationError

SE_HELP = ("skip the item standard errors. By default they are computed and reported (mirt's SE = TRUE with "
           "its default SE.type = 'Oakes'; ltm's Hessian; the native engine's crossprod), and they are the "
           "expensive part: on 10,000 x 50 items (2PL) mirt's SE = TRUE takes about 7x its fit alone. "
           "--no-se is mirt's default call (SE = FALSE). Where the information matrix is singular the "
           "estimates are kept, the SEs are NaN and a warning says why")


def _either(names) -> str:
    return f"{', '.join(names[:-1])} or {names[-1]}"


def _common(p: argparse.ArgumentParser) -> None:
    declare_input(p, "file", what="a responses file",
                  metavar="FILE.csv", help="responses: one row per respondent, one column per item")
    p.add_argument("--model", default="2PL", help=f"{_either(KERNEL_MODELS)} (default 2PL); "
                   "mirt also fits its other item types by name (ideal, ggum, sequential, ...)")
    p.add_argument("--engine", default="mirt", type=folded(ENGINES), choices=ENGINES,
                   help=f"{_either(ENGINE_COLUMNS)} (R-free EM: {', '.join(engine_models('native'))}; default mirt)")
    p.add_argument("--id-column", metavar="COL", help="a column that identifies respondents (not an item)")
    add_long_options(p)
    p.add_argument("--drop-constant", action="store_true",
                   help="drop items everyone answers the same way (with a warning) instead of failing")
    p.add_argument("--key", metavar="KEY",
                   help="the file holds raw multiple-choice answers: score them 1 (answer = key) / 0 before "
                        "calibrating (mirt's key2binary). KEY is a comma list in column order (e.g. 1,4,5,2; "
                        "'1|3' accepts either answer) or a CSV file: 'item,key' rows, or one row of keys in "
                        "column order")
    p.add_argument("--missing-codes", metavar="CODES",
                   help="with --key: answer codes that mean 'not answered' (comma list, e.g. 8); kept missing")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``calibrate`` and ``abilities`` subcommands to the ``irtbridge`` command line.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``irtbridge`` parser; the new parser's ``func`` default is set to the function
        that runs it.
    """
    p = sub.add_parser("calibrate", help="calibrate an IRT model in R (mirt or ltm)",
                       description="Calibrate an IRT model on a response CSV through R's mirt or ltm.")
    _common(p)
    declare_flag(p, "--dims", constraint=Int(low=1, phrase="a positive integer"),
                 parameter="irtbridge.calibration.fit.fitting.calibrate:dims", default=1, metavar="K",
                 help="exploratory model with K factors (mirt)")
    p.add_argument("--spec", metavar="FILE", help="a file of mirt model syntax (mirt.model), e.g. 'F1 = 1-5'")
    p.add_argument("--method", type=folded(ESTIMATION_METHODS), choices=ESTIMATION_METHODS,
                   help="mirt's estimation method: EM (default), QMCEM, MCEM, MHRM, SEM or BL")
    p.add_argument("--prior", action="append", default=[], metavar="PARAM=DIST,P1,P2",
                   help="a prior on every item's PARAM, e.g. a1=lnorm,0,0.5 or g=expbeta,5,17 (repeatable; mirt)")
    p.add_argument("--itemtype-file", metavar="FILE",
                   help="one model per item: lines 'item,model' (or one model per line, in column order)")
    p.add_argument("--no-se", action="store_true", help=SE_HELP)
    p.add_argument("--json", action="store_true",
                   help="print {model, engine, loglik, aic, bic, converged, items: [{item, a, b, ...}], "
                        "standard_errors: [{item, a, b, ...}]} (standard_errors: not with --no-se)")
    p.add_argument("--out", metavar="items.csv", help="also write the item table to this CSV")
    p.set_defaults(func=run_calibrate, outputs=(("out", FILE),))

    q = sub.add_parser("abilities", help="ability estimates from the engine's own scoring",
                       description="Calibrate, then score every respondent with the engine (mirt fscores / ltm factor.scores).")
    _common(q)
    q.add_argument("--no-se", action="store_true", help=argparse.SUPPRESS)  # accepted; scoring needs no item SEs
    q.add_argument("--method", default="EAP", type=folded(SCORING_METHODS["mirt"]), choices=SCORING_METHODS["mirt"],
                   help="EAP, MAP, ML or WLE (mirt); EAP or MAP (ltm); EAP, MAP or ML (native)")
    q.add_argument("--json", action="store_true", help="print {method, abilities: [{respondent, theta, se}]}")
    q.add_argument("--out", metavar="abilities.csv", help="also write the abilities to this CSV")
    q.set_defaults(func=run_abilities, outputs=(("out", FILE),))


def _fit(args: argparse.Namespace):
    from irtbridge.calibration import calibrate  # kept off the CLI's start (~2 s)

    _check_priors(getattr(args, "prior", None) or [])  # before any work
    data = read_responses(args)
    if args.key is not None:
        data = _score(data, args.key, args.missing_codes)
    elif args.missing_codes is not None:
        raise ValidationError("--missing-codes is for raw answers scored with --key")
    extra = _structure_options(args, [str(c) for c in data.columns]) if args.command == "calibrate" else {}
    model = extra.pop("model", args.model)
    # calibrate reports the item SEs unless --no-se; abilities never shows them, so never computes them
    se = args.command == "calibrate" and not args.no_se
    return data, calibrate(data, model=model, engine=args.engine, se=se, drop_constant=args.drop_constant, **extra)


def _check_priors(texts: list[str]) -> None:
    """Refuse a --prior whose hyperparameters are NaN or infinite (mirt takes them and fits nonsense)."""
    for text in texts:
        for part in text.partition("=")[2].split(",")[1:]:
            try:
                number = float(part)
            except ValueError:
                continue
            if not math.isfinite(number):
                raise ValidationError(f"--prior {text!r}: its parameters must be finite numbers, got {part.strip()!r}")


def _score(data, key: str, missing: str | None):
    """The raw answers of ``data`` scored against ``--key`` (a comma list, or a CSV file)."""
    from irtbridge.calibration.inputs.keys import score_key  # kept off the CLI's start (~2 s)

    keys: list[str] | dict[str, str]  # in column order, or by item name
    if os.path.isfile(key):
        rows = [[f.strip() for f in ln.split(",")] for ln in _read_text(key, "--key file").splitlines() if ln.strip()]
        if len(rows) == 1:
            keys = rows[0]
        elif rows and all(len(r) == 2 for r in rows):
            keys = {r[0]: r[1] for r in rows if r[0] != "item"}  # item,key rows (a header line is skipped)
        else:
            raise ValidationError(f"--key file {key!r}: write 'item,key' rows or one row of keys in column order")
    elif key.lower().endswith((".csv", ".txt")):
        raise ValidationError(f"--key file {key!r} does not exist (or give the keys as a comma list)")
    else:
        keys = [k.strip() for k in key.split(",")]
    keys = ({k: _alternatives(v) for k, v in keys.items()} if isinstance(keys, dict)
            else [_alternatives(v) for v in keys])
    codes = [c.strip() for c in missing.split(",")] if missing is not None else None
    return score_key(data, keys, missing=codes)


def _alternatives(text: str):
    """One key, or several accepted answers written 'a|b'."""
    return text if "|" not in text else [t.strip() for t in text.split("|")]


def _read_text(path: str, what: str) -> str:
    return read_text(path, what.removesuffix(" file"))  # a BOM accepted, a non-UTF-8 byte named by its line


def _structure_options(args: argparse.Namespace, columns: list[str]) -> dict:
    """--dims, --spec, --method, --prior and --itemtype-file as calibrate() keywords."""
    extra: dict = {}
    if args.dims != 1:
        extra["dims"] = args.dims
    if args.spec:
        extra["spec"] = _read_text(args.spec, "--spec file")
    if args.method:
        extra["method"] = args.method
    priors = {}
    for text in args.prior:
        param, sep, dist = text.partition("=")
        if not sep or not param.strip():
            raise ValidationError(f"--prior must be PARAM=DIST,P1,P2 (e.g. a1=lnorm,0,0.5), got {text!r}")
        priors[param.strip()] = dist
    if priors:
        extra["priors"] = priors
    if args.itemtype_file:
        lines = [ln.strip() for ln in _read_text(args.itemtype_file, "--itemtype-file").splitlines() if ln.strip()]
        if all("," in ln for ln in lines):
            pairs = [ln.rsplit(",", 1) for ln in lines]
            extra["model"] = {k.strip(): v.strip() for k, v in pairs if k.strip() != "item"}
        elif len(lines) == len(columns):
            extra["model"] = lines
        else:
            raise ValidationError(f"--itemtype-file {args.itemtype_file!r}: {len(lines)} model(s) for "
                                  f"{len(columns)} item columns (or use 'item,model' lines)")
    return extra


def run_calibrate(args: argparse.Namespace) -> int:
    """Run ``irtbridge calibrate`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        The arguments its parser read from the command line.

    Returns
    -------
    int
        The exit status: 0 (errors raise; :func:`irtbridge.cli.main` maps them to exit statuses).
    """
    _, fit = _fit(args)
    if args.out:
        atomic_write_csv(args.out, fit.items, index_label="item")
    if args.json:
        d = fit.to_dict()
        keys = ("model", "engine", "loglik", "aic", "bic", "converged", "items") + (() if args.no_se else ("standard_errors",))
        print_json({k: d[k] for k in keys})
    else:
        print(fit.summary())
    return 0


def run_abilities(args: argparse.Namespace) -> int:
    """Run ``irtbridge abilities`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        The arguments its parser read from the command line.

    Returns
    -------
    int
        The exit status: 0 (errors raise; :func:`irtbridge.cli.main` maps them to exit statuses).
    """
    from irtbridge.calibration.inputs.engine_table import ENGINE_TABLE  # kept off the CLI's start

    allowed = SCORING_METHODS[args.engine]
    if args.method not in allowed:  # before reading or calibrating anything
        raise ValidationError(f"--method {args.method!r}: engine {args.engine!r} scores with "
                              f"{', '.join(allowed)}; use one of those or another --engine")
    data, fit = _fit(args)
    # a native fit keeps no copy of the data: score the calibrated columns of the file it was fitted on
    keeps = ENGINE_TABLE[fit.engine].keeps_data
    scores = fit.abilities(method=args.method, responses=None if keeps else data[fit.item_names])
    scores.index = data.index
    scores.index.name = "respondent"
    if args.out:
        atomic_write_csv(args.out, scores)
    if args.json:
        rows = [{"respondent": r, "theta": t, "se": s} for r, t, s in zip(scores.index, scores["theta"], scores["se"])]
        print_json({"model": fit.model, "engine": fit.engine, "method": args.method.upper(), "abilities": rows})
    else:
        print(scores.to_string())
    return 0
