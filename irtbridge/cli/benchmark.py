"""`irtbridge benchmark [--datasets ...] [--order ...] [--engine ltm|mirt] [--jobs N] [--quick] --out DIR [--json]`:
classifiers benchmarked across datasets with IRT and Glicko-2 (decodIRT, Cardoso et al.)."""

from __future__ import annotations

import argparse
from pathlib import Path

from irtbridge._constraints import Int, Number
from irtbridge._outdir import FOLDER, staged_output
from irtbridge.cli._common import SEED, declare_flag, print_json
from irtbridge.exceptions import ValidationError

# kept here (not imported from irtbridge.decodirt) so that `irtbridge --help` stays light
_ORDERS = ("given", "difficulty", "discrimination", "difficulty_sd_low", "difficulty_sd_high",
           "discrimination_sd_low", "discrimination_sd_high")
_QUICK_MAX_ITEMS = 60  # = irtbridge.decodirt.classification_data.QUICK_MAX_ITEMS, kept here so `irtbridge --help` stays light

# irtbridge.decodirt.per_dataset.SCORES (kept off the CLI's start; tests/cli/test_cli_choices.py)
SCORES = ("true_score", "true_score_positive", "theta", "theta_positive", "accuracy")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``benchmark`` subcommand to the ``irtbridge`` command line.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``irtbridge`` parser; the new parser's ``func`` default is set to the function
        that runs it.
    """
    p = sub.add_parser(
        "benchmark",
        help="benchmark classifiers across datasets with IRT and Glicko-2",
        description=(
            "For each dataset: a stratified 70/30 split (test set capped at 500), a pool of scikit-learn "
            "classifiers plus artificial respondents (optimal, pessimal, majority, minority, random), a 3PL "
            "calibration (--calibration stable, the default: mirt's 3PL with weakly informative priors, no "
            "fallback; paper: ltm's 3PL as decodIRT, mirt's as fallback), abilities and True-Scores. "
            "Then dataset diagnostics, Glicko-2 tournaments (each dataset a rating period) in the chosen "
            "dataset orders beside Friedman/Nemenyi, and a validity check (optimal first, pessimal last). "
            "Tables (CSV), summary.json and figures (PNG) are written to --out."
        ),
    )
    p.add_argument("--datasets", nargs="+", metavar="NAME|PATH.csv[:TARGET]",
                   help="datasets by name (scikit-learn: iris, wine, breast_cancer, digits; mlbench: BreastCancer, "
                        "PimaIndiansDiabetes, Vehicle, Vowel, DNA, Satellite, LetterRecognition, Ionosphere, Sonar, "
                        "Glass, HouseVotes84, Soybean) or CSV files; default: 11 sets with < 2000 rows")
    p.add_argument("--target", help="target column of CSV datasets given without :TARGET (default 'target')")
    p.add_argument("--order", nargs="+", metavar="ORDER",
                   help=f"tournaments to play: {', '.join(_ORDERS)}, or 'paper' for the paper's six (default)")
    p.add_argument("--calibration", default="stable", choices=("stable", "paper"),
                   help="stable (default): mirt's 3PL with weakly informative priors, no fallback; paper: ltm's "
                        "3PL as Cardoso et al. (decodIRT), with fallback to mirt (docs/calibration-modes.md)")
    p.add_argument("--engine", metavar="{mirt,native,ltm}",
                   help="3PL engine tried first: stable mode mirt (default) or native; paper mode ltm (default, "
                        "as the paper) or mirt")
    p.add_argument("--no-fallback", action="store_true", help="paper mode: do not retry with the other engine on failure")
    p.add_argument("--accept-unconverged", action="store_true",
                   help="keep an unconverged fit when no engine converges (default: leave the dataset out)")
    p.add_argument("--pool", help="classifiers: default (the paper's 12 + 24 variants), paper, quick, "
                                  "or a comma-separated list of members (e.g. SVM,KNN3,RandomForest)")
    p.add_argument("--score", default="true_score", choices=SCORES,
                   help="what decides a match: true_score (default), true_score_positive, theta, theta_positive, "
                        "accuracy")
    declare_flag(p, "--tolerance", constraint=Number(low=0.0), default=1e-6, help="scores this close draw (default 1e-6)")
    declare_flag(p, "--tau", constraint=Number(low=0.0, low_open=True), parameter="irtbridge.rating.glicko2:tau", default=0.5,
                 help="Glicko-2 system constant (default 0.5)")
    declare_flag(p, "--test-fraction", "--test-size", constraint=Number(low=0.0, high=1.0, low_open=True, high_open=True),
                 dest="test_fraction", default=0.3,
                 help="share of each dataset held out as items, before the cap (default 0.3)")
    declare_flag(p, "--max-items", "--max-test", constraint=Int(low=10, allow_none=True), dest="max_items", metavar="N",
                 help=f"cap on the test instances (items) per dataset (default 500; {_QUICK_MAX_ITEMS} with --quick), "
                      "as in `irtbridge evaluate`")
    declare_flag(p, "--max-train", constraint=Int(low=2, allow_none=True), help="largest training set (default: all the rest)")
    p.add_argument("--ability-method", "--ability", dest="ability_method", default="ML", type=str.upper,
                   choices=("ML", "MAP", "EAP"),
                   help="ability estimator: ML (default), MAP or EAP")
    declare_flag(p, "--jobs", constraint=Int(low=1, allow_none=True), parameter="irtbridge.pipeline.evaluation.evaluate:jobs",
                 default=None, metavar="N",
                 help="worker processes, each with its own R (default: one per CPU, at most one per dataset), "
                      "as in `irtbridge evaluate`")
    declare_flag(p, "--seed", constraint=SEED, default=0, help="random seed (split, classifiers, random guessers)")
    p.add_argument("--quick", action="store_true",
                   help=f"smoke run, as `irtbridge evaluate --quick`: datasets iris, wine, Sonar, the quick pool, "
                        f"{_QUICK_MAX_ITEMS} items per dataset (explicit --datasets/--pool/--max-items win)")
    p.add_argument("--out", metavar="DIR", help="output directory (required)")
    p.add_argument("--no-figures", action="store_true", help="write the tables only")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--json", action="store_true",
                   help='print {"settings", "datasets", "tournaments", "seconds", "out", "files"} instead of the text summary')
    p.set_defaults(func=run, outputs=(("out", FOLDER),))


def run(args: argparse.Namespace) -> int:
    """Run ``irtbridge benchmark`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        The arguments its parser read from the command line.

    Returns
    -------
    int
        The exit status: 0 (errors raise; :func:`irtbridge.cli.main` maps them to exit statuses).
    """
    from irtbridge.decodirt import DEFAULT_DATASETS, PAPER_ORDERS, QUICK_DATASETS  # kept off the CLI's start (~2 s)
    from irtbridge.pipeline import Settings, resolve_datasets, run_benchmark  # kept off the CLI's start (~2 s)
    from irtbridge.decodirt.classification_data import QUICK_MAX_ITEMS  # kept off the CLI's start (~2 s)

    if not args.out:
        raise ValidationError("--out DIR is required: the benchmark writes its tables and figures there")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise ValidationError(f"--out {args.out!r} exists and is not a directory")
    orders = []
    for o in args.order or ["paper"]:
        if o == "paper":
            orders += [x for x in PAPER_ORDERS if x not in orders]
        elif o in _ORDERS:
            if o not in orders:
                orders.append(o)
        else:
            raise ValidationError(f"--order {o!r} is not supported; use one of {', '.join(_ORDERS)} or 'paper'")
    datasets = args.datasets or (list(QUICK_DATASETS) if args.quick else list(DEFAULT_DATASETS))
    pool = args.pool or ("quick" if args.quick else "default")
    if "," in pool:
        pool = [p.strip() for p in pool.split(",") if p.strip()]
    # the options of `irtbridge evaluate`, under the same names, checked once here before any work
    settings = Settings(
        seed=args.seed, calibration=args.calibration, engine=args.engine, fallback=False if args.no_fallback else None,
        accept_unconverged=args.accept_unconverged, pool=tuple(pool) if isinstance(pool, list) else pool,
        test_fraction=args.test_fraction, max_train=args.max_train, ability_method=args.ability_method,
        target=args.target, tolerance=args.tolerance, tau=args.tau,
        max_items=args.max_items if args.max_items is not None else (QUICK_MAX_ITEMS if args.quick else 500),
    )
    resolve_datasets(datasets, target=settings.target)  # each CSV's target column, before the folder is staged
    # one run per folder: OUT is locked for the whole run and replaced only once every file is written
    with staged_output(out, param="--out", writer="benchmark") as stage:
        result = run_benchmark(datasets, settings, orders=orders, score=args.score, jobs=args.jobs,
                               progress=not args.no_progress)
        files = [out / f.relative_to(stage) for f in result.save(stage, figures=not args.no_figures)]
    if args.json:
        payload = result.to_dict()
        payload["out"] = str(out)
        payload["files"] = sorted(str(f.relative_to(out)) for f in files)
        print_json(payload)
    else:
        print(result.summary())
        print(f"\n{len(files)} files written to {out}")
    return 0
