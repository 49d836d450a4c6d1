"""Readers of what evaluators already have, each returning the long table ``model, task, item, score, ...``.

* :func:`read_lm_eval` — lm-evaluation-harness ``--log_samples`` output (v0.4.0 and later),
  :func:`lm_eval_metrics` lists the metrics and filters its tasks carry;
* :func:`read_helm` — HELM run folders (``per_instance_stats.json``);
* :func:`read_pyirt` / :func:`write_pyirt` — py-irt's JSON Lines, and :func:`read_pyirt_parameters` — py-irt's
  ``best_parameters.json`` as an :class:`irtbridge.irt.ItemBank`;
* :func:`read_inspect` — Inspect AI logs (``.eval`` and ``.json``);
* :func:`read_lighteval` and :func:`read_open_llm_leaderboard` — lighteval and Open LLM Leaderboard v1/v2
  details (parquet);
* :func:`read_opencompass` — OpenCompass ``results/<model>/<dataset>.json`` with per-item ``details``.

:mod:`~irtbridge.leaderboard.readers.registry` holds one row per format (name, detection, reader, options):
every command's ``--from`` and ``irtbridge ingest`` take their formats from it.

Every table's first columns are exactly ``model, task, item, score`` (one row per model and item), which
:func:`irtbridge.leaderboard.responses_from_long` turns into a response matrix.
"""

from __future__ import annotations

from irtbridge.leaderboard.readers.details import read_lighteval, read_open_llm_leaderboard
from irtbridge.leaderboard.readers.helm import HELM_MAIN_METRICS, read_helm
from irtbridge.leaderboard.readers.inspect import read_inspect
from irtbridge.leaderboard.readers.lm_eval import LM_EVAL_DEFAULT_METRICS, lm_eval_metrics, read_lm_eval
from irtbridge.leaderboard.readers.opencompass import read_opencompass
from irtbridge.leaderboard.readers.pyirt import read_pyirt, read_pyirt_parameters, write_pyirt
from irtbridge.leaderboard.readers.registry import FORMAT_NAMES, READERS

__all__ = ["read_lm_eval", "lm_eval_metrics", "LM_EVAL_DEFAULT_METRICS", "read_helm", "HELM_MAIN_METRICS",
           "read_pyirt", "write_pyirt", "read_pyirt_parameters", "read_inspect",
           "read_lighteval", "read_open_llm_leaderboard", "read_opencompass", "READERS",
           "FORMAT_NAMES"]
