"""Evaluation at leaderboard scale: long-format responses, anchor items and performance estimation.

Leaderboards have hundreds to thousands of models (respondents) answering 10^4-10^5 items, each model only
a subset. :mod:`~irtbridge.leaderboard.long` turns their long tables into response matrices and back;
:mod:`~irtbridge.leaderboard.anchors` picks a small set of anchor items from a calibration; and
:mod:`~irtbridge.leaderboard.performance` predicts a new model's accuracy on the full item set from its
answers to the anchors alone, with an interval (p-IRT, as in tinyBenchmarks, Polo et al. 2024);
:mod:`~irtbridge.leaderboard.validation` cross-validates that prediction on the calibration's own respondents
(a blend weight and an interval scale for small calibrations);
:mod:`~irtbridge.leaderboard.adaptive` evaluates a new model adaptively on the CAT engine;
:mod:`~irtbridge.leaderboard.readers` reads what evaluators already have (lm-evaluation-harness samples, HELM
runs, py-irt files, Inspect AI logs, lighteval and Open LLM Leaderboard details, OpenCompass results; one row
each in its registry) into the long table ``model, task, item, score``;
:mod:`~irtbridge.leaderboard.report` ranks a whole leaderboard with intervals and flags its broken items
(:mod:`~irtbridge.leaderboard.diagnostics` computes, :mod:`~irtbridge.leaderboard.inputs` reads and checks);
:mod:`~irtbridge.leaderboard.estimators` predicts the full accuracy from k randomly sampled items with
design-based intervals (mean, AIPW of Zhang, Dorner & Hardt NeurIPS 2025, prediction-powered with 2PL and
ridge control variates, p-IRT and gp-IRT of tinyBenchmarks, Maia Polo et al. 2024);
:mod:`~irtbridge.leaderboard.tiny` freezes a tiny benchmark of your own in one bank file (as
tinyBenchmarks and metabench, Kipnis et al. 2025, ship theirs) and :mod:`~irtbridge.leaderboard.tiny_cv`
measures its held-out error and learning curve.
"""

from __future__ import annotations

from irtbridge.leaderboard.adaptive import AdaptiveResult, adaptive_evaluate
from irtbridge.leaderboard.anchors import ANCHOR_METHODS, select_anchors
from irtbridge.leaderboard.long import responses_from_long, responses_to_long
from irtbridge.leaderboard.estimators import DEFAULT_ESTIMATOR, ESTIMATORS, calibrate_2pl, estimate_accuracy
from irtbridge.leaderboard.inputs import read_leaderboard_input, read_tiny_errors
from irtbridge.leaderboard.performance import estimate_performance
from irtbridge.leaderboard.readers import (
    lm_eval_metrics,
    read_helm,
    read_inspect,
    read_lighteval,
    read_lm_eval,
    read_open_llm_leaderboard,
    read_opencompass,
    read_pyirt,
    read_pyirt_parameters,
    write_pyirt,
)
from irtbridge.leaderboard.report import LeaderboardReport, leaderboard_report
from irtbridge.leaderboard.tiny import TinyBenchmark, build_tiny, load_bank, load_tiny
from irtbridge.leaderboard.tiny_cv import validate_tiny
from irtbridge.leaderboard.validation import AnchorValidation, validate_anchors

__all__ = ["responses_from_long", "responses_to_long", "select_anchors", "ANCHOR_METHODS", "estimate_performance",
           "validate_anchors", "AnchorValidation", "adaptive_evaluate", "AdaptiveResult", "read_lm_eval", "lm_eval_metrics",
           "read_helm", "read_inspect", "read_lighteval", "read_open_llm_leaderboard", "read_opencompass",
           "read_pyirt", "write_pyirt", "read_pyirt_parameters", "leaderboard_report",
           "LeaderboardReport", "read_leaderboard_input", "read_tiny_errors", "estimate_accuracy", "ESTIMATORS",
           "DEFAULT_ESTIMATOR", "calibrate_2pl", "build_tiny", "load_tiny", "load_bank", "TinyBenchmark",
           "validate_tiny"]
