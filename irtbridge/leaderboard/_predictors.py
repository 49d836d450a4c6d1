"""Item-level predictions of a new model's answers, with honest (leave-one-out) values on the sampled items.

Internal to :mod:`irtbridge.leaderboard.estimators`. Two predictors of ``y_j`` (the new model's 0/1 answer to
item ``j``), both fitted on the ``k`` sampled items only:

* :func:`ridge_predictions`: the ridge regression of Zhang, Dorner & Hardt (NeurIPS 2025). Item ``j``'s
  features are the calibration models' answers to it (a missing answer filled with the item's mean over
  the calibration models that answered it). For each new model, ``y ~ intercept + X beta`` with the
  penalty ``alpha * |beta|^2`` (the intercept not penalized) is fitted on the sampled items. With more
  calibration models than sampled items the dual form ``beta = Xc' (Xc Xc' + alpha I)^-1 yc`` (``Xc``,
  ``yc`` centred over the sample) is used; one solve serves every new model with the same answered items.
  Leave-one-out values come from the hat matrix ``H = 11'/k + Xc (Xc'Xc + alpha I)^-1 Xc'``: the
  leave-one-out residual of item ``j`` is ``e_j / (1 - H_jj)`` (exact for penalized least squares).
* :func:`irt_predictions`: a 2PL calibration's ``P_j(theta)`` averaged over the posterior of theta given
  the sampled answers (normal prior with the calibration's latent variance, 121 nodes on [-6, 6]); the
  leave-one-out value of a sampled item uses the posterior without that item's answer.
* :func:`factor_predictions`: the same for a D-factor 2PL (:func:`irtbridge.em.factors.fit_factors`),
  ``P_j(F) = expit(a_j'F + d_j)`` averaged over the posterior of ``F`` under the prior ``N(0, I_D)`` (EAP):
  a product grid of :data:`FACTOR_GRID` points per factor on [-6, 6] for D <= 3, scrambled Halton points
  (:data:`FACTOR_QMC`, :func:`irtbridge.em.factors.points`) above; the posterior means of ``F`` and their
  covariance come with it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import expit, logsumexp

from irtbridge.irt.logistic import log_pq

__all__ = ["item_features", "item_means", "ridge_predictions", "irt_predictions", "factor_predictions", "factor_grid",
           "factor_posterior",
           "GRID", "FACTOR_GRID", "FACTOR_QMC"]

GRID = np.linspace(-6.0, 6.0, 121)
#: points per factor of the product grid on [-6, 6] that scores a new model on a D-factor calibration (D <= 3)
FACTOR_GRID = {2: 61, 3: 25}
#: scrambled Halton points (fixed scrambling) above three factors
FACTOR_QMC = 20000
_CHUNK = 4_000_000  # cells of one block of the (models x k x points) leave-one-out posteriors


def item_features(calibration_values: np.ndarray) -> np.ndarray:
    """Items x calibration models: the answers, a missing one filled with the item's mean over the calibration
    models that answered it (:func:`item_means`)."""
    x = np.asarray(calibration_values, dtype=float).T
    return np.where(np.isnan(x), item_means(calibration_values)[:, None], x)


def item_means(calibration_values: np.ndarray) -> np.ndarray:
    """Each item's share right over the calibration models that answered it; an item none answered gets the
    share right over every answer of the calibration (0.5 when there is none): the fallback feature of an
    item whose own answers or 2PL parameters say nothing."""
    x = np.asarray(calibration_values, dtype=float)
    answered = ~np.isnan(x)
    grand = float(np.nanmean(x)) if answered.any() else 0.5
    n = answered.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(answered, x, 0.0).sum(axis=0) / n
    return np.where(n > 0, means, grand)


def _ridge_block(X: np.ndarray, seen: np.ndarray, Y: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Fit on the rows ``seen`` of ``X`` (items x features) for each column of ``Y`` (len(seen) x models).

    Returns the predictions on all items (items x models) and the leave-one-out predictions on ``seen``.
    """
    Xs = X[seen]
    k = len(seen)
    xbar = Xs.mean(axis=0)
    ybar = Y.mean(axis=0)
    Xc = Xs - xbar
    Yc = Y - ybar
    if Xc.shape[1] >= k:  # dual form: k x k
        G = Xc @ Xc.T
        solve = np.linalg.solve(G + alpha * np.eye(k), np.column_stack([Yc, np.eye(k)]))
        coef = Xc.T @ solve[:, :Y.shape[1]]  # features x models
        hat = np.eye(k) - alpha * solve[:, Y.shape[1]:]  # Xc (Xc'Xc + aI)^-1 Xc' = G (G + aI)^-1 = I - a (G + aI)^-1
    else:
        A = Xc.T @ Xc + alpha * np.eye(Xc.shape[1])
        coef = np.linalg.solve(A, Xc.T @ Yc)
        hat = Xc @ np.linalg.solve(A, Xc.T)
    pred = ybar[None, :] + (X - xbar) @ coef
    h = 1.0 / k + np.diag(hat)
    fitted = pred[seen]
    loo = Y - (Y - fitted) / np.maximum(1.0 - h, 1e-12)[:, None]
    return pred, loo


