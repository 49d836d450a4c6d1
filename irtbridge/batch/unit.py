"""One unit of work of a batch (:class:`Unit`) and the SHA-256 digests that fingerprint its inputs.

The lowest module of :mod:`irtbridge.batch`: the manifest reader, the option checks and the kinds all use
it, and it uses none of them.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Mapping

from irtbridge._io import to_jsonable

__all__ = ["Unit", "sha256"]


def sha256(path: str) -> str:
    """The SHA-256 of a file's bytes, read in 1 MiB chunks.

    Parameters
    ----------
    path : str
        The file.

    Returns
    -------
    str
        The hexadecimal digest.
    """
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@dataclass(frozen=True)
class Unit:
    """One unit of work of a batch.

    Attributes
    ----------
    id : str
        Folder name of its results (letters, digits, ``.``, ``_``, ``-``).
    kind : str
        One of :data:`irtbridge.batch.KINDS`.
    data : str
        Absolute path of the input file.
    target : str or None
        Target column (``dataset`` units; the label column of ``hardness`` units).
    options : dict
        Kind-specific options, as the manifest gives them (checked by :mod:`irtbridge.batch.options`).
    digest : str
        SHA-256 of the input file, part of the fingerprint.
    paths : dict
        Option -> absolute path, for options that name a file (an ``abilities`` unit's ``calibration``).
    digests : dict
        Option -> SHA-256 of that file, part of the fingerprint.
    """

    id: str
    kind: str
    data: str
    target: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    digest: str = ""
    paths: Mapping[str, str] = field(default_factory=dict)
    digests: Mapping[str, str] = field(default_factory=dict)

    @property
    def fingerprint(self) -> str:
        """What decides whether an existing result is still valid for this unit."""
        content: dict[str, Any] = {"kind": self.kind, "target": self.target,
                                   "options": to_jsonable(dict(self.options)), "digest": self.digest}
        if self.digests:  # only then, so that the fingerprints of units without option files stay as they were
            content["digests"] = dict(self.digests)
        text = json.dumps(content, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()

    def to_dict(self) -> dict[str, Any]:
        """The unit as plain data (what ``unit.json`` records of it).

        Returns
        -------
        dict of str to Any
            ``id``, ``kind``, ``data``, ``target``, ``options``, ``digest`` and, with file options, ``paths`` and
            ``digests``.
        """
        out = {"id": self.id, "kind": self.kind, "data": self.data, "target": self.target,
               "options": to_jsonable(dict(self.options)), "digest": self.digest}
        if self.paths:
            out.update(paths=dict(self.paths), digests=dict(self.digests))
        return out
