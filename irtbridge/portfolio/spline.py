"""Penalized cubic regression splines with REML or GCV smoothing: mgcv's ``s(x, bs = "cs")`` in numpy.

airt draws each algorithm's performance against dataset easiness with ggplot2's
``geom_smooth(method = "gam", formula = y ~ s(x, bs = "cs"))``, i.e. ``mgcv::gam`` with a 10-knot cubic
regression spline whose penalty also shrinks the linear part, and smoothing chosen by REML. This module
fits the same model natively so the latent trait analysis needs no R.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import linalg, optimize

from irtbridge._constraints import Choice, Int, Number, constraints
from irtbridge._validation import check_choice, check_int, check_number
from irtbridge.exceptions import ValidationError

__all__ = ["PenalizedSpline", "penalized_spline", "place_knots"]

SMOOTHING_METHODS = ("REML", "GCV")


def place_knots(x: Any, k: int = 10) -> np.ndarray:
    """Knots of a cubic regression spline: ``k`` evenly spaced quantiles of the unique ``x`` values.

    Parameters
    ----------
    x : array-like
        The covariate.
    k : int, default 10
        Knots.

    Returns
    -------
    ndarray
        The knots.

    Notes
    -----
    mgcv's default for ``bs = "cr"``/``"cs"``: ``quantile(unique(x), seq(0, 1, length = k))`` (R's type-7
    quantile, which is numpy's ``"linear"`` method).
    """
    xu = np.unique(np.asarray(x, dtype=float))
    if xu.size < k:
        raise ValidationError(
            f"x has {xu.size} distinct value(s); a spline with k={k} knots needs at least {k} (lower k)"
        )
    return np.quantile(xu, np.linspace(0.0, 1.0, k))


def _natural_spline_operators(knots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(F, S): F maps knot values to second derivatives at the knots (zero at both ends, i.e. a natural
    spline); S is the penalty matrix, ``beta' S beta = integral of f''(x)^2``."""
    h = np.diff(knots)
    k = knots.size
    D = np.zeros((k - 2, k))
    idx = np.arange(k - 2)
    D[idx, idx] = 1.0 / h[:-1]
    D[idx, idx + 1] = -1.0 / h[:-1] - 1.0 / h[1:]
    D[idx, idx + 2] = 1.0 / h[1:]
    B = np.diag((h[:-1] + h[1:]) / 3.0)
    off = h[1:-1] / 6.0
    B[idx[:-1], idx[:-1] + 1] = off
    B[idx[:-1] + 1, idx[:-1]] = off
    BinvD = linalg.solve(B, D, assume_a="pos")
    F = np.zeros((k, k))
    F[1:-1] = BinvD
    S = D.T @ BinvD
    return F, (S + S.T) / 2.0


def _basis(x: np.ndarray, knots: np.ndarray, F: np.ndarray) -> np.ndarray:
    """Cubic regression spline basis at ``x``: f(x) = basis @ (values at the knots).

    Inside the knot range the natural cubic spline through the knot values; outside it the tangent line at
    the nearest end knot (mgcv's convention).
    """
    k = knots.size
    h = np.diff(knots)
    X = np.zeros((x.size, k))
    j = np.clip(np.searchsorted(knots, x, side="right") - 1, 0, k - 2)
    inside = (x >= knots[0]) & (x <= knots[-1])
    rows = np.flatnonzero(inside)
    if rows.size:
        jj = j[rows]
        hj = h[jj]
        right = knots[jj + 1] - x[rows]
        left = x[rows] - knots[jj]
        X[rows, jj] += right / hj
        X[rows, jj + 1] += left / hj
        cm = (right**3 / hj - hj * right) / 6.0
        cp = (left**3 / hj - hj * left) / 6.0
        X[rows] += cm[:, None] * F[jj] + cp[:, None] * F[jj + 1]
    low = np.flatnonzero(x < knots[0])
    if low.size:
        # f'(k_0) = (beta_1 - beta_0)/h_0 - h_0 (2 delta_0 + delta_1) / 6, with delta = F beta
        d = np.zeros(k)
        d[0], d[1] = -1.0 / h[0], 1.0 / h[0]
        d -= h[0] * (2.0 * F[0] + F[1]) / 6.0
        X[low, 0] = 1.0
        X[low] += (x[low] - knots[0])[:, None] * d[None, :]
    high = np.flatnonzero(x > knots[-1])
    if high.size:
        d = np.zeros(k)
        d[-2], d[-1] = -1.0 / h[-1], 1.0 / h[-1]
        d += h[-1] * (F[-2] + 2.0 * F[-1]) / 6.0
        X[high, -1] = 1.0
        X[high] += (x[high] - knots[-1])[:, None] * d[None, :]
    return X


