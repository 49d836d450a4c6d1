"""HELM run folders (``per_instance_stats.json``) as a long table (one row per model and item).

Format read (learned from HELM's ``src/helm/benchmark/runner.py``, ``metrics/metric.py``,
``metrics/statistic.py``, ``metrics/metric_name.py`` and ``common/general.py``): HELM writes
``benchmark_output/runs/<suite>/<run name>/per_instance_stats.json``, a JSON array of
``asdict_without_nones(PerInstanceStats)``: ``instance_id``, ``perturbation`` (left out when None),
``train_trial_index`` and ``stats``, each stat a ``Stat`` (``name`` = ``{"name", "split", "sub_split"?,
"perturbation"?}``, ``count``, ``sum``, ``sum_squared``, ``min``, ``max``, ``mean``, ``variance``, ``stddev``).
Several metrics of one run each write their own record for the same instance and trial; they are read
together. The run name is ``<scenario>:<arg>=<value>,...,model=<org>_<model>,...`` (HELM's
``ModelRunExpander`` appends ``model=`` with ``/`` made ``_``); the model is that value, the task is the run
name without it, and the item is ``<task>/<instance_id>``. This holds for HELM's releases since v0.2 (the
schema above has not changed since per-instance stats were added).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from irtbridge._constraints import Flag, Number, constraints
from irtbridge.exceptions import ValidationError
from irtbridge.leaderboard.readers._common import (
    as_paths,
    check_threshold,
    find_files,
    json_array,
    long_table,
    number,
    run_labels,
    warn_continuous,
    where,
)

__all__ = ["read_helm", "HELM_MAIN_METRICS"]

# The main metric of common scenarios (the run name's part before ':'), after the main_name of the run groups in
# HELM's schema_lite.yaml / schema_classic.yaml; where a scenario's main metric changed between releases, the
# first name a run carries is read. Other scenarios: exact_match, else quasi_exact_match.
HELM_MAIN_METRICS: dict[str, tuple[str, ...]] = {
    "mmlu": ("exact_match",),
    "commonsense": ("exact_match",),  # hellaswag, openbookqa
    "truthful_qa": ("exact_match",),
    "blimp": ("exact_match",),
    "thai_exam": ("exact_match",),
    "boolq": ("quasi_exact_match",),
    "imdb": ("quasi_exact_match",),
    "raft": ("quasi_exact_match",),
    "civil_comments": ("quasi_exact_match",),
    "bbq": ("quasi_exact_match",),
    "babi_qa": ("quasi_exact_match",),
    "lsat_qa": ("quasi_exact_match",),
    "legal_support": ("quasi_exact_match",),
    "legalbench": ("quasi_exact_match",),
    "med_qa": ("quasi_exact_match",),
    "entity_matching": ("quasi_exact_match",),
    "entity_data_imputation": ("quasi_exact_match",),
    "synthetic_reasoning": ("quasi_exact_match",),
    "gsm": ("final_number_exact_match", "exact_match_indicator"),
    "math": ("math_equiv_chain_of_thought", "math_equiv"),
    "dyck_language": ("exact_match_indicator",),
    "narrative_qa": ("f1_score",),
    "natural_qa": ("f1_score",),
    "quac": ("f1_score",),
    "synthetic_reasoning_natural": ("f1_set_match",),
    "wmt_14": ("bleu_4",),
}
_FALLBACK = ("exact_match", "quasi_exact_match")
EXTRA_COLUMNS = ("metric", "split", "instance_id", "perturbation")
_WHAT = "HELM per-instance stats"


def _parse_run(folder: Path) -> tuple[str, str, str]:
    """``(scenario, task, model)`` of a run folder's name ``scenario:k=v,...,model=org_model,...``."""
    name = folder.name
    scenario, sep, args = name.partition(":")
    parts = [p for p in args.split(",") if p] if sep else []
    models = [p[len("model="):] for p in parts if p.startswith("model=")]
    if not sep or len(models) != 1 or not models[0]:
        raise ValidationError(f"{where(folder)}: not a HELM run folder named <scenario>:<args>,model=<org_model> "
                              "(the model is read from the name)")
    rest = [p for p in parts if not p.startswith("model=")]
    task = f"{scenario}:{','.join(rest)}" if rest else scenario
    return scenario, task, models[0]


def _check_record(place: str, n: int, rec: Any) -> None:
    if not isinstance(rec, dict):
        raise ValidationError(f"{place}: record {n} is not a JSON object")
    for key, kind in (("instance_id", str), ("train_trial_index", int), ("stats", list)):
        if not isinstance(rec.get(key), kind) or isinstance(rec.get(key), bool):
            raise ValidationError(f"{place}: record {n} has no {kind.__name__} {key!r} (a PerInstanceStats "
                                  "record has instance_id, train_trial_index and stats)")
    for j, stat in enumerate(rec["stats"], start=1):
        name = stat.get("name") if isinstance(stat, dict) else None
        if not isinstance(name, dict) or not isinstance(name.get("name"), str):
            raise ValidationError(f"{place}: record {n} (instance {rec['instance_id']!r}) stat {j} has no "
                                  "name.name")


