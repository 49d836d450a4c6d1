"""The M-step of a dichotomous logistic item with a free asymptote (the 3PL, the 4PL): Newton's method on the
free parameters of mirt's ``dich`` item, with mirt's priors.

The item is ``P = g + (u - g) s``, ``s = expit(z)``, ``z = a1 theta + d``, with ``g`` and ``u`` estimated on
the logit scale (``lambda_g = logit g``, ``lambda_u = logit u``), as mirt does internally (its rows carry
bounds of -999 and 999 on that scale); which of ``(a1, d, lambda_g, lambda_u)`` are free is the item
model's mask (:class:`irtbridge.em.items.Dichotomous`). Convergence is mirt's ``hasConverged``: the largest
absolute change of ``a1``, ``d`` and of ``g``, ``u`` on the probability scale.

* Derivatives: with ``w = n - r`` the expected wrong answers, an item's expected complete-data
  log-likelihood is ``sum_q r_q log P_q + w_q log Q_q``. Its derivatives come from those of ``P`` in the
  coordinates ``z``, ``lambda_g``, ``lambda_u``:
  ``P_z = (u - g) s (1 - s)``, ``P_g = g (1 - g) (1 - s)``, ``P_u = u (1 - u) s``, and
  ``P_zz = P_z (1 - 2 s)``, ``P_zg = -g (1 - g) s (1 - s)``, ``P_zu = u (1 - u) s (1 - s)``,
  ``P_gg = P_g (1 - 2 g)``, ``P_uu = P_u (1 - 2 u)``, ``P_gu = 0``; the ratios ``P_c / P`` and ``P_c / Q``
  are taken in logs, so nothing divides by a probability that underflows (``Q`` of a 3PL item at a high
  node). ``a1`` is ``theta`` times the ``z`` coordinate, ``d`` the ``z`` coordinate itself.
* M-step: every item's expected complete-data log-posterior maximised by Newton's method on its free
  parameters, all items at once (p x p systems), with Fisher scoring where the Hessian is not negative
  definite and step halving so the objective never falls.
* Several modes: the objective is not concave (a negative slope and a positive one with much guessing can
  both be local maxima, on classifier matrices above all). The first :data:`MULTISTART_CYCLES` M-steps
  therefore also start every item's Newton iterations from :data:`ALTERNATIVE_STARTS` and keep each item's
  best maximum (:func:`multistart`): a generalised EM step, still monotone, with the same fixed points. On
  five real decodIRT matrices (kc2, wdbc, ilpd, diabetes, dna) Newton's method from mirt's starting values
  alone ended 10 to 71 below mirt's ``logLik + logPrior``; with the other starts the fits reach mirt's point
  or a higher one (``docs/calibration-modes.md``, ``speed/native_3pl.py --csv``).

How mirt applies the priors (mirt 1.48, ``R/utils.R``: ``LL.Priors`` and ``DerivativePriors``;
``src/dpars.cpp``: ``d_priors``): ``norm(mu, s)`` on ``a1`` or ``d`` and ``lnorm(mu, s)`` on ``a1`` with their
exact gradients; ``expbeta(alpha, beta)`` on ``g`` or ``u``: the value mirt reports (``logPrior``) is
``log dbeta(g, alpha, beta)`` at ``g = expit(lambda)``, but the gradient its M-step adds is
``(alpha - 1) / g - (beta - 1) / (1 - g)`` *without* the chain-rule factor ``g (1 - g)``, so its fits sit
where ``dQ/dlambda + (alpha - 1) / g - (beta - 1) / (1 - g) = 0``. That gradient is the derivative of
``phi(lambda) = (alpha - beta) lambda - (alpha - 1) exp(-lambda) - (beta - 1) exp(lambda)`` (concave for
``alpha, beta >= 1``), which the M-step maximises in place of ``log dbeta`` (:func:`irtbridge.em.priors.prior_terms`):
the same stationary point as mirt, reached by a consistent objective.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np
from scipy.special import logit

from irtbridge.em.priors import ItemPriors, prior_terms
from irtbridge.irt.logistic import log_pq

__all__ = ["ALTERNATIVE_STARTS", "MULTISTART_CYCLES", "log_asymptotes", "derivatives", "objective", "newton",
           "multistart", "mstep", "penalty_total", "log_pq_scores"]

_NEWTON_STEPS = 100
_HALVINGS = 40
_MAX_STEP = 2.0
_TRUSTED_STEP = 1e-3
_STEP_TOL = 1e-9
_LOGIT_BOUND = 999.0  # mirt's bounds on logit g and logit u
#: Other starting points of the first M-steps' per-item maximisation, as (a1, factor on d, g); None keeps
#: the item's current value: little guessing; a flatter item; a middling item (see the module docstring)
ALTERNATIVE_STARTS: tuple[tuple[float | None, float | None, float | None], ...] = (
    (None, None, 0.01), (0.5, 0.6, None), (1.0, 0.0, None))
MULTISTART_CYCLES = 3
# each parameter of (a1, d, logit g, logit u): its coordinate (0: z, 1: logit g, 2: logit u) and power of theta
_COORD, _POWER = (0, 0, 1, 2), (1, 0, 0, 0)


def log_asymptotes(lg: np.ndarray, lu: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``log g``, ``log(1 - u)`` and ``log(u - g)`` (items x 1) from the logits, exact at both bounds:
    ``log(u - g) = log u + log(1 - g) + log1p(-exp(lambda_g - lambda_u))``.

    Parameters
    ----------
    lg, lu : ndarray
        ``logit g`` and ``logit u`` per item (-inf and +inf where fixed at 0 and 1).

    Returns
    -------
    log_g, log_1mu, log_span : ndarray
        Items x 1, for :func:`irtbridge.irt.logistic.log_pq`.
    """
    (log_g, log_1mg), (log_u, log_1mu) = log_pq(lg), log_pq(lu)
    with np.errstate(invalid="ignore"):
        span = log_u + log_1mg + np.log1p(-np.exp(lg - lu))
    return log_g[:, None], log_1mu[:, None], span[:, None]


