"""The native D-factor 2PL: marginal maximum likelihood (or MAP with priors) by EM, checked against mirt.

The model is mirt's multidimensional ``dich`` item without asymptotes,

    P(x_ij = 1 | theta_i) = expit(a_j' theta_i + d_j),     theta_i ~ N(0, I_D),

with the slopes ``a_j = (a1..aD)`` of item ``j`` free where the item-to-factor ``mask`` says so.

* **Identification.** The latent covariance is the identity. Exploratory (``mask`` None): mirt's pattern
  for ``mirt(data, D)`` (``buildModelSyntax``: factor ``k`` loads on items ``1..J-k+1``), so the last item
  loads on F1 only, the one before it on F1 and F2, and so on; that fixes the rotation (up to the sign of
  each factor) for estimation, and :meth:`FactorResult.rotate` rotates for reporting as mirt's
  ``summary(fit, rotate=)`` (:mod:`irtbridge.em.rotation`). Confirmatory: ``mask`` (items x D, True where
  the slope is free), e.g. a general factor and one factor per task (a bifactor pattern); the factors are
  orthogonal, as mirt's confirmatory default and its ``bfactor``.
* **Integration.** ``"quadrature"``: mirt's grid, the product of ``quadpts`` equally spaced points on
  ``[-6, 6]`` per factor (mirt's ``select_quadpts``: 61, 31, 15, 9, 7 for D = 1..5), weighted by the normal
  density and normalised. ``"qmc"``: quasi-Monte-Carlo EM (mirt's ``method = "QMCEM"``): a fixed set of
  ``quadpts`` (default 5,000, mirt's) scrambled Halton points (mirt: a Halton sequence) mapped through the
  normal quantile, equal
  weights; the log-likelihood is then an estimate, with its Monte-Carlo standard error estimated from
  independent scramblings (:attr:`FactorResult.loglik_se`). ``"adaptive"``: points moved to each
  respondent's posterior (:mod:`irtbridge.em.adaptive`, Schilling & Bock 2005), ``quadpts`` Gauss-Hermite
  nodes per factor up to D = 3; above, Stroud's 2D-point degree-3 rule where every respondent answered
  at least 500 items (a narrow, near-normal posterior), 512 scrambled Sobol points otherwise
  (:data:`~irtbridge.em.adaptive.ADAPTIVE_POINTS`, :func:`~irtbridge.em.adaptive.default_points`).
  ``"auto"``: quadrature for D <= 3, QMC above. The adaptive E-step is not chosen by ``"auto"``: its own
  log-likelihood is its rule's integral (on the D = 2 mirt case 0.006 above mirt's grid value, while its
  estimates judged on mirt's grid are mirt's to 2e-6), so a user comparing ``loglik`` with mirt's would see
  the rules differ; and at D = 5 on small data with broad posteriors it is not equal to QMC-EM (it warns).
* **E-step.** With ``Y`` the right answers and ``M`` the answered cells (respondents x items, dense or
  sparse), the log-likelihood of every respondent at every point is ``Y @ (log P - log Q) + M @ log Q``
  (:func:`irtbridge.irt.logistic.log_pq`; missing cells add nothing), computed in blocks of respondents as
  ``(Y x) X' + M @ log Q``, since ``log P - log Q = z = x_j . X_q`` is linear in the point
  ``X_q = (theta_q, 1)``; the expected counts are the right answers' moments ``R = Y' E[X]`` (items x
  (D + 1)) and ``n = M' post`` (items x points; one row where every cell is answered):
  :mod:`irtbridge.em.factor_steps`.
* **M-step.** Each item's expected complete-data log-likelihood is a weighted logistic regression on the
  points, concave in ``(a_j, d_j)``: Newton's method on the D + 1 parameters for all items at once
  (the Hessians by one matrix product), the fixed slopes held, a step halved where it does not raise the
  item's objective. Priors as mirt's (``norm`` or ``lnorm`` on the slopes, ``norm`` on ``d``; mirt's
  ``logPrior`` is :attr:`FactorResult.log_prior`).
* **Driver.** The EM map is run by :func:`irtbridge.em.accelerate.iterate` (SQUAREM with the monotone
  safeguard, as every native fit); convergence when the largest change of a parameter is below ``TOL``.
* **Scores.** EAP over the same points: ``F1..FD`` and posterior standard deviations ``se_F1..se_FD``.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd
from scipy.special import expit, logsumexp

from irtbridge._validation import check_choice, check_int, check_number
from irtbridge.em.accelerate import iterate
from irtbridge.em.adaptive import ADAPTIVE_POINTS, AdaptiveCycles, AdaptiveEstep, default_points
from irtbridge.em.core import ResponseData, prepare_responses
from irtbridge.em.factor_steps import Cycles, Estep, mstep, parse_priors, prior_parts
from irtbridge.em.rotation import Rotation, rotate_loadings, standardised_loadings
from irtbridge.exceptions import IrtBridgeWarning, ValidationError, find_stack_level

__all__ = ["METHODS", "QUADPTS", "QMC_POINTS", "ADAPTIVE_POINTS", "FactorResult", "fit_factors", "exploratory_mask",
           "points", "marginal_loglik"]

METHODS = ("auto", "quadrature", "qmc", "adaptive")
#: mirt's default quadrature points per factor (``select_quadpts``): 3 above five factors
QUADPTS = {1: 61, 2: 31, 3: 15, 4: 9, 5: 7}
QMC_POINTS = 5000  # mirt's default number of QMC-EM points
MAX_GRID = 20000  # mirt's MAXQUAD is 20,000 points
THETA_LIM = 6.0
_DEFAULT_SEED = 20240901  # seed=None: the same points every fit (a reproducible estimate)


def exploratory_mask(n_items: int, n_factors: int) -> np.ndarray:
    """mirt's free slopes of an exploratory ``mirt(data, D)``: factor ``k`` loads on items ``1..J-k+1``.

    Parameters
    ----------
    n_items, n_factors : int

    Returns
    -------
    ndarray of bool
        Items x factors, True where the slope is estimated.

    Examples
    --------
    >>> exploratory_mask(4, 3).astype(int).tolist()
    [[1, 1, 1], [1, 1, 1], [1, 1, 0], [1, 0, 0]]
    """
    mask = np.ones((n_items, n_factors), dtype=bool)
    for k in range(1, n_factors):
        mask[n_items - k:, k] = False
    return mask


def points(method: str, n_factors: int, quadpts: int, seed: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The integration points (points x D) and their log weights (summing to one on the exp scale).

    Parameters
    ----------
    method : {"quadrature", "qmc"}
        mirt's product grid on ``[-6, 6]`` or scrambled Halton points through the normal quantile.
    n_factors, quadpts : int
        Factors; points per factor (quadrature) or in total (qmc).
    seed : int, optional
        The scrambling (qmc).

    Returns
    -------
    theta : ndarray
        Points x D.
    log_weights : ndarray
        One per point.

    Examples
    --------
    >>> theta, lw = points("quadrature", 2, 3)
    >>> theta.shape, round(float(np.exp(lw).sum()), 12)
    ((9, 2), 1.0)
    """
    if method == "quadrature":
        grid = np.linspace(-THETA_LIM, THETA_LIM, quadpts)
        theta = np.stack([g.ravel() for g in np.meshgrid(*([grid] * n_factors), indexing="ij")], axis=1)
        logw = -0.5 * (theta**2).sum(axis=1)
        return theta, logw - logsumexp(logw)
    from scipy.stats import norm, qmc

    halton = qmc.Halton(d=n_factors, scramble=True, seed=_DEFAULT_SEED if seed is None else seed)
    u = halton.random(quadpts)
    theta = norm.ppf(np.clip(u, 1e-12, 1 - 1e-12))
    return theta, np.full(quadpts, -np.log(quadpts))


