"""The E-step and M-step of the native D-factor 2PL (:mod:`irtbridge.em.factors`), and its priors.

The 2PL's logit is linear in the point, ``z_jq = a_j . theta_q + d_j = x_j . X_q`` with ``X_q = (theta_q, 1)``,
and ``log P - log Q = z``. So neither step needs the items x points table of right answers:

* :class:`Estep`: every respondent's log-likelihood at every point is
  ``sum_j y_ij z_jq + m_ij log Q_jq = (Y a) theta_q + Y d + (M @ log Q)_iq`` over the answered cells (``Y a`` is
  respondents x D; with every cell answered the last term is one row, ``sum_j log Q_jq``), then its posterior,
  and the expected counts as the M-step needs them: ``R_j = sum_i y_ij E_i[X]`` (items x (D + 1), from
  each respondent's posterior mean) and ``n = M' post`` (items x points; one row when every cell is answered).
  In blocks of respondents, dense or sparse. The plain route, ``Y @ (log P - log Q)`` and ``r = Y' post``,
  costs two products of respondents x items x points more; both give the same numbers up to rounding.
* :func:`mstep`: Newton's method on every item's ``(a_j, d_j)`` at once, a weighted logistic regression
  whose objective is ``x_j . R_j + sum_q n_jq log Q_j(theta_q)`` (``= sum_q r_jq log P + (n_jq - r_jq) log Q``,
  concave), the fixed slopes held, a step halved where it does not raise the item's objective (with mirt's
  priors).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np
from scipy import sparse
from scipy.special import expit

from irtbridge.em.core import ResponseData
from irtbridge.em.priors import PRIOR_FAMILIES, prior_terms
from irtbridge.exceptions import ValidationError
from irtbridge.irt.logistic import log_pq

__all__ = ["Cycles", "Estep", "mstep", "parse_priors", "prior_parts"]

_BLOCK_CELLS = 2**24  # respondents x points per E-step block (128 MB of float64)
_FLOOR = float(np.exp(-50.0))
"""A point whose posterior is below this share of the respondent's best point's gets none: at most 5,000 x e^-50,
about 1e-18 of the mass, far below a double's rounding (the 1-D windows' ``CUT``). Where every respondent
answers thousands of items most points hold none, and the M-step leaves them out (they add exactly nothing)."""
_CODES = {"norm": 1, "lnorm": 2}
_NEWTON = 30


def parse_priors(priors: Any, n_items: int, n_factors: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Priors as (slopes: items x D x 3, intercepts: items x 3) of mirt's (type, p1, p2) rows, or None.

    Parameters
    ----------
    priors : mapping or None
        ``{param: (dist, p1, p2)}`` with param ``"a"`` (every slope), ``"a1".."aD"`` or ``"d"``.
    n_items, n_factors : int

    Returns
    -------
    tuple of ndarray or None
    """
    if priors is None:
        return None
    if not isinstance(priors, Mapping):
        raise ValidationError("priors: expected a mapping {param: (dist, p1, p2)} with param a, a1..aD or d")
    slopes, inter = np.zeros((n_items, n_factors, 3)), np.zeros((n_items, 3))
    names = {f"a{k + 1}": k for k in range(n_factors)}
    for param, spec in priors.items():
        if param not in ("a", "d", *names):
            raise ValidationError(f"priors: {param!r} is not a parameter of the {n_factors}-factor 2PL "
                                  f"(a, {', '.join(names)}, d)")
        if not isinstance(spec, (tuple, list)) or len(spec) != 3:
            raise ValidationError(f"priors: expected (dist, p1, p2) for {param!r}, got {spec!r}")
        dist, p1, p2 = spec[0], float(spec[1]), float(spec[2])
        family = "d" if param == "d" else "a1"
        if dist not in PRIOR_FAMILIES[family]:
            raise ValidationError(f"priors: {dist!r} on {param!r}: the slopes take norm or lnorm, d takes norm")
        if not (np.isfinite(p1) and np.isfinite(p2)) or p2 <= 0:
            raise ValidationError(f"priors: {dist}({p1:g}, {p2:g}) on {param!r} is not a proper distribution")
        row = (_CODES[dist], p1, p2)
        if param == "d":
            inter[:] = row
        elif param == "a":
            slopes[:] = row
        else:
            slopes[:, names[param]] = row
    return slopes, inter


