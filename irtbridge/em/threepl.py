"""Native EM for the unidimensional 3PL, with mirt's item priors (a MAP estimate) or without them (ML).

The same estimator as ``mirt(data, 1, itemtype = "3PL", pars = sv)`` with ``sv``'s ``prior.type``,
``prior_1`` and ``prior_2`` set (the classifier benchmark's stable mode,
:data:`irtbridge.decodirt.modes.STABLE_PRIORS`), written so that mode runs without R.

* Model and metric: mirt's slope-intercept 3PL, ``P = g + (1 - g) expit(a1 theta + d)`` with ``u = 1``;
  ``g`` is estimated on the logit scale, ``lambda = logit(g)``, as mirt does internally (its ``g`` rows
  carry bounds of -999 and 999 on that scale). Convergence is mirt's (``hasConverged``): the largest
  absolute change of ``(a1, d, g)`` between cycles, ``g`` on the probability scale, below ``TOL``, at most
  ``NCYCLES`` cycles.
* Quadrature and E-step: those of :mod:`irtbridge.em.core` (61 nodes on ``[-6, 6]``, standard normal
  weights, mean 0 and variance 1 fixed). The log-likelihood of every respondent at every node is
  ``A @ (log P - log Q).T + M @ log Q.T`` with ``log Q = log(1 - g) + log expit(-z)`` and
  ``log P = logaddexp(log g, log(1 - g) + log expit(z))``, exact in the tails.
* M-step: every item's expected complete-data log-likelihood ``sum_q r_q log P_q + (n_q - r_q) log Q_q``
  plus its prior term, maximised by Newton's method on ``(a1, d, lambda)`` for all items at once (3 x 3
  systems; analytic gradient and Hessian, Fisher scoring where the Hessian is not negative definite, and
  step halving so the objective never falls).
* Several modes: an item's expected complete-data log-posterior is not concave in ``(a1, d, lambda)``; a
  negative slope and a positive one with much guessing can both be local maxima (an instance answered
  right only by the classifiers that always predict the minority class). On classifier
  matrices the first M-steps decide which basin each item settles in, and the EM's end point follows: on
  five real decodIRT matrices (kc2, wdbc, ilpd, diabetes, dna) Newton's method from mirt's starting values
  alone (``g = 0.15``) ended 10 to 71 below mirt's ``logLik + logPrior``. The first
  :data:`MULTISTART_CYCLES` M-steps therefore also start every item's Newton iterations from
  :data:`ALTERNATIVE_STARTS` and keep each item's best maximum (:func:`multistart_newton_3pl`): a
  generalised EM step, still monotone, with the same fixed points; the fits then reach mirt's point or a
  higher one (``docs/calibration-modes.md``, ``speed/native_3pl.py --csv``).

How mirt applies the priors (mirt 1.48, ``R/utils.R``: ``LL.Priors`` and ``DerivativePriors``;
``src/dpars.cpp``: ``d_priors``, called from ``_computeDpars``, which supplies the M-step gradient):

* ``norm(mu, s)`` on ``a1`` or ``d``: ``log dnorm(par, mu, s)``, gradient ``-(par - mu) / s^2``.
* ``lnorm(mu, s)`` on ``a1``: ``log dlnorm(par, mu, s)`` and its exact gradient.
* ``expbeta(alpha, beta)`` on ``g``: the value mirt reports (``logPrior``) is ``log dbeta(g, alpha, beta)``
  at ``g = expit(lambda)``, with no Jacobian; the gradient it adds to the M-step, however, is
  ``d/dg log dbeta(g) = (alpha - 1) / g - (beta - 1) / (1 - g)`` added to the gradient in ``lambda``
  *without* the chain-rule factor ``g (1 - g)``. mirt's M-step (``nlminb`` over all items, or BFGS) drives
  that gradient to zero, so its fits sit where

      dQ/dlambda + (alpha - 1) / g - (beta - 1) / (1 - g) = 0,

  not at the maximum of ``loglik + log dbeta(g)``. That gradient is the derivative of
  ``phi(lambda) = (alpha - beta) lambda - (alpha - 1) exp(-lambda) - (beta - 1) exp(lambda)`` (concave for
  ``alpha, beta >= 1``), so this module maximises ``loglik + norm/lnorm terms + phi(lambda)``: the same
  stationary point as mirt, reached by a consistent objective. :class:`ThreePLResult` reports both
  ``log_prior`` (as mirt's ``logPrior``) and ``objective`` (the function actually maximised).

Without priors the fit is maximum likelihood, as ``mirt(data, 1, "3PL")``. Standard errors:
:func:`crossprod_covariance_3pl` is mirt's ``SE.type = "crossprod"`` (the respondents' score cross-products
plus the prior term of mirt's ``SE.simple``), :func:`irt_standard_errors_3pl` its delta method to ``a, b, g``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import numpy as np
import pandas as pd
from scipy.linalg import cho_factor, cho_solve
from scipy.special import expit, log_expit, logit, logsumexp
from scipy.stats import norm

from irtbridge._validation import check_choice, check_int, check_number
from irtbridge.exceptions import ValidationError
from irtbridge.em.accelerate import ACCELERATORS, iterate
from irtbridge.em.core import ResponseData, expected_counts, loglik_cells, nodes
from irtbridge.em.memory import keep_freed_memory_if_asked
from irtbridge.em.priors import PRIOR_FAMILIES, ItemPriors, item_priors, log_prior
from irtbridge.em.priors import mirt_prior_information as _mirt_prior_information
from irtbridge.em.priors import prior_terms as _prior_terms
from irtbridge.irt.logistic import log_pq

__all__ = ["ACCELERATORS", "PRIOR_FAMILIES", "ItemPriors", "crossprod_covariance_3pl", "irt_standard_errors_3pl",
           "item_priors", "ThreePLResult", "estep_3pl", "fit_3pl", "irt_table_3pl", "start_values_3pl",
           "multistart_newton_3pl", "ALTERNATIVE_STARTS", "MULTISTART_CYCLES"]

_START_G = 0.15  # mirt's starting guessing parameter for the 3PL (pars = "values")
_START_A = 0.851  # mirt's starting slope: 0.5 * 1.702
_NEWTON_STEPS = 100
_HALVINGS = 40
_MAX_STEP = 2.0
_TRUSTED_STEP = 1e-3
_STEP_TOL = 1e-9
_LAMBDA_BOUND = 999.0  # mirt's bounds on logit(g)
#: Other starting points of the first M-steps' per-item maximisation, as (a1, factor on d, g); None keeps
#: the item's current value: little guessing; a flatter item; a middling item (see the module docstring)
ALTERNATIVE_STARTS: tuple[tuple[float | None, float | None, float | None], ...] = (
    (None, None, 0.01), (0.5, 0.6, None), (1.0, 0.0, None))
MULTISTART_CYCLES = 3


def _penalty(priors: ItemPriors, a: np.ndarray, d: np.ndarray, lam: np.ndarray):
    """Per item: the prior part of the M-step objective, its gradient (J, 3) and diagonal Hessian (J, 3)."""
    parts = [_prior_terms(k, x, False) for k, x in ((priors.a1, a), (priors.d, d), (priors.g, lam))]
    return (sum(p[0] for p in parts), np.stack([p[1] for p in parts], axis=1), np.stack([p[2] for p in parts], axis=1))


def _log_pq(a: np.ndarray, d: np.ndarray, lam: np.ndarray, theta: np.ndarray):
    """``z``, ``log P`` and ``log Q`` (items x nodes)."""
    z = a[:, None] * theta[None, :] + d[:, None]
    return (z, *log_pq(z, log_expit(lam)[:, None], -np.inf, log_expit(-lam)[:, None]))


def estep_3pl(data: ResponseData, a: np.ndarray, d: np.ndarray, lam: np.ndarray, theta: np.ndarray,
              log_weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Expected counts ``r`` (items x nodes, correct) and ``n`` (answered), and the log marginal likelihood.

    Parameters
    ----------
    data : ResponseData
        The responses.
    a, d, lam : ndarray
        Slopes, intercepts and logit guessing.
    theta : ndarray
        Quadrature nodes.
    log_weights : ndarray
        Log weights of the nodes.

    Returns
    -------
    r, n : ndarray
        Items x nodes.
    loglik : float
        The log marginal likelihood.
    """
    _, lp, lq = _log_pq(a, d, lam, theta)
    ll = loglik_cells(data, lp, lq)
    ll += log_weights[None, :]
    marginal = logsumexp(ll, axis=1)
    ll -= marginal[:, None]
    r, n = expected_counts(data, np.exp(ll, out=ll))
    return r, n, float(marginal.sum())


