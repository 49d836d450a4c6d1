"""`irtbridge evaluate`: the main job on the embedded data."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("evaluate", help="the main job on embedded data (offline)",
                       description="Run irtbridge's main evaluation on data that ships with the installed R packages.")
    p.add_argument("--model", default="2PL", help="IRT model (default 2PL)")
    p.add_argument("--engine", default="mirt", help="mirt or ltm (default mirt)")
    p.add_argument("--dataset", default="LSAT7", help="LSAT7, LSAT, SAT12, Science or Abortion (default LSAT7)")
    p.add_argument("--json", action="store_true", help="print the calibration as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from irtbridge.calibration import calibrate
    from irtbridge.cli._common import print_json
    from irtbridge.datasets import response_dataset

    data = response_dataset(args.dataset)
    fit = calibrate(data, model=args.model, engine=args.engine)
    if args.json:
        print_json(fit.to_dict())
    else:
        print(f"dataset {args.dataset}: {data.shape[0]} respondents x {data.shape[1]} items\n")
        print(fit.summary())
    return 0