def _full(x: np.ndarray, mask: tuple[bool, ...]) -> list[np.ndarray]:
    """``(a1, d, logit g, logit u)`` from the free columns ``x`` (fixed: 1, 0, -inf, +inf)."""
    j, cols = x.shape[0], iter(range(x.shape[1]))
    fixed = (1.0, 0.0, -np.inf, np.inf)
    return [x[:, next(cols)] if f else np.full(j, v) for v, f in zip(fixed, mask)]


def _penalty(x: np.ndarray, mask: tuple[bool, ...], priors: ItemPriors):
    """Per item: the prior part of the M-step objective, its gradient and diagonal second derivative (J, p)."""
    kinds = (priors.a1, priors.d, priors.g, priors.u)
    parts = [prior_terms(kinds[k], x[:, c], False) for c, k in enumerate(np.flatnonzero(mask))]
    return (sum(p[0] for p in parts), np.stack([p[1] for p in parts], axis=1), np.stack([p[2] for p in parts], axis=1))


def penalty_total(x: np.ndarray, mask: tuple[bool, ...], priors: ItemPriors) -> float:
    """The prior terms of the M-step objective summed over the items (what SQUAREM adds to the loglik).

    Parameters
    ----------
    x : ndarray
        Items x free parameters.
    mask : tuple of bool
        The free parameters among ``(a1, d, g, u)``.
    priors : ItemPriors
        The priors.

    Returns
    -------
    float
        The sum.
    """
    return float(_penalty(x, mask, priors)[0].sum())


def _tables(x: np.ndarray, mask: tuple[bool, ...], theta: np.ndarray):
    a, d, lg, lu = _full(x, mask)
    z = a[:, None] * theta[None, :] + d[:, None]
    log_g, log_1mu, log_span = log_asymptotes(lg, lu)
    base = log_pq(z)
    lp, lq = log_pq(z, log_g, log_1mu, log_span, base=base)
    return z, lp, lq, base, log_g, log_1mu, log_span, lg, lu


