"""Pickling of results that hold a live R model: the fields travel, the R model does not."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from irtbridge.calibration.shared._stored import stored

__all__ = ["WithoutRModel"]


class WithoutRModel:
    """Mixin for frozen dataclasses with an ``r_model`` field: pickled with ``r_model=None``."""

    if TYPE_CHECKING:  # the dataclass it is mixed into has its fields
        __dataclass_fields__: ClassVar[dict[str, Any]]

    def __getstate__(self) -> dict[str, Any]:
        # what was computed on demand (M2, reliability: plain numbers) travels with the fields
        computed = {"_computed": dict(stored(self))} if stored(self) else {}
        return {**{k: getattr(self, k) for k in self.__dataclass_fields__}, "r_model": None,
                **computed}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            object.__setattr__(self, k, v)
