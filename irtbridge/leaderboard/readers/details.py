"""lighteval and Open LLM Leaderboard details (parquet) as a long table (one row per model and item).

Formats read (learned from lighteval's ``src/lighteval/logging/evaluation_tracker.py`` and
``logging/info_loggers.py``, and the Open LLM Leaderboard's published details datasets):

* **lighteval**: ``<out>/details/<model>/<date>/details_<task>|<few-shot>_<date>.parquet``, one row per
  document; the per-item scores are the ``metric`` struct (lighteval 0.9 and later: columns ``doc``,
  ``model_response``, ``metric``) or the ``metrics`` struct (earlier releases: ``example``, ``gold``,
  ``predictions``, ``metrics``, ...).
* **Open LLM Leaderboard v1** (``open-llm-leaderboard-old/details_<org>__<model>``): the earlier lighteval
  schema, files ``details_harness|<task>|<few-shot>_<date>.parquet``, scores in ``metrics``.
* **Open LLM Leaderboard v2** (``open-llm-leaderboard/<org>__<model>-details``): lm-evaluation-harness sample
  records, files ``samples_leaderboard_<task>_<date>.parquet`` (the ``.jsonl`` the harness writes, as parquet):
  the record's keys are columns, each metric a flat numeric column (``acc_norm``, ``exact_match``, ...). The
  ``.jsonl`` sample files themselves are lm-evaluation-harness output: ``read_lm_eval`` reads them.

The item is ``<task>/<id>``: the record's ``doc_hash`` (its first 16 hex digits) or ``doc_id`` where the file
has one, else the row's position (lighteval writes the documents of a task in the dataset's order, the same for
every model). The model is ``model=``, else the folder path after ``details/`` (lighteval), else the folder's
name with ``details_`` dropped and ``__`` read as ``/``. A task run twice for a model (two dates) is read from
the latest run, with one warning. Without pyarrow, the parquet files are read by R's nanoparquet, which reads
flat columns only: the v2 details read, the struct ``metric``/``metrics`` columns of lighteval and v1 do not
(one line says so).
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from irtbridge._constraints import Number, constraints
from irtbridge.exceptions import DataWarning, ValidationError, find_stack_level
from irtbridge.leaderboard.readers._common import (
    as_paths,
    check_model,
    check_threshold,
    find_files,
    long_table,
    number,
    run_labels,
    warn_continuous,
    where,
)
from irtbridge.leaderboard.readers._parquet import parquet_columns, read_parquet
from irtbridge.leaderboard.readers.lm_eval import LM_EVAL_DEFAULT_METRICS, LM_EVAL_TASK_METRICS

__all__ = ["read_lighteval", "read_open_llm_leaderboard", "lighteval_metrics", "open_llm_leaderboard_metrics",
           "DETAILS_TASK_METRICS"]

# Per-task defaults of lighteval / v1 tasks (the task's name without its suite and few-shot count), as the Open
# LLM Leaderboard v1 read them (acc_norm for ARC and HellaSwag, mc2 for TruthfulQA; tinyBenchmarks, Maia Polo
# et al. 2024, the same); other tasks: acc, else exact_match / em, else the first metric.
DETAILS_TASK_METRICS: dict[str, tuple[str, ...]] = {
    "arc": ("acc_norm", "loglikelihood_acc_norm"),
    "hellaswag": ("acc_norm", "loglikelihood_acc_norm"),
    "truthfulqa:mc": ("mc2", "truthfulqa_mc_metrics"),
}
_FALLBACK = LM_EVAL_DEFAULT_METRICS + ("em", "loglikelihood_acc", "quasi_exact_match")
_STAMP = r"(?P<stamp>\d{4}-\d\d-\d\dT[\d.\-:]+)"
_LIGHTEVAL_NAME = re.compile(rf"^details_(?P<task>.+)_{_STAMP}\.parquet$")
_V2_NAME = re.compile(rf"^samples_(?P<task>.+)_{_STAMP}\.parquet$")
_DATE_FOLDER = re.compile(r"^\d{4}-\d\d-\d\dT")
_RECORD_KEYS = frozenset({"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics",
                          "doc_hash", "prompt_hash", "target_hash"})
EXTRA_COLUMNS = ("metric", "row")


@dataclass(frozen=True)
class _File:
    path: Path
    model: str
    task: str
    stamp: str


def _model_of(path: Path) -> str:
    folder = path.parent
    if _DATE_FOLDER.match(folder.name):
        folder = folder.parent
    parts = folder.parts
    if "details" in parts[:-1]:
        at = len(parts) - 1 - parts[::-1].index("details")
        return "/".join(parts[at + 1:])
    name = folder.name[len("details_"):] if folder.name.startswith("details_") else folder.name
    return name.replace("__", "/")


def _plan(path_or_paths: Any, what: str, names: tuple[re.Pattern, ...], model: str | None) -> list[_File]:
    paths = as_paths(path_or_paths, what)
    files = find_files(paths, lambda p: p.suffix == ".parquet" and any(n.match(p.name) for n in names),
                       f"{what} files (*.parquet)")
    plan = []
    for f in files:
        m = next((n.match(f.name) for n in names if n.match(f.name)), None)
        if m is None:
            raise ValidationError(f"{where(f)}: not named as {what} names its files (details_<task>_<date>.parquet "
                                  "or samples_<task>_<date>.parquet)")
        plan.append(_File(f, model or _model_of(f), m["task"], m["stamp"]))
    if model is None:  # one model's runs in separate folders (ablations) stay apart
        labels = run_labels({p.path: p.model for p in plan},
                            lambda p: p.parent.parent if _DATE_FOLDER.match(p.parent.name) else p.parent,
                            {p.path: p.task for p in plan})
        plan = [_File(p.path, labels[p.path], p.task, p.stamp) for p in plan]
    best: dict[tuple[str, str], _File] = {}
    for p in plan:
        old = best.get((p.model, p.task))
        if old is not None and old.stamp == p.stamp:
            raise ValidationError(f"{where(p.path)}: model {p.model!r} task {p.task!r} is also read from "
                                  f"{where(old.path)} (same run); give each path once")
        if old is None or p.stamp > old.stamp:
            best[(p.model, p.task)] = p
    kept = [p for p in plan if best[(p.model, p.task)] is p]
    if len(kept) < len(plan):
        warnings.warn(f"{len(plan) - len(kept)} task run(s) left out as older runs of the same model and task; the "
                      "latest date is read", DataWarning, stacklevel=find_stack_level())
    return kept


def _base(task: str) -> str:
    parts = task.split("|")
    if len(parts) > 1 and parts[-1].isdigit():
        parts = parts[:-1]
    if len(parts) > 1:
        parts = parts[1:]
    return "|".join(parts)


def _default_metric(task: str, present: list[str]) -> str | None:
    base = _base(task)
    own = next((v for k, v in LM_EVAL_TASK_METRICS.items() if task.startswith(k)), ()) + \
        next((v for k, v in DETAILS_TASK_METRICS.items() if base.startswith(k)), ())
    for m in own + _FALLBACK:
        if m in present:
            return m
    return present[0] if present else None


def _scores(f: _File) -> tuple[pd.DataFrame, list[str]]:
    """The file's per-row metrics (one column each, numbers or None) and its item ids (or None)."""
    columns = parquet_columns(f.path)
    struct = next((c for c in ("metric", "metrics") if c in columns), None)
    id_column = next((c for c in ("doc_hash", "doc_id") if c in columns), None)
    if struct is not None:
        frame = read_parquet(f.path, [struct] + ([id_column] if id_column else []))
        cells = frame[struct].tolist()
        bad = next((i for i, c in enumerate(cells) if not isinstance(c, dict)), None)
        if bad is not None:
            raise ValidationError(f"{where(f.path)}: row {bad}: column {struct!r} is {cells[bad]!r}, not the "
                                  "struct of metrics lighteval writes")
        metrics = pd.DataFrame([{k: number(v) for k, v in c.items()} for c in cells])
    else:
        flat = [c for c, ok in columns.items() if ok and c not in _RECORD_KEYS or c == id_column]
        frame = read_parquet(f.path, flat)
        metrics = pd.DataFrame({c: frame[c].map(number) for c in frame.columns
                                if c not in _RECORD_KEYS and frame[c].map(lambda v: number(v) is not None).all()})
    if not len(frame):
        raise ValidationError(f"{where(f.path)}: no rows")
    if id_column is None:
        ids = [str(i) for i in range(len(frame))]
    elif id_column == "doc_hash":
        ids = [str(h)[:16] for h in frame[id_column]]
    else:
        ids = [str(i) for i in frame[id_column]]
    return metrics, ids


