"""Shared parts of the evaluation-output readers: finding files, reading JSON with file:line errors, the table.

Every reader reads all of its input and checks it before it returns anything: a bad line is a
:class:`~irtbridge.exceptions.ValidationError` of one line naming the file and the line (or the record), and
no partial table is ever returned.
"""

from __future__ import annotations

import json
import math
import os
import re
import warnings
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import pandas as pd

from irtbridge.exceptions import DataWarning, ValidationError, find_stack_level
from irtbridge.leaderboard.long import collapse_repeats

__all__ = ["LONG_COLUMNS", "as_paths", "find_files", "json_lines", "json_document", "number", "long_table",
           "check_threshold", "where", "first_char", "check_model", "run_labels",
           "warn_continuous", "json_array"]

# the first columns of every reader's table, in this order (irtbridge.leaderboard.responses_from_long reads them)
LONG_COLUMNS = ("model", "task", "item", "score")


def where(path: Path | str, line: int | None = None) -> str:
    """``path:line`` (or the path alone), as error messages name a place."""
    return f"{os.fspath(path)}:{line}" if line is not None else os.fspath(path)


def as_paths(path_or_paths: Any, what: str) -> list[Path]:
    """One path or a list of paths (str or PathLike), each existing; an empty list is an error."""
    if isinstance(path_or_paths, (str, os.PathLike)):
        items = [path_or_paths]
    elif isinstance(path_or_paths, (list, tuple)):
        items = list(path_or_paths)
    else:
        raise ValidationError(f"{what}: path_or_paths must be a path or a list of paths, "
                              f"got {type(path_or_paths).__name__}")
    if not items:
        raise ValidationError(f"{what}: no paths given")
    out = []
    for p in items:
        if not isinstance(p, (str, os.PathLike)):
            raise ValidationError(f"{what}: a path must be a string or a path, got {type(p).__name__}")
        path = Path(p)
        if not path.exists():
            raise ValidationError(f"{what}: {os.fspath(path)!r} does not exist")
        out.append(path)
    return out


def find_files(paths: list[Path], wanted: Callable[[Path], bool], what: str) -> list[Path]:
    """The files among ``paths`` and under its folders (recursively, sorted) that ``wanted`` accepts.

    A file given by name is taken as is; a folder without any wanted file is an error naming it.
    """
    found: list[Path] = []
    for path in paths:
        if path.is_file():
            found.append(path)
            continue
        inside = sorted(p for p in path.rglob("*") if p.is_file() and wanted(p))
        if not inside:
            raise ValidationError(f"{where(path)}: no {what} in this folder")
        found.extend(inside)
    unique = list(dict.fromkeys(p.resolve() for p in found))
    return [Path(p) for p in unique]


def first_char(path: Path) -> str:
    """The first non-blank character of a file ('' for an empty file): ``[`` or ``{`` tell JSON forms apart."""
    with open(path, "rb") as fh:
        while True:
            chunk = fh.read(4096)
            if not chunk:
                return ""
            text = chunk.lstrip(b" \t\r\n\xef\xbb\xbf")
            if text:
                return chr(text[0])


def json_lines(path: Path) -> Iterator[tuple[int, Any]]:
    """``(line number, object)`` for each non-blank line of a JSON Lines file; a bad line is a one-line error."""
    try:
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    cut = "" if line.endswith("\n") else " (the file ends inside this line: truncated?)"
                    raise ValidationError(f"{where(path, n)}: not valid JSON: {exc.msg} at column {exc.colno}"
                                          f"{cut}") from None
                if not isinstance(obj, dict):
                    raise ValidationError(f"{where(path, n)}: expected a JSON object, got {type(obj).__name__}")
                yield n, obj
    except UnicodeDecodeError:
        raise ValidationError(f"{where(path)}: not UTF-8 text") from None


def json_document(path: Path) -> Any:
    """The JSON value of a whole file; a syntax error names the file and line."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValidationError(f"{where(path)}: not UTF-8 text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValidationError(f"{where(path, exc.lineno)}: not valid JSON: {exc.msg} at column {exc.colno}") from None


_BLANK = re.compile(r"\s*")


def json_array(path: Path) -> list[tuple[int, Any]]:
    """The elements of a file holding one JSON array, each with the line it starts on (for error messages)."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValidationError(f"{where(path)}: not UTF-8 text") from None
    decoder = json.JSONDecoder()
    lines = [0, 1]  # (offset, line) of the last position counted, so counting newlines stays linear

    def line_of(pos: int) -> int:
        lines[1] += text.count("\n", lines[0], pos)
        lines[0] = pos
        return lines[1]

    def blank_end(pos: int) -> int:
        match = _BLANK.match(text, pos)
        assert match is not None  # \s* matches everywhere, if only the empty string
        return match.end()

    i = blank_end(0)
    if not text.startswith("[", i):
        raise ValidationError(f"{where(path, line_of(i))}: expected a JSON array")
    out: list[tuple[int, Any]] = []
    i = blank_end(i + 1)
    closed = text.startswith("]", i)
    while not closed:
        try:
            obj, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            raise ValidationError(f"{where(path, exc.lineno)}: not valid JSON: {exc.msg} at column {exc.colno}"
                                  ) from None
        out.append((line_of(i), obj))
        i = blank_end(end)
        closed = text.startswith("]", i)
        if not closed and not text.startswith(",", i):
            raise ValidationError(f"{where(path, line_of(i))}: not valid JSON: expected ',' or ']'"
                                  + (" (the file ends inside the array: truncated?)" if i >= len(text) else ""))
        i = blank_end(i + 1) if not closed else i
    if blank_end(i + 1) != len(text):
        raise ValidationError(f"{where(path, line_of(i))}: extra data after the JSON array")
    return out


