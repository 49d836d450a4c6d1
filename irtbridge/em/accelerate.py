"""SQUAREM, the EM accelerator of the native fits, with a monotone safeguard.

Varadhan & Roland (2008), step length S3: from ``x``, two EM cycles give ``x1 = F(x)``, ``x2 = F(x1)``,
``r = x1 - x`` and ``v = x2 - 2 x1 + x``; the extrapolated point ``x - 2 alpha r + alpha^2 v`` with
``alpha = -|r| / |v|`` (at most -1; ``alpha = -1`` is plain EM) is taken through one more cycle and kept only
if the objective there is not below the objective at ``x1``; otherwise ``x2`` (plain EM) is kept. EM never
lowers the objective, so neither does the accelerated sequence, and its fixed points are EM's.

The EM map is any callable object with the protocol of :class:`EMMap`. Parameters are one float array
(any shape); NaN entries (e.g. the missing thresholds of a graded item with fewer categories) stay NaN and
do not enter the step length.
"""

from __future__ import annotations

from typing import Callable, Protocol

import numpy as np

__all__ = ["ACCELERATORS", "EMMap", "iterate"]

ACCELERATORS = ("squarem", "none")


class EMMap(Protocol):
    """One EM cycle as a map: ``em(x) -> (F(x), objective at x)``; ``done`` once converged or out of cycles."""

    converged: bool

    def __call__(self, x: np.ndarray) -> tuple[np.ndarray, float]: ...

    @property
    def done(self) -> bool: ...


def _sum_of_squares(v: np.ndarray) -> float:
    return float(np.nansum(v * v))


def squarem(em: EMMap, x: np.ndarray, project: Callable[[np.ndarray], np.ndarray | None] | None = None) -> np.ndarray:
    """Run ``em`` from ``x`` to its end with SQUAREM; ``project`` maps an extrapolated point into the
    parameter space (or returns None when it cannot, and plain EM's point is kept)."""
    while not em.done:
        x1, _ = em(x)
        if em.done:
            return x1
        x2, f1 = em(x1)
        if em.done:
            return x2
        r, v = x1 - x, x2 - 2 * x1 + x
        vv = _sum_of_squares(v)
        alpha = min(-np.sqrt(_sum_of_squares(r) / vv), -1.0) if vv > 0 else -1.0
        trial = None if alpha == -1.0 else x - 2 * alpha * r + alpha**2 * v
        if trial is not None and project is not None:
            trial = project(trial)
        if trial is None:
            x = x2
            continue
        x3, f_trial = em(trial)
        x = x3 if np.isfinite(f_trial) and f_trial >= f1 else x2
        if em.converged and x is x2:
            em.converged = False  # the rejected trial's own change says nothing about x2
    return x


def iterate(em: EMMap, x: np.ndarray, accelerate: str,
            project: Callable[[np.ndarray], np.ndarray | None] | None = None) -> np.ndarray:
    """Run ``em`` from ``x``: ``accelerate="squarem"`` (:func:`squarem`) or ``"none"`` (plain EM)."""
    if accelerate == "squarem":
        return squarem(em, x, project)
    while not em.done:
        x, _ = em(x)
    return x