def objective(r: np.ndarray, n: np.ndarray, theta: np.ndarray, x: np.ndarray, mask: tuple[bool, ...],
              priors: ItemPriors) -> np.ndarray:
    """Per item: the expected complete-data log-likelihood plus the prior terms (-inf where undefined).

    Parameters
    ----------
    r, n : ndarray
        Expected correct and answered counts, items x nodes.
    theta : ndarray
        The nodes.
    x : ndarray
        Items x free parameters.
    mask : tuple of bool
        The free parameters among ``(a1, d, g, u)``.
    priors : ItemPriors
        The priors.

    Returns
    -------
    ndarray
        One value per item.
    """
    _, lp, lq, *_ = _tables(x, mask, theta)
    with np.errstate(invalid="ignore"):
        value = (r * lp + (n - r) * lq).sum(axis=1) + _penalty(x, mask, priors)[0]
    return np.where(np.isnan(value), -np.inf, value)


def _ratios(lp, lq, base, log_g, log_1mu, log_span, lg, lu, coords):
    """For the coordinates ``coords`` among (0: z, 1: logit g, 2: logit u): ``P_c / P``, ``P_c / Q``; and the
    mixed ``P_zg``, ``P_zu`` over ``P`` and ``Q``; all items x nodes (None where not asked for)."""
    ls, l1s = base
    l1g, lu_, l1u = log_pq(lg)[1][:, None], log_pq(lu)[0][:, None], log_1mu
    logs = (log_span + ls + l1s, log_g + l1g + l1s if 1 in coords else None, lu_ + l1u + ls if 2 in coords else None)
    rp: list = [None] * 3
    rq: list = [None] * 3
    mp: list = [None] * 2
    mq: list = [None] * 2
    with np.errstate(invalid="ignore"):
        for c in coords:
            rp[c], rq[c] = np.exp(logs[c] - lp), np.exp(logs[c] - lq)
        for c, mixed, sign in ((1, log_g + l1g, -1.0), (2, lu_ + l1u, 1.0)):
            if c in coords and 0 in coords:
                mixed = mixed + ls + l1s
                mp[c - 1], mq[c - 1] = sign * np.exp(mixed - lp), sign * np.exp(mixed - lq)
    return np.exp(ls), rp, rq, mp, mq


def derivatives(r: np.ndarray, n: np.ndarray, theta: np.ndarray, x: np.ndarray, mask: tuple[bool, ...],
                priors: ItemPriors) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per item: the objective (J,), its gradient (J, p) and Hessian (J, p, p) in the free parameters, and
    the expected information of the likelihood part plus the prior's curvature (J, p, p), the fallback
    where the Hessian is not negative definite.

    Parameters
    ----------
    r, n : ndarray
        Expected correct and answered counts, items x nodes.
    theta : ndarray
        The nodes.
    x : ndarray
        Items x free parameters.
    mask : tuple of bool
        The free parameters among ``(a1, d, g, u)``.
    priors : ItemPriors
        The priors.

    Returns
    -------
    value, gradient, hessian, fisher : ndarray
    """
    free = np.flatnonzero(mask)
    coords = [_COORD[k] for k in free]
    powers = [_POWER[k] for k in free]
    _, lp, lq, base, log_g, log_1mu, log_span, lg, lu = _tables(x, mask, theta)
    s, rp, rq, mp, mq = _ratios(lp, lq, base, log_g, log_1mu, log_span, lg, lu, set(coords))
    gv, uv = np.exp(log_g), np.exp(log_pq(lu)[0])[:, None]
    w = n - r
    curve = (1 - 2 * s, 1 - 2 * gv, 1 - 2 * uv)

    def second(c: int, e: int, ratio: list, mixed: tuple) -> np.ndarray:
        if c == e:
            return ratio[c] * curve[c]
        if 0 in (c, e) and (c + e) in (1, 2):
            return mixed[c + e - 1]
        return np.zeros_like(s)

    grads = {c: r * rp[c] - w * rq[c] for c in set(coords)}
    pv, pg, ph = _penalty(x, mask, priors)
    with np.errstate(invalid="ignore"):
        value = (r * lp + w * lq).sum(axis=1) + pv
    thetas = [np.ones_like(theta), theta, theta**2]
    grad = np.stack([grads[c] @ thetas[e] for c, e in zip(coords, powers)], axis=1) + pg
    p = len(free)
    hess, fisher = np.empty((len(x), p, p)), np.empty((len(x), p, p))
    pairs: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}  # per pair of coordinates, once
    for i in range(p):
        for k in range(i, p):
            c, e = coords[i], coords[k]
            if (c, e) not in pairs:
                pairs[c, e] = (r * (second(c, e, rp, mp) - rp[c] * rp[e]) - w * (second(c, e, rq, mq) + rq[c] * rq[e]),
                               n * rp[c] * rq[e])
            h, info = pairs[c, e]
            t = thetas[powers[i] + powers[k]]
            hess[:, i, k] = hess[:, k, i] = h @ t
            fisher[:, i, k] = fisher[:, k, i] = info @ t
    idx = np.arange(p)
    hess[:, idx, idx] += ph
    fisher[:, idx, idx] -= np.minimum(ph, 0.0)
    return value, grad, hess, fisher


def _positive_definite(m: np.ndarray) -> np.ndarray:
    """Sylvester's criterion on a stack of symmetric matrices, with a relative margin."""
    p = m.shape[1]
    scale = np.abs(m[:, np.arange(p), np.arange(p)]).max(axis=1) + 1e-300
    ok = np.ones(len(m), dtype=bool)
    for k in range(1, p + 1):
        minor = m[:, 0, 0] if k == 1 else np.linalg.det(m[:, :k, :k])
        ok &= minor > 1e-12 * scale**k
    return ok