def _as_data(data: Any) -> ResponseData:
    if isinstance(data, ResponseData):
        if data.ncat is not None:
            raise ValidationError("data: fit_factors takes 0/1 responses (prepare_responses), not a graded layout")
        return data
    if isinstance(data, pd.DataFrame):
        return prepare_responses(data.to_numpy(dtype=float), data.columns, data.index)
    values = np.asarray(data, dtype=float)
    if values.ndim != 2:
        raise ValidationError(f"data: expected a models x items matrix, got {values.ndim} dimension(s)")
    bad = ~np.isnan(values) & (values != 0) & (values != 1)
    if bad.any():
        raise ValidationError(f"data: 0/1 responses (NaN missing) expected, found {values[bad][0]!r}")
    return prepare_responses(values, [f"item{j + 1}" for j in range(values.shape[1])])


@dataclass(frozen=True)
class FactorResult:
    """A D-factor 2PL fit (:func:`fit_factors`): slopes ``a`` (items x D), intercepts ``d``, in mirt's metric.

    Attributes
    ----------
    a : ndarray
        Items x D slopes (0 where fixed).
    d : ndarray
        Intercepts.
    loglik : float
        The marginal log-likelihood (qmc: its estimate at the fit's points).
    converged : bool
    iterations : int
    method : str
        ``"quadrature"``, ``"qmc"`` or ``"adaptive"``.
    n_factors : int
    item_names : tuple of str
    mask : ndarray of bool
        Items x D, the free slopes.
    exploratory : bool
    quadpts : int
        Points per factor (quadrature) or in total (qmc).
    log_prior : float
        mirt's ``logPrior`` at the estimates (0 without priors).
    loglik_se : float
        The Monte-Carlo standard error of ``loglik`` (qmc; 0 for quadrature).
    seconds : float
    history : tuple
        ``(loglik, change)`` per cycle.
    data : ResponseData or None
        The fitted responses (:meth:`scores` reads them by default).
    seed : int or None
        The QMC scrambling of the fit.
    priors : tuple of ndarray or None
        The fit's priors as mirt's rows (:func:`irtbridge.em.factor_steps.parse_priors`): the standard errors
        (:func:`irtbridge.em.factor_se.factor_standard_errors`) add their information.
    """

    a: np.ndarray
    d: np.ndarray
    loglik: float
    converged: bool
    iterations: int
    method: str
    n_factors: int
    item_names: tuple[str, ...]
    mask: np.ndarray
    exploratory: bool
    quadpts: int
    log_prior: float = 0.0
    loglik_se: float = 0.0
    seconds: float = 0.0
    history: tuple = field(default=(), repr=False)
    data: ResponseData | None = field(default=None, repr=False)
    seed: int | None = None
    priors: Any = field(default=None, repr=False)

    @property
    def factor_names(self) -> list[str]:
        """``F1..FD``."""
        return [f"F{k + 1}" for k in range(self.n_factors)]

    @property
    def items(self) -> pd.DataFrame:
        """The item table ``a1..aD, d`` (mirt's ``coef(fit, simplify = TRUE)$items`` without ``g, u``)."""
        frame = pd.DataFrame(self.a, index=pd.Index(self.item_names),
                             columns=[f"a{k + 1}" for k in range(self.n_factors)])
        frame["d"] = self.d
        return frame

    @property
    def n_parameters(self) -> int:
        """Estimated parameters: the free slopes and the intercepts."""
        return int(self.mask.sum()) + len(self.d)

    def probabilities(self, theta: np.ndarray) -> np.ndarray:
        """``P(correct)`` for abilities ``theta`` (N x D): N x items.

        Parameters
        ----------
        theta : ndarray
            N x D abilities (a 1-D array is one respondent).

        Returns
        -------
        ndarray
            N x items.
        """
        t = np.atleast_2d(np.asarray(theta, dtype=float))
        if t.shape[1] != self.n_factors:
            raise ValidationError(f"theta: expected {self.n_factors} columns (F1..F{self.n_factors}), "
                                  f"got {t.shape[1]}")
        return expit(t @ self.a.T + self.d[None, :])

    def scores(self, responses: Any = None) -> pd.DataFrame:
        """EAP abilities ``F1..FD`` and posterior standard deviations ``se_F1..se_FD``, at the fit's points.

        Parameters
        ----------
        responses : ndarray, DataFrame or ResponseData, optional
            Respondents x the fit's items, 0/1 with NaN missing; default the fitted responses.

        Returns
        -------
        DataFrame
            One row per respondent.
        """
        if responses is None:
            if self.data is None:
                raise ValidationError("responses: this result keeps no responses; pass them")
            data = self.data
        else:
            data = _as_data(responses)
        if data.shape[1] != len(self.d):
            raise ValidationError(f"responses: {data.shape[1]} items, the fit has {len(self.d)}")
        if self.method == "adaptive":
            adaptive = AdaptiveEstep(data, self.n_factors, self.quadpts, _DEFAULT_SEED if self.seed is None
                                     else self.seed)
            adaptive(self.a, self.d)
            return self._frame(data, adaptive.mean, adaptive.var)
        theta, logw = points(self.method, self.n_factors, self.quadpts, self.seed)
        step = Estep(data, theta, logw)
        mean = np.zeros((data.shape[0], self.n_factors))
        var = np.zeros_like(mean)
        tables = step.tables(self.a, self.d)
        for start, stop in step.blocks:
            post, _ = step.posterior(self.a, self.d, start, stop, tables)
            mean[start:stop] = post @ theta
            var[start:stop] = post @ theta**2 - mean[start:stop] ** 2
        return self._frame(data, mean, var)

    def _frame(self, data: ResponseData, mean: np.ndarray, var: np.ndarray) -> pd.DataFrame:
        out = pd.DataFrame(mean, index=data.index, columns=self.factor_names)
        for k, name in enumerate(self.factor_names):
            out[f"se_{name}"] = np.sqrt(np.maximum(var[:, k], 0.0))
        return out

    def loadings(self) -> pd.DataFrame:
        """mirt's standardised loadings ``F1..FD``, unrotated (:mod:`irtbridge.em.rotation`).

        Returns
        -------
        DataFrame
            Items x factors.
        """
        return pd.DataFrame(standardised_loadings(self.a), index=pd.Index(self.item_names),
                            columns=self.factor_names)

    def rotate(self, method: str = "oblimin") -> Rotation:
        """The standardised loadings rotated for reporting, as mirt's ``summary(fit, rotate=method)``.

        Parameters
        ----------
        method : {"oblimin", "varimax", "none"}, default "oblimin"

        Returns
        -------
        Rotation
            Rotated loadings and factor correlations (a confirmatory fit is reported unrotated, as mirt).
        """
        method = check_choice(method, "rotate", ("oblimin", "varimax", "none"))
        return rotate_loadings(standardised_loadings(self.a), method if self.exploratory else "none")


