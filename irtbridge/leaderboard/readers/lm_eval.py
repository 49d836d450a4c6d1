"""lm-evaluation-harness ``--log_samples`` output as a long table (one row per model and item).

Formats read (learned from the harness's ``lm_eval/evaluator.py``, ``lm_eval/__main__.py`` and
``lm_eval/loggers/evaluation_tracker.py``):

* **v0.4.3 and later**: ``<out>/<model>/samples_<task>_<timestamp>.jsonl``, JSON Lines, one record per
  (document, filter); the folder is the sanitized model name (``/`` becomes ``__``) and
  ``results_<timestamp>.json`` beside it carries ``model_name`` (used as the model's name where present)
  and ``group_subtasks`` (the ``group`` column). Records carry ``doc_id``, ``doc``, ``doc_hash`` and one key
  per metric (``acc``, ``acc_norm``, ``exact_match``, ``mc2``, ...); from v0.4.7 also ``filter`` (the filter's
  name) and ``metrics`` (the metric keys).
* **v0.4.0-v0.4.2**: ``<out>/<model_args>_<task>.jsonl`` holding one JSON array (despite the name), with
  ``results.json`` beside it; its ``configs`` name the tasks and ``config.model_args`` the model (the
  ``pretrained=`` value). These records have no ``doc_hash`` and no ``filter``.

A task with several filters (gsm8k: ``strict-match``, ``flexible-extract``) logs each document once per
filter; where records carry no ``filter`` key the k-th record of a ``doc_id`` belongs to the task's k-th
filter (the harness loops over filters outside its loop over documents), named ``#k`` here. A group (mmlu)
is one file per subtask; each subtask is a task here. The same task run twice for a model (two timestamps)
is read from the latest run, with one warning.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, replace
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
    first_char,
    json_array,
    json_document,
    json_lines,
    long_table,
    number,
    run_labels,
    warn_continuous,
    where,
)

__all__ = ["read_lm_eval", "lm_eval_metrics", "LM_EVAL_DEFAULT_METRICS", "LM_EVAL_TASK_METRICS"]

# the metric read when none is chosen: the task's own default below, else the first of these a task's records
# carry, else their first numeric metric
LM_EVAL_DEFAULT_METRICS = ("acc", "exact_match")
# Per-task defaults that follow the Open LLM Leaderboard (v1: acc_norm for ARC and HellaSwag, as tinyBenchmarks,
# Maia Polo et al. 2024, also reads them; v2: acc_norm for BBH, GPQA and MuSR, exact_match for MATH, the strict
# prompt-level accuracy for IFEval): the first entry whose key starts the task's name, where its records carry it.
LM_EVAL_TASK_METRICS: dict[str, tuple[str, ...]] = {
    "arc_challenge": ("acc_norm",),
    "arc_easy": ("acc_norm",),
    "hellaswag": ("acc_norm",),
    "tinyArc": ("acc_norm",),
    "tinyHellaswag": ("acc_norm",),
    "leaderboard_arc_challenge": ("acc_norm",),
    "leaderboard_bbh": ("acc_norm",),
    "leaderboard_gpqa": ("acc_norm",),
    "leaderboard_musr": ("acc_norm",),
    "leaderboard_math": ("exact_match",),
    "leaderboard_ifeval": ("prompt_level_strict_acc",),
    "leaderboard_mmlu_pro": ("acc",),
}
_SAMPLE_KEYS = frozenset({"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics",
                          "doc_hash", "prompt_hash", "target_hash"})
_NEW_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<stamp>\d{4}-\d\d-\d\dT[\d.\-]+)\.jsonl$")
EXTRA_COLUMNS = ("metric", "filter", "doc_id", "group", "limit")
_WHAT = "lm-evaluation-harness samples"


@dataclass(frozen=True)
class _SampleFile:
    path: Path
    model: str
    task: str
    stamp: str  # the run's timestamp ('' for the v0.4.0-v0.4.2 form)
    array: bool  # the v0.4.0-v0.4.2 one-JSON-array form
    group: str | None
    limit: float | None = None  # ``config.limit`` of the run's results_<stamp>.json: run with --limit


def _results_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("results_*.json"))


def _top_groups(results: list[dict]) -> dict[str, str]:
    """Each subtask's outermost group, from ``group_subtasks`` ({group: [subtasks]}; nested groups allowed)."""
    parent: dict[str, str] = {}
    for res in results:
        for group, subtasks in (res.get("group_subtasks") or {}).items():
            for sub in subtasks or []:
                if sub != group:
                    parent.setdefault(str(sub), str(group))
    top = {}
    for task in parent:
        g, seen = task, set()
        while g in parent and g not in seen:
            seen.add(g)
            g = parent[g]
        top[task] = g
    return top


