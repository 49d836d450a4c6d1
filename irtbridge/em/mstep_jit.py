"""The 2PL M-step of :mod:`irtbridge.em.mstep` as one compiled loop per item: the same Newton's method.

:func:`irtbridge.em.mstep._newton_2pl` runs Newton's method for all items at once with whole-array numpy
operations: every step makes about a dozen passes over items x nodes temporaries. At leaderboard widths
(200,000 items x 40 nodes held) that is most of an EM cycle's time besides the E-step. Here each item's
Newton iterations run in one numba loop over its nodes (the probability, the residual, the weights and the
five sums of the gradient and the 2 x 2 Hessian in one pass), the items split in two halves on two threads
(the kernel releases the GIL; each item is computed alone, so the result does not depend on the threads).

The steps are :func:`~irtbridge.em.mstep._newton_2pl`'s, term for term: the same start, the same cap of 2
in every coordinate, the same fall-back when the Hessian's determinant is not positive, the same stop (a
step below 1e-11, at most 50 steps). The sums run in another order than numpy's pairwise ones, so the two
agree to rounding (the Newton point itself is reached to 1e-11 either way). Without numba the numpy version
runs.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from irtbridge.em import window as em_window
from irtbridge.em.jit import compiled

__all__ = ["MIN_ITEMS", "available", "newton_2pl"]

MIN_ITEMS = 2000
"""Below this many items the numpy Newton steps are fast enough and numba's compilation is not."""
FINE = 61
"""Over more nodes than this (a grid finer than mirt's, :mod:`irtbridge.em.window`) ``exp(-z)`` runs along
the equally spaced nodes as a product, ``exp(-z_{q+1}) = exp(-z_q) exp(-a h)``, started afresh from ``exp``
every ``_ANCHOR`` nodes: one ``exp`` in 16 (its rounding stays below 1e-14 relative)."""
_ANCHOR = 16
_KERNEL: list[Callable] = []


def available() -> bool:
    """Whether the compiled M-step can run (numba imports).

    Returns
    -------
    bool
        True when numba imports (:func:`irtbridge.em.window.available`).
    """
    return em_window.available()


def _kernel(r, n, theta, a, d, first, stop, steps, max_step, fine):  # pragma: no cover - compiled
    """Newton's method for items ``first..stop-1`` in place, compiled by :func:`_compile`.

    ``fine``: the nodes are a fine, equally spaced grid (``FINE``), and ``exp(-z)`` runs along them as a
    product anchored every ``_ANCHOR`` nodes; otherwise one ``exp`` per node.
    """
    nodes = theta.shape[0]
    spacing = (theta[nodes - 1] - theta[0]) / (nodes - 1) if fine else 0.0
    for j in range(first, stop):
        aj, dj = a[j], d[j]
        rj, nj = r[j], n[j]
        for _ in range(steps):
            ga = 0.0
            gd = 0.0
            haa = 0.0
            had = 0.0
            hdd = 0.0
            ratio = np.exp(-aj * spacing) if fine else 1.0
            e = 0.0
            for q in range(nodes):
                t = theta[q]
                if fine and q % _ANCHOR != 0:
                    e *= ratio
                else:
                    e = np.exp(-(aj * t + dj))
                p = 1.0 / (1.0 + e)
                resid = rj[q] - nj[q] * p
                w = nj[q] * (p * (1.0 - p))
                ga += resid * t
                gd += resid
                haa += w * (t * t)
                had += w * t
                hdd += w
            det = haa * hdd - had * had
            if det > 1e-300:
                da = (hdd * ga - had * gd) / det
                dd = (haa * gd - had * ga) / det
            else:
                da = 0.0
                dd = gd / max(hdd, 1e-300) if hdd > 0 else 0.0
            big = max(abs(da), abs(dd))
            scale = min(1.0, max_step / max(big, 1e-300))
            da *= scale
            dd *= scale
            aj += da
            dj += dd
            if max(abs(da), abs(dd)) < 1e-11:
                break
        a[j], d[j] = aj, dj


def _compile() -> Callable:
    if not _KERNEL:
        if not available():  # pragma: no cover - the M-step calls this only with numba
            raise RuntimeError("the compiled M-step needs numba")
        _KERNEL.append(compiled(_kernel, fastmath=False))
    return _KERNEL[0]


def newton_2pl(r: np.ndarray, n: np.ndarray, theta: np.ndarray, a: np.ndarray, d: np.ndarray,
               steps: int = 50, max_step: float = 2.0) -> tuple[np.ndarray, np.ndarray]:
    """Each item's weighted logistic regression of ``r`` on the nodes by Newton's method, from ``(a, d)``.

    Parameters
    ----------
    r, n : numpy.ndarray
        Expected correct and answered counts, items x nodes.
    theta : numpy.ndarray
        The nodes.
    a, d : numpy.ndarray
        Where Newton's method starts (not changed).
    steps : int, default 50
        At most this many Newton steps per item.
    max_step : float, default 2.0
        The cap on a step in every coordinate.

    Returns
    -------
    a, d : numpy.ndarray
        The new slopes and intercepts.

    Examples
    --------
    >>> theta = np.linspace(-6, 6, 61)
    >>> p = 1 / (1 + np.exp(-(1.5 * theta - 0.5)))
    >>> N = np.exp(-0.5 * theta**2) * 1000 / np.exp(-0.5 * theta**2).sum()
    >>> a, d = newton_2pl((N * p)[None, :], N[None, :], theta, np.ones(1), np.zeros(1))
    >>> np.round([a[0], d[0]], 6).tolist()
    [1.5, -0.5]
    """
    kernel = _compile()
    fine = len(theta) > FINE
    r, n = np.asarray(r, dtype=np.float64), np.asarray(n, dtype=np.float64)  # a slice of nodes: rows strided
    theta = np.ascontiguousarray(theta, dtype=np.float64)
    a, d = np.array(a, dtype=np.float64), np.array(d, dtype=np.float64)
    half = len(a) // 2
    em_window.pair(r.size, lambda: kernel(r, n, theta, a, d, 0, half, steps, max_step, fine),
                   lambda: kernel(r, n, theta, a, d, half, len(a), steps, max_step, fine))
    return a, d
