"""The native EM's M-step for the Rasch, 1PL, 2PL and graded models: :func:`mstep`.

Each item's expected complete-data log-likelihood, from the expected counts of one E-step
(:func:`irtbridge.em.core.estep`), is a weighted logistic regression of the correct counts ``r`` on the
nodes, maximised by Newton's method for all items at once: 2 x 2 systems for the 2PL, the shared slope of
the 1PL by a Schur complement, the intercepts alone for the Rasch model (which frees the latent variance:
``var = sum_q N_q theta_q^2 / N``). The graded model's M-step is :func:`irtbridge.em.graded.newton_graded`,
MAP with item priors :func:`irtbridge.em.priors.newton_map`. Steps are capped at 2 in every coordinate;
Newton's method stops once the steps are below 1e-11 (an item of the 2PL or the Rasch model by itself).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from irtbridge.em import graded as em_graded
from irtbridge.em import mstep_jit
from irtbridge.em.priors import ItemPriors, newton_map

__all__ = ["mstep"]

_NEWTON_STEPS = 50
_MAX_STEP = 2.0


def _newton_2pl(r, n, theta, a, d):
    """Each item's weighted logistic regression by Newton's method; an item leaves once its step is below
    1e-11 (the items are independent, so the others go on without it).

    Written for small calibrations, where a step's dozen whole-array operations cost less than numpy's
    per-call overhead: the fall-back for a singular Hessian is formed only when some item needs it, and the
    step's size is scaled once (``|s da| = s |da|`` exactly for ``s > 0``)."""
    a, d = a.copy(), d.copy()
    live = None  # every item, until one leaves
    rr, nn, theta2 = r, n, theta**2
    for _ in range(_NEWTON_STEPS):
        al, dl = (a, d) if live is None else (a[live], d[live])
        p = expit(al[:, None] * theta[None, :] + dl[:, None])
        resid = rr - nn * p
        p *= 1.0 - p
        w = nn * p
        ga, gd = resid @ theta, resid.sum(axis=1)
        haa, had, hdd = w @ theta2, w @ theta, w.sum(axis=1)
        det = haa * hdd - had**2
        ok = det > 1e-300
        if ok.all():
            da = (hdd * ga - had * gd) / det
            dd = (haa * gd - had * ga) / det
        else:
            safe = np.where(ok, det, 1.0)
            da = np.where(ok, (hdd * ga - had * gd) / safe, 0.0)
            dd = np.where(ok, (haa * gd - had * ga) / safe,
                          np.where(hdd > 0, gd / np.maximum(hdd, 1e-300), 0.0))
        big = np.maximum(np.abs(da), np.abs(dd))
        scale = np.minimum(1.0, _MAX_STEP / np.maximum(big, 1e-300))
        da *= scale
        dd *= scale
        if live is None:
            a += da
            d += dd
        else:
            a[live] += da
            d[live] += dd
        moving = big * scale >= 1e-11
        if not moving.all():
            live = np.flatnonzero(moving) if live is None else live[moving]
            rr, nn = rr[moving], nn[moving]
            if live.size == 0:
                break
    return a, d


def _newton_intercepts(r, n, theta, a, d):
    d = d.copy()
    live = np.arange(len(d))
    rr, nn, slope = r, n, a[:, None] * theta[None, :]
    for _ in range(_NEWTON_STEPS):
        p = expit(slope[live] + d[live, None])
        g = (rr - nn * p).sum(axis=1)
        p *= 1.0 - p
        h = (nn * p).sum(axis=1)
        step = np.clip(np.where(h > 0, g / np.maximum(h, 1e-300), 0.0), -_MAX_STEP, _MAX_STEP)
        d[live] += step
        moving = np.abs(step) >= 1e-11
        if not moving.all():
            live, rr, nn = live[moving], rr[moving], nn[moving]
            if live.size == 0:
                break
    return d


