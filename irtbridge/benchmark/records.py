"""The structured records of one dataset's evaluation: calibration attempts and recorded warnings.

They travel with :class:`irtbridge.benchmark.DatasetResult` between processes and into the pipeline's
result; writers (the report's notes, a batch unit's ``unit.json``) render them with ``str()``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Sequence

from irtbridge import exceptions
from irtbridge.exceptions import IrtBridgeWarning

__all__ = ["CalibrationAttempt", "StageWarning"]

# warning category name -> class, to re-raise warnings recorded in another process
_WARNING_CLASSES = {
    name: getattr(exceptions, name) for name in exceptions.__all__
    if isinstance(getattr(exceptions, name), type) and issubclass(getattr(exceptions, name), Warning)
}


@dataclass(frozen=True)
class CalibrationAttempt:
    """One try of one engine: ``status`` is ``"converged"``, ``"not converged"`` or ``"error"``.

    ``str()`` gives the line the report shows, e.g. ``"ltm: error (R's message), 0.3 s"``; :attr:`outcome`
    the same without the time.
    """

    engine: str
    status: str
    message: str = ""
    seconds: float = 0.0
    model: str = "3PL"

    @property
    def outcome(self) -> str:
        return f"{self.engine}: {self.status}" + (f" ({self.message})" if self.message else "")

    def __str__(self) -> str:
        return f"{self.outcome}, {self.seconds:.1f} s"


@dataclass(frozen=True)
class StageWarning:
    """A warning recorded while a dataset was evaluated, kept so that results computed in worker
    processes can re-raise it and reports can show it.

    Attributes
    ----------
    stage : str
        Where it arose: ``"data"``, ``"classifiers"``, ``"calibration"``, ``"scoring"``,
        ``"fit diagnostics"`` (the benchmark's pipeline) or a later stage of :mod:`irtbridge.pipeline`
        (``"ei/hardness"``).
    category : str
        The warning class's name (one of :mod:`irtbridge.exceptions`), e.g. ``"RWarning"``.
    message : str

    Examples
    --------
    >>> str(StageWarning("calibration", "RWarning", "R: NaNs produced"))
    'RWarning: R: NaNs produced'
    """

    stage: str
    category: str
    message: str

    @property
    def warning_class(self) -> type[Warning]:
        """The class to re-raise it with (:class:`~irtbridge.exceptions.IrtBridgeWarning` if unknown)."""
        return _WARNING_CLASSES.get(self.category, IrtBridgeWarning)

    def __str__(self) -> str:
        return f"{self.category}: {self.message}"


def _stage_warnings(caught: Sequence[warnings.WarningMessage], stages: Sequence[tuple[int, str]]) -> tuple[StageWarning, ...]:
    """The irtbridge warnings among ``caught``, each with its stage, once per (category, message)."""
    out: dict[tuple[str, str], StageWarning] = {}
    for i, w in enumerate(caught):
        if not issubclass(w.category, IrtBridgeWarning):
            continue
        stage = next(s for start, s in reversed(stages) if start <= i)
        out.setdefault((w.category.__name__, str(w.message)), StageWarning(stage, w.category.__name__, str(w.message)))
    return tuple(out.values())