def number(value: Any) -> float | None:
    """A finite float from a JSON number or boolean; None for anything else."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        v = float(value)
        return v if math.isfinite(v) else None
    return None


def check_threshold(threshold: Any) -> float | None:
    if threshold is None:
        return None
    v = number(threshold)
    if v is None:
        raise ValidationError(f"threshold must be a finite number or None, got {threshold!r}")
    return v


def check_model(model: Any) -> str | None:
    """A reader's ``model=``: None, or a name that is a non-blank string."""
    if model is None:
        return None
    if not isinstance(model, str) or not model.strip():
        raise ValidationError(f"model must be a non-empty model name or None, got {model!r}")
    return model


def _distinct_part(folder: Path, others: set[Path]) -> str:
    """What sets ``folder`` apart from ``others``: its parts after their common prefix, before their common end."""
    parts = [list(o.parts) for o in others]
    lead = 0
    while all(len(p) > lead and p[lead] == parts[0][lead] for p in parts):
        lead += 1
    tail = 0
    while all(len(p) - lead > tail and p[-1 - tail] == parts[0][-1 - tail] for p in parts):
        tail += 1
    own = list(folder.parts)[lead:len(folder.parts) - tail]
    return "/".join(own) or folder.name


def run_labels(models: dict[Path, str], folder: Callable[[Path], Path] = lambda p: p.parent,
               tasks: dict[Path, str] | None = None) -> dict[Path, str]:
    """The model label of each file: its model name, or ``name@run`` for one model's runs in several folders.

    Runs of one model kept in separate folders (ablations, reruns with other settings) stay apart: each is
    named after what sets its folder apart (``org/model@ablation_a``). Folders that hold disjoint tasks of
    one model (one output folder per task) are one model. Files of one model in one folder are one run.

    Parameters
    ----------
    models : dict of Path to str
        Each file's model name.
    folder : callable, default the file's parent
        The folder that makes a run.
    tasks : dict of Path to str, optional
        Each file's task; without it, any two folders of one model are two runs.

    Returns
    -------
    dict of Path to str
        Each file's label.

    Examples
    --------
    >>> f = {Path("a/x/m/s.jsonl"): "m", Path("b/x/m/s.jsonl"): "m", Path("a/x/n/s.jsonl"): "n"}
    >>> sorted(run_labels(f).values())
    ['m@a', 'm@b', 'n']
    >>> sorted(run_labels(f, tasks={p: str(p)[0] for p in f}).values())  # other tasks in each folder
    ['m', 'm', 'n']
    """
    folders: dict[str, dict[Path, set[str]]] = {}
    for path, name in models.items():
        own = Path(os.path.abspath(folder(path)))
        folders.setdefault(name, {}).setdefault(own, set()).add(tasks[path] if tasks is not None else str(path))
    apart = set()
    for name, runs in folders.items():
        seen: set[str] = set()
        for held in runs.values():
            if len(runs) > 1 and (tasks is None or seen & held):
                apart.add(name)
            seen |= held
    out = {}
    for path, name in models.items():
        own = Path(os.path.abspath(folder(path)))
        out[path] = f"{name}@{_distinct_part(own, set(folders[name]))}" if name in apart else name
    return out


def long_table(rows: dict[str, list], extra: Iterable[str], what: str) -> pd.DataFrame:
    """The reader's table: ``model, task, item, score`` then ``extra``; one row per (model, item).

    A pair read twice with the same score counts once; with different scores it is an error naming it
    (:data:`irtbridge.leaderboard.long.REPEATS_RULE`, the rule of every command).
    """
    columns = list(LONG_COLUMNS) + [c for c in extra if c not in LONG_COLUMNS]
    frame = pd.DataFrame({c: rows[c] for c in columns}, columns=columns)
    frame["score"] = frame["score"].astype(float)
    keep = collapse_repeats(frame["model"].astype(str), frame["item"].astype(str), frame["score"].to_numpy(), what)
    return frame[keep].reset_index(drop=True)


def warn_continuous(labels: list[str], unit: str) -> None:
    """One warning naming the tasks or runs whose scores are not all 0/1 (kept as they are)."""
    if labels:
        warnings.warn(f"{len(labels)} {unit}(s) have scores other than 0/1, kept continuous: "
                      f"{', '.join(sorted(set(labels))[:5])}; pass threshold= to binarise", DataWarning,
                      stacklevel=find_stack_level())