def ridge_predictions(X: np.ndarray, seen: np.ndarray, Y: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Ridge predictions for each new model (columns of ``Y``, k x models, NaN for unanswered).

    Returns ``(pred, loo)``: items x models predictions from the fit on each model's answered sampled
    items, and k x models leave-one-out predictions on the sampled items (NaN where unanswered).
    """
    k, m = Y.shape
    pred = np.empty((X.shape[0], m))
    loo = np.full((k, m), np.nan)
    observed = ~np.isnan(Y)
    patterns: dict[bytes, list[int]] = {}
    for col in range(m):
        patterns.setdefault(observed[:, col].tobytes(), []).append(col)
    for cols in patterns.values():
        rows = np.flatnonzero(observed[:, cols[0]])
        p, l_ = _ridge_block(X, seen[rows], Y[np.ix_(rows, np.asarray(cols))], alpha)
        pred[:, cols] = p
        loo[np.ix_(rows, np.asarray(cols))] = l_
    return pred, loo


def _logpq(a: np.ndarray, b: np.ndarray, usable: np.ndarray | None,
           fallback: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """log P, log Q and P on the grid (nodes x items); an item not ``usable`` adds nothing to the likelihood
    (log P = log Q = 0) and is predicted by its ``fallback`` at every node."""
    with np.errstate(invalid="ignore", over="ignore"):
        z = a[None, :] * (GRID[:, None] - b[None, :])  # nodes x items
    if usable is None:
        return (*log_pq(z), expit(z))
    z = np.where(usable[None, :], z, 0.0)
    keep = usable[None, :]
    fill = np.asarray(fallback if fallback is not None else np.full(len(a), 0.5), dtype=float)
    lp, lq = log_pq(z)
    return np.where(keep, lp, 0.0), np.where(keep, lq, 0.0), np.where(keep, expit(z), fill[None, :])


def irt_predictions(a: np.ndarray, b: np.ndarray, seen: np.ndarray, Y: np.ndarray, variance: float = 1.0,
                    usable: np.ndarray | None = None, fallback: np.ndarray | None = None,
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Posterior-mean ``P_j(theta)`` for each new model (rows of ``Y``, models x k, NaN unanswered).

    ``usable`` (bool per item, default all): items whose 2PL estimates are identified. Any other item (a
    runaway slope or difficulty, or an item no calibration model answered) is left out of theta's
    likelihood and predicted by ``fallback`` (per item; the calibration models' mean on it,
    :func:`item_means`), which does not depend on theta.

    Returns ``(pred, loo, theta, se)``: models x items predictions, models x k leave-one-out predictions on
    the sampled items (each without its own answer), and the posterior mean and sd of theta.
    """
    lp, lq, P = _logpq(a, b, usable, fallback)
    obs = ~np.isnan(Y)
    right = np.where(obs, np.nan_to_num(Y), 0.0)
    wrong = np.where(obs, 1.0 - np.nan_to_num(Y), 0.0)
    cell = right[:, :, None] * lp[:, seen].T[None] + wrong[:, :, None] * lq[:, seen].T[None]  # models x k x nodes
    log_post = cell.sum(axis=1) - 0.5 * GRID**2 / variance  # models x nodes
    post = np.exp(log_post - logsumexp(log_post, axis=1, keepdims=True))
    theta = post @ GRID
    se = np.sqrt(np.maximum(post @ GRID**2 - theta**2, 0.0))
    pred = post @ P
    loo_log = log_post[:, None, :] - cell  # models x k x nodes
    loo_post = np.exp(loo_log - logsumexp(loo_log, axis=2, keepdims=True))
    loo = np.einsum("mkq,qk->mk", loo_post, P[:, seen])
    return pred, np.where(obs, loo, np.nan), theta, se


def factor_grid(n_factors: int) -> tuple[np.ndarray, np.ndarray]:
    """The points (points x D) and log prior weights (``N(0, I)``, normalised) that score a new model."""
    from irtbridge.em.factors import points  # the engine's own grids (quadrature: mirt's; qmc: Halton)

    if n_factors in FACTOR_GRID:
        return points("quadrature", n_factors, FACTOR_GRID[n_factors])
    return points("qmc", n_factors, FACTOR_QMC)


def _seen_terms(nodes: np.ndarray, A: np.ndarray, d: np.ndarray, seen: np.ndarray, keep: np.ndarray,
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``z = a_j'F + d_j`` and its log P / log Q at the scoring points for the items ``seen`` (points x k);
    the log terms of items not ``keep`` are 0 (they add nothing to a posterior)."""
    z = nodes @ A[seen].T + d[seen][None, :]
    lp, lq = log_pq(z)
    usable = keep[seen][None, :]
    return z, np.where(usable, lp, 0.0), np.where(usable, lq, 0.0)


def factor_posterior(A: np.ndarray, d: np.ndarray, seen: np.ndarray, Y: np.ndarray, usable: np.ndarray | None = None,
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The posterior of ``F`` under ``N(0, I)`` for each row of ``Y`` (models x the items ``seen``, NaN unanswered)
    at the points of :func:`factor_grid`; items not ``usable`` add nothing.

    Returns ``(nodes, log_post, post, mean, cov)``: the points (points x D), the unnormalised log posterior and
    the posterior weights (models x points), the posterior means (models x D) and covariances (models x D x D).
    """
    keep = np.ones(len(d), dtype=bool) if usable is None else np.asarray(usable, dtype=bool)
    nodes, logw = factor_grid(A.shape[1])
    _, lp, lq = _seen_terms(nodes, A, d, seen, keep)
    return _posterior(nodes, logw, lp, lq, Y)


def _posterior(nodes: np.ndarray, logw: np.ndarray, lp: np.ndarray, lq: np.ndarray, Y: np.ndarray,
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`factor_posterior` from the points, their log prior weights and the seen items' log terms
    (:func:`_seen_terms`)."""
    obs = ~np.isnan(Y)
    log_post = np.where(obs, np.nan_to_num(Y), 0.0) @ lp.T + np.where(obs, 1.0 - np.nan_to_num(Y), 0.0) @ lq.T
    log_post = log_post + logw[None, :]  # models x nodes
    post = np.exp(log_post - logsumexp(log_post, axis=1, keepdims=True))
    mean = post @ nodes
    cov = np.einsum("mq,qa,qb->mab", post, nodes, nodes) - mean[:, :, None] * mean[:, None, :]
    return nodes, log_post, post, mean, cov


def factor_predictions(A: np.ndarray, d: np.ndarray, seen: np.ndarray, Y: np.ndarray,
                       usable: np.ndarray | None = None, fallback: np.ndarray | None = None,
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Posterior-mean ``P_j(F)`` of a D-factor 2PL (slopes ``A``, items x D; intercepts ``d``) for each new
    model (rows of ``Y``, models x k, NaN unanswered); ``usable`` and ``fallback`` as :func:`irt_predictions`.

    Returns ``(pred, loo, mean, cov)``: models x items predictions, models x k leave-one-out predictions on
    the sampled items, the posterior means of ``F`` (models x D) and their covariances (models x D x D).
    """
    A, d = np.asarray(A, dtype=float), np.asarray(d, dtype=float)
    keep = np.ones(len(d), dtype=bool) if usable is None else np.asarray(usable, dtype=bool)
    fill = np.asarray(fallback if fallback is not None else np.full(len(d), 0.5), dtype=float)
    nodes, logw = factor_grid(A.shape[1])
    z, lp, lq = _seen_terms(nodes, A, d, seen, keep)  # points x k
    _, log_post, post, mean, cov = _posterior(nodes, logw, lp, lq, Y)
    obs = ~np.isnan(Y)
    right = np.where(obs, np.nan_to_num(Y), 0.0)
    wrong = np.where(obs, 1.0 - np.nan_to_num(Y), 0.0)
    pred = np.empty((Y.shape[0], len(d)))
    step = max(1, _CHUNK // max(len(nodes), 1))
    for start in range(0, len(d), step):  # P on the points in blocks of items (points x J can be large)
        cols = slice(start, start + step)
        P = expit(nodes @ A[cols].T + d[cols][None, :])
        pred[:, cols] = np.where(keep[cols][None, :], post @ P, fill[cols][None, :])
    P_seen = np.where(keep[seen][None, :], expit(z), fill[seen][None, :])  # nodes x k
    loo = np.empty(Y.shape)
    rows = max(1, _CHUNK // max(len(nodes) * Y.shape[1], 1))
    for start in range(0, Y.shape[0], rows):  # without item j's answer: log_post minus that cell's term
        m = slice(start, start + rows)
        cell = right[m, :, None] * lp.T[None] + wrong[m, :, None] * lq.T[None]  # models x k x nodes
        loo_log = log_post[m, None, :] - cell
        loo_post = np.exp(loo_log - logsumexp(loo_log, axis=2, keepdims=True))
        loo[m] = np.einsum("mkq,qk->mk", loo_post, P_seen)
    return pred, np.where(obs, loo, np.nan), mean, cov


def bank_arrays(bank: Any) -> tuple[np.ndarray, np.ndarray]:
    """``a`` and ``b`` of a 2PL-like bank (``g = 0, u = 1``), as float arrays."""
    return np.asarray(bank.a, dtype=float), np.asarray(bank.b, dtype=float)


def ridge_cv(X: np.ndarray, seen: np.ndarray, y: np.ndarray, alphas: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Ridge of one model's answers ``y`` (on ``seen``) with the penalty chosen by leave-one-out error.

    Returns ``(pred, loo, alpha)``: predictions on all items, leave-one-out predictions on ``seen`` at the
    chosen penalty, and the penalty.
    """
    Xs = X[seen]
    k = len(seen)
    xbar, ybar = Xs.mean(axis=0), y.mean()
    Xc, yc = Xs - xbar, y - ybar
    lam, V = np.linalg.eigh(Xc @ Xc.T)
    lam = np.maximum(lam, 0.0)
    Vy = V.T @ yc
    best: tuple[float, float, np.ndarray] | None = None  # (score, alpha, loo) of the lowest score yet
    for alpha in alphas:
        shrink = lam / (lam + alpha)
        fitted = V @ (shrink * Vy)
        h = 1.0 / k + (V**2) @ shrink
        e = (yc - fitted) / np.maximum(1.0 - h, 1e-12)
        score = float(e @ e)
        if score < (best[0] if best is not None else np.inf):
            best = (score, float(alpha), y - e)
    if best is None:
        raise ValueError("ridge_cv: no penalty gave a finite leave-one-out error")
    _, alpha, loo = best
    dual = V @ (Vy / (lam + alpha))  # (G + aI)^-1 yc
    pred = ybar + (X - xbar) @ (Xc.T @ dual)
    return pred, loo, alpha
