"""The units of a run in spawned workers, shared by :func:`irtbridge.pipeline.stages.run_datasets` and
:func:`irtbridge.pipeline.evaluate`: how many workers, the run itself (with a progress bar), and a dataset
unit whose worker died as a failed dataset."""

from __future__ import annotations

import os
from typing import Any, Mapping

from irtbridge._parallel import progress_bar, run_units
from irtbridge._validation import check_int
from irtbridge.decodirt.classification_data import dataset_info
from irtbridge.decodirt.records import DatasetResult
from irtbridge.pipeline._names import dataset_label


def worker_count(jobs: int | None, n: int) -> int:
    # one worker per CPU by default, never more workers than units
    return max(1, min(os.cpu_count() or 1, n)) if jobs is None else max(1, min(check_int(jobs, "jobs", low=1), n))


def run_all(units: Mapping[Any, tuple[Any, tuple]], jobs: int, progress: bool, desc: str,
            lost: Any = None) -> dict[Any, Any]:
    bar = progress_bar(progress, len(units), desc=desc)
    try:
        return run_units(units, jobs=jobs, bar=bar, label=lambda u: _unit_name(*u), cost=_unit_cost, lost=lost)
    finally:
        bar.close()


def lost_dataset(unit: tuple[str, Any], reason: str) -> DatasetResult:
    # a dataset unit whose worker died is a failed dataset, named like any other failure
    return DatasetResult.failure(dataset_label(unit[1]), reason)


def _unit_cost(unit: tuple[str, Any]) -> float:
    # the registry's rough cost of a dataset (5 for a CSV or an in-memory dataset); an MLC run costs a little more
    info = dataset_info(dataset_label(unit[1])) if isinstance(unit[1], str) else None
    return (info.cost if info is not None else 5) + (4 if unit[0] == "mlc" else 0)


def _unit_name(kind: str, ref: Any) -> str:
    return f"MLC of {dataset_label(ref)}" if kind == "mlc" else dataset_label(ref)