def _check_mask(mask: Any, n_items: int, n_factors: int) -> np.ndarray:
    m = np.asarray(mask)
    if m.shape != (n_items, n_factors):
        raise ValidationError(f"mask: expected items x factors = {n_items} x {n_factors}, got {m.shape}")
    if m.dtype != bool:
        if not np.isin(m, (0, 1)).all():
            raise ValidationError("mask: True/1 where a slope is estimated, False/0 where it is fixed at 0")
        m = m.astype(bool)
    empty = np.flatnonzero(~m.any(axis=0))
    if empty.size:
        raise ValidationError(f"mask: factor F{empty[0] + 1} has no item loading on it")
    return m


class _Cycles(Cycles):
    """The EM map on the flat point ``(a, d)`` (the protocol of :class:`irtbridge.em.accelerate.EMMap`)."""

    def __call__(self, x: np.ndarray) -> tuple[np.ndarray, float]:
        cur = np.where(self.free, x.reshape(self.free.shape), 0.0)
        R, n, loglik = self.step(cur[:, :-1], cur[:, -1])
        new = mstep(R, n, self.step.theta, cur.copy(), self.free, self.prior)
        change = float(np.abs(new - cur).max())
        self.cycle += 1
        self.history.append((loglik, change))
        if self.progress is not None:
            self.progress(self.cycle, change)
        self.converged = change < self.TOL
        objective = loglik + float(prior_parts(self.prior, cur, self.free, False)[0].sum())
        return new.ravel(), objective