def _perturbation(rec: dict) -> str | None:
    p = rec.get("perturbation")
    if p is None:
        return None
    return str(p.get("name", p)) if isinstance(p, dict) else str(p)


def _stats_by_unit(path: Path, records: list, perturbations: bool) -> dict[tuple, list]:
    """``(instance_id, perturbation, trial) -> [(place, stat), ...]`` over the kept records.

    The place is ``file:line: record n``, the line where the record starts.
    """
    units: dict[tuple, list] = {}
    for n, (line, rec) in enumerate(records, start=1):
        _check_record(where(path, line), n, rec)
        pert = _perturbation(rec)
        if pert is not None and not perturbations:
            continue
        key = (rec["instance_id"], pert, rec["train_trial_index"])
        place = f"{where(path, line)}: record {n}"
        units.setdefault(key, []).extend((place, s) for s in rec["stats"])
    return units


def _choose_metric(path: Path, scenario: str, task: str, units: dict, option: Any) -> str:
    if isinstance(option, dict):
        option = option.get(task, option.get(scenario))
    if option is not None:
        if not isinstance(option, str):
            raise ValidationError(f"metric must be a stat name (or a dict scenario/task -> name), got {option!r}")
        return option
    present = {s["name"]["name"] for stats in units.values() for _, s in stats}
    for m in HELM_MAIN_METRICS.get(scenario, ()) + _FALLBACK:
        if m in present:
            return m
    raise ValidationError(f"{where(path)}: no main metric known for scenario {scenario!r} and neither "
                          f"{' nor '.join(_FALLBACK)} present; choose one with metric= (its stats: "
                          f"{', '.join(sorted(present)[:12])})")


def _value(path: Path, key: tuple, stats: list, metric: str, split: str | None) -> tuple[float, str | None] | None:
    """The instance's value of ``metric`` and its split; None when ``split`` is chosen and the stat is on another."""
    named = [(p, s) for p, s in stats if s["name"]["name"] == metric]
    hits = [(p, s) for p, s in named if split is None or s["name"].get("split") == split]
    if named and not hits:
        return None
    if not hits:
        place = stats[0][0] if stats else where(path)
        raise ValidationError(f"{place} (instance {key[0]!r}, trial {key[2]}) has no stat "
                              f"{metric!r}; choose one with metric=")
    place, stat = hits[0]
    values = {number(s.get("mean")) for _, s in hits}
    value = number(stat.get("mean"))
    if value is None or len(values) > 1:
        raise ValidationError(f"{place} (instance {key[0]!r}) stat {metric!r} has mean "
                              f"{stat.get('mean')!r}" + (" and other values in other records" if len(values) > 1
                                                         else ", not a finite number"))
    return value, stat["name"].get("split")


def _read_run(path: Path, rows: dict, opts: dict, model: str) -> str | None:
    """Append the run's rows; return ``"task (metric)"`` when its scores are not all 0/1 (kept continuous)."""
    scenario, task, _ = _parse_run(path.parent)
    records = json_array(path)
    if not records:
        raise ValidationError(f"{where(path, 1)}: no per-instance records")
    units = _stats_by_unit(path, records, opts["perturbations"])
    metric = _choose_metric(path, scenario, task, units, opts["metric"])
    trial = opts["trial"]
    if trial != "mean" and not any(k[2] == trial for k in units):
        raise ValidationError(f"{where(path)}: no record of train_trial_index {trial} (its trials: "
                              f"{', '.join(map(str, sorted({k[2] for k in units})))})")
    picked: dict[tuple, list] = {}
    for key, stats in units.items():
        if trial != "mean" and key[2] != trial:
            continue
        found = _value(path, key, stats, metric, opts["split"])
        if found is not None:
            picked.setdefault((key[0], key[1]), []).append(found)
    if not picked:
        why = f"none on split {opts['split']!r}" if opts["split"] else "all perturbed? pass perturbations=True"
        raise ValidationError(f"{where(path)}: no instance left to read ({why})")
    binary = True
    for (instance, pert), values in picked.items():
        value = sum(v for v, _ in values) / len(values)
        if opts["threshold"] is not None:
            value = float(value >= opts["threshold"])
        binary = binary and value in (0.0, 1.0)
        item = f"{task}/{instance}" + (f"/{pert}" if pert is not None else "")
        for col, v in (("model", model), ("task", task), ("item", item), ("score", value), ("metric", metric),
                       ("split", values[0][1]), ("instance_id", instance), ("perturbation", pert)):
            rows[col].append(v)
    return None if binary else f"{task} ({metric})"


