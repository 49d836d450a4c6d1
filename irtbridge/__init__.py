"""irtbridge: Item Response Theory for evaluating models, datasets and algorithm portfolios.

Calibration is delegated to R's mirt and ltm (or the native EM); everything around it is native Python.
``import irtbridge`` never starts R. Where each capability lives (the top level holds the first column):

  calibrate, Calibration              fit an IRT model: mirt, ltm or native     irtbridge.calibration
  calibrate_groups, GroupCalibration,
    dif                               multiple groups, DIF (mirt)               irtbridge.calibration
  ModelSpec, Prior, parameter_table,
    compare                           structure, priors, linking, comparison    irtbridge.calibration
  estimate_abilities, true_score      scoring with known items (native)         irtbridge.irt
  evaluate, Evaluation, Settings      the main job: classifiers on datasets     irtbridge.pipeline
  write_report                        its HTML page, CSVs and summary.json      irtbridge.report
  glicko2                             Glicko-2 ratings and tournaments          irtbridge.rating
  efficiency_indices                  Efficiency Index family (Larner 2023)     irtbridge.efficiency
  instance_hardness                   cost-curve instance hardness (Prudêncio)  irtbridge.hardness
  evaluate_mlc                        per-class MLC (the MLC paper)             irtbridge.mlc
  simulate_cat                        computer-adaptive testing                 irtbridge.cat
  evaluate_portfolio                  algorithm portfolios (airt)               irtbridge.portfolio
  responses_from_long, select_anchors,
    estimate_performance,
    validate_anchors,
    adaptive_evaluate                 leaderboard scale: anchors, adaptive      irtbridge.leaderboard
  Summary                             what every result's summary() returns
  doctor                              R and the pinned packages, checked

Any mirt or ltm function by its R name, Python values in and out: irtbridge.mirt (e.g.
irtbridge.mirt.DRF(group_fit), irtbridge.mirt.key2binary(raw, key)) and irtbridge.ltm.

More in the subpackages: irtbridge.decodirt (decodIRT's stages behind ``irtbridge benchmark``:
classification datasets, classifier pool, per-dataset pipeline, tournaments), irtbridge.em (the native EM
core behind engine="native"), irtbridge.rankstats (Friedman, Nemenyi), irtbridge.classifiers,
irtbridge.example_data (example response data of R packages and scikit-learn), irtbridge.batch,
irtbridge.exceptions; the ``irtbridge`` command (``irtbridge --help``). Names and modules that moved still
work from their old place, with a DeprecationWarning naming their home (CHANGELOG.md lists them).
"""

from __future__ import annotations

from importlib import import_module as _import_module

from irtbridge import _moved

__version__ = "0.1.0"