def _start(data: ResponseData, free: np.ndarray) -> np.ndarray:
    """Slopes from the leading principal axes of the items' correlations (as mirt's exploratory start, on
    the answered cells; by a randomised SVD of the standardised matrix where it is large), intercepts from
    the proportions correct."""
    J, D = free.shape[0], free.shape[1] - 1
    answered = np.asarray(data.M.sum(axis=0)).ravel()
    correct = np.asarray(data.A.sum(axis=0)).ravel()
    p = (correct + 0.5) / (answered + 1.0)
    x = np.zeros((J, D + 1))
    x[:, -1] = np.log(p / (1 - p))
    sd = np.sqrt(p * (1 - p))
    rng = np.random.default_rng(0)
    n = data.shape[0]
    probe = rng.normal(size=(J, D + 8))
    basis = np.zeros((n, D + 8))
    for s in range(0, n, 500):  # Z = (Y - M p) / sd, answered cells only: Z @ probe without forming Z densely
        Y, M = data.A[s:s + 500], data.M[s:s + 500]
        basis[s:s + 500] = np.asarray(Y @ (probe / sd[:, None])) - np.asarray(M @ (probe * (p / sd)[:, None]))
    q, _ = np.linalg.qr(basis)
    proj = np.asarray(data.A.T @ q) / sd[:, None] - np.asarray(data.M.T @ q) * (p / sd)[:, None]  # Z' q
    u, sing, _ = np.linalg.svd(proj, full_matrices=False)
    loads = u[:, :D] * sing[:D] / np.sqrt(np.maximum(answered, 1.0))[:, None]
    loads *= np.sign(loads.sum(axis=0, keepdims=True) + 1e-12)
    uniq = 1 - (loads**2).sum(axis=1)
    uniq[uniq < 0.001] = 0.2
    x[:, :D] = np.where(free[:, :D], np.clip(loads / np.sqrt(uniq)[:, None] * 1.702, -4, 4), 0.0)
    return x