def _read(path_or_paths: Any, what: str, names: tuple[re.Pattern, ...], metric: Any, threshold: Any,
          model: Any) -> pd.DataFrame:
    threshold = check_threshold(threshold)
    plan = _plan(path_or_paths, what, names, check_model(model))
    tasks = {f.task for f in plan}
    unknown = sorted(set(metric) - tasks) if isinstance(metric, dict) else []
    if unknown:
        raise ValidationError(f"metric: task(s) {', '.join(map(repr, unknown[:5]))} are not read (the tasks: "
                              f"{', '.join(sorted(tasks)[:10])})")
    rows: dict[str, list] = {c: [] for c in ("model", "task", "item", "score", *EXTRA_COLUMNS)}
    continuous = []
    for f in plan:
        metrics, ids = _scores(f)
        chosen = metric.get(f.task) if isinstance(metric, dict) else metric
        if chosen is not None and not isinstance(chosen, str):
            raise ValidationError(f"metric must be a metric name (or a dict task -> name), got {chosen!r}")
        name = chosen or _default_metric(f.task, list(metrics.columns))
        if name is None or name not in metrics.columns:
            raise ValidationError(f"{where(f.path)}: no metric {name!r} (its metrics: "
                                  f"{', '.join(map(str, metrics.columns)) or 'none'}); choose one with metric=")
        values = metrics[name].tolist()
        if any(v is None or v != v for v in values):
            r = next(i for i, v in enumerate(values) if v is None or v != v)
            raise ValidationError(f"{where(f.path)}: row {r}: metric {name!r} is not a finite number")
        binary = True
        for r, (item, value) in enumerate(zip(ids, values)):
            score = value if threshold is None else float(value >= threshold)
            binary = binary and score in (0.0, 1.0)
            for col, v in (("model", f.model), ("task", f.task), ("item", f"{f.task}/{item}"), ("score", score),
                           ("metric", name), ("row", r)):
                rows[col].append(v)
        if not binary:
            continuous.append(f"{f.task} ({name})")
    warn_continuous(continuous, "task")
    return long_table(rows, EXTRA_COLUMNS, what)