def _objective(r, n, theta, a, d, lam, priors):
    _, lp, lq = _log_pq(a, d, lam, theta)
    with np.errstate(invalid="ignore"):
        value = (r * lp + (n - r) * lq).sum(axis=1) + _penalty(priors, a, d, lam)[0]
    return np.where(np.isnan(value), -np.inf, value)


def _derivatives(r, n, theta, a, d, lam, priors):
    """Per item: objective (J,), gradient (J, 3) and Hessian (J, 3, 3) in ``(a1, d, lambda)``, and the
    Fisher information of the likelihood part plus the prior's curvature (J, 3, 3), the fallback where the
    Hessian is not negative definite."""
    z, lp, lq = _log_pq(a, d, lam, theta)
    g = expit(lam)[:, None]
    s = expit(z)
    s1 = 1.0 - s
    inv_p = np.exp(-lp)
    u = (1 - g) * s * s1 * inv_p  # (dP/dz) / P
    v = g * (1 - g) * s1 * inv_p  # (dP/dlambda) / P
    w = n - r
    gz, gl = r * u - w * s, r * v - w * g
    hzz = r * (u * (1 - 2 * s) - u**2) - w * s * s1
    hzl = -r * u * (g + v)
    hll = r * ((1 - 2 * g) * v - v**2) - w * g * (1 - g)
    pv, pg, ph = _penalty(priors, a, d, lam)
    value = (r * lp + w * lq).sum(axis=1) + pv
    t = theta[None, :]
    gzt, hzzt = gz @ theta, hzz @ theta
    grad = np.stack([gzt, gz.sum(1), gl.sum(1)], axis=1) + pg
    hess = _sym3(hzz @ theta**2, hzzt, hzl @ theta, hzz.sum(1), hzl.sum(1), hll.sum(1))
    hess[:, [0, 1, 2], [0, 1, 2]] += ph
    # expected information n (dP)(dP)^T / (P Q), in forms that never divide by a vanishing Q
    base = n * (1 - g) * s1 * inv_p
    iz, izl, il = base * s * s, base * g * s, base * g * g
    fisher = _sym3((iz * t) @ theta, iz @ theta, izl @ theta, iz.sum(1), izl.sum(1), il.sum(1))
    fisher[:, [0, 1, 2], [0, 1, 2]] -= np.minimum(ph, 0.0)
    return value, grad, hess, fisher


