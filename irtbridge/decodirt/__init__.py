"""Classifier benchmarking with IRT and Glicko-2 across datasets (decodIRT, Cardoso et al.).

For each dataset: a stratified 70/30 split (test set capped at 500), a pool of scikit-learn classifiers
plus artificial respondents, the response matrix (test instances = items, classifiers = respondents,
1 = correct), a 3PL calibration in one of two modes (:class:`~irtbridge.decodirt.modes.CalibrationMode`:
stable, mirt's 3PL with weakly informative priors; paper, ltm's 3PL as decodIRT with mirt as fallback),
abilities and True-Scores. Across datasets: diagnostics of the item parameters, Glicko-2 tournaments in the paper's
dataset orders beside Friedman/Nemenyi, and a validity check (optimal first, pessimal last).

One small dataset (a few seconds; the saved tables, summary and figures go to a temporary folder):

>>> import tempfile
>>> from irtbridge.pipeline import Settings, run_benchmark
>>> res = run_benchmark(["iris"], Settings(pool="quick", max_items=30), jobs=1)   # doctest: +R
>>> paths = res.save(tempfile.mkdtemp())
>>> sorted(p.name for p in paths if p.suffix == ".json")
['summary.json']
"""

from __future__ import annotations

from irtbridge._moved import moved_names
from irtbridge.decodirt.classification_data import (
    DATASETS,
    DEFAULT_DATASETS,
    MLBENCH_DATASETS,
    QUICK_DATASETS,
    SKLEARN_DATASETS,
    BenchmarkDataset,
    DatasetInfo,
    available_datasets,
    class_labels,
    dataset_info,
    load_benchmark_dataset,
    prepare_features,
    stratified_split,
)
from irtbridge.decodirt.diagnostics import DIAGNOSTICS, dataset_diagnostics, diagnostic_rankings
from irtbridge.decodirt.per_dataset import (
    SCORES,
    CalibrationAttempt,
    DatasetResult,
    StageWarning,
    calibrate_with_fallback,
    evaluate_dataset,
    score_respondents,
)
from irtbridge.decodirt.modes import (
    CALIBRATION_MODES,
    STABLE_PRIORS,
    CalibrationMode,
    calibrate_classifier_responses,
    dataset_difficulty,
    flag_items,
    simulate_classifier_responses,
)
from irtbridge.decodirt.plots import (
    plot_bump,
    plot_dataset_parameters,
    plot_item_curves,
    plot_parameter_bins,
    plot_ratings,
    plot_true_scores,
)
from irtbridge.decodirt.respondents import (
    ARTIFICIAL,
    PAPER_MODELS,
    POOLS,
    artificial_responses,
    classifier_pool,
    fit_predict_pool,
    fit_predict_score_pool,
    response_matrix,
)
from irtbridge.decodirt.tournaments import (
    ORDERS,
    PAPER_ORDERS,
    TournamentResult,
    Validity,
    order_datasets,
    score_table,
    tournament,
    validity_check,
)

__all__ = [
    "DEFAULT_DATASETS", "MLBENCH_DATASETS", "QUICK_DATASETS", "SKLEARN_DATASETS", "BenchmarkDataset",
    "DATASETS", "DatasetInfo", "dataset_info", "class_labels",
    "available_datasets", "load_benchmark_dataset", "prepare_features", "stratified_split",
    "DIAGNOSTICS", "SCORES", "CalibrationAttempt", "DatasetResult", "StageWarning", "calibrate_with_fallback",
    "dataset_diagnostics", "diagnostic_rankings", "evaluate_dataset", "score_respondents",
    "CALIBRATION_MODES", "STABLE_PRIORS", "CalibrationMode", "calibrate_classifier_responses", "dataset_difficulty", "flag_items",
    "simulate_classifier_responses",
    "plot_bump", "plot_dataset_parameters", "plot_item_curves", "plot_parameter_bins", "plot_ratings",
    "plot_true_scores",
    "ARTIFICIAL", "PAPER_MODELS", "POOLS", "artificial_responses", "classifier_pool", "fit_predict_pool",
    "fit_predict_score_pool",
    "response_matrix",
    "ORDERS", "PAPER_ORDERS", "TournamentResult", "Validity", "order_datasets", "score_table", "tournament",
    "validity_check",
]

# the benchmark's orchestrator moved up to the pipeline (one runner for `evaluate` and `benchmark`); the old
# names are served by their dotted path (irtbridge._moved), so this floor does not import the one above. They
# were names of this package's old path, irtbridge.benchmark (irtbridge._moved.MODULES), and keep it.
__getattr__ = moved_names("irtbridge.benchmark", {"run_benchmark": "irtbridge.pipeline",
                                                  "BenchmarkResult": "irtbridge.pipeline"})
