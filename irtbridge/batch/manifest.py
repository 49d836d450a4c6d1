"""The manifest of a batch: :class:`Unit`, :class:`Manifest`, :func:`load_manifest` (format: :mod:`irtbridge.batch`)."""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import pandas as pd

from irtbridge._io import to_jsonable
from irtbridge._validation import _show, check_int, read_csv, require_columns
from irtbridge.batch.kinds import KINDS
from irtbridge.exceptions import ValidationError

__all__ = ["Unit", "Manifest", "load_manifest"]

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


@dataclass(frozen=True)
class Unit:
    """One unit of work of a batch.

    Attributes
    ----------
    id : str
        Folder name of its results (letters, digits, ``.``, ``_``, ``-``).
    kind : str
        One of :data:`KINDS`.
    data : str
        Absolute path of the input file.
    target : str or None
        Target column (``dataset`` units).
    options : dict
        Kind-specific options (see the module docstring).
    digest : str
        SHA-256 of the input file, part of the fingerprint.
    """

    id: str
    kind: str
    data: str
    target: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    digest: str = ""

    @property
    def fingerprint(self) -> str:
        """What decides whether an existing result is still valid for this unit."""
        text = json.dumps({"kind": self.kind, "target": self.target, "options": to_jsonable(dict(self.options)),
                           "digest": self.digest}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "data": self.data, "target": self.target,
                "options": to_jsonable(dict(self.options)), "digest": self.digest}


@dataclass(frozen=True)
class Manifest:
    """A parsed manifest: its units, the output folder and the retry count."""

    path: Path
    units: tuple[Unit, ...]
    output: Path
    retries: int = 1


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def load_manifest(path: str | os.PathLike, *, output: str | os.PathLike | None = None) -> Manifest:
    """Read and check a JSON or CSV manifest (see the module docstring).

    Raises
    ------
    ValidationError
        Unreadable manifest, duplicate or unsafe unit ids, unknown kinds, missing input files, options
        that are not a JSON object.
    """
    path = Path(path)
    if not path.is_file():
        raise ValidationError(f"manifest {str(path)!r} does not exist (give a .json or .csv manifest)")
    base = path.resolve().parent
    retries = 1
    out_field: Any = None
    if path.suffix.lower() == ".json":
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ValidationError(f"manifest {str(path)!r} is not valid JSON: {exc}") from None
        if isinstance(raw, list):
            raw = {"units": raw}
        if not isinstance(raw, dict) or not isinstance(raw.get("units"), list):
            raise ValidationError(f"manifest {str(path)!r} must be an object with a list \"units\" (or a list of units)")
        entries = raw["units"]
        out_field = raw.get("output")
        retries = check_int(raw.get("retries", 1), "manifest retries", low=0)
    elif path.suffix.lower() == ".csv":
        frame = read_csv(path, "manifest")
        require_columns(frame, ["id", "kind", "data"], str(path))
        entries = []
        for _, row in frame.iterrows():
            entry = {k: row[k] for k in frame.columns if not (isinstance(row[k], float) and pd.isna(row[k]))}
            if isinstance(entry.get("options"), str):
                try:
                    entry["options"] = json.loads(entry["options"])
                except json.JSONDecodeError as exc:
                    raise ValidationError(f"manifest unit {entry.get('id')!r}: options is not a JSON object ({exc})") from None
            entries.append(entry)
    else:
        raise ValidationError(f"manifest {str(path)!r} must be a .json or .csv file")
    units: list[Unit] = []
    seen: set[str] = set()
    for i, e in enumerate(entries):
        if not isinstance(e, dict):
            raise ValidationError(f"manifest unit {i} must be an object with id, kind and data, got {_show(e)}")
        uid = str(e.get("id", "")).strip()
        if not _ID.match(uid):
            raise ValidationError(
                f"manifest unit {i}: id {uid!r} must start with a letter or digit and use only letters, digits, "
                "'.', '_' and '-' (it names the result folder)"
            )
        if uid in seen:
            raise ValidationError(f"manifest unit id {uid!r} is used twice; ids must be unique")
        seen.add(uid)
        kind = str(e.get("kind", ""))
        if kind not in KINDS:
            raise ValidationError(f"manifest unit {uid!r}: kind {kind!r} is not supported; use one of {', '.join(map(repr, KINDS))}")
        data = e.get("data")
        if not isinstance(data, str) or not data:
            raise ValidationError(f"manifest unit {uid!r}: data must be the path of the input file")
        data_path = (base / data).resolve() if not os.path.isabs(data) else Path(data)
        if not data_path.is_file():
            raise ValidationError(f"manifest unit {uid!r}: input file {str(data_path)!r} does not exist")
        options = e.get("options", {}) or {}
        if not isinstance(options, dict):
            raise ValidationError(f"manifest unit {uid!r}: options must be a JSON object, got {_show(options)}")
        target = e.get("target")
        units.append(Unit(uid, kind, str(data_path), None if target is None else str(target), dict(options),
                          _sha256(str(data_path))))
    if not units:
        raise ValidationError(f"manifest {str(path)!r} lists no units")
    if output is not None:
        out = Path(output)
    elif out_field:
        out = Path(out_field) if os.path.isabs(str(out_field)) else base / str(out_field)
    else:
        out = base / f"{path.stem}-results"
    return Manifest(path=path.resolve(), units=tuple(units), output=out.resolve(), retries=retries)
