"""The evaluation pipeline: one per-dataset unit and the stages after it, behind ``irtbridge evaluate``
(:mod:`irtbridge.pipeline.evaluation`) and ``irtbridge benchmark`` (:mod:`irtbridge.pipeline.benchmark`), with
their options in one :class:`Settings` object (:mod:`irtbridge.decodirt.settings`). This package only
re-exports; the stage interface is described in :mod:`irtbridge.pipeline.evaluation`.
"""

from __future__ import annotations

from irtbridge._moved import moved_names
# the embedded benchmark's dataset lists (R-free): what `irtbridge evaluate` runs by default / with --quick
from irtbridge.decodirt.classification_data import DEFAULT_DATASETS, QUICK_DATASETS
from irtbridge.decodirt.settings import Settings
from irtbridge.pipeline.across import benchmark_subsets, hard_instances, pooled_efficiency, ranked_dataset_diagnostics
from irtbridge.pipeline.benchmark import BenchmarkResult, run_benchmark
from irtbridge.pipeline.evaluation import Evaluation, assemble, evaluate
from irtbridge.pipeline.settings import resolve_datasets
from irtbridge.pipeline.stages import DatasetResult, MLCRun, binary_extras, dataset_units, run_dataset, run_datasets, run_mlc

__all__ = [
    "DEFAULT_DATASETS", "QUICK_DATASETS", "Settings", "DatasetResult", "Evaluation", "resolve_datasets",
    "run_dataset", "run_datasets", "dataset_units", "run_benchmark", "BenchmarkResult", "binary_extras", "MLCRun",
    "run_mlc", "ranked_dataset_diagnostics", "benchmark_subsets", "hard_instances", "pooled_efficiency",
    "assemble", "evaluate",
]

# renamed so that one name means one function (irtbridge.decodirt.dataset_diagnostics is the plain table)
__getattr__ = moved_names(__name__, {"dataset_diagnostics": "irtbridge.pipeline:ranked_dataset_diagnostics"})
