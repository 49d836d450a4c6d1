"""Calibration engines: one module each, behind one dispatch table with one signature.

Every engine module offers ``fit(request: FitRequest) -> Calibration``; :data:`ENGINE_TABLE` says what
each one can do, and :func:`irtbridge.calibrate` checks a call against that row once, then dispatches.
Nothing below the dispatch re-checks the options the table already answered.

==========  ======================================  ======  =============================  ==============
engine      module                                  priors  dims / spec / per-item models  answered cells
==========  ======================================  ======  =============================  ==============
``mirt``    :mod:`~.engines.mirt` (R's mirt)        yes     yes                            no
``ltm``     :mod:`~.engines.ltm` (R's ltm)          no      no                             no
``native``  :mod:`~.engines.native` (numpy EM)      3PL     no                             yes
==========  ======================================  ======  =============================  ==============

The models each engine fits are :data:`irtbridge.calibration.result.ENGINES`. Engine modules are
imported on first use, so choosing an engine never loads the others (nor R, for ``native``).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Mapping

from irtbridge.calibration.engines.request import FitRequest
from irtbridge.calibration.result import ENGINES, Calibration
from irtbridge.exceptions import ValidationError

__all__ = ["Engine", "ENGINE_TABLE", "FitRequest", "engine"]


@dataclass(frozen=True)
class Engine:
    """One row of the dispatch table: what an engine takes, and where its ``fit`` lives."""

    name: str
    module: str
    models: Mapping[str, str]
    priors: bool
    structure: bool
    sparse: bool

    def fit(self, request: FitRequest) -> Calibration:
        """Fit ``request`` with this engine (its module's ``fit``)."""
        return importlib.import_module(self.module).fit(request)

    def check(self, *, priors: bool, structured: bool, sparse: bool) -> None:
        """A one-line ValidationError for what this engine cannot take (checked once, at the entry)."""
        takers = lambda what: " or ".join(repr(e.name) for e in ENGINE_TABLE.values() if getattr(e, what))  # noqa: E731
        if structured and not self.structure:
            raise ValidationError(f"dims, spec, parameters and per-item models need engine={takers('structure')}, "
                                  f"not engine={self.name!r}")
        if priors and not self.priors:
            raise ValidationError(f"priors: engine={self.name!r} takes no priors on item parameters; use "
                                  f"engine={takers('priors')}")
        if sparse and not self.sparse:
            raise ValidationError(f"responses: answered cells (ResponseData) need engine={takers('sparse')}; "
                                  f"engine={self.name!r} takes a response matrix")


ENGINE_TABLE: dict[str, Engine] = {
    "mirt": Engine("mirt", "irtbridge.calibration.engines.mirt", ENGINES["mirt"], priors=True, structure=True,
                   sparse=False),
    "ltm": Engine("ltm", "irtbridge.calibration.engines.ltm", ENGINES["ltm"], priors=False, structure=False,
                  sparse=False),
    "native": Engine("native", "irtbridge.calibration.engines.native", ENGINES["native"], priors=True,
                     structure=False, sparse=True),
}


def engine(name: str) -> Engine:
    """The dispatch-table row of an engine name (already checked against :data:`ENGINE_TABLE`)."""
    return ENGINE_TABLE[name]
