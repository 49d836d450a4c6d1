"""OpenCompass results with per-item details as a long table (one row per model and item).

Format read (learned from OpenCompass's ``opencompass/openicl/icl_evaluator/icl_base_evaluator.py``,
``icl_hf_evaluator.py`` and ``opencompass/tasks/openicl_eval.py``): OpenCompass writes
``<work_dir>/<time>/results/<model abbr>/<dataset abbr>.json``, one JSON object holding the dataset's metrics
(``accuracy``, ...) and, where the evaluator keeps them, ``details``: a list (or, from older evaluators, an
object keyed ``"0"``, ``"1"``, ...) of one record per item. A record says whether the answer was right in
``correct``, ``is_correct`` or ``cascade_correct`` (a boolean, or a list of booleans, one per replica when the
dataset was run ``n`` times); its item id is ``example_abbr`` where present, else its key or position. The
model is the folder's name, the task the file's name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from irtbridge._constraints import Number, constraints
from irtbridge.exceptions import ValidationError
from irtbridge.leaderboard.readers._common import (
    as_paths,
    check_threshold,
    find_files,
    json_document,
    long_table,
    number,
    warn_continuous,
    where,
)

__all__ = ["read_opencompass", "OPENCOMPASS_CORRECT_KEYS"]

# the per-item keys OpenCompass's evaluators use for "the answer was right", in the order they are looked for
OPENCOMPASS_CORRECT_KEYS = ("correct", "is_correct", "cascade_correct")
EXTRA_COLUMNS = ("metric", "replicas")
_WHAT = "OpenCompass results"


def _wanted(p: Path) -> bool:
    return p.suffix == ".json" and p.parent.parent.name == "results"


def _records(path: Path) -> list[tuple[str, Any]]:
    doc = json_document(path)
    if not isinstance(doc, dict):
        raise ValidationError(f"{where(path, 1)}: expected a JSON object (an OpenCompass result)")
    details = doc.get("details")
    if details is None:
        raise ValidationError(f"{where(path)}: no 'details' (per-item records); run OpenCompass with an evaluator "
                              "that keeps them")
    if isinstance(details, dict):
        return [(str(k), v) for k, v in details.items()]
    if isinstance(details, list):
        return [(str(i), v) for i, v in enumerate(details)]
    raise ValidationError(f"{where(path)}: 'details' is neither a list nor an object")


def _value(place: str, rec: dict, key: str) -> tuple[float, int]:
    raw = rec.get(key)
    values = raw if isinstance(raw, list) else [raw]
    numbers = [number(v) for v in values]
    if not values or any(v is None for v in numbers):
        raise ValidationError(f"{place}: {key!r} is {raw!r}, not a boolean or number (or a list of them)")
    return sum(numbers) / len(numbers), len(numbers)  # type: ignore[arg-type]


@constraints(threshold=Number(allow_none=True))
def read_opencompass(path_or_paths: Any, *, metric: str | dict | None = None,
                     threshold: float | None = None) -> pd.DataFrame:
    """OpenCompass ``results/<model>/<dataset>.json`` files with ``details`` as a long table.

    Parameters
    ----------
    path_or_paths : path or list of paths
        Result files, or folders holding ``results/<model>/<dataset>.json`` (searched recursively).
    metric : str or dict, optional
        The per-item key read as the score, for every dataset or as ``{dataset: key}``. Default: the first
        of :data:`OPENCOMPASS_CORRECT_KEYS` the records carry.
    threshold : float, optional
        Binarise: ``score = 1`` where the value is at least ``threshold``, else 0 (a list over replicas is
        first averaged).

    Returns
    -------
    pandas.DataFrame
        Columns ``model, task, item, score, metric, replicas``; the item is ``<dataset>/<id>``.

    Raises
    ------
    ValidationError
        One line naming the file and record: invalid JSON, no ``details``, a record without the key or
        with a value that is not a boolean or number.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp()) / "results" / "llama-7b"
    >>> folder.mkdir(parents=True)
    >>> _ = (folder / "ceval.json").write_text(json.dumps({"accuracy": 50.0, "details": {
    ...     "0": {"pred": "A", "answer": "A", "correct": True}, "1": {"pred": "B", "answer": "C", "correct": False}}}))
    >>> read_opencompass(folder.parent)[["model", "task", "item", "score"]]
          model   task     item  score
    0  llama-7b  ceval  ceval/0    1.0
    1  llama-7b  ceval  ceval/1    0.0
    """
    threshold = check_threshold(threshold)
    paths = as_paths(path_or_paths, "read_opencompass")
    files = find_files(paths, _wanted, "OpenCompass results (results/<model>/<dataset>.json)")
    tasks = {f.stem for f in files}
    unknown = sorted(set(metric) - tasks) if isinstance(metric, dict) else []
    if unknown:
        raise ValidationError(f"metric: dataset(s) {', '.join(map(repr, unknown[:5]))} are not read (the datasets: "
                              f"{', '.join(sorted(tasks)[:10])})")
    rows: dict[str, list] = {c: [] for c in ("model", "task", "item", "score", *EXTRA_COLUMNS)}
    continuous = []
    for f in files:
        model, task = f.parent.name, f.stem
        records = _records(f)
        if not records:
            raise ValidationError(f"{where(f)}: 'details' is empty")
        chosen = metric.get(task) if isinstance(metric, dict) else metric
        if chosen is not None and not isinstance(chosen, str):
            raise ValidationError(f"metric must be a per-item key (or a dict dataset -> key), got {chosen!r}")
        binary = True
        for key, rec in records:
            place = f"{where(f)}: details[{key}]"
            if not isinstance(rec, dict):
                raise ValidationError(f"{place} is not an object")
            name = chosen or next((k for k in OPENCOMPASS_CORRECT_KEYS if k in rec), None)
            if name is None or name not in rec:
                raise ValidationError(f"{place} has no {name or ' or '.join(OPENCOMPASS_CORRECT_KEYS)!r}; choose "
                                      "the per-item key with metric=")
            value, replicas = _value(place, rec, name)
            if threshold is not None:
                value = float(value >= threshold)
            binary = binary and value in (0.0, 1.0)
            item = str(rec["example_abbr"]) if isinstance(rec.get("example_abbr"), (str, int)) else key
            for col, v in (("model", model), ("task", task), ("item", f"{task}/{item}"), ("score", value),
                           ("metric", name), ("replicas", replicas)):
                rows[col].append(v)
        if not binary:
            continuous.append(task)
    warn_continuous(continuous, "dataset")
    return long_table(rows, EXTRA_COLUMNS, _WHAT)