def newton(r: np.ndarray, n: np.ndarray, theta: np.ndarray, x: np.ndarray, mask: tuple[bool, ...],
           priors: ItemPriors) -> np.ndarray:
    """The M-step from ``x``: every item's expected complete-data log-posterior maximised by Newton's method.

    Parameters
    ----------
    r, n : ndarray
        Expected correct and answered counts, items x nodes.
    theta : ndarray
        The nodes.
    x : ndarray
        Items x free parameters, where Newton's method starts.
    mask : tuple of bool
        The free parameters among ``(a1, d, g, u)``.
    priors : ItemPriors
        The priors.

    Returns
    -------
    ndarray
        Items x free parameters.
    """
    x = x.astype(float, copy=True)
    p = x.shape[1]
    logits = np.arange(sum(mask[:2]), p)  # the columns of logit g and logit u
    active = np.ones(len(x), dtype=bool)
    for _ in range(_NEWTON_STEPS):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        sub = priors.take(idx)
        xa = x[idx]
        f0, grad, hess, fisher = derivatives(r[idx], n[idx], theta, xa, mask, sub)
        neg = -hess
        ok = _positive_definite(neg)
        neg[~ok] = fisher[~ok] + 1e-8 * np.eye(p)
        step = np.linalg.solve(neg, grad[:, :, None])[:, :, 0]
        step *= np.minimum(1.0, _MAX_STEP / np.maximum(np.abs(step).max(axis=1), 1e-300))[:, None]
        new = xa + step
        new[:, logits] = np.clip(new[:, logits], -_LOGIT_BOUND, _LOGIT_BOUND)
        # a small Newton step on a concave piece is safe; larger ones, and Fisher steps, are checked
        check = np.flatnonzero(~ok | (np.abs(step).max(axis=1) > _TRUSTED_STEP))
        scale = np.ones(check.size)
        for _ in range(_HALVINGS if check.size else 0):
            f1 = objective(r[idx[check]], n[idx[check]], theta, new[check], mask, sub.take(check))
            bad = ~(f1 >= f0[check] - 1e-12 * np.abs(f0[check]))
            if not bad.any():
                break
            scale[bad] *= 0.5
            new[check[bad]] = xa[check[bad]] + scale[bad, None] * step[check[bad]]
        else:
            if check.size:
                new[check[bad]] = xa[check[bad]]
        moved = np.abs(new - xa).max(axis=1)
        x[idx] = new
        active[idx] = moved > _STEP_TOL
    return x