_READER_DOC = """
    Parameters
    ----------
    path_or_paths : path or list of paths
        Parquet files, or folders holding them (searched recursively).
    metric : str or dict, optional
        The per-item metric read as the score, for every task or as ``{task: metric}`` (a task not read is an
        error). Default: the task's entry of ``DETAILS_TASK_METRICS`` or ``LM_EVAL_TASK_METRICS`` (the Open LLM
        Leaderboard's choice), else ``acc``, ``exact_match``, ``em``, else the first metric.
    threshold : float, optional
        Binarise: ``score = 1`` where the value is at least ``threshold``, else 0.
    model : str, optional
        The model's name where the paths hold one model.

    Returns
    -------
    pandas.DataFrame
        Columns ``model, task, item, score, metric, row``.

    Raises
    ------
    ValidationError
        One line naming the file: not parquet, no rows, a metric missing or not a number, a nested column
        without pyarrow.
"""


@constraints(threshold=Number(allow_none=True))
def read_lighteval(path_or_paths: Any, *, metric: str | dict | None = None, threshold: float | None = None,
                   model: str | None = None) -> pd.DataFrame:
    return _read(path_or_paths, "lighteval details", (_LIGHTEVAL_NAME,), metric, threshold, model)


@constraints(threshold=Number(allow_none=True))
def read_open_llm_leaderboard(path_or_paths: Any, *, metric: str | dict | None = None,
                              threshold: float | None = None, model: str | None = None) -> pd.DataFrame:
    return _read(path_or_paths, "Open LLM Leaderboard details", (_LIGHTEVAL_NAME, _V2_NAME), metric, threshold,
                 model)


read_lighteval.__doc__ = ("lighteval details (``details_<task>|<shots>_<date>.parquet``) as a long table: one row "
                          "per model and item.\n" + _READER_DOC)
read_open_llm_leaderboard.__doc__ = ("Open LLM Leaderboard v1 (lighteval schema) and v2 (lm-evaluation-harness "
                                     "records) details as a long table: one row per model and item.\n" + _READER_DOC)


def _metrics_listing(path_or_paths: Any, what: str, names: tuple[re.Pattern, ...]) -> pd.DataFrame:
    rows = []
    for f in _plan(path_or_paths, what, names, None):
        metrics, _ = _scores(f)
        default = _default_metric(f.task, list(metrics.columns))
        for m in metrics.columns:
            values = metrics[m].tolist()
            rows.append({"model": f.model, "task": f.task, "metric": m, "records": len(values),
                         "binary": all(v in (0.0, 1.0) for v in values), "default": m == default})
    return pd.DataFrame(rows, columns=["model", "task", "metric", "records", "binary", "default"])


def lighteval_metrics(path_or_paths: Any) -> pd.DataFrame:
    """The metrics each task's lighteval details carry (``--list-metrics``), the default marked.

    Parameters
    ----------
    path_or_paths : path or list of paths
        What :func:`read_lighteval` reads.

    Returns
    -------
    pandas.DataFrame
        One row per (model, task, metric): ``records``, ``binary``, ``default``.
    """
    return _metrics_listing(path_or_paths, "lighteval details", (_LIGHTEVAL_NAME,))


def open_llm_leaderboard_metrics(path_or_paths: Any) -> pd.DataFrame:
    """The metrics each task's Open LLM Leaderboard details carry (``--list-metrics``), the default marked.

    Parameters
    ----------
    path_or_paths : path or list of paths
        What :func:`read_open_llm_leaderboard` reads.

    Returns
    -------
    pandas.DataFrame
        One row per (model, task, metric): ``records``, ``binary``, ``default``.
    """
    return _metrics_listing(path_or_paths, "Open LLM Leaderboard details", (_LIGHTEVAL_NAME, _V2_NAME))