def _limit(results: Any) -> float | None:
    """``config.limit`` of a results file (set by ``--limit``: a count, or a share when below 1), else None."""
    config = results.get("config") if isinstance(results, dict) else None
    return number(config.get("limit")) if isinstance(config, dict) else None


def _new_form(folder: Path, files: list[Path]) -> list[_SampleFile]:
    documents = {r.name[len("results_"):-len(".json")]: json_document(r) for r in _results_files(folder)}
    results = [r for r in documents.values() if isinstance(r, dict)]
    limits = {stamp: _limit(r) for stamp, r in documents.items()}
    names = sorted({str(r["model_name"]) for r in results if r.get("model_name")})
    if len(names) > 1:
        raise ValidationError(f"{where(folder)}: two models in one folder (its results_*.json files name "
                              f"{', '.join(map(repr, names))}); give each model its own folder")
    # the harness names the folder after model_name with "/" made "__": undo it, so a model is named the same
    # whether or not its results_*.json is there
    model = names[0] if names else folder.name.replace("__", "/")
    groups = _top_groups(results)
    out = []
    for f in files:
        m = _NEW_NAME.match(f.name)
        if not m:
            raise ValidationError(f"{where(f)}: not named samples_<task>_<timestamp>.jsonl as lm-evaluation-harness "
                                  "v0.4.3+ names its sample files")
        out.append(_SampleFile(f, model, m["task"], m["stamp"], False, groups.get(m["task"]), limits.get(m["stamp"])))
    return out


def _pretrained(model_args: str) -> str:
    for part in model_args.split(","):
        key, _, value = part.partition("=")
        if key.strip() == "pretrained" and value.strip():
            return value.strip()
    return model_args


def _array_form(folder: Path, files: list[Path]) -> list[_SampleFile]:
    results_path = folder / "results.json"
    if not results_path.is_file():
        raise ValidationError(f"{where(files[0])}: a v0.4.0-v0.4.2 sample file (one JSON array) needs the "
                              "results.json the harness wrote beside it, to name its model and task")
    res = json_document(results_path)
    config = res.get("config") if isinstance(res, dict) else None
    if not isinstance(config, dict) or not isinstance(res.get("configs"), dict):
        raise ValidationError(f"{where(results_path)}: has no 'config' and 'configs' as the harness writes them")
    model_args = str(config.get("model_args") or "")
    prefix = re.sub("/|=", "__", model_args)
    tasks = sorted(res["configs"], key=len, reverse=True)
    out = []
    for f in files:
        task = next((t for t in tasks if f.name == f"{prefix}_{t}.jsonl"), None)
        if task is None:
            raise ValidationError(f"{where(f)}: not a sample file of {where(results_path)} (expected "
                                  f"{prefix}_<task>.jsonl for one of its tasks); two models in one folder?")
        out.append(_SampleFile(f, _pretrained(model_args) or folder.name, task, "", True, None, _limit(res)))
    return out


