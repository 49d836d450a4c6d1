"""What a front door hands an engine: checked data and options, in one object.

Every front door of :mod:`irtbridge.calibration.fit` checks its call, builds one :class:`FitRequest` and
hands it to an engine's row (:data:`irtbridge.calibration.inputs.engine_table.ENGINE_TABLE`); ``design`` says
which front door built it (a key of :data:`~irtbridge.calibration.inputs.engine_table.DESIGNS`), so the engine
knows what to fit and what result to return.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import pandas as pd

from irtbridge._moved import moved_names
from irtbridge.calibration.inputs.priors import Prior
from irtbridge.em.core import ResponseData

__all__ = ["FitRequest"]


@dataclass(frozen=True)
class FitRequest:
    """One calibration, checked and prepared; every engine's ``fit`` takes exactly this.

    The fields a design does not use keep their defaults.

    Attributes
    ----------
    data : ndarray or ResponseData
        The response matrix after constant items were handled (respondents x items, NaN missing), or
        the answered cells alone (native engine; its constant items are handled by the engine, see
        ``drop_constant``).
    names : tuple of str
        Item names of ``data``'s columns.
    model : str
        One model name, or ``"mixed"`` with ``per_item``.
    se : bool or None
        ``True``: compute standard errors with the fit; ``None``: on first access of
        ``Calibration.standard_errors``; ``False``: never (an all-NaN table).
    options : mapping
        Estimation options with the engine's own names (``SE_type`` already renamed ``SE.type``).
    per_item : tuple of str, optional
        mirt's itemtype vector.
    dropped : tuple of str
        Constant items left out before the fit.
    priors : tuple of Prior
    structure : mapping
        The design's own R arguments: ``dims``, ``syntax`` (mirt.model text), ``table`` of a structured
        fit; bifactor's ``specific``/``general``; the groups' ``group`` and ``invariance``; the classes'
        ``n_classes``, ``table``, ``seed``; fixed-item calibration's ``old`` model, ``PAU``, ``NEMC``;
        the mixed model's formulas, covariates and ``itemtype``.
    parameters : DataFrame, optional
        The caller's parameter table as given (its ``est`` column drives the pre-fit name check).
    drop_constant : bool
        For answered cells: drop constant items with a warning instead of naming them in an error.
    design : str
        The front door that built it: a key of :data:`~irtbridge.calibration.inputs.engine_table.DESIGNS`
        (default ``"calibrate"``).
    """

    data: np.ndarray | ResponseData
    names: tuple[str, ...]
    model: str
    se: bool | None
    options: Mapping[str, Any] = field(default_factory=dict)
    per_item: tuple[str, ...] | None = None
    dropped: tuple[str, ...] = ()
    priors: tuple[Prior, ...] = ()
    structure: Mapping[str, Any] = field(default_factory=dict)
    parameters: pd.DataFrame | None = None
    drop_constant: bool = False
    design: str = "calibrate"

    @property
    def r_arguments(self) -> dict[str, Any]:
        """The extra arguments of the R helper: priors as R lists, and the structure."""
        return {**({"priors": [p.to_r() for p in self.priors]} if self.priors else {}), **dict(self.structure)}


__getattr__ = moved_names(__name__, {"DESIGNS": "irtbridge.calibration.inputs.engine_table"})
