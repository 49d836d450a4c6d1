"""The live R model behind a fit, for the analyses that mirt computes on it (item and person fit, residuals,
reliability, comparisons, bootstrap and draws)."""

from __future__ import annotations

from typing import Any

from irtbridge.exceptions import ValidationError


def live_model(fit: Any, what: str) -> Any:
    """The live mirt model behind ``fit``, or a one-line error saying why there is none."""
    if getattr(fit, "engine", None) != "mirt":
        raise ValidationError(
            f"{what} needs a mirt fit (mirt computes it); this calibration is from engine "
            f"{getattr(fit, 'engine', None)!r}: refit with engine='mirt'"
        )
    if getattr(fit, "r_model", None) is None:
        raise ValidationError(
            f"{what} needs the live R model, which does not travel through pickle or JSON: refit in this process"
        )
    return fit.r_model
