"""Rotations of a D-factor loading matrix for reporting, as mirt's ``summary(fit, rotate=)``.

mirt reports standardised loadings (``Lambdas`` in mirt's ``R/utils.R``): with slopes ``a`` (items x D) on
the logistic metric and an identity latent covariance,

    F = (a / 1.702) / sqrt(1 + rowSums((a / 1.702)^2)),

and rotates ``F`` with GPArotation: ``oblimin`` (mirt's default, ``gam = 0``: quartimin) or ``varimax``
(not row-normalised), then turns each column so that its largest loading is positive. The rotation is for
reporting only: the likelihood is invariant under ``a -> a T^-T`` with the latent covariance ``T^-1 T^-T``.

* ``varimax``: Kaiser (1958) by the SVD iteration, without row normalisation (GPArotation's ``Varimax``
  default, ``normalize = FALSE``, ``eps = 1e-5``).
* ``oblimin``: the gradient projection algorithm for oblique rotation of Bernaards & Jennrich (2005),
  criterion ``Q(L) = sum_{k != l} (L_k^2)' (L_l^2) / 4`` (quartimin), from the identity.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from irtbridge.exceptions import ValidationError

__all__ = ["ROTATIONS", "Rotation", "standardised_loadings", "rotate_loadings"]

ROTATIONS = ("oblimin", "varimax", "none")
_LOGISTIC = 1.702


@dataclass(frozen=True)
class Rotation:
    """A rotated loading matrix.

    Attributes
    ----------
    loadings : ndarray
        Items x D, rotated standardised loadings.
    phi : ndarray
        D x D factor correlations (identity for orthogonal rotations).
    rotmat : ndarray
        D x D matrix ``T`` with ``loadings = F @ inv(T).T`` (orthogonal: ``F @ T``).
    method : str
    """

    loadings: np.ndarray
    phi: np.ndarray
    rotmat: np.ndarray
    method: str


def standardised_loadings(a: np.ndarray) -> np.ndarray:
    """mirt's standardised loadings of logistic slopes ``a`` (items x D) with N(0, I) factors.

    Parameters
    ----------
    a : ndarray
        Items x D slopes.

    Returns
    -------
    ndarray
        Items x D loadings, ``(a / 1.702) / sqrt(1 + sum (a / 1.702)^2)`` per row.

    Examples
    --------
    >>> standardised_loadings(np.array([[1.702, 0.0]])).round(4).tolist()
    [[0.7071, 0.0]]
    """
    lam = np.asarray(a, dtype=float) / _LOGISTIC
    return lam / np.sqrt(1.0 + (lam**2).sum(axis=1, keepdims=True))


def _varimax(F: np.ndarray, eps: float = 1e-5, iterations: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    p, k = F.shape
    x = F
    T = np.eye(k)
    previous = 0.0
    for _ in range(iterations):
        z = x @ T
        u, s, vt = np.linalg.svd(x.T @ (z**3 - z @ np.diag((z**2).sum(axis=0)) / p))
        T = u @ vt
        total = s.sum()
        if total < previous * (1 + eps):
            break
        previous = total
    return x @ T, T


def _quartimin(L: np.ndarray) -> tuple[float, np.ndarray]:
    L2 = L**2
    off = L2 @ (np.ones((L.shape[1], L.shape[1])) - np.eye(L.shape[1]))
    return float((L2 * off).sum() / 4.0), L * off


def _oblimin(F: np.ndarray, tol: float = 1e-5, iterations: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """Bernaards & Jennrich's (2005) gradient projection for oblique rotations, quartimin criterion."""
    T = np.eye(F.shape[1])
    step = 1.0
    L = F @ np.linalg.inv(T).T
    f, gq = _quartimin(L)
    G = -(L.T @ gq @ np.linalg.inv(T)).T
    for _ in range(iterations):
        Gp = G - T @ np.diag((T * G).sum(axis=0))
        if np.sqrt((Gp**2).sum()) < tol:
            break
        step *= 2
        for _ in range(11):
            X = T - step * Gp
            Tt = X / np.sqrt((X**2).sum(axis=0, keepdims=True))
            L = F @ np.linalg.inv(Tt).T
            ft, gq_t = _quartimin(L)
            if ft < f - 0.5 * (Gp**2).sum() * step:
                break
            step /= 2
        T, f = Tt, ft
        G = -(L.T @ gq_t @ np.linalg.inv(T)).T
    return F @ np.linalg.inv(T).T, T


def rotate_loadings(F: np.ndarray, method: str = "oblimin") -> Rotation:
    """Rotate standardised loadings ``F`` (items x D) as mirt's ``summary(fit, rotate=method)``.

    Parameters
    ----------
    F : ndarray
        Items x D standardised loadings (:func:`standardised_loadings`).
    method : {"oblimin", "varimax", "none"}, default "oblimin"
        mirt's default is ``"oblimin"``.

    Returns
    -------
    Rotation
        Columns turned so that each one's largest absolute loading is positive (as mirt does).

    Examples
    --------
    >>> F = np.array([[0.7, 0.1], [0.6, 0.2], [0.1, 0.7], [0.2, 0.6]])
    >>> rot = rotate_loadings(F, "varimax")
    >>> bool(np.allclose(rot.loadings @ rot.loadings.T, F @ F.T))
    True
    """
    if method not in ROTATIONS:
        raise ValidationError(f"rotate: {method!r} is not one of {', '.join(ROTATIONS)}")
    F = np.asarray(F, dtype=float)
    k = F.shape[1]
    if method == "none" or k == 1:
        L, T, phi = F.copy(), np.eye(k), np.eye(k)
    elif method == "varimax":
        L, T = _varimax(F)
        phi = np.eye(k)
    else:
        L, T = _oblimin(F)
        phi = T.T @ T
    idx = np.abs(L).argmax(axis=0)
    sign = np.sign(L[idx, np.arange(k)])
    sign[sign == 0] = 1.0
    return Rotation(L * sign, phi * np.outer(sign, sign), T * sign, method)