@constraints(threshold=Number(allow_none=True), perturbations=Flag())
def read_helm(path_or_paths: Any, *, metric: str | dict | None = None, split: str | None = None,
              trial: int | str = 0, perturbations: bool = False, threshold: float | None = None) -> pd.DataFrame:
    """HELM run folders as a long table: one row per model and item.

    Parameters
    ----------
    path_or_paths : path or list of paths
        ``per_instance_stats.json`` files, run folders, or suite folders holding run folders (searched
        recursively for ``per_instance_stats.json``).
    metric : str or dict, optional
        The per-instance stat read as the score (its ``mean``), for every run or as ``{scenario or task:
        name}``. Default: the scenario's main metric in :data:`HELM_MAIN_METRICS` (after HELM's own schema:
        ``exact_match`` for mmlu, ``quasi_exact_match`` for boolq, ``f1_score`` for narrative_qa, ...), else
        ``exact_match``, else ``quasi_exact_match``.
    split : str, optional
        Read only the instances of this split (``"test"``, ``"valid"``); default every split.
    trial : int or "mean", default 0
        The ``train_trial_index`` read (HELM repeats a run with other in-context examples), or ``"mean"``:
        the mean over trials (then scores are shares, not 0/1).
    perturbations : bool, default False
        Also read perturbed instances (robustness and fairness variants), each its own item
        ``<task>/<instance_id>/<perturbation name>``; by default they are left out.
    threshold : float, optional
        None keeps the stat's values (``f1_score`` stays continuous); a number binarises them:
        ``score = 1`` where ``value >= threshold``, else 0.

    Returns
    -------
    pandas.DataFrame
        Columns ``model, task, item, score, metric, split, instance_id, perturbation``;
        :func:`irtbridge.leaderboard.responses_from_long` takes it.

    Raises
    ------
    ValidationError
        One line naming the file (and line or record): invalid JSON, a record without ``instance_id`` or
        ``stats``, an instance without the chosen metric, a folder not named as HELM names runs, an empty
        folder. Everything is checked before the table is returned.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> run = pathlib.Path(tempfile.mkdtemp()) / "boolq:model=openai_gpt2"
    >>> run.mkdir()
    >>> stat = lambda v: {"name": {"name": "quasi_exact_match", "split": "test"}, "count": 1, "sum": v,
    ...                   "sum_squared": v, "min": v, "max": v, "mean": v, "variance": 0.0, "stddev": 0.0}
    >>> recs = [{"instance_id": f"id{i}", "train_trial_index": 0, "stats": [stat(float(i))]} for i in (0, 1)]
    >>> _ = (run / "per_instance_stats.json").write_text(json.dumps(recs, indent=2))
    >>> read_helm(run)[["model", "task", "item", "score"]]
             model   task       item  score
    0  openai_gpt2  boolq  boolq/id0    0.0
    1  openai_gpt2  boolq  boolq/id1    1.0
    """
    if trial != "mean" and (isinstance(trial, bool) or not isinstance(trial, int) or trial < 0):
        raise ValidationError(f"trial must be a train_trial_index (an int >= 0) or 'mean', got {trial!r}")
    if not isinstance(perturbations, bool):
        raise ValidationError(f"perturbations must be True or False, got {perturbations!r}")
    if split is not None and not isinstance(split, str):
        raise ValidationError(f"split must be a split name or None, got {split!r}")
    opts = {"metric": metric, "split": split, "trial": trial, "perturbations": bool(perturbations),
            "threshold": check_threshold(threshold)}
    paths = as_paths(path_or_paths, "read_helm")
    paths = [p / "per_instance_stats.json" if (p / "per_instance_stats.json").is_file() else p for p in paths]
    files = find_files(paths, lambda p: p.name == "per_instance_stats.json",
                       "HELM per_instance_stats.json files")
    for f in files:
        if f.name != "per_instance_stats.json":
            raise ValidationError(f"{where(f)}: not a HELM per_instance_stats.json file")
    # one model's runs in separate suites (ablations) stay apart: the suite folder is the run
    labels = run_labels({f: _parse_run(f.parent)[2] for f in files}, lambda f: f.parent.parent,
                        {f: _parse_run(f.parent)[1] for f in files})
    runs: dict[tuple[str, str], Path] = {}
    for f in files:
        other = runs.setdefault((labels[f], f.parent.name), f)
        if other is not f:
            raise ValidationError(f"{where(f)}: run {f.parent.name!r} is also read from {where(other)}; "
                                  "give each run once")
    rows: dict[str, list] = {c: [] for c in ("model", "task", "item", "score", *EXTRA_COLUMNS)}
    continuous = [c for c in (_read_run(f, rows, opts, labels[f]) for f in files) if c is not None]
    warn_continuous(continuous, "run")
    return long_table(rows, EXTRA_COLUMNS, _WHAT)
