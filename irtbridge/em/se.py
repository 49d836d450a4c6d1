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

from typing import Any, cast

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.linalg import cho_factor, cho_solve
from scipy.special import log_expit

from irtbridge.exceptions import ValidationError
from irtbridge.em.core import EMResult, ResponseData, nodes, posterior
from irtbridge.em.graded import cell_layout
from irtbridge.em.items import Dichotomous, Graded, ItemModel, Params, item_model
from irtbridge.irt.logistic import log_pq

__all__ = ["MAX_SE_PARAMETERS", "crossprod_covariance", "irt_standard_errors"]

#: Above this many estimated parameters the crossprod information is not formed: it costs
#: O(n p^2 + p^3), and with the reference BLAS numpy links on Debian (about 1 GFLOP/s) 1,000 parameters
#: (500 2PL items) and 5,000 respondents take a few seconds, 2,000 parameters already half a minute.
MAX_SE_PARAMETERS = 1000
_CHUNK_CELLS = 4_000_000


def _cells(data: ResponseData) -> tuple[Any, np.ndarray]:
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
        logw = np.concatenate([edge, np.add(*log_pq(z)), edge], axis=2)  # (G, Q, K+1)
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


def _terms(model: ItemModel, p: Params, ncat: np.ndarray, theta: np.ndarray) -> tuple[list, int]:
    """The score terms of ``model`` at ``p``: pairs of (nodes x cells: ``d log P(cell)`` in one parameter,
    cells x parameters: where it goes), and the number of parameters."""
    if model.plain:  # the 2PL family and the graded model: the graded cell layout (module docstring)
        kind = "graded" if isinstance(model, Graded) else cast(Dichotomous, model)._kind
        a_map, up_map, low_map, n_par = _maps(ncat, kind)
        up, low = _score_parts(p.a, p.d.reshape(len(p.a), -1), ncat, theta)
        return [(up, up_map), (low, low_map), (theta[:, None] * (up + low), a_map)], n_par
    # a free asymptote: every free parameter's d log P (right cells) and d log Q (wrong cells)
    dich = cast(Dichotomous, model)
    pos, n_par = dich.se_layout(len(p.a))
    right, wrong = dich.scores(p, theta)
    j = len(p.a)
    terms = []
    for k in np.flatnonzero(dich.mask):
        parts = np.empty((len(theta), 2 * j))
        parts[:, 0::2], parts[:, 1::2] = wrong[k], right[k]  # cells (item, 0 wrong | 1 right)
        where = sparse.csr_matrix((np.ones(2 * j), (np.arange(2 * j), np.repeat(pos[:, k], 2))), shape=(2 * j, n_par))
        terms.append((parts, where))
    return terms, n_par