# public name -> module that defines it; resolved on first access (PEP 562) so `import irtbridge`
# stays cheap and R-free.
_LAZY = {
    "calibrate": "irtbridge.calibration",
    "Calibration": "irtbridge.calibration",
    "calibrate_groups": "irtbridge.calibration",
    "GroupCalibration": "irtbridge.calibration",
    "dif": "irtbridge.calibration",
    "compare": "irtbridge.calibration",
    "ModelSpec": "irtbridge.calibration",
    "Prior": "irtbridge.calibration",
    "parameter_table": "irtbridge.calibration",
    "estimate_abilities": "irtbridge.irt",
    "true_score": "irtbridge.irt",
    "evaluate": "irtbridge.pipeline",
    "Evaluation": "irtbridge.pipeline",
    "Settings": "irtbridge.pipeline",
    "write_report": "irtbridge.report",
    "glicko2": "irtbridge.rating",
    "efficiency_indices": "irtbridge.efficiency",
    "instance_hardness": "irtbridge.hardness",
    "evaluate_mlc": "irtbridge.mlc",
    "simulate_cat": "irtbridge.cat",
    "evaluate_portfolio": "irtbridge.portfolio",
    "responses_from_long": "irtbridge.leaderboard",
    "select_anchors": "irtbridge.leaderboard",
    "estimate_performance": "irtbridge.leaderboard",
    "validate_anchors": "irtbridge.leaderboard",
    "adaptive_evaluate": "irtbridge.leaderboard",
    "doctor": "irtbridge._r.doctor",
    "Summary": "irtbridge._summary",
}
# names that lived at the top level before it was given a map: still importable, with a warning naming their
# home and the release that removes them (irtbridge._moved; listed in CHANGELOG.md)
_MOVED = {
    "responses_to_long": "irtbridge.leaderboard",
    "AnchorValidation": "irtbridge.leaderboard",
    "AdaptiveResult": "irtbridge.leaderboard",
    "calibrate_classifier_responses": "irtbridge.decodirt",
    "run_batch": "irtbridge.batch",
    "ItemBank": "irtbridge.irt",
    "as_item_bank": "irtbridge.irt",
    "response_probability": "irtbridge.irt",
    "category_probabilities": "irtbridge.irt",
    "expected_score": "irtbridge.irt",
    "item_information": "irtbridge.irt",
    "test_information": "irtbridge.irt",
    "sem": "irtbridge.irt",
    "glicko2_period": "irtbridge.rating",
    "Glicko2Result": "irtbridge.rating",
    "round_robin": "irtbridge.rating",
    "friedman": "irtbridge.rankstats",
    "nemenyi": "irtbridge.rankstats",
    "critical_difference": "irtbridge.rankstats",
    "plot_cd_diagram": "irtbridge.rankstats",
    "class_hardness": "irtbridge.hardness",
    "hardness_table": "irtbridge.hardness",
    "instance_cost_curves": "irtbridge.hardness",
    "class_cost_curves": "irtbridge.hardness",
    "hardness_from_estimators": "irtbridge.hardness",
    "PoolHardness": "irtbridge.hardness",
    "efficiency_indices_from_predictions": "irtbridge.efficiency",
    "efficiency_frame": "irtbridge.efficiency",
    "efficiency_by_cutoff": "irtbridge.efficiency",
    "plot_efficiency_by_cutoff": "irtbridge.efficiency",
    "classify_ei": "irtbridge.efficiency",
    "EfficiencyIndices": "irtbridge.efficiency",
    "Interval": "irtbridge.efficiency",
    "PortfolioEvaluation": "irtbridge.portfolio",
    "fit_crm": "irtbridge.portfolio",
    "CRMCalibration": "irtbridge.portfolio",
    "bin_performance": "irtbridge.portfolio",
    "latent_trait_analysis": "irtbridge.portfolio",
    "portfolio_dataset": "irtbridge.portfolio:airt_performance",
    "run_benchmark": "irtbridge.pipeline",
    "BenchmarkResult": "irtbridge.pipeline",
    "evaluate_dataset": "irtbridge.decodirt",
    "DatasetResult": "irtbridge.decodirt",
    "tournament": "irtbridge.decodirt",
    "TournamentResult": "irtbridge.decodirt",
    "validity_check": "irtbridge.decodirt",
    "dataset_diagnostics": "irtbridge.decodirt",
    "classifier_pool": "irtbridge.decodirt",
    "ClassifierSpec": "irtbridge.classifiers",
    "classifier_spec": "irtbridge.classifiers",
    "build_classifier": "irtbridge.classifiers",
    "CATResult": "irtbridge.cat",
    "MLCResult": "irtbridge.mlc",
    "case_difficulty": "irtbridge.mlc",
    "run_mlc_cat": "irtbridge.mlc",
    "mlc_decision": "irtbridge.mlc",
}
# subpackages reachable as attributes without an explicit import (irtbridge.rankstats.friedman)
_SUBMODULES = ("calibration", "irt", "pipeline", "report", "rating", "efficiency", "hardness", "mlc", "cat",
               "portfolio", "leaderboard", "decodirt", "rankstats", "classifiers", "example_data", "batch", "exceptions",
               "mirt", "ltm", "em")

__all__ = sorted(["__version__", *_LAZY])
_moved.register(__name__, _MOVED)
# modules that moved (irtbridge.decodirt -> irtbridge.decodirt, ...): their old import paths keep working
_moved.moved_modules(_moved.MODULES)


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None and name in _MOVED:
        return _moved.resolve(__name__, name, _MOVED[name])
    if module is None and name in _SUBMODULES:
        return _import_module(f"irtbridge.{name}")
    if module is None and f"{__name__}.{name}" in _moved.MODULES:
        return _moved.import_moved(f"{__name__}.{name}", _moved.MODULES[f"{__name__}.{name}"])
    if module is None:
        raise AttributeError(f"module 'irtbridge' has no attribute {name!r}")
    value = getattr(_import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    # the map and the subpackages; no helper of this file (``annotations``, ``_LAZY``, ...)
    return sorted({n for n in globals() if n.startswith("__")} | set(_LAZY) | set(_SUBMODULES))
