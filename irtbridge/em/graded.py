"""Samejima's graded response model for the native EM: category probabilities and the per-item M-step.

mirt's ``itemtype = "graded"`` in its slope-intercept metric: item ``j`` has ``K_j`` ordered categories
``0..K_j-1``, a slope ``a`` and strictly decreasing intercepts ``d_1 > ... > d_{K-1}``, and

    P(X >= k | theta) = P*_k = expit(a theta + d_k),   P*_0 = 1,   P*_K = 0,
    P(X = k | theta) = P*_k - P*_{k+1}.

Items with two categories are 2PL items (``d_1`` is the 2PL intercept). The responses of a graded fit are
an indicator matrix with one column per (item, category), item-major (``sum_j K_j`` columns); its columns
are called *cells* below. The E-step multiplies it by the log category probabilities at the nodes
(:func:`log_category_probs`); the expected counts per cell and node come back as ``r`` and
:func:`newton_graded` maximises each item's expected complete-data log-likelihood
``sum_q sum_k r_kq log P_k(theta_q)`` by Newton's method on ``(a, d_1..d_{K-1})``, all items with the same
``K`` at once. This module is pure numerics; :mod:`irtbridge.em.core` wires it into the EM loop.
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np
import pandas as pd
from scipy.special import expit, log_expit

from irtbridge.exceptions import ValidationError

__all__ = ["cell_layout", "log_category_probs", "start_values", "newton_graded", "graded_loglik_terms", "recode_graded"]

_NEWTON_STEPS = 50
_MAX_STEP = 2.0
_HALVINGS = 40
_TINY = 1e-300


def cell_layout(ncat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each indicator column: its item and its category (item-major, categories ascending).

    Parameters
    ----------
    ncat : ndarray
        Categories per item.

    Returns
    -------
    item, category : ndarray
        One entry per indicator column.
    """
    ncat = np.asarray(ncat, dtype=np.int64)
    item = np.repeat(np.arange(len(ncat)), ncat)
    start = np.concatenate([[0], np.cumsum(ncat)[:-1]])
    return item, np.arange(int(ncat.sum())) - start[item]


