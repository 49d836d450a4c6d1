"""`irtbridge twophase`: a new model's accuracy from a two-phase design (:mod:`irtbridge.leaderboard.twophase`).

The loop with lm-evaluation-harness (``tiny/`` from ``irtbridge tiny RESPONSES --k 50 --out tiny``)::

    lm_eval --model hf --model_args pretrained=ORG/MODEL --tasks TASKS \\
        --samples tiny/samples.json --log_samples --output_path run1            # phase 1: the tiny items
    irtbridge twophase run1 --from lm-eval --bank tiny/bank.json --n2 50 --out phase2
    lm_eval ... --samples phase2/samples.json --log_samples --output_path run2  # phase 2: drawn for this model
    irtbridge twophase run2 --from lm-eval --bank tiny/bank.json --plan phase2/plan.json

Without ``--plan`` the command draws phase 2 from the phase-1 answers and writes, atomically, ``--out DIR``:
``plan.json`` (the draw and everything the estimate needs), ``items.csv`` (``item``, ``pi``: the phase-2 items
and their inclusion probabilities) and ``samples.json`` (lm-eval's ``--samples`` file, when the bank knows
its items' documents). With ``--plan`` it estimates the accuracy on all items from the phase-2 answers (the
phase-1 answers are in the plan) and prints it with its 95% interval (``--json``: ``{"respondents":
[{respondent, accuracy, accuracy_se, lower, upper, n_phase1, n_phase2}]}``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from irtbridge._constraints import Int, Number
from irtbridge._outdir import FOLDER, staged_output
from irtbridge.cli._common import (FINITE, SEED, add_long_options, declare_flag, declare_input, print_json,
                                   read_responses)
from irtbridge.exceptions import ValidationError


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``twophase`` subcommand to the ``irtbridge`` command line.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``irtbridge`` parser; the new parser's ``func`` default is set to the function
        that runs it.
    """
    p = sub.add_parser("twophase", help="two-phase design: draw phase 2 from phase-1 answers, then estimate",
                       description="Without --plan: draw a new model's phase-2 items from its phase-1 answers "
                                   "(probability proportional to the uncertainty of the predicted answer, with a "
                                   "floor) and write plan.json, items.csv and lm-eval's samples.json to --out. "
                                   "With --plan: estimate its accuracy on all items from the phase-2 answers, "
                                   "with a design-based 95%% interval.")
    declare_input(p, "file", what="a CSV or harness output", kind="any",
                  metavar="RESULTS", help="the model's answers: a CSV (one row per model, one column per item) "
                                          "or with --from lm-eval/helm its harness output folder")
    p.add_argument("--from", dest="source", default="csv", choices=("csv", "lm-eval", "helm"),
                   help="what RESULTS is (default a CSV)")
    declare_flag(p, "--threshold", constraint=FINITE, metavar="T",
                 help="with --from lm-eval/helm: a continuous metric scores 1 where it is at least T")
    declare_input(p, "--bank", what="a bank file of irtbridge tiny",
                  required=True, metavar="bank.json", help="the tiny benchmark's bank (irtbridge tiny)")
    p.add_argument("--plan", metavar="plan.json", help="estimate from this plan (written by a run without --plan)")
    p.add_argument("--out", metavar="DIR", help="without --plan: write plan.json, items.csv, samples.json here")
    declare_flag(p, "--n2", constraint=Int(low=1), default=50, help="expected number of phase-2 items (default 50)")
    declare_flag(p, "--floor", constraint=Number(low=0.0, high=1.0, low_open=True), default=0.2,
                 help="share of the uniform design in phase 2 (default 0.2; every item keeps a chance)")
    declare_flag(p, "--seed", constraint=SEED, default=0, help="seeds the phase-2 draw (default 0)")
    p.add_argument("--model", metavar="NAME", help="the model, when RESULTS hold several")
    p.add_argument("--method", default="greg", choices=("greg", "difference"),
                   help="with --plan: the estimator (default greg; difference: exactly unbiased given phase 1)")
    p.add_argument("--id-column", metavar="COL", help="a column that identifies models (not an item)")
    add_long_options(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run, outputs=(("out", FOLDER),))


