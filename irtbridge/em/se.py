"""Standard errors of the native EM: mirt's ``SE.type = "crossprod"`` (the variance of the Fisher scores).

The information matrix is ``I = sum_i s_i s_i^T`` with ``s_i`` the gradient of respondent ``i``'s log marginal
likelihood at the estimates,

    s_i = sum_q post_iq  d/dpar log p(x_i | theta_q)          (+ d/dpar log w_q for the Rasch variance),

and the covariance of the estimates is ``I^-1``. Every model is handled as a graded one: a 0/1 item is a
graded item with two categories (``d_1 = d``), so the score of item ``j``'s parameters comes from the
category ``k`` the respondent chose,

    d log P_k / d d_k = w_k / P_k,   d log P_k / d d_{k+1} = -w_{k+1} / P_k,
    d log P_k / d a = theta (w_k - w_{k+1}) / P_k

with ``w_k = P*_k (1 - P*_k)`` (see :mod:`irtbridge.em.graded`), all taken in logs so nothing underflows.
The 1PL sums the slope scores into its one shared slope; the Rasch model drops them and adds the latent
variance. SEs in the IRT metric (``b_k = -d_k / a``) follow by the delta method, as mirt's
``coef(fit, IRTpars = TRUE, printSE = TRUE)``.

The matrix has one row and column per estimated parameter, so it is formed (in row chunks of respondents)
and inverted only up to :data:`MAX_SE_PARAMETERS` parameters; beyond that the caller reports NaN.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.linalg import cho_factor, cho_solve
from scipy.special import log_expit

from irtbridge.exceptions import ValidationError
from irtbridge.em.core import EMResult, ResponseData, nodes, posterior
from irtbridge.em.graded import cell_layout

__all__ = ["MAX_SE_PARAMETERS", "crossprod_covariance", "irt_standard_errors"]

#: Above this many estimated parameters the crossprod information is not formed: it costs
#: O(n p^2 + p^3), and with the reference BLAS numpy links on Debian (about 1 GFLOP/s) 1,000 parameters
#: (500 2PL items) and 5,000 respondents take a few seconds, 2,000 parameters already half a minute.
MAX_SE_PARAMETERS = 1000
_CHUNK_CELLS = 4_000_000


def _cells(data: ResponseData) -> tuple[object, np.ndarray]:
    """The indicator layout of :func:`~irtbridge.em.core.prepare_graded` (0/1 data: categories 0 and 1)."""
    if data.ncat is not None:
        return data.A, np.asarray(data.ncat)
    j = data.M.shape[1]
    order = np.argsort(np.concatenate([2 * np.arange(j), 2 * np.arange(j) + 1]), kind="stable")
    if sparse.issparse(data.A):
        x = sparse.hstack([data.M - data.A, data.A]).tocsc()[:, order].tocsr()
    else:
        x = np.stack([data.M - data.A, data.A], axis=2).reshape(data.M.shape[0], 2 * j)
    return x, np.full(j, 2)


def _score_parts(a, d, ncat, theta):
    """Per cell and node: d log P / d d_k (``up``, the cell's own intercept) and / d d_{k+1} (``low``)."""
    item, cat = cell_layout(ncat)
    up = np.zeros((len(theta), len(item)))
    low = np.zeros_like(up)
    for k in np.unique(ncat):
        idx = np.flatnonzero(ncat == k)
        dk = d[idx, : k - 1]
        z = a[idx, None, None] * theta[None, :, None] + dk[:, None, :]  # (G, Q, K-1)
        edge = np.full(z.shape[:2] + (1,), -np.inf)
        logw = np.concatenate([edge, log_expit(z) + log_expit(-z), edge], axis=2)  # (G, Q, K+1)
        dext = np.concatenate([np.full((len(idx), 1), np.inf), dk, np.full((len(idx), 1), -np.inf)], axis=1)
        zext = a[idx, None, None] * theta[None, :, None] + dext[:, None, :]
        with np.errstate(invalid="ignore", divide="ignore"):
            gaps = np.log(-np.expm1(dext[:, 1:] - dext[:, :-1]))
        logp = log_expit(zext[..., :-1]) + log_expit(-zext[..., 1:]) + gaps[:, None, :]  # (G, Q, K)
        cols = np.flatnonzero(np.isin(item, idx))
        up[:, cols] = np.exp(logw[..., :-1] - logp).transpose(1, 0, 2).reshape(len(theta), -1)
        low[:, cols] = -np.exp(logw[..., 1:] - logp).transpose(1, 0, 2).reshape(len(theta), -1)
    return up, low


def _maps(ncat: np.ndarray, model: str) -> tuple[sparse.csr_matrix, sparse.csr_matrix, sparse.csr_matrix, int]:
    """Cells -> the model's parameters, for the slope, the cell's own intercept and the next one."""
    item, cat = cell_layout(ncat)
    cells, n_items = len(item), len(ncat)
    k = ncat[item]
    if model in ("2PL", "graded"):
        start = np.concatenate([[0], np.cumsum(ncat)[:-1]])[item]  # (a, d_1..d_{K-1}) per item
        slope, n_par = start, int(ncat.sum())
        own = start + cat
    else:  # 1PL: (a, d_1..d_J); rasch: (d_1..d_J, variance)
        first = 1 if model == "1PL" else 0
        slope, n_par = np.zeros(cells, dtype=np.int64), n_items + 1
        own = first + item
    ones = np.ones(cells)

    def to(cols, keep):
        return sparse.csr_matrix((ones[keep], (np.flatnonzero(keep), cols[keep])), shape=(cells, n_par))

    a_map = to(slope, np.ones(cells, dtype=bool) if model != "rasch" else np.zeros(cells, dtype=bool))
    return a_map, to(own, cat >= 1), to(own + 1 if model in ("2PL", "graded") else own, cat <= k - 2), n_par


def crossprod_covariance(data: ResponseData, result: EMResult, model: str, quadpts: int,
                         prior_information: np.ndarray | None = None) -> np.ndarray:
    """The covariance of the estimates, ``inv(sum_i s_i s_i^T)``, in the order of the model's parameters.

    ``prior_information`` (a fit with priors): the diagonal mirt's ``SE.simple`` adds to that information,
    minus the priors' second derivatives (:func:`irtbridge.em.priors.prior_information`).

    Order: ``a_1, d_1[, d_2..]``, ``a_2, ...`` per item (2PL, graded); ``a, d_1..d_J`` (1PL);
    ``d_1..d_J, variance`` (rasch). Raises :class:`ValidationError` above :data:`MAX_SE_PARAMETERS` and
    ``numpy.linalg.LinAlgError`` when the information matrix is not positive definite (always so with no
    more respondents than parameters: it is a sum of one rank-one term per respondent).

    Parameters
    ----------
    data : ResponseData
        The fitted responses.
    result : EMResult
        The fit.
    model : str
        Its model.
    quadpts : int
        Quadrature nodes of the fit.
    prior_information : ndarray, optional
        See above.

    Returns
    -------
    ndarray
        The covariance matrix.

    Examples
    --------
    >>> from irtbridge.em.core import fit_em, prepare_responses
    >>> rng = np.random.default_rng(1)
    >>> x = (rng.random((400, 5)) < 1 / (1 + np.exp(-rng.normal(size=(400, 1))))).astype(float)
    >>> data = prepare_responses(x, [f"q{j}" for j in range(5)])
    >>> fit = fit_em(data, "2PL", TOL=1e-6)
    >>> se = irt_standard_errors(crossprod_covariance(data, fit, "2PL", 61), fit, "2PL", data.item_names)
    >>> list(se.columns), bool((se["a"] > 0).all())
    (['a', 'b', 'g', 'u'], True)
    """
    x, ncat = _cells(data)
    a = np.asarray(result.a, dtype=float)
    d = np.asarray(result.d, dtype=float).reshape(len(a), -1)
    a_map, up_map, low_map, n_par = _maps(ncat, model)
    if n_par > MAX_SE_PARAMETERS:
        raise ValidationError(f"{n_par} parameters are more than the {MAX_SE_PARAMETERS} the crossprod standard "
                              "errors are computed for")
    n = data.shape[0]
    if n <= n_par:
        raise np.linalg.LinAlgError(f"the crossprod information of {n_par} parameters is singular with {n} respondents")
    theta, weights = nodes(quadpts, result.variance)
    up, low = _score_parts(a, d, ncat, theta)
    slope = theta[:, None] * (up + low)
    # Rasch: d log w_q / d variance with w_q normalised over the nodes (what the EM maximises)
    dvar = 0.5 * (theta**2 - weights @ theta**2) / result.variance**2
    info = np.zeros((n_par, n_par))
    step = max(1, _CHUNK_CELLS // max(x.shape[1], n_par))
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        block = data.rows(lo, hi)
        post, _ = posterior(block, a, d.reshape(result.d.shape), theta, np.log(weights))
        xs = sparse.csr_matrix(x[lo:hi])
        s = (xs.multiply(post @ up) @ up_map + xs.multiply(post @ low) @ low_map
             + xs.multiply(post @ slope) @ a_map)
        s = s.toarray() if sparse.issparse(s) else np.asarray(s)
        if model == "rasch":
            s[:, -1] = post @ dvar
        info += s.T @ s
    if prior_information is not None:
        info[np.diag_indices_from(info)] += prior_information
    factor = cho_factor(info, lower=True)  # LinAlgError unless positive definite
    return cho_solve(factor, np.eye(n_par))


def irt_standard_errors(cov: np.ndarray, result: EMResult, model: str, item_names) -> pd.DataFrame:
    """SEs of the item table of :func:`~irtbridge.em.core.irt_table` by the delta method (``b_k = -d_k / a``).

    Parameters
    ----------
    cov : ndarray
        The covariance of :func:`crossprod_covariance`.
    result : EMResult
        The fit.
    model : str
        Its model.
    item_names : iterable of str
        The items.

    Returns
    -------
    DataFrame
        The item table's layout, NaN where a parameter is fixed.
    """
    a = np.asarray(result.a, dtype=float)
    d = np.asarray(result.d, dtype=float).reshape(len(a), -1)
    n_items, width = d.shape
    var = np.diag(cov)
    se_a = np.full(n_items, np.nan)
    se_b = np.full((n_items, width), np.nan)
    pos = 0
    for j in range(n_items):
        k = int(np.sum(~np.isnan(d[j])))
        if model in ("2PL", "graded"):
            ia, idd = pos, pos + 1 + np.arange(k)
            pos += k + 1
        elif model == "1PL":
            ia, idd = 0, np.array([1 + j])
        else:
            ia, idd = None, np.array([j])
        if ia is None:  # rasch: a = 1 is fixed, b = -d
            se_b[j, :k] = np.sqrt(var[idd])
            continue
        se_a[j] = np.sqrt(var[ia])
        dj = d[j, :k]
        # grad of b = -d/a: (d / a^2, -1 / a) with respect to (a, d)
        v = (dj / a[j] ** 2) ** 2 * var[ia] + var[idd] / a[j] ** 2 - 2 * dj / a[j] ** 3 * cov[ia, idd]
        se_b[j, :k] = np.sqrt(v)
    names = pd.Index([str(n) for n in item_names])
    if model == "graded":
        frame = pd.DataFrame(se_b, index=names, columns=[f"b{k + 1}" for k in range(width)])
        frame.insert(0, "a", se_a)
        return frame
    return pd.DataFrame({"a": se_a, "b": se_b[:, 0], "g": np.nan, "u": np.nan}, index=names)