def _sym3(aa, ad, al, dd, dl, ll):
    out = np.empty(aa.shape + (3, 3))
    out[:, 0, 0], out[:, 0, 1], out[:, 0, 2] = aa, ad, al
    out[:, 1, 0], out[:, 1, 1], out[:, 1, 2] = ad, dd, dl
    out[:, 2, 0], out[:, 2, 1], out[:, 2, 2] = al, dl, ll
    return out


def _positive_definite(m: np.ndarray) -> np.ndarray:
    """Sylvester's criterion on a stack of 3 x 3 symmetric matrices, with a relative margin."""
    scale = np.abs(m[:, [0, 1, 2], [0, 1, 2]]).max(axis=1) + 1e-300
    m1 = m[:, 0, 0]
    m2 = m[:, 0, 0] * m[:, 1, 1] - m[:, 0, 1] ** 2
    return (m1 > 1e-12 * scale) & (m2 > 1e-12 * scale**2) & (np.linalg.det(m) > 1e-12 * scale**3)


def newton_3pl(r: np.ndarray, n: np.ndarray, theta: np.ndarray, a: np.ndarray, d: np.ndarray, lam: np.ndarray,
               priors: ItemPriors) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The M-step: maximise every item's expected complete-data log-posterior (see the module docstring)."""
    x = np.stack([a, d, lam], axis=1)
    active = np.ones(len(a), dtype=bool)
    for _ in range(_NEWTON_STEPS):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        sub = priors.take(idx)
        xa = x[idx]
        f0, grad, hess, fisher = _derivatives(r[idx], n[idx], theta, xa[:, 0], xa[:, 1], xa[:, 2], sub)
        neg = -hess
        ok = _positive_definite(neg)
        neg[~ok] = fisher[~ok] + 1e-8 * np.eye(3)
        step = np.linalg.solve(neg, grad[:, :, None])[:, :, 0]
        step *= np.minimum(1.0, _MAX_STEP / np.maximum(np.abs(step).max(axis=1), 1e-300))[:, None]
        new = xa + step
        new[:, 2] = np.clip(new[:, 2], -_LAMBDA_BOUND, _LAMBDA_BOUND)
        # a small Newton step on a concave piece is safe; larger ones, and Fisher steps, are checked
        check = np.flatnonzero(~ok | (np.abs(step).max(axis=1) > _TRUSTED_STEP))
        scale = np.ones(check.size)
        for _ in range(_HALVINGS if check.size else 0):
            nc = new[check]
            f1 = _objective(r[idx[check]], n[idx[check]], theta, nc[:, 0], nc[:, 1], nc[:, 2], sub.take(check))
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
    return x[:, 0], x[:, 1], x[:, 2]


