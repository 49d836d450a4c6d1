"""py-irt's files: its JSON Lines response format (in and out) and its ``best_parameters.json`` (in, as an item bank).

Formats (learned from py-irt's ``py_irt/dataset.py``, ``py_irt/training.py`` and ``py_irt/models/``, as of
py-irt 0.6):

* responses, one subject a line: ``{"subject_id": "<subject>", "responses": {"<item>": 0 or 1, ...}}``
  (``Dataset.from_jsonlines``); the subject is the model here;
* ``best_parameters.json`` (``IrtModelTrainer.export``): ``irt_model`` (``"1pl"``, ``"2pl"``, ``"3pl"``,
  ``"4pl"``, ``"amortized_1pl"``, ``"multidim_2pl"``), ``ability`` (one per subject), ``diff`` and, but for
  1PL, ``disc`` (one per item), ``lambdas`` for 3PL and 4PL, and ``item_ids`` / ``subject_ids``
  (position -> name; JSON makes the positions strings).

py-irt's response functions (``predict`` of each model), with ``disc = exp(loc_slope) > 0``:
1PL ``sigmoid(ability - diff)``; 2PL ``sigmoid(disc * (ability - diff))``; 3PL
``lambdas + (1 - lambdas) * sigmoid(disc * (ability - diff))`` (``lambdas`` a lower asymptote); 4PL
``lambdas * sigmoid(disc * (ability - diff))`` (``lambdas`` an upper asymptote, no lower one). These are
irtbridge's (mirt's IRT) parameterisation with ``a = disc``, ``b = diff``, and ``g = lambdas`` (3PL) or
``u = lambdas`` (4PL); 1PL is the Rasch model (``a = 1``). The scale is py-irt's (its abilities are not
standardised to N(0, 1)).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from irtbridge._constraints import Flag, FsPath, constraints
from irtbridge._io import atomic_write_text
from irtbridge.exceptions import ValidationError
from irtbridge.irt import ItemBank, as_item_bank
from irtbridge.leaderboard.readers._common import as_paths, find_files, json_document, json_lines, long_table
from irtbridge.leaderboard.readers._common import number, run_labels, warn_continuous, where

__all__ = ["read_pyirt", "write_pyirt", "read_pyirt_parameters"]

_SUFFIXES = (".jsonlines", ".jsonl")
EXTRA_COLUMNS: tuple[str, ...] = ()


def read_pyirt(path_or_paths: Any, *, task: str | None = None) -> pd.DataFrame:
    """py-irt JSON Lines responses as a long table: one row per subject (model) and item.

    Parameters
    ----------
    path_or_paths : path or list of paths
        ``.jsonlines`` / ``.jsonl`` files, or folders holding them.
    task : str, optional
        The ``task`` column (py-irt has no tasks); default the file's name without its suffix.

    Returns
    -------
    pandas.DataFrame
        Columns ``model, task, item, score`` (the subject is the model).

    Raises
    ------
    ValidationError
        One line naming the file and line: invalid JSON, a line without ``subject_id`` or ``responses``, a
        response that is not a number, a subject given twice.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "answers.jsonlines"
    >>> _ = path.write_text('{"subject_id": "m1", "responses": {"q1": 1, "q2": 0}}\\n')
    >>> read_pyirt(path)
      model     task item  score
    0    m1  answers   q1    1.0
    1    m1  answers   q2    0.0
    """
    paths = as_paths(path_or_paths, "read_pyirt")
    files = find_files(paths, lambda p: p.suffix in _SUFFIXES, "py-irt files (*.jsonlines, *.jsonl)")
    rows: dict[str, list] = {c: [] for c in ("model", "task", "item", "score")}
    seen: dict[str, str] = {}
    continuous = []
    # "" or "@<folder>": one task's files in several folders are several runs
    folder_label = run_labels({f: "" for f in files}, tasks={f: task or f.name.split(".")[0] for f in files})
    for f in files:
        name = task if task is not None else f.name.split(".")[0]
        n_lines = 0
        for n, rec in json_lines(f):
            n_lines += 1
            subject, responses = rec.get("subject_id"), rec.get("responses")
            if isinstance(subject, bool) or not isinstance(subject, (str, int)) or not isinstance(responses, dict):
                raise ValidationError(f"{where(f, n)}: expected {{\"subject_id\": ..., \"responses\": {{item: 0/1}}}}")
            subject = str(subject) + folder_label[f]
            if subject in seen:
                raise ValidationError(f"{where(f, n)}: subject {subject!r} already read at {seen[subject]}")
            seen[subject] = where(f, n)
            for item, value in responses.items():
                score = number(value)
                if score is None:
                    raise ValidationError(f"{where(f, n)}: subject {subject!r} item {item!r} response {value!r} "
                                          "is not a number")
                if score not in (0.0, 1.0):
                    continuous.append(f.name)
                for col, v in (("model", subject), ("task", name), ("item", item), ("score", score)):
                    rows[col].append(v)
        if not n_lines:
            raise ValidationError(f"{where(f, 1)}: no subjects (empty file)")
    warn_continuous(continuous, "file")
    return long_table(rows, EXTRA_COLUMNS, "py-irt responses")


def _long_of(data: Any) -> pd.DataFrame:
    if not isinstance(data, pd.DataFrame):
        raise ValidationError(f"write_pyirt takes a DataFrame (long or a response matrix), got {type(data).__name__}")
    if {"model", "item", "score"} <= set(data.columns):
        long = data[["model", "item", "score"]]
    else:  # a response matrix: respondents x items, NaN unanswered
        values = data.to_numpy(dtype=float)
        r, c = np.nonzero(~np.isnan(values))
        long = pd.DataFrame({"model": data.index.to_numpy()[r], "item": data.columns.to_numpy()[c],
                             "score": values[r, c]})
    scores = pd.to_numeric(long["score"], errors="coerce")
    if (scores.isna() & long["score"].notna()).any():
        raise ValidationError("write_pyirt: column 'score' has non-numeric values")
    return pd.DataFrame({"model": long["model"].astype(str).to_numpy(), "item": long["item"].astype(str).to_numpy(),
                         "score": scores.to_numpy(dtype=float)}).dropna(subset=["score"])


@constraints(path=FsPath(kind="file"))
def write_pyirt(data: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Write responses as py-irt JSON Lines (``py-irt train 2pl FILE OUT`` reads it), atomically.

    Parameters
    ----------
    data : pandas.DataFrame
        A long table with columns ``model, item, score`` (what the readers return) or a response matrix
        (respondents x items, NaN for unanswered). Unanswered pairs are left out; 0/1 scores are written
        as integers.
    path : str or path
        The file to write (through a temporary file and a rename: never half-written).

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> import pathlib, tempfile
    >>> wide = pd.DataFrame({"q1": [1.0, np.nan], "q2": [0.0, 1.0]}, index=["m1", "m2"])
    >>> out = write_pyirt(wide, pathlib.Path(tempfile.mkdtemp()) / "r.jsonlines")
    >>> print(out.read_text(), end="")
    {"subject_id": "m1", "responses": {"q1": 1, "q2": 0}}
    {"subject_id": "m2", "responses": {"q2": 1}}
    """
    long = _long_of(data)
    if long.duplicated(["model", "item"]).any():
        first = long[long.duplicated(["model", "item"])].iloc[0]
        raise ValidationError(f"write_pyirt: model {first['model']!r} answers item {first['item']!r} more than once")
    lines = []
    for subject, part in long.groupby("model", sort=False):
        responses = {i: (int(s) if s in (0.0, 1.0) else float(s)) for i, s in zip(part["item"], part["score"])}
        lines.append(json.dumps({"subject_id": subject, "responses": responses}, ensure_ascii=False))
    path = Path(path)
    atomic_write_text(path, "".join(line + "\n" for line in lines))
    return path