def _log_probs(a: np.ndarray, d: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """log P(X = k) for items sharing one K: ``a`` (G,), ``d`` (G, K-1), ``theta`` (Q,) -> (G, Q, K).

    ``P_k = expit(z_k) expit(-z_{k+1}) (1 - exp(d_{k+1} - d_k))``: a product of factors that never cancel,
    so the log stays exact far in the tails (``z_0 = +inf``, ``z_K = -inf`` need no special case).
    """
    g = len(a)
    inf = np.full((g, 1), np.inf)
    dext = np.concatenate([inf, d, -inf], axis=1)  # (G, K+1)
    z = a[:, None, None] * theta[None, :, None] + dext[:, None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        gaps = np.log(-np.expm1(dext[:, 1:] - dext[:, :-1]))  # (G, K); log 1 = 0 at both ends
    return log_expit(z[..., :-1]) + log_expit(-z[..., 1:]) + gaps[:, None, :]


def log_category_probs(a: np.ndarray, d: np.ndarray, ncat: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """log P(X_j = k | theta_q) for every indicator column, shape ``(n_nodes, sum_j K_j)``.

    ``d`` is items x (max K - 1), NaN past an item's last intercept.

    Parameters
    ----------
    a : ndarray
        Slopes.
    d : ndarray
        Intercepts, items x (max K - 1).
    ncat : ndarray
        Categories per item.
    theta : ndarray
        Quadrature nodes.

    Returns
    -------
    ndarray
        ``(n_nodes, sum_j K_j)``.
    """
    out = np.empty((len(theta), int(np.sum(ncat))))
    item, cat = cell_layout(ncat)
    for k in np.unique(ncat):
        idx = np.flatnonzero(ncat == k)
        logp = _log_probs(a[idx], d[idx, : k - 1], theta)  # (G, Q, K)
        cols = np.flatnonzero(np.isin(item, idx))  # the group's cells, item-major like logp
        out[:, cols] = logp.transpose(1, 0, 2).reshape(len(theta), -1)
    return out


def start_values(counts: np.ndarray, ncat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Slopes 1 and intercepts ``logit P(X >= k)`` from the observed category counts (one per cell).

    Every category of an item is observed at least once, so the smoothed cumulative proportions, and
    the intercepts, are strictly decreasing.

    Parameters
    ----------
    counts : ndarray
        Observed count of each indicator column.
    ncat : ndarray
        Categories per item.

    Returns
    -------
    a : ndarray
        Slopes (ones).
    d : ndarray
        Intercepts, items x (max K - 1).
    """
    ncat = np.asarray(ncat, dtype=np.int64)
    d = np.full((len(ncat), int(ncat.max()) - 1), np.nan)
    item, _ = cell_layout(ncat)
    starts = np.concatenate([[0], np.cumsum(ncat)[:-1]])
    for j, (s, k) in enumerate(zip(starts, ncat)):
        c = counts[s : s + k]
        above = np.cumsum(c[::-1])[::-1][1:]  # how many answered >= 1..K-1
        p = (above + 0.5) / (c.sum() + 1.0)
        d[j, : k - 1] = np.log(p / (1.0 - p))
    return np.ones(len(ncat)), d


def _objective(r: np.ndarray, a: np.ndarray, d: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """``sum_q sum_k r_kq log P_k(theta_q)`` per item (cells with no expected count contribute nothing)."""
    with np.errstate(invalid="ignore"):
        return np.where(r > 0, r * _log_probs(a, d, theta), 0.0).sum(axis=(1, 2))


def graded_loglik_terms(r: np.ndarray, a: np.ndarray, d: np.ndarray, theta: np.ndarray, *, fisher: bool = False):
    """Objective, gradient and Hessian of ``sum_q sum_k r_kq log P_k(theta_q)`` per item of one K group.

    ``r`` (G, Q, K) expected counts; returns ``f`` (G,), ``grad`` (G, K) and ``hess`` (G, K, K) over
    ``(a, d_1..d_{K-1})``. With ``fisher=True`` the Hessian is minus the expected information
    ``sum_q N_q sum_k grad P_k grad P_k^T / P_k`` (always negative definite for distinct intercepts), the
    fallback where the observed Hessian is not.

    Parameters
    ----------
    r : ndarray
        Expected counts, (G, Q, K).
    a : ndarray
        Slopes, (G,).
    d : ndarray
        Intercepts, (G, K - 1).
    theta : ndarray
        Quadrature nodes, (Q,).
    fisher : bool, default False
        See above.

    Returns
    -------
    f : ndarray
        Objective per item, (G,).
    grad : ndarray
        Gradient, (G, K).
    hess : ndarray
        Hessian, (G, K, K).
    """
    g, q, kk = r.shape
    logp = _log_probs(a, d, theta)
    with np.errstate(invalid="ignore"):
        f = np.where(r > 0, r * logp, 0.0).sum(axis=(1, 2))  # = _objective, sharing logp
    p = np.maximum(np.exp(logp), _TINY)
    z = a[:, None, None] * theta[None, :, None] + d[:, None, :]  # (G, Q, K-1)
    hi, lo = expit(z), expit(-z)
    w = hi * lo  # dP*_m / dd_m
    wprime = w * (lo - hi)  # d^2 P*_m / dd_m^2
    c = r / p
    dc = c[..., 1:] - c[..., :-1]  # (G, Q, K-1): c_m - c_{m-1}
    grad = np.empty((g, kk))
    wdc = w * dc
    grad[:, 0] = (wdc.sum(axis=2) * theta[None, :]).sum(axis=1)
    grad[:, 1:] = wdc.sum(axis=1)
    # the second-order weights: r_k / P_k^2 observed, N / P_k expected (r_k replaced by N P_k)
    e = r.sum(axis=2, keepdims=True) / p if fisher else r / p**2
    zero = np.zeros((g, q, 1))
    wext = np.concatenate([zero, w, zero], axis=2)
    dw = wext[..., :-1] - wext[..., 1:]  # (G, Q, K): d P_k / dd-part, a-part is theta * dw_k
    hess = np.zeros((g, kk, kk))
    t2 = theta[None, :] ** 2
    hess[:, 0, 0] = -((e * dw**2).sum(axis=2) * t2).sum(axis=1)
    cross = -(w * (e[..., 1:] * dw[..., 1:] - e[..., :-1] * dw[..., :-1])) * theta[None, :, None]
    diag = -(w**2) * (e[..., 1:] + e[..., :-1])
    off = e[..., 1:-1] * w[..., :-1] * w[..., 1:]  # d_m, d_{m+1}: category m between them
    if not fisher:
        wpdc = wprime * dc
        hess[:, 0, 0] += (wpdc.sum(axis=2) * t2).sum(axis=1)
        cross = cross + wpdc * theta[None, :, None]
        diag = diag + wpdc
    m = np.arange(1, kk)
    hess[:, 0, 1:] = hess[:, 1:, 0] = cross.sum(axis=1)
    hess[:, m, m] = diag.sum(axis=1)
    if kk > 2:
        hess[:, m[:-1], m[1:]] = hess[:, m[1:], m[:-1]] = off.sum(axis=1)
    return f, grad, hess


def _direction(r, a, d, theta):
    """Newton's direction where the observed Hessian is negative definite, Fisher scoring's elsewhere."""
    f, grad, hess = graded_loglik_terms(r, a, d, theta)
    neg = -hess
    ok = np.linalg.eigvalsh(neg)[:, 0] > 1e-12 * np.abs(neg).max(axis=(1, 2)).clip(min=1e-300)
    if not ok.all():
        _, _, fish = graded_loglik_terms(r[~ok], a[~ok], d[~ok], theta, fisher=True)
        hess[~ok] = fish
    step = np.linalg.solve(-hess, grad[..., None])[..., 0]
    return f, step


def _newton_group(r, a, d, theta):
    """Maximise each item's objective; a step that breaks the intercepts' order or lowers it is halved."""
    active = np.arange(len(a))
    for _ in range(_NEWTON_STEPS):
        if active.size == 0:
            break
        ra, aa, da = r[active], a[active], d[active]
        f, step = _direction(ra, aa, da, theta)
        step *= np.minimum(1.0, _MAX_STEP / np.abs(step).max(axis=1).clip(min=1e-300))[:, None]
        scale = np.ones(len(active))
        pending = np.ones(len(active), dtype=bool)
        for _ in range(_HALVINGS):
            na = aa + scale * step[:, 0]
            nd = da + scale[:, None] * step[:, 1:]
            ordered = (np.diff(nd, axis=1) < 0).all(axis=1)
            fn = np.full(len(active), -np.inf)
            if ordered.any():
                fn[ordered] = _objective(ra[ordered], na[ordered], nd[ordered], theta)
            good = ordered & (fn >= f - 1e-12 * (1.0 + np.abs(f)))
            pending &= ~good
            if not pending.any():
                break
            scale = np.where(pending, scale * 0.5, scale)
        moved = ~pending
        upd = active[moved]
        a[upd] = aa[moved] + scale[moved] * step[moved, 0]
        d[upd] = da[moved] + scale[moved, None] * step[moved, 1:]
        size = np.where(moved, scale * np.abs(step).max(axis=1), 0.0)
        active = active[size >= 1e-11]
    return a, d


def newton_graded(r: np.ndarray, ncat: np.ndarray, theta: np.ndarray, a: np.ndarray, d: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The graded M-step: new slopes and intercepts from the expected counts ``r`` (cells x nodes).

    Parameters
    ----------
    r : ndarray
        Expected counts, indicator columns x nodes.
    ncat : ndarray
        Categories per item.
    theta : ndarray
        Quadrature nodes.
    a, d : ndarray
        The current slopes and intercepts.

    Returns
    -------
    a, d : ndarray
        The new slopes and intercepts.
    """
    a, d = a.copy(), d.copy()
    item, _ = cell_layout(ncat)
    for k in np.unique(ncat):
        idx = np.flatnonzero(ncat == k)
        cells = np.flatnonzero(np.isin(item, idx))
        rg = r[cells].reshape(len(idx), k, -1).transpose(0, 2, 1)  # (G, Q, K)
        ga, gd = _newton_group(rg, a[idx].copy(), d[idx, : k - 1].copy(), theta)
        a[idx], d[idx, : k - 1] = ga, gd
    return a, d


def recode_graded(responses: Any, item_names: Iterable[str], categories: Iterable[Iterable[float]]) -> Any:
    """Responses in a graded calibration's own codes mapped to categories ``0..K-1`` (for native scoring).

    Parameters
    ----------
    responses : pandas.DataFrame or numpy.ndarray
        A DataFrame (columns are item names; a subset is fine) or an array with one column per item (one
        row: a 1-d array); NaN is a missing answer.
    item_names : iterable of str
        The calibration's items, in order.
    categories : iterable of iterable of float
        Each item's calibrated codes, ascending.

    Returns
    -------
    pandas.DataFrame or numpy.ndarray
        The same shape and kind as ``responses``, each code replaced by its position ``0..K-1``.

    Raises
    ------
    ValidationError
        A column that is not an item, or a value the item was not calibrated with (naming the item).

    Examples
    --------
    >>> recode_graded(np.array([[4.0, np.nan], [1.0, 2.0]]), ["q1", "q2"], [(1.0, 2.0, 4.0), (0.0, 2.0)]).tolist()
    [[2.0, nan], [0.0, 1.0]]
    """
    lookup = {str(n): np.asarray(list(c), dtype=float) for n, c in zip(item_names, categories)}
    frame = responses if isinstance(responses, pd.DataFrame) else None
    values = np.array(responses.to_numpy(dtype=float, na_value=np.nan) if frame is not None else responses, dtype=float)
    columns = [str(c) for c in frame.columns] if frame is not None else list(lookup)
    flat = values.ndim == 1
    values = values[None, :] if flat else values
    if values.ndim != 2 or values.shape[1] != len(columns):
        raise ValidationError(f"responses: expected {len(columns)} item column(s), got shape {values.shape}")
    for j, name in enumerate(columns):
        cats = lookup.get(name)
        if cats is None:
            raise ValidationError(f"responses: column {name!r} is not an item of the calibration")
        seen = ~np.isnan(values[:, j])
        pos = np.searchsorted(cats, values[seen, j]).clip(max=len(cats) - 1)
        if (cats[pos] != values[seen, j]).any():
            bad = values[seen, j][cats[pos] != values[seen, j]][0]
            raise ValidationError(f"responses: item {name!r} has value {bad:g}, not one of its calibrated "
                                  f"categories {', '.join(f'{c:g}' for c in cats)}")
        values[seen, j] = pos
    values = values[0] if flat else values
    if frame is not None:
        return pd.DataFrame(values, index=frame.index, columns=frame.columns)
    return values