def _shrunk_penalty(S: np.ndarray, knots: np.ndarray, shrink: float) -> np.ndarray:
    """Give the penalty's null space (constant and linear functions) the eigenvalues ``shrink * m`` and
    ``shrink**2 * m``, m = the smallest positive eigenvalue, as mgcv's ``"cs"`` basis does."""
    values = linalg.eigvalsh(S)  # ascending: two (numerical) zeros, then the positive ones
    m = values[2]
    # mgcv takes the two null-space eigenvectors LAPACK happens to return, an arbitrary rotation of the
    # null space; a fixed orthonormal basis (constant first, then the centred linear function) keeps the
    # fit reproducible everywhere.
    Q, _ = np.linalg.qr(np.column_stack([np.ones_like(knots), knots]))
    return S + m * (shrink * np.outer(Q[:, 0], Q[:, 0]) + shrink**2 * np.outer(Q[:, 1], Q[:, 1]))


@dataclass(frozen=True)
class PenalizedSpline:
    """A fitted penalized cubic regression spline (see :func:`penalized_spline`).

    The curve is the natural cubic spline through ``knot_values`` at ``knots`` (linear beyond the end
    knots), so it can be evaluated anywhere by calling the object.

    Attributes
    ----------
    knots, knot_values : numpy.ndarray
        The knots and the fitted curve's value at each knot.
    smoothing : float
        The selected smoothing parameter ``lambda`` (penalty ``lambda * integral f''^2`` plus the
        shrinkage terms).
    edf : float
        Effective degrees of freedom of the fit, intercept included (mgcv's ``sum(fit$edf) + 1``).
    criterion : float
        The minimized REML or GCV score (REML up to an additive constant).
    scale : float
        Estimated residual variance (mgcv's ``fit$sig2``).
    method : str
    shrink : float or None
    n : int
        Number of observations fitted.
    """

    knots: np.ndarray = field(repr=False)
    knot_values: np.ndarray = field(repr=False)
    smoothing: float
    edf: float
    criterion: float
    scale: float
    method: str
    shrink: float | None
    n: int
    _F: np.ndarray = field(repr=False)

    def __call__(self, x: Any):
        """Evaluate the curve at ``x`` (numpy in, numpy out; a Series keeps its index)."""
        if isinstance(x, pd.Series):
            return pd.Series(self(x.to_numpy(dtype=float)), index=x.index, name=x.name)
        arr = np.asarray(x, dtype=float)
        flat = arr.ravel()
        return (_basis(flat, self.knots, self._F) @ self.knot_values).reshape(arr.shape)


@constraints(method=Choice(SMOOTHING_METHODS, ignore_case=True), k=Int(low=3),
             shrink=Number(low=0.0, high=1.0, low_open=True, allow_none=True))