def multistart_newton_3pl(r: np.ndarray, n: np.ndarray, theta: np.ndarray, x: np.ndarray, priors: ItemPriors,
                          starts: Iterable[tuple[float | None, float | None, float | None]] = ALTERNATIVE_STARTS
                          ) -> np.ndarray:
    """The M-step from the current ``x`` (items x ``(a1, d, logit g)``) and from each of ``starts``, every
    item keeping the best of its maxima of the expected complete-data log-posterior (items x 3).

    Taking the best of several maxima never lowers an item's objective below the one Newton's method
    reaches from ``x``, so the EM stays monotone (a generalised EM step) and its fixed points are unchanged.

    Parameters
    ----------
    r, n : ndarray
        Expected correct and answered counts, items x nodes.
    theta : ndarray
        Quadrature nodes.
    x : ndarray
        The current parameters, items x 3.
    priors : ItemPriors
        The priors.
    starts : iterable of (float or None, float or None, float or None)
        Each an ``(a1, scale of d, g)`` start; None keeps the current value.

    Returns
    -------
    ndarray
        Items x 3.
    """
    best = np.stack(newton_3pl(r, n, theta, x[:, 0], x[:, 1], x[:, 2], priors), axis=1)
    f_best = _objective(r, n, theta, best[:, 0], best[:, 1], best[:, 2], priors)
    for a1, scale, g in starts:
        a = x[:, 0] if a1 is None else np.full(len(x), float(a1))
        d = x[:, 1] if scale is None else x[:, 1] * scale
        lam = x[:, 2] if g is None else np.full(len(x), logit(g))
        trial = np.stack(newton_3pl(r, n, theta, a, d, lam, priors), axis=1)
        f_trial = _objective(r, n, theta, trial[:, 0], trial[:, 1], trial[:, 2], priors)
        better = f_trial > f_best + 1e-10 * np.abs(f_best)
        best[better], f_best = trial[better], np.where(better, f_trial, f_best)
    return best


def start_values_3pl(data: ResponseData) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """mirt's starting values for the unidimensional 3PL: ``a1 = 0.851``, ``g = 0.15`` and
    ``d = -qnorm(p0) / div`` with ``p0`` the share of all respondents who answered the item wrong and
    ``div = sqrt(1 - 0.5^2) / 1.702`` (``R/05-model.elements.R``); ``d = 2`` where that is not finite.

    Parameters
    ----------
    data : ResponseData
        0/1 responses.

    Returns
    -------
    a, d, logit_g : ndarray
        One per item.
    """
    rows = data.shape[0]
    wrong = np.asarray(data.M.sum(axis=0)).ravel() - np.asarray(data.A.sum(axis=0)).ravel()
    with np.errstate(divide="ignore", invalid="ignore"):
        d = -norm.ppf(wrong / rows) / (np.sqrt(0.75) / 1.702)
    d = np.where(np.isfinite(d), d, 2.0)
    j = len(d)
    return np.full(j, _START_A), d, np.full(j, logit(_START_G))