def _plan(path_or_paths: Any) -> list[_SampleFile]:
    """The sample files to read, each with its model and task; the latest run of a repeated task only."""
    paths = as_paths(path_or_paths, "read_lm_eval")
    files = find_files(paths, lambda p: p.suffix == ".jsonl", "lm-evaluation-harness sample files (*.jsonl)")
    by_folder: dict[Path, list[Path]] = {}
    for f in files:
        by_folder.setdefault(f.parent, []).append(f)
    plan: list[_SampleFile] = []
    for folder, members in by_folder.items():
        kinds: dict[str, Path] = {}
        for f in members:
            c = first_char(f)
            if c not in ("[", "{"):
                raise ValidationError(f"{where(f, 1)}: " + ("empty file" if not c else
                                      "neither JSON Lines (v0.4.3+) nor a JSON array (v0.4.0-v0.4.2)"))
            kinds.setdefault(c, f)
        if len(kinds) > 1:
            raise ValidationError(f"{where(folder)}: mixed formats: {kinds['{'].name} is JSON Lines (v0.4.3+) and "
                                  f"{kinds['['].name} a JSON array (v0.4.0-v0.4.2); read them separately")
        plan.extend(_array_form(folder, members) if "[" in kinds else _new_form(folder, members))
    # one model's runs in separate folders stay apart (folders holding other tasks of it are one model)
    labels = run_labels({sf.path: sf.model for sf in plan}, tasks={sf.path: sf.task for sf in plan})
    plan = [replace(sf, model=labels[sf.path]) for sf in plan]
    return _latest(plan)


def _latest(plan: list[_SampleFile]) -> list[_SampleFile]:
    best: dict[tuple[str, str], _SampleFile] = {}
    dropped = []
    for sf in plan:
        key = (sf.model, sf.task)
        old = best.get(key)
        if old is None:
            best[key] = sf
            continue
        if sf.stamp == old.stamp:
            raise ValidationError(f"{where(sf.path)}: model {sf.model!r} task {sf.task!r} is also read from "
                                  f"{where(old.path)} (same run); give each path once")
        keep, drop = (sf, old) if sf.stamp > old.stamp else (old, sf)
        best[key] = keep
        dropped.append((keep, drop))
    if dropped:
        keep, drop = dropped[0]
        warnings.warn(f"{len(dropped)} task run(s) left out as older runs of the same model and task; the latest "
                      f"timestamp is read (e.g. {keep.model} {keep.task}: {keep.path.name} read, {drop.path.name} "
                      "left out)", DataWarning, stacklevel=find_stack_level())
    return [sf for sf in plan if best[(sf.model, sf.task)] is sf]


def _records(sf: _SampleFile):
    """``(place, record)`` pairs; the place is ``file:line`` (the line the record starts on, in an array)."""
    if not sf.array:
        for n, rec in json_lines(sf.path):
            yield where(sf.path, n), rec
        return
    for line, rec in json_array(sf.path):
        if not isinstance(rec, dict):
            raise ValidationError(f"{where(sf.path, line)}: expected a JSON object (a sample record)")
        yield where(sf.path, line), rec


def _metric_keys(rec: dict) -> list[str]:
    if isinstance(rec.get("metrics"), list):
        return [str(m) for m in rec["metrics"] if number(rec.get(m)) is not None]
    return [k for k, v in rec.items() if k not in _SAMPLE_KEYS and number(v) is not None]


def _per_task(option: Any, task: str) -> Any:
    if isinstance(option, dict):
        return option.get(task)
    return option


