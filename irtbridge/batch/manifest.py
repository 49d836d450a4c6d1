"""The manifest of a batch: :class:`Manifest` and :func:`load_manifest` (format: :mod:`irtbridge.batch`).

A manifest is checked whole before any unit runs: its shape, every unit's id, kind, input file and
options (names, types and what the engines accept, :mod:`irtbridge.batch.options`); all the problems
found are reported together, in one line, each naming its unit and option.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from irtbridge._constraints import FsPath, constraints
from irtbridge._validation import check_int, csv_header, read_csv, read_json, require_columns, show_value
from irtbridge.batch.options import FILE_OPTIONS, KIND_OPTIONS, check_unit, named_columns
from irtbridge.batch.unit import Unit, sha256
from irtbridge.exceptions import ValidationError

__all__ = ["Manifest", "load_manifest"]

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


@dataclass(frozen=True)
class Manifest:
    """A parsed manifest: its units, the output folder and the retry count.

    Parameters
    ----------
    path : Path
        The manifest file.
    units : tuple of Unit
        Its units, in the manifest's order.
    output : Path
        The output folder of the batch.
    retries : int, default 1
        How many times a unit whose error is transient is tried again.
    """

    path: Path
    units: tuple[Unit, ...]
    output: Path
    retries: int = 1


_TOP_KEYS = ("output", "retries", "units")
_UNIT_KEYS = ("id", "kind", "data", "target", "options")


@constraints(path=FsPath(must_exist=True, kind="file", what="a .json or .csv manifest"),
             output=FsPath(kind="dir", allow_none=True))
def load_manifest(path: str | os.PathLike, *, output: str | os.PathLike | None = None) -> Manifest:
    """Read a JSON or CSV manifest and check all of it before anything runs (format: :mod:`irtbridge.batch`).

    Parameters
    ----------
    path : path
        The manifest (``.json`` or ``.csv``); relative ``data`` paths are relative to its folder.
    output : path, optional
        The output folder, instead of the manifest's ``output`` (default ``<stem>-results`` beside it).

    Returns
    -------
    Manifest

    Raises
    ------
    ValidationError
        One line with every problem found, each naming its unit (and option): an unreadable manifest,
        unknown keys, duplicate or unsafe ids, unknown kinds, missing input files, unknown options or
        options of the wrong type (a string ``"false"`` where a boolean belongs), option values the
        engine refuses.

    Examples
    --------
    >>> import json, pathlib
    >>> _ = pathlib.Path("t.csv").write_text("name,tp,fp,fn,tn\\nA,5,1,2,9\\n")
    >>> _ = pathlib.Path("m.json").write_text(json.dumps({"units": [
    ...     {"id": "a", "kind": "ei", "data": "t.csv", "options": {"name": "name"}},
    ...     {"id": "b", "kind": "calibrate", "data": "t.csv", "options": {"se": "false", "method": "MAP"}}]}))
    >>> load_manifest("m.json")
    Traceback (most recent call last):
    ...
    irtbridge.exceptions.ValidationError: manifest 'm.json' has 2 problems:
    manifest unit 'b', option 'se': se must be true or false (a JSON boolean), got 'false' (write it without quotes);
    manifest unit 'b': option 'method' has two meanings (mirt's estimation method, as `irtbridge calibrate --method`;
    the scoring method, as `irtbridge abilities --method`);
    write estimation_method (EM, QMCEM, MCEM, MHRM, SEM, BL) or scoring_method (EAP, MAP, ML, WLE)
    """
    path = Path(path)
    if not path.is_file():
        raise ValidationError(f"manifest {str(path)!r} does not exist (give a .json or .csv manifest)")
    base = path.resolve().parent
    problems: list[str] = []
    entries, out_field, retries = _read(path, problems)
    checked = [_check_entry(i, e, base, problems) for i, e in enumerate(entries)]
    ids = [uid for uid, _ in checked if uid is not None]
    for uid in sorted({u for u in ids if ids.count(u) > 1}):
        problems.append(f"manifest unit id {uid!r} is used twice; ids must be unique")
    if not entries and not problems:
        problems.append(f"manifest {str(path)!r} lists no units")
    if problems:
        text = problems[0] if len(problems) == 1 else (f"manifest {str(path)!r} has {len(problems)} problems: "
                                                       + "; ".join(problems))
        raise ValidationError(" ".join(text.split("\n")))
    units = tuple(Unit(uid, kind, data, target, options, sha256(data), paths, {k: sha256(v) for k, v in paths.items()})
                  for uid, kind, data, target, options, paths in (c for _, c in checked if c is not None))
    if output is not None:
        out = Path(output)
    elif out_field:
        out = Path(out_field) if os.path.isabs(str(out_field)) else base / str(out_field)
    else:
        out = base / f"{path.stem}-results"
    return Manifest(path=path.resolve(), units=units, output=out.resolve(), retries=retries)


def _read(path: Path, problems: list[str]) -> tuple[list[Any], Any, int]:
    """The unit entries, the ``output`` field and ``retries`` of a JSON or CSV manifest."""
    if path.suffix.lower() == ".json":
        raw = read_json(path, "manifest")  # a BOM accepted; a bad byte or bad JSON named by its line
        if isinstance(raw, list):
            raw = {"units": raw}
        if not isinstance(raw, dict) or not isinstance(raw.get("units"), list):
            raise ValidationError(f"manifest {str(path)!r} must be an object with a list \"units\" (or a list of units)")
        unknown = [k for k in raw if k not in _TOP_KEYS]
        if unknown:
            problems.append(f"manifest {str(path)!r} has unknown key(s) {', '.join(map(repr, unknown))}; "
                            f"it takes {', '.join(_TOP_KEYS)}")
        out_field = raw.get("output")
        if out_field is not None and not isinstance(out_field, str):
            problems.append(f"manifest output must be a folder path (a string), got {show_value(out_field)}")
        retries = raw.get("retries", 1)
        try:
            if isinstance(retries, str):
                raise ValidationError("a string")
            retries = check_int(retries, "manifest retries", low=0)
        except ValidationError:
            problems.append(f"manifest retries must be a whole number >= 0, got {show_value(retries)}")
            retries = 0
        return raw["units"], out_field, retries
    if path.suffix.lower() != ".csv":
        raise ValidationError(f"manifest {str(path)!r} must be a .json or .csv file")
    frame = read_csv(path, "manifest")
    require_columns(frame, ["id", "kind", "data"], str(path))
    unknown = [str(c) for c in frame.columns if c not in _UNIT_KEYS]
    if unknown:
        problems.append(f"manifest {str(path)!r} has unknown column(s) {', '.join(map(repr, unknown))}; "
                        f"it takes {', '.join(_UNIT_KEYS)}")
    entries = []
    for _, row in frame.iterrows():
        entry = {k: row[k] for k in frame.columns if k in _UNIT_KEYS and not (isinstance(row[k], float) and pd.isna(row[k]))}
        if isinstance(entry.get("options"), str):
            try:
                entry["options"] = json.loads(entry["options"])
            except json.JSONDecodeError as exc:
                problems.append(f"manifest unit {str(entry.get('id'))!r}: options is not a JSON object ({exc})")
                entry["options"] = {}
        entries.append(entry)
    return entries, None, 1


def _check_entry(i: int, e: Any, base: Path, problems: list[str]) -> tuple[str | None, tuple | None]:
    """One entry's id, and its (id, kind, input path, target, options); problems appended (then None)."""
    if not isinstance(e, dict):
        problems.append(f"manifest unit {i} must be an object with id, kind and data, got {show_value(e)}")
        return None, None
    uid = str(e.get("id", "")).strip()
    if not _ID.match(uid):
        problems.append(f"manifest unit {i}: id {uid!r} must start with a letter or digit and use only letters, "
                        "digits, '.', '_' and '-' (it names the result folder)")
        return None, None
    where = f"manifest unit {uid!r}"
    before = len(problems)
    unknown = [k for k in e if k not in _UNIT_KEYS]
    if unknown:
        problems.append(f"{where} has unknown key(s) {', '.join(map(repr, unknown))}; a unit takes "
                        f"{', '.join(_UNIT_KEYS)}")
    kind = e.get("kind", "")
    if kind not in KIND_OPTIONS:
        problems.append(f"{where}: kind {kind!r} is not supported; use one of {', '.join(map(repr, KIND_OPTIONS))}")
    data = e.get("data")
    data_path = None
    if not isinstance(data, str) or not data:
        problems.append(f"{where}: data must be the path of the input file")
    else:
        data_path = (base / data).resolve() if not os.path.isabs(data) else Path(data)
        if not data_path.is_file():
            problems.append(f"{where}: input file {str(data_path)!r} does not exist")
    options = e.get("options", {})
    options = {} if options is None else options
    if not isinstance(options, dict):
        problems.append(f"{where}: options must be a JSON object, got {show_value(options)}")
        options = {}
    target = e.get("target")
    if target is not None and not isinstance(target, (str, int)):
        problems.append(f"{where}: target must be a column name, got {show_value(target)}")
    if kind in KIND_OPTIONS:
        problems.extend(check_unit(uid, kind, options, None if target is None else str(target)))
    paths = {}
    for key in FILE_OPTIONS.get(kind, ()):
        if isinstance(options.get(key), str):
            paths[key] = str((base / options[key]).resolve())
            if not os.path.isfile(paths[key]):
                problems.append(f"{where}, option {key!r}: file {paths[key]!r} does not exist")
    if len(problems) == before and data_path is not None and data_path.suffix.lower() == ".csv":
        problems.extend(_missing_columns(where, kind, options, target, data_path))
    if len(problems) > before:
        return uid, None
    return uid, (uid, kind, str(data_path), None if target is None else str(target), dict(options), paths)


def _missing_columns(where: str, kind: str, options: dict, target: Any, data_path: Path) -> list[str]:
    """The columns the unit names that its CSV input's header lacks (read from the header alone)."""
    named = named_columns(kind, options, target)
    if not named:
        return []
    try:
        header = csv_header(data_path, "input")
    except ValidationError as exc:
        return [f"{where}: {exc}"]
    return [f"{where}, option {key!r}: input file {str(data_path)!r} has no column {column!r}; its columns are "
            f"{', '.join(map(repr, header[:20]))}" for key, column in named if column not in header]