def _names(value: Any, n: int, key: str, path: Path) -> list[str]:
    if isinstance(value, dict):
        try:
            order = sorted(value, key=int)
        except ValueError:
            raise ValidationError(f"{where(path)}: {key!r} keys must be positions 0..{n - 1}") from None
        if [int(k) for k in order] != list(range(len(order))):
            raise ValidationError(f"{where(path)}: {key!r} keys must be positions 0..{len(order) - 1}")
        names = [str(value[k]) for k in order]
    elif isinstance(value, list):
        names = [str(v) for v in value]
    else:
        raise ValidationError(f"{where(path)}: no {key!r} (position -> name) as py-irt writes it")
    if len(names) != n:
        raise ValidationError(f"{where(path)}: {key!r} names {len(names)} but the parameters have {n}")
    return names


def _vector(params: dict, key: str, path: Path, n: int | None = None) -> np.ndarray:
    values = params.get(key)
    if not isinstance(values, list) or not all(number(v) is not None for v in values):
        raise ValidationError(f"{where(path)}: {key!r} must be a list of numbers (one per item or subject)")
    if n is not None and len(values) != n:
        raise ValidationError(f"{where(path)}: {key!r} has {len(values)} values, 'diff' has {n}")
    return np.asarray(values, dtype=float)


