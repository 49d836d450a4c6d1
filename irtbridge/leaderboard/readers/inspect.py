"""Inspect AI evaluation logs (``.eval`` and ``.json``) as a long table (one row per model and sample).

Format read (learned from Inspect AI's ``src/inspect_ai/log/_log.py``, ``log/_recorders/eval.py`` and
``scorer/_metric.py``, log version 2):

* ``.eval``: a zip holding ``header.json`` (``eval``: ``task``, ``model``, ``config``, ``scorers``; written
  when the run ends, ``_journal/start.json`` before) and one ``samples/<id>_epoch_<n>.json`` per sample
  and epoch;
* ``.json``: one object with the same ``eval`` and a ``samples`` list (present when the run logged samples).

A sample carries ``id``, ``epoch`` and ``scores`` (``{scorer: {"value": ..., "answer": ...}}``). A value
becomes a number as Inspect's ``value_to_float`` makes it one: numbers and booleans as they are; ``"C"``
(correct) 1, ``"P"`` (partial) 0.5, ``"I"`` (incorrect) and ``"N"`` (no answer) 0; the strings
``yes``/``true`` 1 and ``no``/``false`` 0; a numeric string its number. Where Inspect would warn and count 0
(a list, an unknown string), this reader refuses the sample, naming it. An item answered over several
epochs is one item: by default its score is the mean over the epochs (Inspect's default
``epochs_reducer``, ``mean``), the value Inspect's own reducer stored (``epoch="reduced"``), or the score
of one chosen epoch (``epoch=2``).
"""

from __future__ import annotations

import json
import math
import warnings
import zipfile
from pathlib import Path
from typing import Any, Iterator

import pandas as pd

from irtbridge._constraints import Number, constraints
from irtbridge.exceptions import DataWarning, ValidationError, find_stack_level
from irtbridge.leaderboard.readers._common import (
    as_paths,
    check_model,
    check_threshold,
    find_files,
    json_document,
    long_table,
    run_labels,
    warn_continuous,
    where,
)

__all__ = ["read_inspect", "inspect_value", "inspect_metrics"]

EXTRA_COLUMNS = ("metric", "epochs", "sample_id", "log")
_WHAT = "Inspect AI logs"
_LETTERS = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}


def inspect_value(value: Any) -> float | None:
    """A score value as a number, as Inspect's ``value_to_float`` maps it; None where Inspect cannot.

    Parameters
    ----------
    value : Any
        A sample score's ``value``.

    Returns
    -------
    float or None
        ``C`` 1, ``P`` 0.5, ``I`` and ``N`` 0, numbers and booleans as they are, ``yes``/``true`` 1,
        ``no``/``false`` 0, numeric strings their number; None for anything else and non-finite numbers.

    Examples
    --------
    >>> [inspect_value(v) for v in ("C", "I", "P", "N", True, 0.25, "yes", "1.5", "maybe")]
    [1.0, 0.0, 0.5, 0.0, 1.0, 0.25, 1.0, 1.5, None]
    """
    if isinstance(value, (bool, int, float)):
        v = float(value)
        return v if math.isfinite(v) else None
    if not isinstance(value, str):
        return None
    if value in _LETTERS:
        return _LETTERS[value]
    low = value.strip().lower()
    if low in ("yes", "true"):
        return 1.0
    if low in ("no", "false"):
        return 0.0
    try:
        v = float(low)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def _is_log(p: Path) -> bool:
    if p.suffix == ".eval":
        return True
    if p.suffix != ".json":
        return False
    with open(p, "rb") as fh:
        head = fh.read(400).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"{") and b'"version"' in head


