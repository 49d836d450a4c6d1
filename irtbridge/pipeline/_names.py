"""How the pipeline names things, shared by its runners and stages: a dataset reference's label and whether a
rated player is one of the artificial baselines."""

from __future__ import annotations

from typing import Any

from irtbridge.decodirt import ARTIFICIAL
from irtbridge.decodirt.classification_data import parse_dataset_ref


def dataset_label(ref: Any) -> str:
    """A dataset's name: an in-memory dataset's ``name``, else its reference's label."""
    return ref.name if not isinstance(ref, str) and hasattr(ref, "name") else parse_dataset_ref(ref).label


def is_artificial(player: str) -> bool:
    """Whether a rated player is one of decodIRT's artificial baselines (not a classifier)."""
    return player in ARTIFICIAL or (player.startswith("rand") and player[4:].isdigit())
