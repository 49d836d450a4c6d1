"""Standard errors of the native D-factor 2PL (:func:`irtbridge.em.factors.fit_factors`).

**Standard errors** are mirt's ``SE.type = "crossprod"``, as the one-dimensional engine computes them
(:mod:`irtbridge.em.se`): the information is the sum over respondents of the outer products of their Fisher
scores at the estimates, over the fit's own integration points,

    s_i[a_jk] = m_ij sum_q post_iq (x_ij - P_j(theta_q)) theta_qk,
    s_i[d_j]  = m_ij sum_q post_iq (x_ij - P_j(theta_q)),

(``m_ij`` 1 where item ``j`` was answered), plus, with priors, minus each prior's second derivative on the
diagonal (mirt's ``DerivativePriors``, :func:`irtbridge.em.priors.mirt_prior_information`). Only the free
parameters enter (the item-to-factor mask); the fixed slopes have no SE (NaN). The matrix is formed up to
:data:`irtbridge.em.se.MAX_SE_PARAMETERS` parameters, as in one dimension; beyond that, and where it is
not positive definite, every SE is NaN with a warning: the estimates stand.

The flags of its estimates are :func:`irtbridge.calibration.results.flags.flag_factor_items`.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
from scipy.linalg import cho_factor, cho_solve

from irtbridge.em.factor_steps import Estep
from irtbridge.em.factors import QMC_POINTS, QUADPTS, points
from irtbridge.em.priors import mirt_prior_information
from irtbridge.em.se import MAX_SE_PARAMETERS
from irtbridge.exceptions import IrtBridgeWarning, ValidationError, find_stack_level

__all__ = ["factor_covariance", "factor_standard_errors"]

_BLOCK_CELLS = 2_000_000  # respondents x items x (D + 1) scores held at once


def _free(fit: Any) -> np.ndarray:
    """Items x (D + 1): the free slopes, then the intercept (always free)."""
    return np.hstack([fit.mask, np.ones((len(fit.d), 1), dtype=bool)])


def factor_covariance(fit: Any, data: Any = None) -> np.ndarray:
    """The covariance of the free parameters, ``inv(sum_i s_i s_i^T [+ prior information])``.

    Order: item by item, its free slopes ``a1..aD`` then ``d`` (the order of ``fit.items``' cells, row by
    row, where the mask is True).

    Parameters
    ----------
    fit : FactorResult
        The fit (its points, priors and, by default, its responses).
    data : ResponseData, optional
        The responses (default ``fit.data``).

    Returns
    -------
    ndarray
        Free parameters x free parameters.

    Raises
    ------
    ValidationError
        Above :data:`~irtbridge.em.se.MAX_SE_PARAMETERS` free parameters, or without responses.
    numpy.linalg.LinAlgError
        When the information is not positive definite.
    """
    data = fit.data if data is None else data
    if data is None:
        raise ValidationError("data: this result keeps no responses; pass them")
    free = _free(fit)
    n_par = int(free.sum())
    if n_par > MAX_SE_PARAMETERS:
        raise ValidationError(f"{n_par} parameters are more than the {MAX_SE_PARAMETERS} the crossprod standard "
                              "errors are computed for")
    method, quadpts = fit.method, fit.quadpts
    if method == "adaptive":  # no shared points: integrate at the estimates as "auto" does (mirt's choice)
        method = "quadrature" if fit.n_factors <= 3 else "qmc"
        quadpts = QUADPTS[fit.n_factors] if method == "quadrature" else QMC_POINTS
    theta, logw = points(method, fit.n_factors, quadpts, fit.seed)
    step = Estep(data, theta, logw)
    tables = step.tables(fit.a, fit.d)
    design = np.hstack([theta, np.ones((len(theta), 1))])  # points x (D + 1)
    # points x items, one per column of the design: P_j(theta_q) theta_qk (and P_j(theta_q)), made once
    weighted = [np.exp(tables[0]).T * design[:, [k]] for k in range(design.shape[1])]
    n, J = data.shape
    width = design.shape[1]
    info = np.zeros((n_par, n_par))
    size = max(1, _BLOCK_CELLS // (J * width))
    for start in range(0, n, size):
        stop = min(n, start + size)
        post, _ = step.posterior(fit.a, fit.d, start, stop, tables)
        y = _dense(step.Y[start:stop])
        m = _dense(step.M[start:stop])
        expected = post @ design  # respondents x (D + 1): E[theta_k], 1
        scores = np.empty((stop - start, J, width))
        for k in range(width):
            scores[:, :, k] = m * (y * expected[:, [k]] - post @ weighted[k])
        s = scores[:, free]  # respondents x free parameters, item-major
        info += s.T @ s
    if fit.priors is not None:
        slopes, inter = fit.priors
        x = np.hstack([fit.a, fit.d[:, None]])
        extra = np.zeros_like(x)
        for k in range(width):
            kind = inter if k == width - 1 else slopes[:, k]
            extra[:, k] = mirt_prior_information(kind, x[:, k])
        info[np.diag_indices_from(info)] += extra[free]
    factor = cho_factor(info, lower=True)  # LinAlgError unless positive definite
    return cho_solve(factor, np.eye(n_par))


def _dense(block: Any) -> np.ndarray:
    return block.toarray() if hasattr(block, "toarray") else np.asarray(block, dtype=float)


def factor_standard_errors(fit: Any, data: Any = None) -> pd.DataFrame:
    """Standard errors of ``a1..aD, d`` (mirt's ``coef(fit, printSE = TRUE)``), NaN where a slope is fixed.

    When the information cannot be formed (too many parameters) or inverted, every SE is NaN and one
    warning says why; the estimates are untouched.

    Parameters
    ----------
    fit : FactorResult
        The fit.
    data : ResponseData, optional
        The responses (default ``fit.data``).

    Returns
    -------
    DataFrame
        The layout of ``fit.items``.

    Examples
    --------
    >>> from irtbridge.em.factors import fit_factors
    >>> rng = np.random.default_rng(1)
    >>> theta = rng.normal(size=(500, 2))
    >>> a = np.array([[1.5, 0], [1.2, 0], [1, 0], [0, 1.5], [0, 1.2], [0, 1]] * 2, dtype=float)
    >>> x = (rng.random((500, 12)) < 1 / (1 + np.exp(-(theta @ a.T)))).astype(float)
    >>> se = factor_standard_errors(fit_factors(x, 2, quadpts=15))
    >>> list(se.columns), bool(se["d"].gt(0).all()), bool(np.isnan(se.iloc[-1]["a2"]))
    (['a1', 'a2', 'd'], True, True)
    """
    free = _free(fit)
    out = np.full(free.shape, np.nan)
    try:
        cov = factor_covariance(fit, data)
    except (ValueError, np.linalg.LinAlgError) as err:  # ValidationError is a ValueError
        warnings.warn(f"standard errors of the {fit.n_factors}-factor fit not computed: {err}; the estimates "
                      "stand (their SEs are NaN)", IrtBridgeWarning, stacklevel=find_stack_level())
    else:
        out[free] = np.sqrt(np.maximum(np.diag(cov), 0.0))
    columns = [f"a{k + 1}" for k in range(fit.n_factors)] + ["d"]
    return pd.DataFrame(out, index=pd.Index(fit.item_names), columns=columns)