def _model_kind(params: dict, path: Path) -> str:
    kind = params.get("irt_model")
    if kind is None:
        if "lambdas" in params:
            raise ValidationError(f"{where(path)}: no 'irt_model' and 'lambdas' present: py-irt's 3pl (lower "
                                  "asymptote) and 4pl (upper asymptote) cannot be told apart")
        kind = "2pl" if "disc" in params else "1pl"
    kind = str(kind).lower()
    if kind not in ("1pl", "amortized_1pl", "2pl", "3pl", "4pl"):
        raise ValidationError(f"{where(path)}: irt_model {kind!r} is not a unidimensional 1pl/2pl/3pl/4pl model")
    return kind


@constraints(with_abilities=Flag())
def read_pyirt_parameters(path: str | os.PathLike, *, with_abilities: bool = False) -> ItemBank | tuple:
    """py-irt's ``best_parameters.json`` as an :class:`irtbridge.irt.ItemBank` (and the subjects' abilities).

    Parameters
    ----------
    path : str or path
        The file ``py-irt train`` wrote (``best_parameters.json`` or ``parameters.json``).
    with_abilities : bool, default False
        Also return the subjects' abilities (a Series indexed by subject, on py-irt's scale).

    Returns
    -------
    ItemBank, or (ItemBank, pandas.Series)
        Model ``"rasch"`` (py-irt 1pl), ``"2PL"``, ``"3PL"`` (``g = lambdas``) or ``"4PL"`` (``g = 0``,
        ``u = lambdas``), with ``a = disc``, ``b = diff``: py-irt's ``sigmoid(disc * (ability - diff))`` is
        irtbridge's ``1 / (1 + exp(-a (theta - b)))`` (see the module docstring).

    Raises
    ------
    ValidationError
        One line naming the file: invalid JSON, a missing or mis-sized parameter, a multidimensional model.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "best_parameters.json"
    >>> _ = path.write_text(json.dumps({"irt_model": "2pl", "ability": [0.5], "diff": [-1.0, 0.3],
    ...     "disc": [1.2, 0.7], "item_ids": {"0": "q1", "1": "q2"}, "subject_ids": {"0": "m1"}}))
    >>> bank = read_pyirt_parameters(path)
    >>> bank.model, bank.names, bank.a.tolist(), bank.b.tolist()
    ('2PL', ('q1', 'q2'), [1.2, 0.7], [-1.0, 0.3])
    """
    path = Path(as_paths(path, "read_pyirt_parameters")[0])
    params = json_document(path)
    if not isinstance(params, dict):
        raise ValidationError(f"{where(path, 1)}: expected a JSON object as py-irt writes best_parameters.json")
    kind = _model_kind(params, path)
    b = _vector(params, "diff", path)
    n = len(b)
    if n == 0:
        raise ValidationError(f"{where(path)}: 'diff' is empty (no items)")
    table = pd.DataFrame({"b": b}, index=_names(params.get("item_ids"), n, "item_ids", path))
    model = "rasch"
    if kind in ("2pl", "3pl", "4pl"):
        table["a"] = _vector(params, "disc", path, n)
        model = kind.upper()
    if kind == "3pl":
        table["g"] = _vector(params, "lambdas", path, n)
    if kind == "4pl":
        table["g"], table["u"] = 0.0, _vector(params, "lambdas", path, n)
    try:
        bank = as_item_bank(table, model)
    except ValidationError as exc:
        raise ValidationError(f"{where(path)}: {exc}") from None
    if not with_abilities:
        return bank
    ability = _vector(params, "ability", path)
    subjects = _names(params.get("subject_ids"), len(ability), "subject_ids", path)
    return bank, pd.Series(ability, index=pd.Index(subjects, name="subject"), name="ability")