def _split_filters(sf: _SampleFile) -> dict[str, list[tuple[str, dict]]]:
    """The file's records by filter, in the order the filters first appear."""
    by_filter: dict[str, list[tuple[str, dict]]] = {}
    seen: dict[Any, int] = {}
    first: dict[Any, tuple[str, Any]] = {}
    n_records = 0
    for place, rec in _records(sf):
        n_records += 1
        if "doc_id" not in rec:
            raise ValidationError(f"{place}: record has no 'doc_id'")
        if "filter" in rec:
            name = str(rec["filter"])
        else:
            doc = _hashable(rec["doc_id"])
            k = seen.get(doc, 0)
            seen[doc] = k + 1
            name = f"#{k}"
            # a filter post-processes the model's one response: a repeat with another response is another run
            if k == 0:
                first[doc] = (place, rec.get("resps"))
            elif rec.get("resps") != first[doc][1]:
                raise ValidationError(f"{place}: doc_id {rec['doc_id']!r} is logged again with another response "
                                      f"than at {first[doc][0]} (records without a 'filter' key repeat a document "
                                      "only once per filter, with one response): two runs in one file? read each "
                                      "run once")
        by_filter.setdefault(name, []).append((place, rec))
    if not n_records:
        raise ValidationError(f"{where(sf.path, 1)}: no sample records")
    counts = set(seen.values())
    if len(counts) > 1:
        raise ValidationError(f"{where(sf.path)}: some documents are logged {min(counts)} time(s), others "
                              f"{max(counts)} (records without a 'filter' key repeat every document once per "
                              "filter): a repeated or truncated run? read each run once")
    return by_filter


def _hashable(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool)) or value is None else repr(value)


def _choose_filter(sf: _SampleFile, by_filter: dict, option: Any) -> str:
    names = list(by_filter)
    if option is None:
        return names[0]
    if isinstance(option, bool) or not isinstance(option, (int, str)):
        raise ValidationError(f"filter must be a filter name or a position (int), got {option!r}")
    if isinstance(option, int):
        if not 0 <= option < len(names):
            raise ValidationError(f"{where(sf.path)}: task {sf.task!r} has {len(names)} filter(s) "
                                  f"({', '.join(names)}); filter={option} is out of range")
        return names[option]
    if option not in by_filter:
        hint = " (its records predate the 'filter' key, v0.4.7: choose by position, e.g. filter=0)" \
            if all(n.startswith("#") for n in names) else ""
        raise ValidationError(f"{where(sf.path)}: task {sf.task!r} has no filter {option!r}; its filters are "
                              f"{', '.join(names)}{hint}")
    return option


def _choose_metric(sf: _SampleFile, records: list[tuple[str, dict]], option: Any) -> str:
    if option is not None:
        if not isinstance(option, str):
            raise ValidationError(f"metric must be a metric name (or a dict task -> name), got {option!r}")
        return option
    place, first = records[0]
    present = _metric_keys(first)
    own = next((v for k, v in LM_EVAL_TASK_METRICS.items() if sf.task.startswith(k)), ())
    for m in own + LM_EVAL_DEFAULT_METRICS:
        if m in present:
            return m
    if not present:
        raise ValidationError(f"{place}: record carries no numeric metric")
    return present[0]


def _item_of(place: str, rec: dict, task: str, item_id: str) -> str:
    if item_id == "doc_hash" and isinstance(rec.get("doc_hash"), str):
        return f"{task}/{rec['doc_hash'][:16]}"
    if item_id in ("doc_hash", "doc_id"):
        return f"{task}/{rec['doc_id']}"
    field = item_id[len("doc:"):]
    doc = rec.get("doc")
    value = doc.get(field) if isinstance(doc, dict) else None
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        raise ValidationError(f"{place}: the record's doc has no string or integer field {field!r} "
                              f"(item_id={item_id!r})")
    return f"{task}/{value}"


def _check_item_id(item_id: Any) -> str:
    if not isinstance(item_id, str) or not (item_id in ("doc_hash", "doc_id") or
                                            (item_id.startswith("doc:") and len(item_id) > 4)):
        raise ValidationError(f"item_id must be 'doc_hash', 'doc_id' or 'doc:<field>', got {item_id!r}")
    return item_id


