"""The lm-evaluation-harness ``--samples`` file: which documents of which task a model should answer.

lm-evaluation-harness (v0.4.5 and later) runs chosen documents with ``lm_eval ... --samples FILE`` (or the
JSON text itself): a JSON object mapping each task name to a list of document indices, e.g.
``{"arc_challenge": [3, 17, 250], "hellaswag": [9]}``. The harness (``lm_eval/config/evaluate_config.py``)
tries ``json.loads`` on the argument and, failing that, reads the file it names; a task's list selects
``enumerate(eval_docs)`` positions (``lm_eval/api/task.py``), and its ``--log_samples`` records then carry
``doc_id = samples[task][position among the selected]`` (``lm_eval/evaluator.py``). That mapping is right
only when each list is in increasing document order, so the lists written here are sorted and have no
repeats. ``--samples`` cannot be combined with ``--limit``.

An item is one document of one task. Its ``(task, doc_id)`` comes from the long table of
:func:`irtbridge.leaderboard.read_lm_eval` (columns ``task``, ``item``, ``doc_id``; the default item name is
``task/<doc_hash>``), from item names of the form ``task/<doc_id>`` (``read_lm_eval(..., item_id="doc_id")``)
or from a CSV with columns ``item, task, doc_id``. A tiny bank keeps the documents of its items
(``documents`` in ``bank.json``); ``irtbridge tiny`` writes ``samples.json`` beside it, and
``irtbridge twophase`` one per phase.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any, Mapping, Sequence

import pandas as pd

from irtbridge._validation import read_csv, require_columns
from irtbridge.exceptions import ValidationError

__all__ = ["documents_from_long", "documents_from_names", "read_documents", "samples_dict", "write_samples"]

_NAME = re.compile(r"^(?P<task>.+)/(?P<doc>\d+)$")


def _doc_id(value: Any, where: str) -> int:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValidationError(f"{where}: doc_id {value!r} is not a document index (a whole number >= 0)") from None
    if not number.is_integer() or number < 0:
        raise ValidationError(f"{where}: doc_id {value!r} is not a document index (a whole number >= 0)")
    return int(number)


def documents_from_long(long_table: pd.DataFrame) -> dict[str, tuple[str, int]]:
    """Item -> ``(task, doc_id)`` from a long table with columns ``task``, ``item`` and ``doc_id``.

    Parameters
    ----------
    long_table : DataFrame
        E.g. :func:`irtbridge.leaderboard.read_lm_eval`'s output.

    Returns
    -------
    dict of str to (str, int)
        One entry per item; an item seen with two documents is an error.

    Examples
    --------
    >>> long = pd.DataFrame({"model": ["m", "m"], "task": ["arc", "arc"], "item": ["arc/9f2", "arc/c41"],
    ...                      "score": [1.0, 0.0], "doc_id": [4, 0]})
    >>> documents_from_long(long)
    {'arc/9f2': ('arc', 4), 'arc/c41': ('arc', 0)}
    """
    missing = [c for c in ("task", "item", "doc_id") if c not in long_table.columns]
    if missing:
        raise ValidationError(f"long table lacks column(s) {', '.join(missing)} (the documents of the items)")
    out: dict[str, tuple[str, int]] = {}
    for task, item, doc in long_table[["task", "item", "doc_id"]].drop_duplicates().itertuples(index=False):
        key, value = str(item), (str(task), _doc_id(doc, f"item {item!r}"))
        if out.setdefault(key, value) != value:
            raise ValidationError(f"long table: item {key!r} is document {out[key]} and {value}; an item is one "
                                  "document of one task")
    return out


def documents_from_names(items: Sequence[str]) -> dict[str, tuple[str, int]]:
    """Item -> ``(task, doc_id)`` for the items named ``task/<doc_id>`` (others are left out).

    Parameters
    ----------
    items : sequence of str
        Item names.

    Returns
    -------
    dict of str to (str, int)
        The items whose name ends in ``/`` and a whole number.

    Examples
    --------
    >>> documents_from_names(["hellaswag/12", "arc_easy/0", "q7"])
    {'hellaswag/12': ('hellaswag', 12), 'arc_easy/0': ('arc_easy', 0)}
    """
    out = {}
    for item in map(str, items):
        match = _NAME.match(item)
        if match:
            out[item] = (match["task"], int(match["doc"]))
    return out


def read_documents(path: str | os.PathLike) -> dict[str, tuple[str, int]]:
    """Item -> ``(task, doc_id)`` from a CSV with columns ``item, task, doc_id``.

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file.

    Returns
    -------
    dict of str to (str, int)
        One entry per row.
    """
    frame = read_csv(os.fspath(path), "documents")
    require_columns(frame, ["item", "task", "doc_id"], f"documents file {os.fspath(path)!r}")
    return documents_from_long(frame)


def samples_dict(items: Sequence[str], documents: Mapping[str, Sequence[Any]]) -> dict[str, list[int]]:
    """The ``--samples`` object: task -> its documents' indices, sorted, without repeats.

    Parameters
    ----------
    items : sequence of str
        The items to run.
    documents : mapping of str to (str, int)
        Each item's task and document index.

    Returns
    -------
    dict of str to list of int
        Tasks in first-seen order.

    Examples
    --------
    >>> samples_dict(["a/5", "b/1", "a/2"], documents_from_names(["a/5", "b/1", "a/2"]))
    {'a': [2, 5], 'b': [1]}
    """
    items = [str(i) for i in items]
    absent = [i for i in items if i not in documents]
    if absent:
        raise ValidationError(f"{len(absent)} of {len(items)} item(s) have no lm-eval document (task, doc_id), e.g. "
                              f"{absent[:3]}: read the runs with --from lm-eval, name items task/<doc_id>, or pass "
                              "--documents items.csv (item, task, doc_id)")
    out: dict[str, set[int]] = {}
    for item in items:
        task, doc = documents[item]
        out.setdefault(str(task), set()).add(_doc_id(doc, f"item {item!r}"))
    return {task: sorted(docs) for task, docs in out.items()}


def write_samples(path: str | os.PathLike, items: Sequence[str], documents: Mapping[str, Sequence[Any]]) -> str:
    """Write the ``--samples`` file of ``items`` (one JSON object); returns the path.

    Parameters
    ----------
    path : str or os.PathLike
        The file (written whole or not at all).
    items : sequence of str
        The items to run.
    documents : mapping of str to (str, int)
        Each item's task and document index.

    Returns
    -------
    str
        The path written.
    """
    samples = samples_dict(items, documents)
    path = os.fspath(path)
    tmp = f"{path}.partial-{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(samples, fh)
    os.replace(tmp, path)
    return path
