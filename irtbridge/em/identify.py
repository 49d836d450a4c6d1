"""The direction of the latent scale: which of a fit and its reflection the native EM reports; and the
scale itself, restored after a PX-EM cycle (:func:`standardise`).

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

__all__ = ["orient", "standardise"]


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


def standardise(a: np.ndarray, d: np.ndarray, N: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Items moved to the scale on which the E-step's latent distribution has mean 0 and variance 1.

    The reduction step of PX-EM (Liu, Rubin & Wu 1998) for theta ~ N(mu, sigma^2): ``a theta + d`` with
    ``theta = mu + sigma z`` is ``(a sigma) z + (d + a mu)``. The native EM runs such cycles first on the 2PL
    and 1PL: with thousands of answers per respondent each posterior sits on a node or two, and the latent
    scale is plain EM's slowest direction. On the quadrature grid the PX-EM fixed point is not the plain
    map's (about 7.5 log-likelihood units lower on 150 x 1,194 fully answered) and a PX-EM cycle need not raise the
    log-likelihood, so the fit runs them only while they do and goes on with the plain map from there
    (:func:`irtbridge.em.core.fit_em`).

    Parameters
    ----------
    a, d : numpy.ndarray
        Slopes and intercepts, one per item (the 2PL; the 1PL's slopes all equal).
    N : numpy.ndarray
        The expected number of respondents at each node (the E-step's).
    theta : numpy.ndarray
        The nodes.

    Returns
    -------
    tuple of numpy.ndarray
        The slopes and intercepts on the standard scale (unchanged when the counts have no spread).

    Examples
    --------
    >>> a, d = standardise(np.array([1.0]), np.array([0.0]), np.array([1.0, 1.0]), np.array([0.0, 2.0]))
    >>> a.tolist(), d.tolist()
    ([1.0], [1.0])
    """
    share = N / N.sum()
    mu = float(share @ theta)
    sigma = float(np.sqrt(share @ (theta - mu) ** 2))
    if not (np.isfinite(sigma) and sigma > 0):
        return a, d
    return a * sigma, d + a * mu