def _read_file(sf: _SampleFile, rows: dict, metric: Any, filt: Any, item_id: str, threshold: float | None):
    by_filter = _split_filters(sf)
    option = _per_task(filt, sf.task)
    if not isinstance(filt, dict) and len(by_filter) == 1:
        option = None  # a filter chosen for every task applies where a task logs several
    chosen = _choose_filter(sf, by_filter, option)
    records = by_filter[chosen]
    name = _choose_metric(sf, records, _per_task(metric, sf.task))
    seen: dict[str, str] = {}
    scores = []
    for place, rec in records:
        if name not in rec:
            present = ", ".join(_metric_keys(rec)) or "none"
            raise ValidationError(f"{place}: record has no metric {name!r} (its metrics: {present}); choose one "
                                  "with metric=")
        value = number(rec[name])
        if value is None:
            raise ValidationError(f"{place}: metric {name!r} is {rec[name]!r}, not a finite number")
        item = _item_of(place, rec, sf.task, item_id)
        if item in seen:
            raise ValidationError(f"{place}: item {item!r} already read at {seen[item]} (same task and filter); "
                                  "choose another item_id, e.g. item_id='doc_id'")
        seen[item] = place
        scores.append(value)
        score = value if threshold is None else float(value >= threshold)
        for col, v in (("model", sf.model), ("task", sf.task), ("item", item), ("score", score), ("metric", name),
                       ("filter", chosen), ("doc_id", rec["doc_id"]), ("group", sf.group), ("limit", sf.limit)):
            rows[col].append(v)
    return name, all(s in (0.0, 1.0) for s in scores)


@constraints(threshold=Number(allow_none=True))
def read_lm_eval(path_or_paths: Any, *, metric: str | dict | None = None, filter: str | int | dict | None = None,
                 item_id: str = "doc_hash", threshold: float | None = None, model: str | None = None) -> pd.DataFrame:
    """lm-evaluation-harness ``--log_samples`` output as a long table: one row per model and item.

    Parameters
    ----------
    path_or_paths : path or list of paths
        Sample files, model folders (``<out>/<model>``) or output folders holding several model folders
        (searched recursively for ``*.jsonl``).
    metric : str or dict, optional
        The per-sample metric read as the score, for every task or as ``{task: metric}`` (a task not read
        is an error). Default: the task's entry of :data:`LM_EVAL_TASK_METRICS` (the Open LLM Leaderboard's
        choice: ``acc_norm`` for ARC and HellaSwag, ...), else ``acc`` where the records carry it, else
        ``exact_match``, else their first numeric metric (:func:`lm_eval_metrics` lists them).
    filter : str, int or dict, optional
        The filter read where a task logs several (gsm8k: ``strict-match``, ``flexible-extract``): a name, a
        position (0 = the task's first filter; records without a ``filter`` key, before v0.4.7, are chosen by
        position only), or ``{task: filter}``. Default: the task's first filter. A name or position given
        for every task applies to the tasks that log several filters; a task's own entry must exist.
    item_id : str, default "doc_hash"
        ``"doc_hash"`` (the first 16 hex digits of the record's ``doc_hash``; ``doc_id`` for files without
        one, before v0.4.3), ``"doc_id"``, or ``"doc:<field>"`` (a field of the record's ``doc``). The item is
        ``<task>/<id>``.
    threshold : float, optional
        None keeps the metric's values (``mc2`` and other non-0/1 metrics stay continuous, with one
        :class:`~irtbridge.exceptions.DataWarning`); a number binarises them: ``score = 1`` where
        ``value >= threshold``, else 0.
    model : str, optional
        The model's name when the paths hold one model (default: ``model_name`` of its ``results_*.json``,
        else the folder's name with ``__`` read as ``/``, as the harness wrote it). One model's runs in
        separate folders (ablations) are kept apart as ``name@<folder>``.

    Returns
    -------
    pandas.DataFrame
        Columns ``model, task, item, score, metric, filter, doc_id, group, limit`` (``group``: the subtask's
        group from ``results_*.json``, else missing; ``limit``: the run's ``config.limit`` in its
        ``results_<timestamp>.json`` when it was made with ``--limit``, else missing);
        :func:`irtbridge.leaderboard.responses_from_long` takes it.

    Raises
    ------
    ValidationError
        One line naming the file and line: a truncated or invalid JSON line, a record without the chosen
        metric, two models in one folder, mixed formats in one folder, an empty file or folder.
        Everything is checked before the table is returned.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "org__model"
    >>> out.mkdir()
    >>> lines = [{"doc_id": i, "doc": {}, "acc": float(i % 2)} for i in range(3)]
    >>> _ = (out / "samples_arc_2024-01-01T00-00-00.000001.jsonl").write_text(
    ...     "".join(json.dumps(r) + "\\n" for r in lines))
    >>> read_lm_eval(out)[["model", "task", "item", "score"]]
               model task   item  score
    0  org/model  arc  arc/0    0.0
    1  org/model  arc  arc/1    1.0
    2  org/model  arc  arc/2    0.0
    """
    item_id = _check_item_id(item_id)
    threshold = check_threshold(threshold)
    model = check_model(model)
    plan = _plan(path_or_paths)
    tasks = {sf.task for sf in plan}
    for option, value in (("metric", metric), ("filter", filter)):
        unknown = sorted(set(value) - tasks) if isinstance(value, dict) else []
        if unknown:
            raise ValidationError(f"{option}: task(s) {', '.join(map(repr, unknown[:5]))} are not read (the tasks: "
                                  f"{', '.join(sorted(tasks)[:10])})")
    if model is not None:
        models = sorted({sf.model for sf in plan})
        if len(models) > 1:
            raise ValidationError(f"model={model!r} names one model but the paths hold {len(models)}: "
                                  f"{', '.join(models[:5])}")
        plan = [_SampleFile(sf.path, str(model), sf.task, sf.stamp, sf.array, sf.group, sf.limit) for sf in plan]
    rows: dict[str, list] = {c: [] for c in ("model", "task", "item", "score", *EXTRA_COLUMNS)}
    continuous = []
    for sf in plan:
        name, binary = _read_file(sf, rows, metric, filter, item_id, threshold)
        if not binary and threshold is None:
            continuous.append(f"{sf.task} ({name})")
    warn_continuous(continuous, "task")
    return long_table(rows, EXTRA_COLUMNS, _WHAT)