@dataclass(frozen=True)
class ThreePLResult:
    """What :func:`fit_3pl` estimated (mirt's slope-intercept metric; ``g`` on the probability scale).

    ``loglik`` is the marginal log-likelihood at the estimates, ``log_prior`` the prior as mirt reports it
    (``extract.mirt(fit, "logPrior")``), and ``objective`` what the EM maximised: ``loglik`` plus the prior
    terms of the M-step (``phi`` for ``expbeta``), up to additive constants.

    Attributes
    ----------
    a, d, g : ndarray
        Slopes, intercepts and guessing, one per item.
    logit_g : ndarray
        Guessing on the logit scale (what the EM estimates).
    loglik, log_prior, objective : float
        See above.
    iterations : int
        EM cycles run.
    converged : bool
        Whether the change fell below ``TOL`` within ``NCYCLES``.
    n_parameters : int
        Estimated parameters.
    seconds : float
        Time of the fit.
    history : tuple
        ``(loglik, change)`` per cycle.
    """

    a: np.ndarray
    d: np.ndarray
    g: np.ndarray
    logit_g: np.ndarray
    loglik: float
    log_prior: float
    objective: float
    iterations: int
    converged: bool
    n_parameters: int
    seconds: float
    history: tuple = field(default=(), repr=False)

    @property
    def log_posterior(self) -> float:
        """``loglik + log_prior``: mirt's ``extract.mirt(fit, "logLik") + extract.mirt(fit, "logPrior")``."""
        return self.loglik + self.log_prior


class _Cycles:
    """The EM map ``x -> M(E(x))`` on ``x = (a1, d, lambda)`` (items x 3), counting cycles and watching TOL."""

    def __init__(self, data, priors, quadpts, TOL, NCYCLES, progress):
        self.data, self.priors, self.TOL, self.NCYCLES, self.progress = data, priors, TOL, NCYCLES, progress
        theta, weights = nodes(quadpts)
        self.theta, self.log_w = theta, np.log(weights)
        self.cycle, self.history, self.converged = 0, [], False

    def objective(self, x: np.ndarray, loglik: float) -> float:
        return loglik + float(_penalty(self.priors, x[:, 0], x[:, 1], x[:, 2])[0].sum())

    def __call__(self, x: np.ndarray) -> tuple[np.ndarray, float]:
        """One cycle from ``x``: the new point and the objective at ``x``."""
        r, n, loglik = estep_3pl(self.data, x[:, 0], x[:, 1], x[:, 2], self.theta, self.log_w)
        new = multistart_newton_3pl(r, n, self.theta, x, self.priors,
                                    ALTERNATIVE_STARTS if self.cycle < MULTISTART_CYCLES else ())
        # mirt's hasConverged: a1 and d as they are, g on the probability scale
        change = float(max(np.abs(new[:, :2] - x[:, :2]).max(initial=0),
                           np.abs(expit(new[:, 2]) - expit(x[:, 2])).max(initial=0)))
        self.cycle += 1
        self.history.append((loglik, change))
        if self.progress is not None:
            self.progress(self.cycle, change)
        self.converged = change < self.TOL
        return new, self.objective(x, loglik)

    @property
    def done(self) -> bool:
        return self.converged or self.cycle >= self.NCYCLES


def _project(trial: np.ndarray) -> np.ndarray:
    """An extrapolated point with its guessing logits inside the bounds the M-step keeps."""
    trial[:, 2] = np.clip(trial[:, 2], -_LAMBDA_BOUND, _LAMBDA_BOUND)
    return trial


