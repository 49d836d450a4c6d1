"""mirt's item priors for the native engine: their layout, values and derivatives, and the MAP M-step of the
2PL and the 1PL.

mirt applies a prior to its internal parameters (``R/utils.R``: ``LL.Priors`` for the value it reports
as ``logPrior``, ``DerivativePriors`` for the gradient and Hessian its M-step and SEs use):

* ``norm(mu, s)`` on ``a1`` or ``d``: ``log dnorm(par, mu, s)``;
* ``lnorm(mu, s)`` on ``a1``: ``log dlnorm(par, mu, s)`` (``log(1e-100)`` at ``a1 <= 0``);
* ``expbeta(alpha, beta)`` on the lower and upper asymptotes ``g`` and ``u`` of the 3PL and 4PL (see
  :mod:`irtbridge.em.asymptotes` for what mirt's M-step does with it).

The 2PL and 1PL with priors (:func:`newton_map`) maximise every item's expected complete-data log-likelihood
plus its log priors, a MAP estimate, as ``mirt(data, 1, "2PL", pars = sv)`` with the priors in ``sv``. The
1PL is mirt's 2PL with every slope constrained equal: the shared slope is one parameter and takes the
``a1`` prior once (mirt's ``logPrior`` counts it once), so every item must give ``a1`` the same prior.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import numpy as np
from scipy.special import betaln, expit
from scipy.stats import norm

from irtbridge._catalogue import CATALOGUE
from irtbridge.exceptions import ValidationError
from irtbridge.irt.logistic import log_pq

__all__ = ["PRIOR_FAMILIES", "model_parameters", "ItemPriors", "item_priors", "prior_terms", "log_prior",
           "mirt_prior_information", "newton_map", "prior_information", "log_prior_2pl"]

#: The priors the native engine takes: parameter (mirt's name) -> the distributions it accepts there.
PRIOR_FAMILIES: dict[str, tuple[str, ...]] = {"a1": ("norm", "lnorm"), "d": ("norm",), "g": ("expbeta",),
                                              "u": ("expbeta",)}
_MIRT_NAMES = {"a": "a1", "b": "d"}  # the catalogue's IRT names -> mirt's slope-intercept ones
_CODES = {"norm": 1, "lnorm": 2, "expbeta": 4}  # mirt's prior.type integers
_NEWTON_STEPS = 100
_HALVINGS = 40
_MAX_STEP = 2.0
_STEP_TOL = 1e-10


@dataclass(frozen=True)
class ItemPriors:
    """Per-item priors: mirt's ``prior.type`` code (0 none, 1 norm, 2 lnorm, 4 expbeta), ``prior_1``, ``prior_2``.

    Each attribute is an array of one row per item and three columns ``(type, p1, p2)`` for ``a1``, ``d``,
    ``g`` and ``u``; :func:`item_priors` builds it.

    Attributes
    ----------
    a1, d, g, u : ndarray
        Items x 3: ``(type, p1, p2)`` of each parameter's prior.
    """

    a1: np.ndarray
    d: np.ndarray
    g: np.ndarray
    u: np.ndarray

    def take(self, idx: np.ndarray) -> "ItemPriors":
        """The priors of the items at ``idx``.

        Parameters
        ----------
        idx : ndarray
            Item positions or a boolean mask.

        Returns
        -------
        ItemPriors
            Those items' rows.
        """
        return ItemPriors(self.a1[idx], self.d[idx], self.g[idx], self.u[idx])


def model_parameters(model: str) -> tuple[str, ...]:
    """The parameters the native ``model`` estimates, in mirt's names: its catalogue row's ``parameters``
    (``a`` is ``a1``, ``b`` is ``d``).

    Parameters
    ----------
    model : str
        A catalogue name.

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> model_parameters("4PL"), model_parameters("1PL")
    (('a1', 'd', 'g', 'u'), ('a1', 'd'))
    """
    return tuple(_MIRT_NAMES.get(p, p) for p in CATALOGUE[model].parameters)


def item_priors(priors: Any, item_names: Iterable[str], model: str = "3PL") -> ItemPriors:
    """Check priors for the native ``model`` (1PL, 2PL, 3PL or 4PL) and lay them out per item.

    ``priors`` is ``None``, a mapping ``{param: (dist, p1, p2)}`` (every item), or an iterable of
    ``(param, dist, p1, p2, items)`` with ``items`` ``None`` for every item (later entries win, as rows
    written later into mirt's table do). Parameters are mirt's (``a1``, ``d``, and ``g`` for the 3PL, ``g``
    and ``u`` for the 4PL: :func:`model_parameters`); anything else, or a distribution :data:`PRIOR_FAMILIES`
    does not list for that
    parameter, is a one-line :class:`~irtbridge.exceptions.ValidationError`.

    Parameters
    ----------
    priors : mapping, iterable or None
        See above.
    item_names : iterable of str
        The items.
    model : {"3PL", "2PL", "1PL", "4PL"}, default "3PL"
        The native model.

    Returns
    -------
    ItemPriors
        The priors per item (type 0 where there is none).

    Examples
    --------
    >>> p = item_priors({"a1": ("norm", 1, 0.5), "g": ("expbeta", 2, 17)}, ["x", "y"])
    >>> p.a1.tolist(), p.g[0].tolist(), p.d[:, 0].tolist()
    ([[1.0, 1.0, 0.5], [1.0, 1.0, 0.5]], [4.0, 2.0, 17.0], [0.0, 0.0])
    >>> item_priors({"u": ("norm", 1, 0.1)}, ["x"])
    Traceback (most recent call last):
    ...
    irtbridge.exceptions.ValidationError: priors: the 3PL has no estimated parameter 'u'
    (the native 3PL estimates a1, d, g; u is fixed at 1)
    >>> item_priors({"g": ("expbeta", 2, 17)}, ["x"], "2PL")
    Traceback (most recent call last):
    ...
    irtbridge.exceptions.ValidationError: priors: the 2PL has no estimated parameter 'g'
    (the native 2PL estimates a1, d; g is fixed at 0; u is fixed at 1)
    """
    names = [str(n) for n in item_names]
    takes = model_parameters(model)
    rows = {p: np.zeros((len(names), 3)) for p in PRIOR_FAMILIES}
    if priors is None:
        return ItemPriors(**rows)
    entries = ([(k, *v, None) for k, v in priors.items()] if isinstance(priors, Mapping) else list(priors))
    position = {n: j for j, n in enumerate(names)}
    for entry in entries:
        if len(entry) != 5:
            raise ValidationError(f"priors: expected (param, dist, p1, p2, items), got {entry!r}")
        param, dist, p1, p2, items = entry
        param = {"a": "a1"}.get(str(param), str(param))
        if param not in takes:
            fixed = "; ".join(f"{p} is fixed at {v}" for p, v in (("g", 0), ("u", 1)) if p not in takes)
            raise ValidationError(f"priors: the {model} has no estimated parameter {param!r} (the native {model} "
                                  f"estimates {', '.join(takes)}; {fixed})")
        if dist not in PRIOR_FAMILIES[param]:
            raise ValidationError(f"priors: unknown prior type {dist!r} on {param!r} for the native {model}; it takes "
                                  + "; ".join(f"{', '.join(PRIOR_FAMILIES[k])} on {k}" for k in takes))
        p1, p2 = float(p1), float(p2)
        if not (np.isfinite(p1) and np.isfinite(p2)) or (p2 <= 0 if dist != "expbeta" else min(p1, p2) <= 0):
            raise ValidationError(f"priors: {dist}({p1:g}, {p2:g}) on {param!r} is not a proper distribution")
        sel: slice | list[int]
        if items is None:
            sel = slice(None)
        else:
            unknown = [i for i in items if str(i) not in position]
            if unknown:
                raise ValidationError(f"priors: unknown item(s) {unknown[:5]} in the prior on {param!r}")
            sel = [position[str(i)] for i in items]
        rows[param][sel] = (_CODES[dist], p1, p2)
    if model == "1PL" and len(names) > 1:  # one shared slope: one prior, counted once (on the first item)
        if (rows["a1"] != rows["a1"][0]).any():
            raise ValidationError("priors: the 1PL has one slope shared by every item; give a1 one prior for all "
                                  "items (no items=)")
        rows["a1"][1:] = 0.0
    return ItemPriors(**rows)


def prior_terms(kind: np.ndarray, x: np.ndarray, reported: bool, derivatives: bool = True
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per item: the prior's value, gradient and second derivative in the estimated parameter ``x``.

    ``reported`` gives the value mirt reports as ``logPrior`` (log densities, ``expbeta`` at ``g``); else
    the term the M-step maximises (``phi`` for ``expbeta``: the antiderivative of mirt's gradient).

    Parameters
    ----------
    kind : ndarray
        Items x 3 of one parameter (:class:`ItemPriors`).
    x : ndarray
        The parameter's values, one per item.
    reported : bool
        See above.
    derivatives : bool, default True
        False leaves the gradient and the second derivative at zero (a step's trial needs the value alone).

    Returns
    -------
    value, gradient, second : ndarray
        One per item.
    """
    code, p1, p2 = kind[:, 0], kind[:, 1], kind[:, 2]
    val, grad, hess = np.zeros(x.shape, x.dtype), np.zeros(x.shape, x.dtype), np.zeros(x.shape, x.dtype)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        one = code.size > 0 and bool((code == code[0]).all())  # one family for every item (the usual case)
        for kind_code in ((code[0],) if one else (1, 2, 4)):
            # the same values as selecting the items of each family, without the copies where all are one
            sel: Any = slice(None) if one else code == kind_code
            if kind_code not in (1, 2, 4) or not (one or sel.any()):
                continue
            xs, q1, q2 = x[sel], p1[sel], p2[sel]
            if kind_code == 1:
                z = (xs - q1) / q2
                val[sel] = norm.logpdf(xs, q1, q2) if reported else -0.5 * z**2
                if derivatives:
                    grad[sel], hess[sel] = -z / q2, -1.0 / q2 ** 2
            elif kind_code == 2:
                s2 = q2 ** 2
                pos = xs > 0
                lx = np.log(np.where(pos, xs, 1.0))
                full = -lx - (lx - q1) ** 2 / (2 * s2) - np.log(q2 * np.sqrt(2 * np.pi))
                val[sel] = np.where(pos, full, np.log(1e-100) if reported else -np.inf)
                if derivatives:
                    grad[sel] = np.where(pos, -1.0 / xs - (lx - q1) / (xs * s2), 0.0)
                    hess[sel] = np.where(pos, (1.0 - (1.0 - lx + q1) / s2) / xs**2, 0.0)
            else:
                if reported:
                    g = expit(xs)
                    log_g, log_1mg = log_pq(xs)
                    val[sel] = np.where((g > 0) & (g < 1), (q1 - 1) * log_g + (q2 - 1) * log_1mg - betaln(q1, q2),
                                        np.log(1e-100))
                else:
                    val[sel] = (q1 - q2) * xs - (q1 - 1) * np.exp(-xs) - (q2 - 1) * np.exp(xs)
                if derivatives:
                    grad[sel] = (q1 - 1) * (1 + np.exp(-xs)) - (q2 - 1) * (1 + np.exp(xs))
                    hess[sel] = -(q1 - 1) * np.exp(-xs) - (q2 - 1) * np.exp(xs)
    return val, grad, hess


def log_prior(priors: ItemPriors, a: np.ndarray, d: np.ndarray, lam: np.ndarray, lu: np.ndarray | None = None
              ) -> float:
    """The log prior density as mirt reports it (``extract.mirt(fit, "logPrior")``).

    Parameters
    ----------
    priors : ItemPriors
        The priors.
    a, d, lam : ndarray
        Slopes, intercepts and logit guessing.
    lu : ndarray, optional
        Logit upper asymptotes (the 4PL).

    Returns
    -------
    float
        mirt's ``logPrior``.
    """
    pairs = [(priors.a1, a), (priors.d, d), (priors.g, lam)] + ([(priors.u, lu)] if lu is not None else [])
    return float(sum(prior_terms(k, x, True)[0].sum() for k, x in pairs))


def mirt_prior_information(kind: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Minus the prior's second derivative exactly as mirt's ``DerivativePriors`` computes it (its SEs use it).

    Parameters
    ----------
    kind : ndarray
        Items x 3 of one parameter (:class:`ItemPriors`).
    x : ndarray
        The parameter's values.

    Returns
    -------
    ndarray
        One value per item.
    """
    code, p1, p2 = kind[:, 0], kind[:, 1], kind[:, 2]
    out = np.zeros_like(x)
    sel = code == 1
    out[sel] = 1.0 / p2[sel] ** 2
    sel = code == 2
    if sel.any():
        v = np.where(x[sel] > 0, x[sel], 1e-10)
        s2, lv = p2[sel] ** 2, np.log(v)
        out[sel] = -(1 / v**2 - 1 / (v**2 * s2) - (lv - p1[sel]) / (v**2 * s2))
    sel = code == 4
    if sel.any():
        v = np.clip(expit(x[sel]), 1e-10, 1 - 1e-10)
        out[sel] = (p1[sel] - 1) / v**2 + (p2[sel] - 1) / (1 - v) ** 2
    return out


def prior_information(priors: ItemPriors, model: str, a: np.ndarray, d: np.ndarray) -> np.ndarray:
    """The diagonal mirt's ``SE.simple`` adds to the crossprod information (``Iprior``) for the native
    2PL (``a_1, d_1, a_2, d_2, ...``) or 1PL (``a, d_1..d_J``; :func:`item_priors` puts the shared slope's
    prior on the first item only).

    Parameters
    ----------
    priors : ItemPriors
        The priors.
    model : {"2PL", "1PL"}
        The model.
    a, d : ndarray
        Slopes and intercepts at the estimates.

    Returns
    -------
    ndarray
        The diagonal, in the order above.
    """
    ia, idd = mirt_prior_information(priors.a1, a), mirt_prior_information(priors.d, d)
    if model == "1PL":
        return np.concatenate([[ia.sum()], idd])
    return np.stack([ia, idd], axis=1).ravel()


def _loglik(r: np.ndarray, n: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Per item: the expected complete-data log-likelihood at the logits ``z`` (items x nodes)."""
    with np.errstate(invalid="ignore"):
        lp, lq = log_pq(z)
        return (r * lp + (n - r) * lq).sum(axis=1)


def _posterior(loglik: np.ndarray, va: np.ndarray, vd: np.ndarray) -> np.ndarray:
    """The log-posterior part per item; -inf where it is not a number."""
    return np.where(np.isnan(loglik + va + vd), -np.inf, loglik + va + vd)


def _parts(r: np.ndarray, n: np.ndarray, theta: np.ndarray, a: np.ndarray, d: np.ndarray, priors: ItemPriors):
    """Per item: the log-posterior part (J,), its gradient in ``a`` and ``d`` (prior included), the
    likelihood's information ``(i_aa, i_ad, i_dd)`` and the priors' second derivatives in ``a`` and ``d``."""
    z = a[:, None] * theta[None, :] + d[:, None]
    loglik = _loglik(r, n, z)
    p = expit(z)
    resid = r - n * p
    w = n * p * (1.0 - p)
    va, pga, pha = prior_terms(priors.a1, a, False)
    vd, pgd, phd = prior_terms(priors.d, d, False)
    return (_posterior(loglik, va, vd), resid @ theta + pga, resid.sum(axis=1) + pgd, w @ theta**2, w @ theta,
            w.sum(axis=1), pha, phd)


def _objective(r, n, theta, a, d, priors) -> np.ndarray:
    """:func:`_parts`' first value alone (the same sums): what a trial step needs."""
    loglik = _loglik(r, n, a[:, None] * theta[None, :] + d[:, None])
    return _posterior(loglik, prior_terms(priors.a1, a, False, False)[0], prior_terms(priors.d, d, False, False)[0])


def _newton_2pl(r, n, theta, a, d, priors):
    """Each item's ``(a, d)`` by Newton's method on its log-posterior; where the negative Hessian is not
    positive definite (``lnorm``'s convex stretch) the priors' convex part is left out of it; a step that
    lowers the objective is halved."""
    a, d = a.astype(float).copy(), d.astype(float).copy()
    idx = np.arange(len(a))  # the items still moving
    for _ in range(_NEWTON_STEPS):
        if not idx.size:
            break
        sub = priors.take(idx)
        f0, ga, gd, iaa, iad, idd, pha, phd = _parts(r[idx], n[idx], theta, a[idx], d[idx], sub)
        naa, ndd = iaa - pha, idd - phd
        det = naa * ndd - iad**2
        bad = ~((naa > 0) & (det > 1e-12 * np.abs(naa * ndd)))
        naa = np.where(bad, iaa - np.minimum(pha, 0.0) + 1e-8, naa)
        ndd = np.where(bad, idd - np.minimum(phd, 0.0) + 1e-8, ndd)
        det = naa * ndd - iad**2
        safe = np.where(det > 0, det, 1.0)
        sa = np.where(det > 0, (ndd * ga - iad * gd) / safe, 0.0)
        sd = np.where(det > 0, (naa * gd - iad * ga) / safe, 0.0)
        cap = np.minimum(1.0, _MAX_STEP / np.maximum(np.maximum(np.abs(sa), np.abs(sd)), 1e-300))
        sa, sd = sa * cap, sd * cap
        scale = np.ones(idx.size)
        for _ in range(_HALVINGS):
            f1 = _objective(r[idx], n[idx], theta, a[idx] + scale * sa, d[idx] + scale * sd, sub)
            low = ~(f1 >= f0 - 1e-12 * np.abs(f0))
            if not low.any():
                break
            scale[low] *= 0.5
        else:
            scale[low] = 0.0
        a[idx] += scale * sa
        d[idx] += scale * sd
        idx = idx[np.maximum(np.abs(scale * sa), np.abs(scale * sd)) > _STEP_TOL]
    return a, d


def _newton_1pl(r, n, theta, a, d, priors):
    """The shared slope and the intercepts by Newton's method through the Schur complement, on the sum of
    the items' log-posteriors (the slope's prior once); steps that lower it are halved."""
    a, d = float(a), d.astype(float).copy()
    j = len(d)
    for _ in range(_NEWTON_STEPS):
        f0, ga, gd, iaa, iad, idd, pha, phd = _parts(r, n, theta, np.full(j, a), d, priors)
        total = f0.sum()
        for fallback in (False, True):
            big_a = iaa.sum() - (np.minimum(pha, 0.0) if fallback else pha).sum()
            dd_ = idd - (np.minimum(phd, 0.0) if fallback else phd) + (1e-8 if fallback else 0.0)
            schur = big_a - float((iad**2 / np.maximum(dd_, 1e-300)).sum())
            if (dd_ > 0).all() and schur > 1e-12 * abs(big_a):
                break
        sa = (ga.sum() - float((iad * gd / dd_).sum())) / schur if schur > 0 else 0.0
        sd = (gd - iad * sa) / np.maximum(dd_, 1e-300)
        cap = min(1.0, _MAX_STEP / max(abs(sa), np.abs(sd).max(initial=0.0), 1e-300))
        sa, sd = sa * cap, sd * cap
        scale = 1.0
        for _ in range(_HALVINGS):
            trial = _objective(r, n, theta, np.full(j, a + scale * sa), d + scale * sd, priors).sum()
            if trial >= total - 1e-12 * abs(total):
                break
            scale *= 0.5
        else:
            scale = 0.0
        a, d = a + scale * sa, d + scale * sd
        if max(abs(scale * sa), np.abs(scale * sd).max(initial=0.0)) < _STEP_TOL:
            break
    return np.full(j, a), d


def newton_map(model: str, r: np.ndarray, n: np.ndarray, theta: np.ndarray, a: np.ndarray, d: np.ndarray,
               priors: ItemPriors) -> tuple[np.ndarray, np.ndarray]:
    """The M-step of the 2PL or 1PL with priors: the slopes and intercepts maximising every item's expected
    complete-data log-likelihood plus its log priors (``r``, ``n``: expected correct and answered counts,
    items x nodes).

    Parameters
    ----------
    model : {"2PL", "1PL"}
        The model.
    r, n : ndarray
        See above.
    theta : ndarray
        Quadrature nodes.
    a, d : ndarray
        The current slopes and intercepts.
    priors : ItemPriors
        The priors.

    Returns
    -------
    a, d : ndarray
        The new slopes and intercepts.
    """
    if model == "1PL":
        return _newton_1pl(r, n, theta, a[0], d, priors)
    return _newton_2pl(r, n, theta, a, d, priors)


def log_prior_2pl(priors: ItemPriors, a: np.ndarray, d: np.ndarray) -> float:
    """``extract.mirt(fit, "logPrior")`` of a 2PL or 1PL (the 1PL's shared slope once: :func:`item_priors`).

    Parameters
    ----------
    priors : ItemPriors
        The priors.
    a, d : ndarray
        Slopes and intercepts.

    Returns
    -------
    float
        mirt's ``logPrior``.
    """
    return float(prior_terms(priors.a1, a, True)[0].sum() + prior_terms(priors.d, d, True)[0].sum())