def documents_of(args: argparse.Namespace, names: Sequence[str]) -> dict[str, tuple[str, int]]:
    """The lm-eval documents of ``names``: ``--documents`` if given, the harness output's ``doc_id`` with
    ``--from lm-eval``, else the names of the form ``task/<doc_id>``.

    Parameters
    ----------
    args : argparse.Namespace
        The command's arguments (``documents``, ``source``, ``file``, ``threshold``).
    names : sequence of str
        The items.

    Returns
    -------
    dict of str to (str, int)
        The items whose document is known.
    """
    # kept off the CLI's start (~2 s)
    from irtbridge.leaderboard.samples_file import documents_from_long, documents_from_names, read_documents

    if getattr(args, "documents", None):
        found = read_documents(args.documents)
    elif args.source == "lm-eval":
        from irtbridge.leaderboard.readers import read_lm_eval  # kept off the CLI's start (~2 s)

        found = documents_from_long(read_lm_eval(args.file, threshold=args.threshold))
    else:
        found = documents_from_names(names)
    wanted = set(map(str, names))
    return {item: doc for item, doc in found.items() if item in wanted}


def _answers(args: argparse.Namespace, names: Sequence[str]) -> Any:
    """Models x items (float 1/0/NaN) of RESULTS, restricted to the bank's items."""
    if args.source == "csv":
        data = read_responses(args)
    else:
        from irtbridge.leaderboard.inputs import read_leaderboard_input  # kept off the CLI's start (~2 s)

        data = read_leaderboard_input([args.file], args.source, threshold=args.threshold).matrix
    data.index = data.index.map(str)
    data.columns = data.columns.map(str)
    known = [c for c in data.columns if c in set(names)]
    if not known:
        raise ValidationError(f"{args.file!r} answers none of the bank's items (item names must match)")
    return data[known].astype(float)


def run(args: argparse.Namespace) -> int:
    """Run ``irtbridge twophase`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        The arguments its parser read from the command line.

    Returns
    -------
    int
        The exit status: 0 (errors raise; :func:`irtbridge.cli.main` maps them to exit statuses).
    """
    from irtbridge.leaderboard.tiny import load_tiny  # kept off the CLI's start (~2 s)
    from irtbridge.leaderboard.twophase import load_plan, plan_phase_two, twophase_estimate  # kept off the CLI's start (~2 s)

    if args.plan is None and args.out is None:
        raise ValidationError("give --out DIR (draw phase 2) or --plan plan.json (estimate)")
    if args.plan is not None and args.out is not None:
        raise ValidationError("--out draws phase 2 and --plan estimates: give one of them")
    tiny = load_tiny(args.bank)
    answers = _answers(args, tiny.item_names)
    if args.plan is not None:
        plan = load_plan(args.plan)
        model = args.model or (plan.model if plan.model in set(answers.index) else None)
        if model is None and len(answers) == 1:
            model = str(answers.index[0])
        if model is None or model not in set(answers.index):
            raise ValidationError(f"{args.file!r} has no answers of the plan's model {plan.model!r} (--model NAME)")
        result = twophase_estimate(plan, answers.loc[model].rename(plan.model), method=args.method, bank=tiny)
        if args.json:
            print_json({"respondents": [{"respondent": plan.model, **{k: float(v) for k, v in row.items()}}
                                        for _, row in result.iterrows()]})
        else:
            print(result.to_string())
        return 0
    plan = plan_phase_two(tiny, answers, args.n2, floor=args.floor, seed=args.seed, model=args.model)
    _write_plan(args.out, plan, tiny)
    info = {"model": plan.model, "n_phase1": len(plan.phase1), "n_phase2": len(plan.phase2), "n2": plan.n2,
            "out": args.out}
    if args.json:
        print_json(info)
    else:
        print(f"{plan.model}: {len(plan.phase1)} phase-1 answers; {len(plan.phase2)} phase-2 item(s) drawn (expected "
              f"{plan.n2}) -> {args.out}")
    return 0


def _write_plan(out: str, plan: Any, tiny: Any) -> None:

    from irtbridge.leaderboard.samples_file import write_samples  # kept off the CLI's start (~2 s)

    pos = {n: j for j, n in enumerate(plan.item_names)}
    with staged_output(Path(out), param="--out", writer="twophase") as stage:
        plan.save(stage / "plan.json")
        pd.DataFrame({"item": list(plan.phase2), "pi": [plan.pi[pos[i]] for i in plan.phase2]}).to_csv(
            stage / "items.csv", index=False)
        if plan.phase2 and all(i in tiny.documents for i in plan.phase2):
            write_samples(stage / "samples.json", plan.phase2, tiny.documents)