def prior_parts(prior: tuple[np.ndarray, np.ndarray] | None, x: np.ndarray, free: np.ndarray, reported: bool
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per item: the prior's value, gradient and second derivative in ``x`` (items x (D + 1)), free only.

    Parameters
    ----------
    prior : tuple of ndarray or None
        From :func:`parse_priors`.
    x : ndarray
        Items x (D + 1): slopes, then the intercept.
    free : ndarray of bool
        Items x (D + 1).
    reported : bool
        mirt's ``logPrior`` (log densities) rather than the M-step's terms.

    Returns
    -------
    value : ndarray
        Per item.
    gradient, second : ndarray
        Items x (D + 1).
    """
    val, grad, hess = np.zeros(x.shape[0]), np.zeros_like(x), np.zeros_like(x)
    if prior is None:
        return val, grad, hess
    slopes, inter = prior
    D = slopes.shape[1]
    for k in range(D + 1):
        kind = inter if k == D else slopes[:, k]
        v, g, h = prior_terms(kind, x[:, k], reported)
        on = free[:, k]
        val += np.where(on, v, 0.0)
        grad[:, k], hess[:, k] = np.where(on, g, 0.0), np.where(on, h, 0.0)
    return val, grad, hess


def _blocks(n: int, q: int) -> list[tuple[int, int]]:
    size = max(1, _BLOCK_CELLS // max(q, 1))
    return [(s, min(n, s + size)) for s in range(0, n, size)]


def _loglik_block(Y: Any, M: Any, full: bool, x: np.ndarray, design: np.ndarray, lq: np.ndarray) -> np.ndarray:
    """Respondents x points: ``(Y x) design' + M @ lq`` (``x`` items x (D + 1), ``design`` points x (D + 1),
    ``lq`` items x points; the module docstring)."""
    ll = np.asarray(Y @ x) @ design.T
    ll += lq.sum(axis=0)[None, :] if full else np.asarray(M @ lq)
    return ll


class Estep:
    """The E-step over fixed points: expected counts and the log-likelihood, in blocks of respondents.

    Parameters
    ----------
    data : ResponseData
        0/1 responses.
    theta : ndarray
        Points x D.
    logw : ndarray
        The points' log weights.
    """

    def __init__(self, data: ResponseData, theta: np.ndarray, logw: np.ndarray):
        self.theta, self.logw = theta, logw
        self.Y, self.M = data.A, data.M
        if sparse.issparse(self.M):
            self.Y, self.M = sparse.csr_matrix(self.Y), sparse.csr_matrix(self.M)
            self.full = False
        else:
            self.full = bool((np.asarray(self.M) == 1).all())
        self.blocks = _blocks(data.shape[0], len(theta))
        self.design = np.hstack([theta, np.ones((len(theta), 1))])  # points x (D + 1)

    def tables(self, a: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``log P`` and ``log Q``, items x points.

        Parameters
        ----------
        a, d : ndarray
            Items x D slopes; intercepts.

        Returns
        -------
        log_p, log_q : ndarray
        """
        z = a @ self.theta.T + d[:, None]  # items x points
        return log_pq(z)

    def posterior(self, a: np.ndarray, d: np.ndarray, start: int, stop: int,
                  tables: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The posterior over the points of respondents ``start..stop-1`` and their log marginal likelihoods.

        Parameters
        ----------
        a, d : ndarray
            Items x D slopes; intercepts.
        start, stop : int
            The block of respondents.
        tables : tuple of ndarray, optional
            :meth:`tables` at ``(a, d)`` when the caller has them.

        Returns
        -------
        post : ndarray
            Respondents x points, rows summing to one.
        marginal : ndarray
            Per respondent.
        """
        lq = (tables if tables is not None else self.tables(a, d))[1]
        ll = _loglik_block(self.Y[start:stop], self.M[start:stop], self.full, np.hstack([a, d[:, None]]),
                           self.design, lq)
        ll += self.logw[None, :]
        top = ll.max(axis=1)
        ll -= top[:, None]
        post = np.exp(ll, out=ll)
        post[post < _FLOOR] = 0.0
        total = post.sum(axis=1)
        post /= total[:, None]
        return post, top + np.log(total)

    def loglik(self, a: np.ndarray, d: np.ndarray) -> float:
        """The marginal log-likelihood at ``(a, d)`` alone (no expected counts).

        Parameters
        ----------
        a, d : ndarray
            As :meth:`tables` takes them.

        Returns
        -------
        float
        """
        tables = self.tables(a, d)
        return float(sum(self.posterior(a, d, start, stop, tables)[1].sum() for start, stop in self.blocks))

    def __call__(self, a: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """The expected counts and the log-likelihood at ``(a, d)``.

        Parameters
        ----------
        a, d : ndarray
            As :meth:`tables` takes them.

        Returns
        -------
        R : ndarray
            Items x (D + 1): ``sum_i y_ij E_i[(theta, 1)]``, the right answers' moments.
        n : ndarray
            Items x points, the expected answers at each point (one row, every item's, when every cell is
            answered).
        loglik : float
            The marginal log-likelihood.
        """
        tables = self.tables(a, d)
        R = np.zeros((a.shape[0], self.design.shape[1]))
        n = np.zeros((1 if self.full else a.shape[0], len(self.theta)))
        total = 0.0
        for start, stop in self.blocks:
            post, marginal = self.posterior(a, d, start, stop, tables)
            total += float(marginal.sum())
            R += np.asarray(self.Y[start:stop].T @ (post @ self.design))
            if self.full:
                n += post.sum(axis=0)[None, :]
            else:
                n += np.asarray(self.M[start:stop].T @ post)
        return R, n, total


def _item_objective(x: np.ndarray, R: np.ndarray, n: np.ndarray, X: np.ndarray) -> np.ndarray:
    lq = log_pq(x @ X.T)[1]  # items x points
    return (x * R).sum(axis=1) + (n * lq).sum(axis=1)


def mstep(R: np.ndarray, n: np.ndarray, theta: np.ndarray, x: np.ndarray, free: np.ndarray,
          prior: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Newton's method on every item's ``(a_j, d_j)`` from ``x`` (items x (D + 1)): the module docstring.

    Parameters
    ----------
    R, n : ndarray
        The expected counts of :class:`Estep`: the right answers' moments, items x (D + 1); the answers,
        items x points (or one row shared by every item).
    theta : ndarray
        The points, points x D.
    x : ndarray
        Items x (D + 1): the slopes then the intercept, the start.
    free : ndarray of bool
        Items x (D + 1), True where estimated (the intercept always).
    prior : tuple of ndarray, optional
        From ``_priors``.

    Returns
    -------
    ndarray
        The maximiser, items x (D + 1).
    """
    X = np.hstack([theta, np.ones((len(theta), 1))])  # points x (D + 1)
    held = n.max(axis=0) > 0
    if not held.all():  # a point no respondent's posterior reaches adds exactly nothing to any item's objective
        X, n = X[held], n[:, held]
    k = X.shape[1]
    upper = np.triu_indices(k)
    pairs = X[:, upper[0]] * X[:, upper[1]]  # points x k (k + 1) / 2: the Hessian's upper triangle
    x = np.where(free, x, 0.0)
    shared = n.shape[0] == 1

    def answers(rows: np.ndarray) -> np.ndarray:
        return n if shared else n[rows]

    f = _item_objective(x, R, n, X) + prior_parts(prior, x, free, False)[0]
    active = np.ones(len(x), dtype=bool)
    for _ in range(_NEWTON):
        idx = np.flatnonzero(active)
        if not idx.size:
            break
        xa, fa = x[idx], free[idx]
        P = expit(xa @ X.T)
        nP = answers(idx) * P
        grad = R[idx] - nP @ X
        H = np.empty((len(idx), k, k))
        H[:, upper[0], upper[1]] = H[:, upper[1], upper[0]] = -((nP * (1.0 - P)) @ pairs)
        _, pg, ph = prior_parts(None if prior is None else (prior[0][idx], prior[1][idx]), xa, fa, False)
        grad += pg
        H[:, np.arange(k), np.arange(k)] += ph
        grad[~fa] = 0.0
        fx = ~fa
        H[fx[:, :, None] | fx[:, None, :]] = 0.0
        diag = H[:, np.arange(k), np.arange(k)]
        diag[fx] = -1.0
        H[:, np.arange(k), np.arange(k)] = diag - 1e-10
        step = np.linalg.solve(-H, grad[:, :, None])[:, :, 0]
        big = np.abs(step).max(axis=1, keepdims=True)
        step = np.where(big > 2.0, step * 2.0 / np.maximum(big, 1e-300), step)
        Ra, na, f_old = R[idx], answers(idx), f[idx]
        sub = None if prior is None else (prior[0][idx], prior[1][idx])
        accepted = np.zeros(len(idx), dtype=bool)
        new_x, new_f = xa.copy(), f_old.copy()
        scale = 1.0
        for _ in range(20):
            todo = ~accepted
            if not todo.any():
                break
            trial = xa[todo] + scale * step[todo]
            ft = (_item_objective(trial, Ra[todo], na if shared else na[todo], X)
                  + prior_parts(None if sub is None else (sub[0][todo], sub[1][todo]), trial, fa[todo], False)[0])
            ok = ft >= f_old[todo] - 1e-12 * np.abs(f_old[todo])
            where = np.flatnonzero(todo)[ok]
            new_x[where], new_f[where] = trial[ok], ft[ok]
            accepted[where] = True
            scale *= 0.5
        x[idx], f[idx] = new_x, new_f
        moved = np.abs(new_x - xa).max(axis=1)
        active[idx] = (moved > 1e-9) & accepted
    return np.where(free, x, 0.0)


class Cycles:
    """What every EM map of the D-factor 2PL keeps (the protocol of :class:`irtbridge.em.accelerate.EMMap`):
    its E-step, the free parameters, priors, ``TOL``, ``NCYCLES``, the progress callback, the cycle count and
    the history of (log-likelihood, largest change); subclasses define ``__call__``.

    Parameters
    ----------
    step : object
        The E-step.
    free : ndarray of bool
        Items x (D + 1).
    prior : tuple of ndarray or None
        From :func:`parse_priors`.
    TOL : float
        The largest change of a parameter at convergence.
    NCYCLES : int
        The most cycles.
    progress : callable, optional
        ``progress(cycle, change)``.
    """

    def __init__(self, step: Any, free: np.ndarray, prior: Any, TOL: float, NCYCLES: int,
                 progress: Callable[[int, float], None] | None):
        self.step, self.free, self.prior, self.TOL, self.NCYCLES = step, free, prior, TOL, NCYCLES
        self.progress = progress
        self.cycle = 0
        self.converged: bool = False
        self.history: list[tuple[float, float]] = []

    @property
    def done(self) -> bool:
        """Converged or out of cycles."""
        return self.converged or self.cycle >= self.NCYCLES
