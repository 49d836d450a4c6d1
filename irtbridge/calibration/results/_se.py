"""Standard errors on demand: the ``standard_errors`` field of :class:`~irtbridge.calibration.Calibration`.

A fit holds its SE table in one of three states:

* a DataFrame: computed (``se=True``, or on an earlier access), or all NaN (``se=False``);
* :class:`PendingStandardErrors`: not computed yet; the first access computes them from the live fit
  (the engine's ``source``), once, under a lock, and keeps the table;
* ``None``: not computed and no longer computable (unpickled, read from JSON, ``without_r_model()``):
  access is a one-line :class:`~irtbridge.exceptions.ValidationError` saying to refit with ``se=True``.

:class:`StandardErrorsField` is the data descriptor the dataclass field uses: the generated ``__init__``
stores through it, reading resolves the state. Nothing here imports R; the engines bring the ``source``.
"""

from __future__ import annotations

import threading
import time
import warnings
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping

import pandas as pd

from irtbridge.exceptions import find_stack_level, IrtBridgeWarning, ValidationError

__all__ = ["SEOutcome", "PendingStandardErrors", "StandardErrorsField", "NEVER_COMPUTED", "SE_MODEL", "GROUP_PARENT",
           "raw_state"]

NEVER_COMPUTED = (
    "standard_errors: this calibration never computed its standard errors and has no live fit to compute "
    "them from (it was pickled, read from JSON or made in another process); refit with calibrate(..., se=True)"
)

# where a fit keeps the live model its SEs were computed on (not a field: it never travels)
SE_MODEL = "_se_model"
# where one group taken out of a multiple-group fit keeps (the whole fit's live model, its group name):
# the group's coefficients and SEs are the whole fit's (mirt's coef(mg, printSE = TRUE)[[group]])
GROUP_PARENT = "_group_parent"


@dataclass(frozen=True)
class SEOutcome:
    """What an engine's SE computation returns: the table, and why it is NaN when it is."""

    table: pd.DataFrame
    message: str | None = None          # the one warning (also appended to Calibration.warnings)
    category: type[Warning] = IrtBridgeWarning
    options: Mapping[str, Any] = field(default_factory=dict)  # recorded in Calibration.options
    provenance: Mapping[str, Any] = field(default_factory=dict)  # recorded in Calibration.provenance
    model: Any = None  # the live model the SEs came from (its information matrix), when not the fit's own


class PendingStandardErrors:
    """SEs not computed yet: ``source()`` computes them (an :class:`SEOutcome`) on first use, once.

    Thread-safe: concurrent first accesses wait on one lock and share the one result (R calls are
    serialised by the session's lock anyway). The source is dropped once it has run, releasing the data
    and the R objects it holds.
    """

    def __init__(self, source: Callable[[], SEOutcome], *, needs_r: bool) -> None:
        self._source: Callable[[], SEOutcome] | None = source
        self._outcome: SEOutcome | None = None
        self._lock = threading.Lock()
        self.needs_r = needs_r  # the source needs the live R model (lost by without_r_model())

    def outcome(self) -> tuple[SEOutcome, bool]:
        """The outcome, and whether this call computed it (only then is its warning raised)."""
        with self._lock:
            if self._outcome is not None:
                return self._outcome, False
            assert self._source is not None
            started = time.perf_counter()
            outcome = self._source()
            self._outcome = replace(outcome, provenance={**outcome.provenance,
                                                         "se_seconds": time.perf_counter() - started})
            self._source = None
            return self._outcome, True


class StandardErrorsField:
    """The ``standard_errors`` field: stored as given by ``__init__``, resolved when read.

    A data descriptor as a dataclass field default (the documented "descriptor-typed field" protocol):
    ``__get__`` on the class raises AttributeError, so the field stays required. Assignment after
    construction still raises ``FrozenInstanceError`` (the dataclass's own ``__setattr__`` comes first).
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    def __set__(self, fit: Any, value: Any) -> None:
        if value is not None and not isinstance(value, (pd.DataFrame, PendingStandardErrors)):
            raise ValidationError(f"standard_errors must be a DataFrame or None, got {type(value).__name__}")
        fit.__dict__["_se_state"] = value

    def __get__(self, fit: Any, owner: type | None = None) -> pd.DataFrame:
        if fit is None:
            raise AttributeError(self._name)
        state = fit.__dict__.get("_se_state")
        if isinstance(state, pd.DataFrame):
            return state
        if state is None:
            raise ValidationError(NEVER_COMPUTED)
        outcome, computed = state.outcome()
        if outcome.message and computed:
            warnings.warn(outcome.message, outcome.category, stacklevel=find_stack_level())
        _settle(fit, state, outcome)
        return outcome.table


def _settle(fit: Any, state: PendingStandardErrors, outcome: SEOutcome) -> None:
    """Keep the computed table on the fit, with its note, as an eager fit would have them."""
    if fit.__dict__.get("_se_state") is not state:
        return
    fit.__dict__["_se_state"] = outcome.table
    if outcome.model is not None:
        fit.__dict__[SE_MODEL] = outcome.model
    if outcome.message:
        object.__setattr__(fit, "warnings", (*fit.warnings, outcome.message))
    if outcome.options:
        object.__setattr__(fit, "options", {**fit.options, **outcome.options})
    if outcome.provenance:
        object.__setattr__(fit, "provenance", {**fit.provenance, **outcome.provenance})


def raw_state(fit: Any) -> Any:
    """The stored state (table, pending computation or None), without computing anything."""
    return fit.__dict__.get("_se_state")