def multistart(r: np.ndarray, n: np.ndarray, theta: np.ndarray, x: np.ndarray, mask: tuple[bool, ...],
               priors: ItemPriors,
               starts: Iterable[tuple[float | None, float | None, float | None]] = ALTERNATIVE_STARTS) -> np.ndarray:
    """The M-step from the current ``x`` and from each of ``starts``, every item keeping the best of its
    maxima (never below the one Newton's method reaches from ``x``: the EM stays monotone).

    Parameters
    ----------
    r, n : ndarray
        Expected correct and answered counts, items x nodes.
    theta : ndarray
        The nodes.
    x : ndarray
        Items x free parameters.
    mask : tuple of bool
        The free parameters among ``(a1, d, g, u)``.
    priors : ItemPriors
        The priors.
    starts : iterable of (float or None, float or None, float or None)
        Each an ``(a1, scale of d, g)`` start (where free); None keeps the current value.

    Returns
    -------
    ndarray
        Items x free parameters.
    """
    best = newton(r, n, theta, x, mask, priors)
    f_best = objective(r, n, theta, best, mask, priors)
    column = {k: int(np.sum(mask[:k])) for k in range(4) if mask[k]}
    for start in starts:
        trial = x.copy()
        a1, scale, g = start
        if a1 is not None and 0 in column:
            trial[:, column[0]] = a1
        if scale is not None and 1 in column:
            trial[:, column[1]] *= scale
        if g is not None and 2 in column:
            trial[:, column[2]] = logit(g)
        trial = newton(r, n, theta, trial, mask, priors)
        f_trial = objective(r, n, theta, trial, mask, priors)
        better = f_trial > f_best + 1e-10 * np.abs(f_best)
        best[better], f_best = trial[better], np.where(better, f_trial, f_best)
    return best


def mstep(r: np.ndarray, n: np.ndarray, theta: np.ndarray, x: np.ndarray, mask: tuple[bool, ...],
          priors: ItemPriors, cycle: int) -> np.ndarray:
    """The M-step of EM cycle ``cycle`` (from 0): :func:`multistart` in the first :data:`MULTISTART_CYCLES`,
    :func:`newton` after.

    Parameters
    ----------
    r, n : ndarray
        Expected correct and answered counts, items x nodes.
    theta : ndarray
        The nodes.
    x : ndarray
        Items x free parameters.
    mask : tuple of bool
        The free parameters among ``(a1, d, g, u)``.
    priors : ItemPriors
        The priors.
    cycle : int
        The EM cycle.

    Returns
    -------
    ndarray
        Items x free parameters.
    """
    return multistart(r, n, theta, x, mask, priors, ALTERNATIVE_STARTS if cycle < MULTISTART_CYCLES else ())


def log_pq_scores(a: np.ndarray, d: np.ndarray, lg: np.ndarray, lu: np.ndarray, theta: np.ndarray,
                  mask: tuple[bool, ...]) -> tuple[list, list]:
    """Per parameter ``(a1, d, logit g, logit u)``: ``d log P`` and ``d log Q`` (nodes x items), None where
    the mask fixes it (the respondents' scores of :mod:`irtbridge.em.se`).

    Parameters
    ----------
    a, d, lg, lu : ndarray
        The item parameters.
    theta : ndarray
        The nodes.
    mask : tuple of bool
        The free parameters.

    Returns
    -------
    right, wrong : list of ndarray or None
        Four entries each.
    """
    x = np.stack([v for v, f in zip((a, d, lg, lu), mask) if f], axis=1)
    _, lp, lq, base, log_g, log_1mu, log_span, lg_, lu_ = _tables(x, mask, theta)
    _, rp, rq, _, _ = _ratios(lp, lq, base, log_g, log_1mu, log_span, lg_, lu_, {_COORD[k] for k in range(4) if mask[k]})
    power = (theta[None, :], 1.0, 1.0, 1.0)
    right = [(rp[_COORD[k]] * power[k]).T if mask[k] else None for k in range(4)]
    wrong = [(-rq[_COORD[k]] * power[k]).T if mask[k] else None for k in range(4)]
    return right, wrong
