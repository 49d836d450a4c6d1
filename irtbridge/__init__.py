"""irtbridge: Item Response Theory for evaluating models, datasets and algorithm portfolios.

Item calibration is delegated to R's ``mirt`` and ``ltm`` through rpy2; everything around it is native
Python. Importing irtbridge never imports rpy2 or starts R: R starts on the first call that needs it.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> module that defines it; resolved on first access (PEP 562) so `import irtbridge`
# stays cheap and R-free.
_LAZY = {
    "calibrate": "irtbridge.calibration",
    "Calibration": "irtbridge.calibration",
    "compare": "irtbridge.calibration",
    "responses_from_long": "irtbridge.leaderboard",
    "responses_to_long": "irtbridge.leaderboard",
    "select_anchors": "irtbridge.leaderboard",
    "estimate_performance": "irtbridge.leaderboard",
    "validate_anchors": "irtbridge.leaderboard",
    "AnchorValidation": "irtbridge.leaderboard",
    "adaptive_evaluate": "irtbridge.leaderboard",
    "AdaptiveResult": "irtbridge.leaderboard",
    "Prior": "irtbridge.calibration",
    "ModelSpec": "irtbridge.calibration",
    "parameter_table": "irtbridge.calibration",
    "calibrate_groups": "irtbridge.calibration",
    "dif": "irtbridge.calibration",
    "GroupCalibration": "irtbridge.calibration",
    "calibrate_classifier_responses": "irtbridge.benchmark",
    "doctor": "irtbridge._r.doctor",
    "write_report": "irtbridge.report",
    "run_batch": "irtbridge.batch",
    "ItemBank": "irtbridge.irt",
    "as_item_bank": "irtbridge.irt",
    "response_probability": "irtbridge.irt",
    "category_probabilities": "irtbridge.irt",
    "expected_score": "irtbridge.irt",
    "item_information": "irtbridge.irt",
    "test_information": "irtbridge.irt",
    "sem": "irtbridge.irt",
    "estimate_abilities": "irtbridge.irt",
    "true_score": "irtbridge.irt",
    "glicko2": "irtbridge.rating",
    "glicko2_period": "irtbridge.rating",
    "Glicko2Result": "irtbridge.rating",
    "round_robin": "irtbridge.rating",
    "friedman": "irtbridge.rankstats",
    "nemenyi": "irtbridge.rankstats",
    "critical_difference": "irtbridge.rankstats",
    "plot_cd_diagram": "irtbridge.rankstats",
    "instance_hardness": "irtbridge.hardness",
    "class_hardness": "irtbridge.hardness",
    "hardness_table": "irtbridge.hardness",
    "instance_cost_curves": "irtbridge.hardness",
    "class_cost_curves": "irtbridge.hardness",
    "hardness_from_estimators": "irtbridge.hardness",
    "PoolHardness": "irtbridge.hardness",
    "efficiency_indices": "irtbridge.efficiency",
    "efficiency_indices_from_predictions": "irtbridge.efficiency",
    "efficiency_frame": "irtbridge.efficiency",
    "efficiency_by_cutoff": "irtbridge.efficiency",
    "plot_efficiency_by_cutoff": "irtbridge.efficiency",
    "classify_ei": "irtbridge.efficiency",
    "EfficiencyIndices": "irtbridge.efficiency",
    "Interval": "irtbridge.efficiency",
    "evaluate_portfolio": "irtbridge.portfolio",
    "PortfolioEvaluation": "irtbridge.portfolio",
    "fit_crm": "irtbridge.portfolio",
    "CRMCalibration": "irtbridge.portfolio",
    "bin_performance": "irtbridge.portfolio",
    "latent_trait_analysis": "irtbridge.portfolio",
    "portfolio_dataset": "irtbridge.portfolio",
    "evaluate": "irtbridge.pipeline",
    "Evaluation": "irtbridge.pipeline",
    "Settings": "irtbridge.pipeline",
    "run_benchmark": "irtbridge.benchmark",
    "BenchmarkResult": "irtbridge.benchmark",
    "evaluate_dataset": "irtbridge.benchmark",
    "DatasetResult": "irtbridge.benchmark",
    "tournament": "irtbridge.benchmark",
    "TournamentResult": "irtbridge.benchmark",
    "validity_check": "irtbridge.benchmark",
    "dataset_diagnostics": "irtbridge.benchmark",
    "classifier_pool": "irtbridge.benchmark",
    "ClassifierSpec": "irtbridge.classifiers",
    "classifier_spec": "irtbridge.classifiers",
    "build_classifier": "irtbridge.classifiers",
    "simulate_cat": "irtbridge.cat",
    "CATResult": "irtbridge.cat",
    "evaluate_mlc": "irtbridge.mlc",
    "MLCResult": "irtbridge.mlc",
    "case_difficulty": "irtbridge.mlc",
    "run_mlc_cat": "irtbridge.mlc",
    "mlc_decision": "irtbridge.mlc",
}

__all__ = sorted(["__version__", *_LAZY])


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'irtbridge' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