def lm_eval_metrics(path_or_paths: Any) -> pd.DataFrame:
    """The metrics and filters each task's records carry, to choose ``metric=`` and ``filter=`` of :func:`read_lm_eval`.

    Parameters
    ----------
    path_or_paths : str, os.PathLike or sequence of them
        What :func:`read_lm_eval` reads.

    Returns
    -------
    pandas.DataFrame
        One row per (model, task, filter, metric): ``records`` (how many records carry it), ``binary``
        (all values 0/1) and ``default`` (what :func:`read_lm_eval` reads when nothing is chosen).

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "org__model"
    >>> out.mkdir()
    >>> lines = [{"doc_id": i, "doc": {}, "acc": 1.0, "acc_norm": 0.0} for i in range(2)]
    >>> _ = (out / "samples_arc_2024-01-01T00-00-00.000001.jsonl").write_text(
    ...     "".join(json.dumps(r) + "\\n" for r in lines))
    >>> lm_eval_metrics(out)[["task", "filter", "metric", "records", "default"]]
      task filter    metric  records  default
    0  arc     #0       acc        2     True
    1  arc     #0  acc_norm        2    False
    """
    rows = []
    for sf in _plan(path_or_paths):
        by_filter = _split_filters(sf)
        first_filter = next(iter(by_filter))
        for name, records in by_filter.items():
            default = _choose_metric(sf, records, None)
            counts: dict[str, list[float | None]] = {}  # None: not a number
            for _, rec in records:
                for m in _metric_keys(rec):
                    counts.setdefault(m, []).append(number(rec[m]))
            for m, values in counts.items():
                rows.append({"model": sf.model, "task": sf.task, "filter": name, "metric": m, "records": len(values),
                             "binary": all(v in (0.0, 1.0) for v in values),
                             "default": name == first_filter and m == default})
    return pd.DataFrame(rows, columns=["model", "task", "filter", "metric", "records", "binary", "default"])