def fit_factors(data: Any, n_factors: int, *, mask: np.ndarray | None = None, method: str = "auto",
                quadpts: int | None = None, TOL: float = 1e-4, NCYCLES: int = 500, priors: Any = None,
                seed: int | None = None, progress: Callable[[int, float], None] | None = None) -> FactorResult:
    """Fit the D-factor 2PL by EM (quadrature or quasi-Monte-Carlo): the module docstring.

    Parameters
    ----------
    data : ResponseData, ndarray or DataFrame
        Respondents x items, 0/1 with NaN missing (:func:`irtbridge.em.core.prepare_responses`).
    n_factors : int
        D, at least 1.
    mask : ndarray of bool, optional
        Items x D, True where a slope is estimated (confirmatory); None: exploratory, mirt's pattern
        (:func:`exploratory_mask`).
    method : {"auto", "quadrature", "qmc", "adaptive"}, default "auto"
        "auto": quadrature for D <= 3, qmc above (as mirt advises); "adaptive": :mod:`irtbridge.em.adaptive`.
    quadpts : int, optional
        Quadrature: points per factor (default mirt's :data:`QUADPTS`); qmc: points in total (5,000);
        adaptive: nodes per factor up to D = 3, points per respondent above (2D: Stroud's degree-3 rule;
        default :func:`irtbridge.em.adaptive.default_points`).
    TOL : float, default 1e-4
        The largest change of a parameter between cycles at convergence.
    NCYCLES : int, default 500
    priors : mapping, optional
        ``{param: (dist, p1, p2)}``, param ``"a"`` (every free slope), ``"a1".."aD"`` or ``"d"``; ``norm``
        or ``lnorm`` on slopes, ``norm`` on ``d`` (mirt's), a MAP estimate.
    seed : int, optional
        The QMC scrambling (None: a fixed default, so a fit is reproducible).
    progress : callable, optional
        ``progress(cycle, change)`` after each cycle.

    Returns
    -------
    FactorResult

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> theta = rng.normal(size=(400, 2))
    >>> a = np.array([[1.5, 0], [1.2, 0], [1, 0], [0, 1.5], [0, 1.2], [0, 1]] * 2, dtype=float)
    >>> x = (rng.random((400, 12)) < 1 / (1 + np.exp(-(theta @ a.T)))).astype(float)
    >>> fit = fit_factors(x, 2, quadpts=15)
    >>> fit.converged, list(fit.scores().columns)
    (True, ['F1', 'F2', 'se_F1', 'se_F2'])
    """
    D = check_int(n_factors, "n_factors", low=1)
    method = check_choice(method, "method", METHODS)
    check_number(TOL, "TOL", low=0.0, low_open=True)
    NCYCLES = check_int(NCYCLES, "NCYCLES", low=1)
    if quadpts is not None:
        quadpts = check_int(quadpts, "quadpts", low=3)
    if seed is not None:
        seed = check_int(seed, "seed", low=0)
    responses = _as_data(data)
    J = responses.shape[1]
    if J < D + 1:
        raise ValidationError(f"n_factors: {D} factors need more than {D} items, the data have {J}")
    free_slopes = exploratory_mask(J, D) if mask is None else _check_mask(mask, J, D)
    prior = parse_priors(priors, J, D)
    if method == "auto":
        method = "quadrature" if D <= 3 else "qmc"
    if quadpts is None:
        quadpts = {"quadrature": QUADPTS.get(D, 3), "qmc": QMC_POINTS}.get(method) or default_points(responses, D)
    if method == "adaptive" and D >= 5 and quadpts != 2 * D:
        warnings.warn(f"method='adaptive' at D = {D} with sampled points (respondents with few answers) is not shown "
                      "equal to QMC-EM: on 1,000 x 30 at D = 5 it stopped 27.8 below the QMC fit's log-likelihood; "
                      "method='qmc' is mirt's", IrtBridgeWarning, stacklevel=find_stack_level())
    if method == "quadrature" and quadpts**D > MAX_GRID:
        raise ValidationError(f"quadpts: {quadpts}^{D} = {quadpts**D} quadrature points is more than {MAX_GRID} "
                              "(mirt's MAXQUAD); use method='qmc'")
    started = time.perf_counter()
    free = np.hstack([free_slopes, np.ones((J, 1), dtype=bool)])
    x0 = _start(responses, free)
    loglik_se = 0.0
    if method == "adaptive":
        adaptive = AdaptiveEstep(responses, D, quadpts, _DEFAULT_SEED if seed is None else seed)
        em: _Cycles | AdaptiveCycles = AdaptiveCycles(adaptive, free, prior, TOL, NCYCLES, progress)
    else:
        theta, logw = points(method, D, quadpts, seed)
        step = Estep(responses, theta, logw)
        em = _Cycles(step, free, prior, TOL, NCYCLES, progress)
    x = np.where(free, iterate(em, x0.ravel(), "squarem").reshape(free.shape), 0.0)
    a, d = x[:, :-1].copy(), x[:, -1].copy()
    if method == "adaptive":
        loglik = adaptive(a, d)[2]
        loglik_se = adaptive.loglik_se
    else:
        loglik = step.loglik(a, d)
    converged, cycles, history = em.converged, em.cycle, em.history
    if method == "adaptive" and converged and history[-1][1] >= TOL:
        warnings.warn(f"the adaptive fit stopped on its log-likelihood's rise (below TOL / 100 of itself) while a "
                      f"parameter still moved by {history[-1][1]:.2g}, above TOL = {TOL:g} (at 1 or more: items whose "
                      "maximum lies at infinity, which flag_factor_items names)", IrtBridgeWarning,
                      stacklevel=find_stack_level())
    if method == "qmc":
        loglik_se = _qmc_error(responses, a, d, D, quadpts, seed)
    log_prior = float(prior_parts(prior, x, free, True)[0].sum())
    return FactorResult(a=a, d=d, loglik=loglik, converged=converged, iterations=cycles, method=method,
                        n_factors=D, item_names=responses.item_names, mask=free_slopes, exploratory=mask is None,
                        quadpts=quadpts, log_prior=log_prior, loglik_se=loglik_se,
                        seconds=time.perf_counter() - started, history=tuple(history), data=responses,
                        seed=seed, priors=prior)


