"""Helpers shared by the subcommands: JSON on stdout (the writers live in irtbridge._io)."""

from __future__ import annotations

import json
import sys
from typing import Any

from irtbridge._io import atomic_write_csv, atomic_write_text, to_jsonable

__all__ = ["print_json", "to_jsonable", "atomic_write_text", "atomic_write_csv"]


def print_json(obj: Any) -> None:
    json.dump(to_jsonable(obj), sys.stdout, indent=2, allow_nan=False)
    sys.stdout.write("\n")
