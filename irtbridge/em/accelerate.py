"""SQUAREM, the EM accelerator of the native fits, with a monotone safeguard.

Varadhan & Roland (2008), step length S3: from ``x``, two EM cycles give ``x1 = F(x)``, ``x2 = F(x1)``,
``r = x1 - x`` and ``v = x2 - 2 x1 + x``; the extrapolated point ``x + 2 s r + s^2 v`` with
``s = |r| / |v|`` (at least 1, where the point is plain EM's ``x2``; at most a bound that adapts) is taken
through one more cycle and kept only if the objective there is not below the objective at ``x1``;
otherwise ``x2`` (plain EM) is kept. EM never
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
    def done(self) -> bool:
        """Whether the EM has converged or run out of cycles."""
        ...


def _sum_of_squares(v: np.ndarray) -> float:
    return float(np.nansum(v * v))


_GROWTH = 4.0  # the step bound grows (and shrinks) by this factor, as in Varadhan & Roland's SQUAREM package


def squarem(em: EMMap, x: np.ndarray, project: Callable[[np.ndarray], np.ndarray | None] | None = None) -> np.ndarray:
    """Run ``em`` from ``x`` to its end with SQUAREM; ``project`` maps an extrapolated point into the
    parameter space (or returns None when it cannot, and plain EM's point is kept).

    The step length is bounded, starting at plain EM's: the bound grows fourfold each time a step reaches
    it and is kept, and shrinks fourfold (not below 1) when such a step is refused. Unbounded steps are
    refused often where a few items drift without a finite maximum (slopes running away on items that
    almost everyone answers alike): on 2,000 x 5,000 with 90% missing, 424 plain cycles took 125 with
    the unbounded step (28 of 42 extrapolations refused) and 69 with the bound (4 of 24).
    """
    longest = 1.0
    while not em.done:
        x1, _ = em(x)
        if em.done:
            return x1
        x2, f1 = em(x1)
        if em.done:
            return x2
        r, v = x1 - x, x2 - 2 * x1 + x
        vv = _sum_of_squares(v)
        step = min(np.sqrt(_sum_of_squares(r) / vv) if vv > 0 else 1.0, longest)
        bounded = step >= longest
        trial = x + 2 * step * r + step**2 * v if step > 1.0 else None
        if trial is not None and project is not None:
            trial = project(trial)
            if trial is None:  # the step left the parameter space: as a refused step
                x = x2
                if bounded:
                    longest = max(1.0, longest / _GROWTH)
                continue
        if trial is None:
            x = x2
        else:
            x3, f_trial = em(trial)
            if not (np.isfinite(f_trial) and f_trial >= f1):
                x = x2
                if em.converged:
                    em.converged = False  # the refused trial's own change says nothing about x2
                if bounded:
                    longest = max(1.0, longest / _GROWTH)
                continue
            x = x3
        if bounded:
            longest *= _GROWTH
    return x


def iterate(em: EMMap, x: np.ndarray, accelerate: str,
            project: Callable[[np.ndarray], np.ndarray | None] | None = None) -> np.ndarray:
    """Run ``em`` from ``x``: ``accelerate="squarem"`` (:func:`squarem`) or ``"none"`` (plain EM).

    Parameters
    ----------
    em : EMMap
        One EM cycle.
    x : ndarray
        The starting parameters (flat).
    accelerate : {"squarem", "none"}
        The scheme.
    project : callable, optional
        Maps a proposed point back into the parameter space (None where it cannot be).

    Returns
    -------
    ndarray
        The parameters where ``em`` is done.
    """
    if accelerate == "squarem":
        return squarem(em, x, project)
    while not em.done:
        x, _ = em(x)
    return x