def _qmc_error(data: ResponseData, a: np.ndarray, d: np.ndarray, D: int, quadpts: int, seed: int | None,
               replicates: int = 8) -> float:
    """The Monte-Carlo standard error of the QMC log-likelihood at ``(a, d)``: the spread of the estimate
    over independent scramblings (randomised QMC), one scrambling's standard deviation."""
    base = _DEFAULT_SEED if seed is None else seed
    values = []
    for k in range(1, replicates + 1):
        theta, logw = points("qmc", D, quadpts, base + 7919 * k)
        values.append(Estep(data, theta, logw).loglik(a, d))
    return float(np.std(values, ddof=1))


def marginal_loglik(data: Any, a: np.ndarray, d: np.ndarray, *, method: str = "qmc", quadpts: int = QMC_POINTS,
                    seed: int | None = None) -> float:
    """The marginal log-likelihood of the D-factor 2PL ``(a, d)`` on ``data``, integrated at the points of
    :func:`points` (e.g. another fit's estimates, checked on a larger or independent set of points).

    Parameters
    ----------
    data : ResponseData, ndarray or DataFrame
        Respondents x items, 0/1 with NaN missing.
    a : ndarray
        Items x D slopes.
    d : ndarray
        Intercepts.
    method : {"qmc", "quadrature"}, default "qmc"
    quadpts : int, default 5000
    seed : int, optional

    Returns
    -------
    float
    """
    method = check_choice(method, "method", ("qmc", "quadrature"))
    a = np.atleast_2d(np.asarray(a, dtype=float))
    theta, logw = points(method, a.shape[1], check_int(quadpts, "quadpts", low=3), seed)
    return Estep(_as_data(data), theta, logw).loglik(a, np.asarray(d, dtype=float))