def penalized_spline(
    x: Any,
    y: Any,
    k: int = 10,
    *,
    method: str = "REML",
    shrink: float | None = 0.1,
) -> PenalizedSpline:
    """Fit ``y ~ s(x)`` with a penalized cubic regression spline, smoothing chosen by REML or GCV.

    Parameters
    ----------
    x, y : array-like
        Finite values of equal length; ``x`` needs at least ``k`` distinct values.
    k : int
        Basis dimension (number of knots), mgcv's ``k`` (default 10).
    method : {"REML", "GCV"}
        Smoothing parameter selection (ggplot2's ``geom_smooth(method = "gam")`` uses REML).
    shrink : float or None
        ``0.1`` is mgcv's ``bs = "cs"`` (the linear part is penalized a little too, so a curve can shrink to
        a constant); ``None`` is ``bs = "cr"``.

    Returns
    -------
    PenalizedSpline

    Notes
    -----
    The model is ``y_i = mu + f(x_i) + e_i`` with ``f`` a natural cubic spline with knots at ``k`` evenly
    spaced quantiles of the unique ``x``, parameterized by its values ``beta`` at the knots and constrained
    to ``sum_i f(x_i) = 0`` (mgcv's identifiability constraint). The penalty is ``lambda beta' S beta`` with
    ``beta' S beta = integral f''(x)^2 dx``; for ``"cs"`` the two null-space eigenvalues of ``S`` are set to
    ``0.1 m`` and ``0.01 m`` (``m`` its smallest positive eigenvalue). ``lambda`` minimizes

    * REML: ``(n - 1) log(D_p) + log|X'X + lambda P| - r log(lambda)``, with ``D_p = ||y - X beta||^2 +
      lambda beta' P beta``, ``r = rank(P)`` (the restricted likelihood with the scale profiled out);
    * GCV: ``n ||y - X beta||^2 / (n - edf)^2``.

    R equivalent: ``mgcv::gam(y ~ s(x, bs = "cs", k = 10), method = "REML")``. mgcv rotates the null space
    of ``S`` by whatever eigenvectors LAPACK returns before shrinking it, so for ``"cs"`` its curves differ
    slightly between builds; here the null-space basis is fixed (constant, then linear). For ``"cr"`` (no
    shrinkage) the fit equals mgcv's.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.linspace(0, 1, 50)
    >>> fit = penalized_spline(x, np.sin(6 * x))
    >>> bool(abs(fit(0.25) - np.sin(1.5)) < 0.05)
    True
    """
    method = check_choice(method, "method", SMOOTHING_METHODS, ignore_case=True)
    k = check_int(k, "k", low=3)
    if shrink is not None:
        shrink = check_number(shrink, "shrink", low=0.0, high=1.0, low_open=True)
    try:
        xa = np.asarray(x, dtype=float).ravel()
        ya = np.asarray(y, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ValidationError("x and y must be numeric") from None
    if xa.size != ya.size:
        raise ValidationError(f"x and y must have the same length, got {xa.size} and {ya.size}")
    if not (np.isfinite(xa).all() and np.isfinite(ya).all()):
        raise ValidationError("x and y must be finite (no NaN or infinite values)")
    knots = place_knots(xa, k)
    F, S = _natural_spline_operators(knots)
    if shrink is not None:
        S = _shrunk_penalty(S, knots, shrink)
    X = _basis(xa, knots, F)
    n = xa.size
    # identifiability: the smooth sums to zero over the data; Z spans the null space of colSums(X)
    q, _ = np.linalg.qr(X.sum(axis=0)[:, None], mode="complete")
    Z = q[:, 1:]
    design = np.column_stack([np.ones(n), X @ Z])
    P = np.zeros((k, k))
    P[1:, 1:] = Z.T @ S @ Z
    # One reparameterization makes every lambda cheap: with design = QR and R^-T P R^-1 = U diag(s) U',
    # the fit for lambda shrinks the coordinates c = U'Q'y by 1 / (1 + lambda s).
    Qd, R = np.linalg.qr(design)
    Rinv = linalg.solve_triangular(R, np.eye(k))
    M = Rinv.T @ P @ Rinv
    s, U = linalg.eigh((M + M.T) / 2.0)
    s = np.clip(s, 0.0, None)
    c = U.T @ (Qd.T @ ya)
    rss0 = max(float(ya @ ya - c @ c), 0.0)
    rank = int(np.sum(s > s.max() * 1e-10))

    def parts(rho: float) -> tuple[float, float, float]:
        lam = np.exp(rho)
        shrink_ = 1.0 / (1.0 + lam * s)
        rss = rss0 + float(np.sum(((1.0 - shrink_) * c) ** 2))
        pen = float(np.sum(lam * s * (shrink_ * c) ** 2))
        return rss, pen, float(shrink_.sum())

    def score(rho: float) -> float:
        rss, pen, edf = parts(rho)
        if method == "REML":
            return (n - (k - rank)) * np.log(rss + pen) + float(np.sum(np.log1p(np.exp(rho) * s))) - rank * rho
        return n * rss / (n - edf) ** 2

    positive = s[s > s.max() * 1e-10]
    centre = -np.log(np.median(positive))
    grid = centre + np.linspace(-25.0, 25.0, 201)
    values = np.array([score(r) for r in grid])
    i = int(np.argmin(values))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    best = optimize.minimize_scalar(score, bounds=(lo, hi), method="bounded", options={"xatol": 1e-10})
    rho = float(best.x) if best.fun <= values[i] else float(grid[i])
    lam = float(np.exp(rho))
    rss, pen, edf = parts(rho)
    coef = Rinv @ (U @ (c / (1.0 + lam * s)))
    knot_values = coef[0] + Z @ coef[1:]
    if method == "REML":
        scale = (rss + pen) / (n - (k - rank))
    else:
        scale = rss / (n - edf)
    return PenalizedSpline(
        knots=knots,
        knot_values=knot_values,
        smoothing=lam,
        edf=edf,
        criterion=float(score(rho)),
        scale=float(scale),
        method=method,
        shrink=shrink,
        n=n,
        _F=F,
    )