def _zip_json(z: zipfile.ZipFile, name: str, path: Path) -> Any:
    try:
        return json.loads(z.read(name).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValidationError(f"{where(path)}: member {name} is not valid JSON ({exc})") from None


def _log(path: Path) -> tuple[Any, Iterator[tuple[str, Any]]]:
    """The log's ``eval`` header and its ``(place, sample)`` pairs."""
    if path.suffix == ".eval":
        try:
            z = zipfile.ZipFile(path)
        except (OSError, zipfile.BadZipFile):
            raise ValidationError(f"{where(path)}: not an Inspect .eval log (not a zip file)") from None
        names = z.namelist()
        head_name = "header.json" if "header.json" in names else "_journal/start.json"
        if head_name not in names:
            raise ValidationError(f"{where(path)}: no header.json or _journal/start.json (not an Inspect log?)")
        header = _zip_json(z, head_name, path)
        members = sorted((n for n in names if n.startswith("samples/") and n.endswith(".json")))

        def samples() -> Iterator[tuple[str, Any]]:
            with z:
                for n in members:
                    yield f"{where(path)}:{n}", _zip_json(z, n, path)
        return header.get("eval") if isinstance(header, dict) else None, samples()
    doc = json_document(path)
    if not isinstance(doc, dict):
        raise ValidationError(f"{where(path, 1)}: expected a JSON object (an Inspect log)")
    listed = doc.get("samples")
    if listed is None:
        raise ValidationError(f"{where(path)}: the log has no samples (run Inspect with samples logged)")
    if not isinstance(listed, list):
        raise ValidationError(f"{where(path)}: 'samples' is not a list")
    return doc.get("eval"), ((f"{where(path)}: sample {i + 1}", s) for i, s in enumerate(listed))


def _eval_header(path: Path) -> Any:
    """The ``eval`` header of a log alone (an .eval's zip closed again at once)."""
    if path.suffix != ".eval":
        return _log(path)[0]
    try:
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            head_name = "header.json" if "header.json" in names else "_journal/start.json"
            if head_name not in names:
                raise ValidationError(f"{where(path)}: no header.json or _journal/start.json (not an Inspect log?)")
            header = _zip_json(z, head_name, path)
    except (OSError, zipfile.BadZipFile):
        raise ValidationError(f"{where(path)}: not an Inspect .eval log (not a zip file)") from None
    return header.get("eval") if isinstance(header, dict) else None


def _reductions(path: Path, scorer: str) -> dict[str, float]:
    """Inspect's own reduced value of each sample for ``scorer`` (its ``reductions``), as numbers."""
    if path.suffix == ".eval":
        with zipfile.ZipFile(path) as z:
            listed = _zip_json(z, "reductions.json", path) if "reductions.json" in z.namelist() else None
    else:
        doc = json_document(path)
        listed = doc.get("reductions") if isinstance(doc, dict) else None
    entry = next((r for r in listed or [] if isinstance(r, dict) and r.get("scorer") == scorer), None)
    if entry is None:
        raise ValidationError(f"{where(path)}: no reductions for scorer {scorer!r} (the log was not reduced, or "
                              "the run has not ended); choose epoch='mean' or an epoch")
    out = {}
    for r in entry.get("samples") or []:
        value = inspect_value(r.get("value")) if isinstance(r, dict) else None
        if value is None or "sample_id" not in r:
            raise ValidationError(f"{where(path)}: a reduction of scorer {scorer!r} is not a sample_id and a number")
        out[str(r["sample_id"])] = value
    return out


def _header(path: Path, header: Any) -> tuple[str, str, list[str]]:
    if not (isinstance(header, dict) and isinstance(header.get("task"), str) and isinstance(header.get("model"), str)):
        raise ValidationError(f"{where(path)}: the log's eval has no 'task' and 'model' (not an Inspect log?)")
    scorers = [s.get("name") for s in header.get("scorers") or [] if isinstance(s, dict)]
    return header["task"], header["model"], [str(s) for s in scorers if s]


def _choose_scorer(place: str, scores: dict, option: Any, scorers: list[str]) -> str:
    if option is not None:
        if not isinstance(option, str):
            raise ValidationError(f"metric must be a scorer name (or a dict task -> name), got {option!r}")
        return option
    for s in scorers:
        if s in scores:
            return s
    return next(iter(scores))


def _score(place: str, sample: dict, scorer: str) -> float:
    scores = sample["scores"]
    key = None
    if scorer not in scores and "/" in scorer:
        scorer, key = scorer.rsplit("/", 1)
    if scorer not in scores:
        raise ValidationError(f"{place}: no score {scorer!r} (its scores: {', '.join(map(str, scores))}); choose one "
                              "with metric=")
    entry = scores[scorer]
    value = entry.get("value") if isinstance(entry, dict) else entry
    if isinstance(value, dict):
        if key is None or key not in value:
            raise ValidationError(f"{place}: score {scorer!r} holds several values ({', '.join(map(str, value))}); "
                                  f"choose one with metric='{scorer}/<key>'")
        value = value[key]
    got = inspect_value(value)
    if got is None:
        raise ValidationError(f"{place}: score {scorer!r} value {value!r} is not a number, C/I/P/N, yes/no or "
                              "true/false (Inspect would count it 0 with a warning)")
    return got


def _check_epoch(epoch: Any) -> Any:
    if epoch in ("mean", "reduced"):
        return epoch
    if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
        raise ValidationError(f"epoch must be 'mean', 'reduced' or an epoch number (1, 2, ...), got {epoch!r}")
    return epoch


def _read_log(path: Path, model: str, rows: dict, opts: dict) -> tuple[str, bool, int]:
    """Append one log's rows; return ``(task (scorer), all scores 0/1, samples left out unscored)``."""
    header, samples = _log(path)
    task, _, scorers = _header(path, header)
    per_item: dict[str, list[tuple[int, float]]] = {}
    scorer = None
    unscored = 0
    n = 0
    for place, sample in samples:
        n += 1
        if not isinstance(sample, dict) or "id" not in sample:
            raise ValidationError(f"{place}: not an Inspect sample (no 'id')")
        if not sample.get("scores"):
            unscored += 1  # an errored or cancelled sample: Inspect leaves it unscored too
            continue
        if not isinstance(sample["scores"], dict):
            raise ValidationError(f"{place}: 'scores' is not an object")
        option = opts["metric"].get(task) if isinstance(opts["metric"], dict) else opts["metric"]
        scorer = scorer or _choose_scorer(place, sample["scores"], option, scorers)
        epoch = sample.get("epoch", 1)
        if isinstance(epoch, bool) or not isinstance(epoch, int):
            raise ValidationError(f"{place}: 'epoch' is {epoch!r}, not an integer")
        per_item.setdefault(str(sample["id"]), []).append((epoch, _score(place, sample, scorer)))
    if not n:
        raise ValidationError(f"{where(path)}: the log holds no samples")
    if not per_item:
        raise ValidationError(f"{where(path)}: no sample has a score (was the run scored?)")
    binary = True
    reduced = _reductions(path, str(scorer)) if opts["epoch"] == "reduced" else {}
    for sample_id, values in per_item.items():
        epochs = sorted(e for e, _ in values)
        if len(set(epochs)) != len(epochs):
            raise ValidationError(f"{where(path)}: sample {sample_id!r} is logged twice for one epoch")
        if opts["epoch"] == "reduced":
            if sample_id not in reduced:
                raise ValidationError(f"{where(path)}: sample {sample_id!r} has no reduction of scorer {scorer!r}")
            value = reduced[sample_id]
        elif opts["epoch"] == "mean":
            value = sum(v for _, v in values) / len(values)
        else:
            hit = [v for e, v in values if e == opts["epoch"]]
            if not hit:
                raise ValidationError(f"{where(path)}: sample {sample_id!r} has no epoch {opts['epoch']} (its "
                                      f"epochs: {', '.join(map(str, epochs))})")
            value = hit[0]
        if opts["threshold"] is not None:
            value = float(value >= opts["threshold"])
        binary = binary and value in (0.0, 1.0)
        for col, v in (("model", model), ("task", task), ("item", f"{task}/{sample_id}"), ("score", value),
                       ("metric", scorer), ("epochs", len(values)), ("sample_id", sample_id), ("log", path.name)):
            rows[col].append(v)
    return f"{task} ({scorer})", binary, unscored


@constraints(threshold=Number(allow_none=True))
def read_inspect(path_or_paths: Any, *, metric: str | dict | None = None, epoch: int | str = "mean",
                 threshold: float | None = None, model: str | None = None) -> pd.DataFrame:
    """Inspect AI logs as a long table: one row per model and sample (an item).

    Parameters
    ----------
    path_or_paths : path or list of paths
        ``.eval`` or ``.json`` log files, or folders holding them (searched recursively).
    metric : str or dict, optional
        The scorer read (``"match"``, ``"choice"``, ...), for every task or as ``{task: scorer}``; a scorer
        whose value is a dict takes ``"scorer/key"``. Default: the log's first scorer.
    epoch : "mean", "reduced" or int, default "mean"
        ``"mean"``: an item's score is its mean over the epochs (Inspect's default reducer); ``"reduced"``:
        the value Inspect's own reducer stored in the log (``reductions``: ``mode``, ``max``, ``pass_at_k``,
        ... as the run chose); a number: that epoch's score only (1 is the first).
    threshold : float, optional
        Binarise: ``score = 1`` where the value is at least ``threshold``, else 0.
    model : str, optional
        The model's name where the logs hold one model (default the log's ``model``, e.g. ``openai/gpt-4o``).

    Returns
    -------
    pandas.DataFrame
        Columns ``model, task, item, score, metric, epochs, sample_id, log``; the item is ``<task>/<id>``.

    Raises
    ------
    ValidationError
        One line naming the file (and sample): not a log, no samples, a value Inspect cannot make a number,
        a scorer missing, an epoch missing.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> log = {"version": 2, "eval": {"task": "popularity", "model": "openai/gpt-4o-mini", "scorers": []},
    ...        "samples": [{"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}},
    ...                    {"id": 2, "epoch": 1, "scores": {"match": {"value": "I"}}}]}
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "log.json"
    >>> _ = path.write_text(json.dumps(log))
    >>> read_inspect(path)[["model", "item", "score"]]
                    model          item  score
    0  openai/gpt-4o-mini  popularity/1    1.0
    1  openai/gpt-4o-mini  popularity/2    0.0
    """
    opts = {"metric": metric, "epoch": _check_epoch(epoch), "threshold": check_threshold(threshold)}
    model = check_model(model)
    paths = as_paths(path_or_paths, "read_inspect")
    files = find_files(paths, _is_log, "Inspect logs (*.eval, *.json)")
    headers = {f: _header(f, _eval_header(f)) for f in files}
    models = {f: h[1] for f, h in headers.items()}
    if model is not None:
        names = sorted(set(models.values()))
        if len(names) > 1:
            raise ValidationError(f"model={model!r} names one model but the logs hold {len(names)}: "
                                  f"{', '.join(names[:5])}")
        models = {f: model for f in files}
    labels = run_labels(models, tasks={f: h[0] for f, h in headers.items()})
    rows: dict[str, list] = {c: [] for c in ("model", "task", "item", "score", *EXTRA_COLUMNS)}
    continuous, unscored = [], 0
    for f in files:
        label, binary, left = _read_log(f, labels[f], rows, opts)
        unscored += left
        if not binary:
            continuous.append(label)
    if unscored:
        warnings.warn(f"{unscored} sample(s) without a score (errored or cancelled) were left out", DataWarning,
                      stacklevel=find_stack_level())
    warn_continuous(continuous, "task")
    return long_table(rows, EXTRA_COLUMNS, _WHAT)


def inspect_metrics(path_or_paths: Any) -> pd.DataFrame:
    """The scorers each log's samples carry, to choose ``metric=`` of :func:`read_inspect` (``--list-metrics``).

    Parameters
    ----------
    path_or_paths : path or list of paths
        What :func:`read_inspect` reads.

    Returns
    -------
    pandas.DataFrame
        One row per (model, task, scorer): ``records`` (scored samples x epochs), ``binary`` (every value
        0/1 as Inspect maps it) and ``default`` (what :func:`read_inspect` reads when nothing is chosen).
    """
    rows = []
    for f in find_files(as_paths(path_or_paths, "inspect_metrics"), _is_log, "Inspect logs (*.eval, *.json)"):
        header, samples = _log(f)
        task, model, scorers = _header(f, header)
        values: dict[str, list[float | None]] = {}
        default = None
        for place, sample in samples:
            scores = sample.get("scores") if isinstance(sample, dict) else None
            if not isinstance(scores, dict) or not scores:
                continue
            default = default or _choose_scorer(place, scores, None, scorers)
            for name, entry in scores.items():
                value = entry.get("value") if isinstance(entry, dict) else entry
                values.setdefault(str(name), []).append(inspect_value(value))
        for name, got in values.items():
            rows.append({"model": model, "task": task, "metric": name, "records": len(got),
                         "binary": all(v in (0.0, 1.0) for v in got), "default": name == default})
    return pd.DataFrame(rows, columns=["model", "task", "metric", "records", "binary", "default"])