def fit_3pl(data: ResponseData, priors: ItemPriors | Any = None, *, quadpts: int = 61, TOL: float = 1e-4,
            NCYCLES: int = 500, accelerate: str = "squarem",
            progress: Callable[[int, float], None] | None = None) -> ThreePLResult:
    """Fit the 3PL by EM on 0/1 ``data`` (:func:`~irtbridge.em.core.prepare_responses`); MAP with ``priors``.

    ``priors``: an :class:`ItemPriors` or anything :func:`item_priors` takes (e.g.
    :data:`~irtbridge.decodirt.modes.STABLE_PRIORS`); ``None`` is maximum likelihood. ``accelerate``:
    ``"squarem"`` (monotone SQUAREM, :func:`irtbridge.em.accelerate.squarem`) or ``"none"`` (plain EM); both stop at the first
    cycle whose change is below ``TOL`` and count every cycle in ``iterations``.

    Parameters
    ----------
    data : ResponseData
        0/1 responses.
    priors : ItemPriors or mapping, optional
        See above.
    quadpts : int, default 61
        Quadrature nodes on [-6, 6].
    TOL : float, default 0.0001
        Convergence tolerance.
    NCYCLES : int, default 500
        Maximum EM cycles.
    accelerate : {"squarem", "none"}, default "squarem"
        See above.
    progress : callable, optional
        Called as ``progress(cycle, change)`` after each cycle.

    Returns
    -------
    ThreePLResult
        The estimates and how the fit went.

    Notes
    -----
    R equivalent (``sv`` with the priors set): ``mirt(data, 1, itemtype = "3PL", pars = sv, quadpts = 61,
    TOL = TOL, technical = list(NCYCLES = NCYCLES))``.

    Examples
    --------
    >>> import numpy as np
    >>> from irtbridge.em.core import prepare_responses
    >>> rng = np.random.default_rng(1)  # 300 x 20 answers of a 3PL with guessing 0.05
    >>> theta, b = rng.normal(size=(300, 1)), rng.normal(-0.5, 1, size=20)
    >>> x = (rng.random((300, 20)) < 0.05 + 0.95 / (1 + np.exp(-1.5 * (theta - b)))).astype(float)
    >>> priors = {"a1": ("norm", 1.0, 0.5), "d": ("norm", 0.0, 3.0), "g": ("expbeta", 2.0, 17.0)}
    >>> res = fit_3pl(prepare_responses(x, [f"i{j}" for j in range(20)]), priors, TOL=1e-5)
    >>> res.converged, bool((res.g > 0.03).all() and (res.g < 0.1).all())
    (True, True)
    """
    if data.ncat is not None:
        raise ValidationError("model '3PL' needs 0/1 responses (prepare_responses), not a graded layout")
    quadpts = check_int(quadpts, "quadpts", low=3)
    check_number(TOL, "TOL", low=0.0, low_open=True)
    NCYCLES = check_int(NCYCLES, "NCYCLES", low=1)
    accelerate = check_choice(accelerate, "accelerate", ACCELERATORS)
    if not isinstance(priors, ItemPriors):
        priors = item_priors(priors, data.item_names)
    keep_freed_memory_if_asked()
    started = time.perf_counter()
    em = _Cycles(data, priors, quadpts, TOL, NCYCLES, progress)
    x = np.stack(start_values_3pl(data), axis=1)
    x = iterate(em, x, accelerate, _project)
    a, d, lam = x[:, 0], x[:, 1], x[:, 2]
    loglik = estep_3pl(data, a, d, lam, em.theta, em.log_w)[2]
    return ThreePLResult(a=a, d=d, g=expit(lam), logit_g=lam, loglik=loglik, log_prior=log_prior(priors, a, d, lam),
                         objective=em.objective(x, loglik), iterations=em.cycle, converged=em.converged,
                         n_parameters=3 * len(a), seconds=time.perf_counter() - started,
                         history=tuple(em.history))


def irt_table_3pl(result: ThreePLResult, item_names: Iterable[str]) -> pd.DataFrame:
    """The item table in irtbridge's IRT layout ``a, b, g, u`` with ``b = -d / a`` (mirt's ``IRTpars = TRUE``).

    Parameters
    ----------
    result : ThreePLResult
        The fit.
    item_names : iterable of str
        The items.

    Returns
    -------
    DataFrame
        Columns ``a``, ``b``, ``g``, ``u``.
    """
    names = [str(n) for n in item_names]
    if len(names) != len(result.d):
        raise ValidationError(f"{len(names)} item names for {len(result.d)} items")
    with np.errstate(divide="ignore", invalid="ignore"):
        b = -result.d / result.a
    return pd.DataFrame({"a": result.a, "b": b, "g": result.g, "u": 1.0}, index=pd.Index(names))