def crossprod_covariance(data: ResponseData, result: EMResult, model: str | ItemModel, quadpts: int,
                         prior_information: np.ndarray | None = None) -> np.ndarray:
    """The covariance of the estimates, ``inv(sum_i s_i s_i^T)``, in the order of the model's parameters:
    the one SE routine of every native model (its item model gives the scores, :mod:`irtbridge.em.items`).

    ``prior_information`` (a fit with priors): the diagonal mirt's ``SE.simple`` adds to that information,
    minus the priors' second derivatives (:meth:`irtbridge.em.items.Dichotomous.prior_information`).

    Order: ``a_1, d_1[, d_2..][, g_1][, u_1]``, ``a_2, ...`` per item (2PL, 3PL, 4PL, graded; the
    asymptotes on the logit scale); ``a, d_1..d_J`` (1PL); ``d_1..d_J, variance`` (rasch). Raises
    :class:`ValidationError` above :data:`MAX_SE_PARAMETERS` and ``numpy.linalg.LinAlgError`` when the
    information matrix is not positive definite (always so with no more respondents than parameters: it is
    a sum of one rank-one term per respondent).

    Parameters
    ----------
    data : ResponseData
        The fitted responses.
    result : EMResult
        The fit.
    model : str or ItemModel
        Its model (a name: its catalogue row's item model).
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
    item: ItemModel = item_model(model, ncat=data.ncat) if isinstance(model, str) else model
    x, ncat = _cells(data)
    p = result.params()
    terms, n_par = _terms(item, p, ncat, nodes(quadpts, result.variance)[0])
    if n_par > MAX_SE_PARAMETERS:
        raise ValidationError(f"{n_par} parameters are more than the {MAX_SE_PARAMETERS} the crossprod standard "
                              "errors are computed for")
    n = data.shape[0]
    if n <= n_par and (prior_information is None or not (prior_information > 0).all()):  # priors: full rank
        raise np.linalg.LinAlgError(f"the crossprod information of {n_par} parameters is singular with {n} respondents")
    theta, weights = nodes(quadpts, result.variance)
    tables = None if item.plain else item.log_pq(p, theta)
    unit = getattr(item, "slopes", "free") == "unit"
    # Rasch: d log w_q / d variance with w_q normalised over the nodes (what the EM maximises)
    dvar = 0.5 * (theta**2 - weights @ theta**2) / result.variance**2
    info = np.zeros((n_par, n_par))
    step = max(1, _CHUNK_CELLS // max(x.shape[1], n_par))
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        block = data.rows(lo, hi)
        post, _ = posterior(block, p.a, p.d, theta, np.log(weights), tables)
        xs = sparse.csr_matrix(x[lo:hi])
        s = sum(xs.multiply(post @ parts) @ where for parts, where in terms)
        s = s.toarray() if sparse.issparse(s) else np.asarray(s)
        if unit:
            s[:, -1] = post @ dvar
        info += s.T @ s
    if prior_information is not None:
        info[np.diag_indices_from(info)] += prior_information
    factor = cho_factor(info, lower=True)  # LinAlgError unless positive definite
    return cho_solve(factor, np.eye(n_par))


def irt_standard_errors(cov: np.ndarray, result: EMResult, model: str | ItemModel, item_names) -> pd.DataFrame:
    """SEs of the item table of :func:`~irtbridge.em.core.irt_table` by the delta method (``b_k = -d_k / a``;
    ``g``, ``u`` from their logits), as mirt's ``coef(fit, IRTpars = TRUE, printSE = TRUE)``: the item
    model's SE map (:meth:`irtbridge.em.items.Dichotomous.irt_standard_errors`; the graded one here).

    Parameters
    ----------
    cov : ndarray
        The covariance of :func:`crossprod_covariance`.
    result : EMResult
        The fit.
    model : str or ItemModel
        Its model.
    item_names : iterable of str
        The items.

    Returns
    -------
    DataFrame
        The item table's layout, NaN where a parameter is fixed.
    """
    names = [str(n) for n in item_names]
    item = item_model(model, ncat=(2,) * len(names)) if isinstance(model, str) else model
    if isinstance(item, Dichotomous):
        return item.irt_standard_errors(cov, result.params(), names)
    a = np.asarray(result.a, dtype=float)
    d = np.asarray(result.d, dtype=float).reshape(len(a), -1)
    n_items, width = d.shape
    var = np.diag(cov)
    se_a = np.full(n_items, np.nan)
    se_b = np.full((n_items, width), np.nan)
    pos = 0
    for j in range(n_items):
        k = int(np.sum(~np.isnan(d[j])))
        ia, idd = pos, pos + 1 + np.arange(k)
        pos += k + 1
        se_a[j] = np.sqrt(var[ia])
        dj = d[j, :k]
        # grad of b = -d/a: (d / a^2, -1 / a) with respect to (a, d)
        v = (dj / a[j] ** 2) ** 2 * var[ia] + var[idd] / a[j] ** 2 - 2 * dj / a[j] ** 3 * cov[ia, idd]
        se_b[j, :k] = np.sqrt(v)
    frame = pd.DataFrame(se_b, index=pd.Index(names), columns=[f"b{k + 1}" for k in range(width)])
    frame.insert(0, "a", se_a)
    return frame
