"""Readers of what evaluators already have, each returning the long table ``model, task, item, score, ...``.

* :func:`read_lm_eval` — lm-evaluation-harness ``--log_samples`` output (v0.4.0 and later),
  :func:`lm_eval_metrics` lists the metrics and filters its tasks carry;
* :func:`read_helm` — HELM run folders (``per_instance_stats.json``);
* :func:`read_pyirt` / :func:`write_pyirt` — py-irt's JSON Lines, and :func:`read_pyirt_parameters` — py-irt's
  ``best_parameters.json`` as an :class:`irtbridge.irt.ItemBank`.

Every table's first columns are exactly ``model, task, item, score`` (one row per model and item), which
:func:`irtbridge.leaderboard.responses_from_long` turns into a response matrix.
"""

from __future__ import annotations

from irtbridge.leaderboard.readers.helm import HELM_MAIN_METRICS, read_helm
from irtbridge.leaderboard.readers.lm_eval import LM_EVAL_DEFAULT_METRICS, lm_eval_metrics, read_lm_eval
from irtbridge.leaderboard.readers.pyirt import read_pyirt, read_pyirt_parameters, write_pyirt

__all__ = ["read_lm_eval", "lm_eval_metrics", "LM_EVAL_DEFAULT_METRICS", "read_helm", "HELM_MAIN_METRICS",
           "read_pyirt", "write_pyirt", "read_pyirt_parameters"]