def _newton_1pl(r, n, theta, a, d):
    """One slope shared by every item: Newton on (a, d_1..d_J) through the Schur complement."""
    for _ in range(_NEWTON_STEPS):
        p = expit(a * theta[None, :] + d[:, None])
        resid = r - n * p
        w = n * p * (1.0 - p)
        ga, gd = float((resid @ theta).sum()), resid.sum(axis=1)
        haa, had, hdd = float((w @ theta**2).sum()), w @ theta, np.maximum(w.sum(axis=1), 1e-300)
        schur = haa - float((had**2 / hdd).sum())
        da = (ga - float((had * gd / hdd).sum())) / schur if schur > 1e-300 else 0.0
        dd = (gd - had * da) / hdd
        scale = min(1.0, _MAX_STEP / max(abs(da), np.abs(dd).max(initial=0), 1e-300))
        a, d = a + scale * da, d + scale * dd
        if max(abs(scale * da), np.abs(scale * dd).max(initial=0)) < 1e-11:
            break
    return a, d


def mstep(model: str, r: np.ndarray, n: np.ndarray, N: np.ndarray, theta: np.ndarray, a: np.ndarray,
          d: np.ndarray, variance: float, ncat: tuple[int, ...] | None = None,
          priors: ItemPriors | None = None) -> tuple[np.ndarray, np.ndarray, float]:
    """New (slopes, intercepts, latent variance) from the expected counts of one E-step.

    Nodes at the ends of the grid with no posterior mass at all (``N`` exactly zero: outside every
    respondent's window of the windowed E-step, so ``r`` and ``n`` are zero there too) add exactly nothing to
    any item's objective; the 0/1 models leave them out.

    Parameters
    ----------
    model : {"rasch", "1PL", "2PL", "graded"}
        The model (as :func:`~irtbridge.em.core.fit_em` checked it).
    r, n : ndarray
        The expected counts of :func:`~irtbridge.em.core.estep`, items x nodes: correct and answered (graded:
        ``r`` per indicator column (item, category), ``n`` unused).
    N : ndarray
        The expected number of respondents at each node.
    theta : ndarray
        The nodes.
    a, d : ndarray
        The current slopes and intercepts (graded: items x (max K - 1)), where Newton's method starts.
    variance : float
        The current latent variance; returned as it is except by the Rasch model, which estimates it.
    ncat : tuple of int, optional
        Categories per item (graded only).
    priors : ItemPriors, optional
        The 2PL's and 1PL's item priors (:mod:`irtbridge.em.priors`): the M-step is then MAP.

    Returns
    -------
    a, d : ndarray
        The new slopes (one per item; the 1PL: the shared one repeated; the Rasch model: ``a`` as given)
        and intercepts.
    variance : float
        The new latent variance.

    Examples
    --------
    >>> theta = np.linspace(-6, 6, 61)
    >>> p = 1 / (1 + np.exp(-(1.5 * theta - 0.5)))          # one 2PL item, a = 1.5, d = -0.5
    >>> N = np.exp(-0.5 * theta**2) * 1000 / np.exp(-0.5 * theta**2).sum()
    >>> a, d, var = mstep("2PL", (N * p)[None, :], N[None, :], N, theta, np.ones(1), np.zeros(1), 1.0)
    >>> np.round([a[0], d[0], var], 6).tolist()             # the expected counts of the item itself
    [1.5, -0.5, 1.0]
    """
    if model == "graded":
        return (*em_graded.newton_graded(r, np.asarray(ncat), theta, a, d), variance)
    held = np.flatnonzero(N > 0)
    if 0 < held.size < len(N):
        nodes_ = slice(int(held[0]), int(held[-1]) + 1)
        r, n, theta_m = r[:, nodes_], n[:, nodes_], theta[nodes_]
    else:
        theta_m = theta
    if priors is not None:  # 2PL or 1PL with priors: MAP (irtbridge.em.priors)
        a, d = newton_map(model, r, n, theta_m, a, d, priors)
    elif model == "2PL" and len(a) >= mstep_jit.MIN_ITEMS and mstep_jit.available():
        a, d = mstep_jit.newton_2pl(r, n, theta_m, a, d, _NEWTON_STEPS, _MAX_STEP)
    elif model == "2PL":
        a, d = _newton_2pl(r, n, theta_m, a, d)
    elif model == "1PL":
        shared, d = _newton_1pl(r, n, theta_m, float(a[0]), d)
        a = np.full_like(d, shared)
    else:
        d = _newton_intercepts(r, n, theta_m, a, d)
        variance = float((N * theta**2).sum() / N.sum())
    return a, d, variance