def crossprod_covariance_3pl(data: ResponseData, result: ThreePLResult, priors: ItemPriors | Any = None,
                             quadpts: int = 61, chunk: int = 2000) -> np.ndarray:
    """mirt's ``SE.type = "crossprod"`` covariance of ``(a1_1, d_1, logit g_1, a1_2, ...)``.

    The information is ``sum_i s_i s_i^T`` (``s_i`` the gradient of respondent ``i``'s log marginal
    likelihood) plus minus the priors' second derivatives as mirt's ``DerivativePriors`` has them (mirt's
    ``SE.simple``: ``info <- Igrad + Iprior``); the covariance is its inverse (``LinAlgError`` if it is
    not positive definite).

    Parameters
    ----------
    data : ResponseData
        The fitted responses.
    result : ThreePLResult
        The fit.
    priors : ItemPriors, optional
        The fit's priors.
    quadpts : int, default 61
        Quadrature nodes of the fit.
    chunk : int, default 2000
        Respondents per block of the gradient sums.

    Returns
    -------
    ndarray
        The covariance matrix.
    """
    if not isinstance(priors, ItemPriors):
        priors = item_priors(priors, data.item_names)
    theta, weights = nodes(quadpts)
    a, d, lam = result.a, result.d, result.logit_g
    z, lp, lq = _log_pq(a, d, lam, theta)
    g, s = expit(lam)[:, None], expit(z)
    u = (1 - g) * s * (1 - s) * np.exp(-lp)  # d log P / dz at every item and node
    v = g * (1 - g) * (1 - s) * np.exp(-lp)  # d log P / dlambda
    right = np.concatenate([theta * u, u, v], axis=0).T  # nodes x 3J: (a | d | lambda) blocks
    wrong = np.concatenate([-theta * s, -s, -np.broadcast_to(g, s.shape)], axis=0).T
    j = len(a)
    info = np.zeros((3 * j, 3 * j))
    for start in range(0, data.shape[0], chunk):
        block = data.rows(start, min(start + chunk, data.shape[0]))
        ll = np.asarray(block.A @ (lp - lq) + block.M @ lq) + np.log(weights)[None, :]
        post = np.exp(ll - logsumexp(ll, axis=1)[:, None])
        A = block.A.toarray() if hasattr(block.A, "toarray") else np.asarray(block.A)
        W = (block.M.toarray() if hasattr(block.M, "toarray") else np.asarray(block.M)) - A
        scores = np.tile(A, 3) * (post @ right) + np.tile(W, 3) * (post @ wrong)
        info += scores.T @ scores
    info[np.diag_indices_from(info)] += np.concatenate([_mirt_prior_information(priors.a1, a),
                                                        _mirt_prior_information(priors.d, d),
                                                        _mirt_prior_information(priors.g, lam)])
    order = np.arange(3 * j).reshape(3, j).T.ravel()  # item-major, as mirt's parameter numbers
    info = info[np.ix_(order, order)]
    factor = cho_factor(info)
    return cho_solve(factor, np.eye(3 * j))


def irt_standard_errors_3pl(cov: np.ndarray, result: ThreePLResult, item_names: Iterable[str]) -> pd.DataFrame:
    """SEs of ``a, b, g`` by the delta method (``b = -d / a``, ``g = expit(logit g)``), as mirt's
    ``coef(fit, IRTpars = TRUE, printSE = TRUE)``; ``u`` is fixed (NaN).

    Parameters
    ----------
    cov : ndarray
        The covariance of :func:`crossprod_covariance_3pl`.
    result : ThreePLResult
        The fit.
    item_names : iterable of str
        The items.

    Returns
    -------
    DataFrame
        Columns ``a``, ``b``, ``g``, ``u``.
    """
    a, d, g = result.a, result.d, result.g
    var = np.diag(cov).reshape(-1, 3)
    cad = cov[np.arange(0, cov.shape[0], 3), np.arange(1, cov.shape[0], 3)]
    vb = (d / a**2) ** 2 * var[:, 0] + var[:, 1] / a**2 - 2 * d / a**3 * cad
    return pd.DataFrame({"a": np.sqrt(var[:, 0]), "b": np.sqrt(vb), "g": g * (1 - g) * np.sqrt(var[:, 2]),
                         "u": np.nan}, index=pd.Index([str(n) for n in item_names]))
