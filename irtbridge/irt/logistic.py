"""The dichotomous logistic response in logs: one ``log P`` / ``log Q`` for the whole package.

Every dichotomous item of irtbridge (the scoring kernel :mod:`irtbridge.irt.fast`, the native EM's E-steps
and M-steps in :mod:`irtbridge.em`, the leaderboard's predictors) is mirt's four-parameter logistic,

    P = g + (u - g) expit(z),    Q = 1 - P = (1 - u) + (u - g) expit(-z),

with ``z`` the item's logit at a node (``a (theta - b)``, or ``a1 theta + d`` in the slope-intercept
metric); the 1PL, 2PL and Rasch items have ``g = 0`` and ``u = 1``, the 3PL ``u = 1``. :func:`log_pq`
returns both logs, exact for any finite ``z`` and at both asymptotes.
"""

from __future__ import annotations

import numpy as np
from scipy.special import log_expit

__all__ = ["log_pq"]


def log_pq(z: np.ndarray, log_g: np.ndarray | float | None = None, log_1mu: np.ndarray | float | None = None,
           log_span: np.ndarray | float | None = None, out: tuple[np.ndarray, np.ndarray] | None = None,
           base: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``log P`` and ``log Q`` of the logistic item at logits ``z``.

    Without asymptotes (``log_g`` None): ``log expit(z)`` and ``log expit(-z)`` bit for bit as scipy's
    ``log_expit`` computes them (``z - log1p(exp(z))`` below 0, ``-log1p(exp(-z))`` above), from one call
    ``log_expit(|z|) = -log1p(exp(-|z|))`` shared by both: ``log P = min(z, -0) + log_expit(|z|)`` and
    ``log Q = min(-z, -0) + log_expit(|z|)`` (each a single rounding of the same two numbers scipy subtracts;
    ``-0`` keeps the sign of a zero). So every caller gets scipy's numbers, in half the time of two calls;
    numpy's own ``exp`` / ``log1p`` (vectorized, faster still) differ from the C library's in the last bit.
    With asymptotes, ``log P = logaddexp(log g, log(u - g) + log expit(z))`` and
    ``log Q = logaddexp(log(1 - u), log(u - g) + log expit(-z))``, capped at 0 (the sum of two logs can
    round an ulp above ``log 1``).

    Parameters
    ----------
    z : ndarray
        The logits (any shape).
    log_g, log_1mu, log_span : ndarray or float, optional
        ``log g``, ``log(1 - u)`` and ``log(u - g)``, broadcast against ``z`` (``-inf`` for ``g = 0`` or
        ``u = 1``); all three or none.
    out : tuple of ndarray, optional
        Arrays like ``z`` to write ``log P`` and ``log Q`` into (without asymptotes only).
    base : tuple of ndarray, optional
        ``log_pq(z)`` if the caller has it already (with asymptotes only): not computed again.

    Returns
    -------
    log_p, log_q : ndarray
        Like ``z``.

    Examples
    --------
    >>> lp, lq = log_pq(np.array([-800.0, 0.0, 40.0]))
    >>> lp.round(3).tolist(), lq.round(3).tolist()
    ([-800.0, -0.693, -0.0], [-0.0, -0.693, -40.0])
    >>> lp, lq = log_pq(np.array([-800.0, 800.0]), np.log(0.2), np.log1p(-0.9), np.log(0.9 - 0.2))
    >>> np.exp(lp).round(3).tolist(), np.exp(lq).round(3).tolist()
    ([0.2, 0.9], [0.8, 0.1])
    """
    if base is not None and log_g is not None:
        lp, lq = base
    else:
        shared = log_expit(np.abs(z))
        lp, lq = out if out is not None else (np.empty_like(z), np.empty_like(z))
        np.add(np.minimum(z, -0.0), shared, out=lp)
        np.add(np.minimum(-z, -0.0), shared, out=lq)
    if log_g is None:
        return lp, lq
    if out is not None or log_1mu is None or log_span is None:
        raise ValueError("log_pq: log_g, log_1mu and log_span go together, and out= is for the item without them")
    return (np.minimum(np.logaddexp(log_g, log_span + lp), 0.0),
            np.minimum(np.logaddexp(log_1mu, log_span + lq), 0.0))
