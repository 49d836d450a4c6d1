"""The direction of the latent scale: which of a fit and its reflection the native EM reports.

The 2PL (and the 1PL's shared slope, and the graded model) has a reflection: ``a -> -a`` with
``theta -> -theta`` gives every response the same probability (``a theta + d`` unchanged), and the latent
distribution, ``N(0, 1)``, is symmetric, so the likelihood cannot tell the two apart. The location and the
scale of theta are fixed by that distribution (mean 0, variance 1; the Rasch model frees the variance and
fixes every slope at 1, so it has no reflection). The direction is fixed here: **the mean slope is
positive** (the usual orientation, higher theta = more answers right on the typical item). A mean slope
within the tie tolerance of zero (:mod:`irtbridge._ties`) is decided by the first item whose slope is not
tied with zero, made positive. The intercepts do not change.

EM started from positive slopes almost always stays there; a fit started from a reflected point (or one
that wandered, on data that hardly identify the direction) is turned round, so two runs give the same
signs.
"""

from __future__ import annotations

import numpy as np

from irtbridge._ties import tie_greater

__all__ = ["orient"]


def orient(a: np.ndarray) -> tuple[np.ndarray, bool]:
    """The slopes in the direction whose mean slope is positive, and whether they were reflected.

    Parameters
    ----------
    a : numpy.ndarray
        The slopes of one fit (NaN entries are ignored).

    Returns
    -------
    tuple of (numpy.ndarray, bool)
        ``a`` or ``-a`` (a new array), and True where it was reflected (then every ability is ``-theta``).

    Examples
    --------
    >>> orient(np.array([-1.2, -0.4, 0.3]))
    (array([ 1.2,  0.4, -0.3]), True)
    >>> orient(np.array([0.0, 0.5, -0.5]))[1]  # mean tied with zero: the first non-zero slope decides
    False
    """
    a = np.asarray(a, dtype=float)
    finite = a[np.isfinite(a)]
    if finite.size == 0:
        return a.copy(), False
    mean = float(finite.mean())
    scale = float(np.abs(finite).max())
    if tie_greater(mean, 0.0, scale=scale):
        return a.copy(), False
    if tie_greater(0.0, mean, scale=scale):
        return -a, True
    decided = finite[tie_greater(np.abs(finite), 0.0, scale=scale)]
    flip = bool(decided.size and decided[0] < 0)
    return (-a if flip else a.copy()), flip
