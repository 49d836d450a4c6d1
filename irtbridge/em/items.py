"""The native EM's item models: one protocol, one dichotomous logistic class with a mask, and the graded one.

Every model the native EM fits is an :class:`ItemModel`: what :func:`irtbridge.em.core.fit_em` (the one EM
driver) and :func:`irtbridge.em.se.crossprod_covariance` (the one SE routine) ask of it. The model of a
catalogue row is :func:`item_model` (``row.native == "em"``), so a model is a row and, where it is a
dichotomous logistic one, a mask:

* :class:`Dichotomous`: mirt's ``dich`` item, ``P = g + (u - g) expit(a1 theta + d)``, whose per-item
  parameters are ``(a1, d, logit g, logit u)`` (mirt's ``par`` of a ``dich`` item) and whose *free*
  parameters are a mask over them, with the slopes free, shared (``"equal"``, the 1PL) or fixed at 1
  (``"unit"``, the Rasch model, whose latent variance is free). 2PL: ``a1, d``; 3PL: ``a1, d, g``; 4PL:
  ``a1, d, g, u``. A fixed ``g`` is 0 and a fixed ``u`` is 1 (logits -inf and +inf). Without a free
  asymptote the item's log-likelihood is concave in theta, so the windowed E-steps
  (:mod:`irtbridge.em.window`, :mod:`irtbridge.em.dense`) and the 2 x 2 Newton M-steps of
  :mod:`irtbridge.em.mstep` serve it; with one, the M-step is :mod:`irtbridge.em.asymptotes` (Newton's
  method on the free parameters, mirt's priors and mirt's ``expbeta`` gradient).
* :class:`Graded`: Samejima's graded model (:mod:`irtbridge.em.graded`).

The latent trait is one-dimensional here; the layout leaves room for ``D`` factors (mirt's
``a1..aD``): :attr:`Dichotomous.columns` names the slopes from :attr:`~Dichotomous.dims`, and every array
of item parameters is items x columns, so a slope per dimension is more columns of the same table.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import numpy as np
import pandas as pd
from scipy.special import expit

from irtbridge._catalogue import CATALOGUE, Model
from irtbridge.exceptions import ValidationError
from irtbridge.em import asymptotes
from irtbridge.em import graded as em_graded
from irtbridge.em.mstep import mstep as plain_mstep
from irtbridge.em.priors import ItemPriors, log_prior, log_prior_2pl, mirt_prior_information, prior_information
from irtbridge.irt.logistic import log_pq

__all__ = ["ItemModel", "Params", "Dichotomous", "Graded", "item_model", "DICH_PARAMETERS"]

#: mirt's names of a dichotomous logistic item's parameters, in the order of its ``par``
DICH_PARAMETERS = ("a1", "d", "g", "u")
_START_A = 0.851  # mirt's starting slope of the 3PL and 4PL: 0.5 * 1.702
_START_G, _START_U = 0.15, 0.85  # mirt's starting asymptotes (R/04-PrepData.R)
_LOGIT_BOUND = 999.0  # mirt's bounds on logit g and logit u


@dataclass
class Params:
    """One point of the EM: per-item parameters in mirt's internal metric and the latent variance.

    Attributes
    ----------
    a, d : ndarray
        Slopes and intercepts (graded: items x (max K - 1), NaN past an item's last).
    lg, lu : ndarray
        ``logit g`` and ``logit u`` (-inf and +inf where fixed at 0 and 1).
    variance : float
        The latent variance.
    """

    a: np.ndarray
    d: np.ndarray
    lg: np.ndarray
    lu: np.ndarray
    variance: float = 1.0


def _sections(params: tuple[str, ...], returns: str) -> str:
    return "Parameters\n----------\n" + "\n".join(params) + "\n\nReturns\n-------\n" + returns


#: the Parameters and Returns of each method of :class:`ItemModel`, shared by every item model's method of that
#: name (as pandas' ``@doc`` shares docstring sections); each method keeps its own summary
_SECTIONS = {
    "n_parameters": _sections(("n_items : int",), "int"),
    "log_prior": _sections(("p : Params",), "float"),
    "start": _sections(("data : ResponseData\n    The responses (:mod:`irtbridge.em.core`).",), "Params"),
    "pack": _sections(("p : Params",), "ndarray\n    The EM's point, one vector."),
    "unpack": _sections(("x : ndarray\n    An EM point (:meth:`pack`).",), "Params"),
    "log_pq": _sections(("p : Params", "theta : ndarray\n    The nodes."), "log_p, log_q : ndarray\n    Items x nodes."),
    "mstep": _sections(("r, n : ndarray\n    Expected correct (graded: per cell) and answered counts.",
                        "N : ndarray\n    Expected respondents per node.", "theta : ndarray\n    The nodes.",
                        "p : Params\n    The current point.", "cycle : int\n    The EM cycle (from 1)."), "Params"),
    "change": _sections(("old, new : Params",), "float"),
    "objective": _sections(("p : Params", "loglik : float\n    The observed-data log-likelihood at ``p``."), "float"),
    "project": _sections(("x : ndarray\n    An extrapolated EM point.",), "ndarray or None"),
    "irt_table": _sections(("p : Params", "names : list of str\n    The item names."),
                           "DataFrame\n    One row per item, mirt's IRT parameters."),
    "se_layout": _sections(("n_items : int",), "positions : ndarray\n    Items x 4.\nsize : int\n    Free parameters."),
    "scores": _sections(("p : Params", "theta : ndarray\n    The nodes."), "d_log_p, d_log_q : list of ndarray or None"),
    "prior_information": _sections(("p : Params",), "ndarray or None\n    None without priors."),
    "irt_standard_errors": _sections(("cov : ndarray\n    The covariance of the free parameters.", "p : Params",
                                      "names : list of str\n    The item names."), "DataFrame"),
}
_Model = TypeVar("_Model", bound=type)


def _documented(cls: _Model) -> _Model:
    """Append :data:`_SECTIONS` to the docstrings of ``cls``'s methods of the protocol."""
    for name, sections in _SECTIONS.items():
        method = cls.__dict__.get(name)
        if method is not None and method.__doc__ and "\nParameters\n" not in method.__doc__:
            method.__doc__ = inspect.cleandoc(method.__doc__) + "\n\n" + sections + "\n"
    return cls


@_documented
class ItemModel(Protocol):
    """What the EM driver and the SE routine ask of a model (see the module docstring).

    Attributes
    ----------
    name : str
        The catalogue's name.
    plain : bool
        No free asymptote: the slope-intercept kernels (windowed E-step, :mod:`irtbridge.em.mstep`) serve it.
    """

    name: str
    plain: bool
    priors: ItemPriors | None

    def n_parameters(self, n_items: int) -> int:
        """The number of estimated parameters."""
        ...

    def log_prior(self, p: Params) -> float:
        """mirt's ``logPrior`` at ``p``."""
        ...

    def start(self, data: Any) -> Params:
        """mirt's starting values on ``data``."""
        ...

    def pack(self, p: Params) -> np.ndarray:
        """The EM's point (what SQUAREM extrapolates)."""
        ...

    def unpack(self, x: np.ndarray) -> Params:
        """The parameters of an EM point."""
        ...

    def log_pq(self, p: Params, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``log P`` and ``log Q``, items x nodes (dichotomous models)."""
        ...

    def mstep(self, r: np.ndarray, n: np.ndarray, N: np.ndarray, theta: np.ndarray, p: Params,
              cycle: int) -> Params:
        """The M-step from one E-step's expected counts."""
        ...

    def change(self, old: Params, new: Params) -> float:
        """mirt's convergence change between two cycles."""
        ...

    def objective(self, p: Params, loglik: float) -> float:
        """What the EM raises (SQUAREM compares it): the log-likelihood plus the prior terms."""
        ...

    def project(self, x: np.ndarray) -> np.ndarray | None:
        """An extrapolated point inside the parameter space, or None."""
        ...

    def irt_table(self, p: Params, names: list[str]) -> pd.DataFrame:
        """The item table in mirt's IRT parameterization (``coef(fit, IRTpars = TRUE)``)."""
        ...


@_documented
class Dichotomous:
    """mirt's ``dich`` item: the free parameters are a mask over ``(a1, d, g, u)`` (module docstring).

    Parameters
    ----------
    name : str
        The catalogue row's name.
    free : tuple of str
        The free parameters (mirt's names, :data:`DICH_PARAMETERS`).
    slopes : {"free", "equal", "unit"}, default "free"
        The catalogue row's ``slopes``.
    priors : ItemPriors, optional
        mirt's item priors (a MAP estimate).

    Examples
    --------
    >>> m = Dichotomous("4PL", ("a1", "d", "g", "u"))
    >>> m.mask, m.columns, m.plain
    ((True, True, True, True), ('a1', 'd', 'g', 'u'), False)
    """

    dims = 1  # latent dimensions: the slopes a1..aD (issue 42 adds D > 1)

    def __init__(self, name: str, free: tuple[str, ...], slopes: str = "free", priors: ItemPriors | None = None):
        unknown = [p for p in free if p not in DICH_PARAMETERS]
        if unknown:
            raise ValidationError(f"{name}: {unknown} are not parameters of a dichotomous logistic item "
                                  f"({', '.join(DICH_PARAMETERS)})")
        self.name, self.slopes, self.priors = name, slopes, priors
        self.mask = tuple(p in free for p in DICH_PARAMETERS)
        self.plain = not (self.mask[2] or self.mask[3])

    @property
    def columns(self) -> tuple[str, ...]:
        """The parameters of one item in order: the slopes ``a1..aD``, ``d``, ``g``, ``u``."""
        return tuple(f"a{k + 1}" for k in range(self.dims)) + DICH_PARAMETERS[1:]

    @property
    def free(self) -> tuple[str, ...]:
        """The free parameters' names (mirt's)."""
        return tuple(p for p, f in zip(DICH_PARAMETERS, self.mask) if f)

    @property
    def _kind(self) -> str:
        # the name of the plain M-step of mstep.py for these slopes
        return {"free": "2PL", "equal": "1PL", "unit": "rasch"}[self.slopes]

    def n_parameters(self, n_items: int) -> int:
        """The number of estimated parameters (the 1PL's shared slope once; the Rasch model's variance)."""
        per_item = sum(self.mask[1:])
        return n_items * per_item + {"free": n_items, "equal": 1, "unit": 1}[self.slopes]

    def start(self, data: Any) -> Params:
        """mirt's starting values: the 2PL family from the items' proportions correct (slopes 1); the models
        with an asymptote as mirt's 3PL and 4PL (``a1 = 0.851``, ``d = -qnorm(p0) / div``, ``p0`` the share
        of respondents with a wrong answer, ``div = sqrt(1 - 0.5^2) / 1.702``; ``g = 0.15``, ``u = 0.85``)."""
        answered = np.asarray(data.M.sum(axis=0)).ravel()
        correct = np.asarray(data.A.sum(axis=0)).ravel()
        j = len(correct)
        if self.plain:
            p = (correct + 0.5) / (answered + 1.0)
            return Params(np.ones(j), np.log(p / (1.0 - p)), np.full(j, -np.inf), np.full(j, np.inf))
        from scipy.stats import norm

        with np.errstate(divide="ignore", invalid="ignore"):
            d = -norm.ppf((answered - correct) / data.shape[0]) / (np.sqrt(0.75) / 1.702)
        d = np.where(np.isfinite(d), d, 2.0)
        lg = np.full(j, float(np.log(_START_G / (1 - _START_G))) if self.mask[2] else -np.inf)
        lu = np.full(j, float(np.log(_START_U / (1 - _START_U))) if self.mask[3] else np.inf)
        return Params(np.full(j, _START_A), d, lg, lu)

    # the EM's point: the 2PL family (a, d, variance) flat; with asymptotes the free columns, items x p
    def pack(self, p: Params) -> np.ndarray:
        """See :class:`ItemModel`."""
        if self.plain:
            return np.concatenate([p.a, p.d.ravel(), [p.variance]])
        return np.stack([x for x, f in zip((p.a, p.d, p.lg, p.lu), self.mask) if f], axis=1)

    def unpack(self, x: np.ndarray) -> Params:
        """See :class:`ItemModel`."""
        if self.plain:
            j = (len(x) - 1) // 2
            return Params(x[:j].copy(), x[j:-1].copy(), np.full(j, -np.inf), np.full(j, np.inf), float(x[-1]))
        j = x.shape[0]
        cols = iter(range(x.shape[1]))
        fixed = (np.ones(j), np.zeros(j), np.full(j, -np.inf), np.full(j, np.inf))
        a, d, lg, lu = (x[:, next(cols)].copy() if f else v for v, f in zip(fixed, self.mask))
        return Params(a, d, lg, lu)

    def log_pq(self, p: Params, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """See :class:`ItemModel` (:func:`irtbridge.irt.logistic.log_pq`)."""
        z = p.a[:, None] * theta[None, :] + p.d[:, None]
        if self.plain:
            return log_pq(z)
        return log_pq(z, *asymptotes.log_asymptotes(p.lg, p.lu))

    def mstep(self, r: np.ndarray, n: np.ndarray, N: np.ndarray, theta: np.ndarray, p: Params,
              cycle: int) -> Params:
        """See :class:`ItemModel`."""
        if self.plain:
            a, d, variance = plain_mstep(self._kind, r, n, N, theta, p.a, p.d, p.variance, None, self.priors)
            return Params(a, d, p.lg, p.lu, variance)
        x = asymptotes.mstep(r, n, theta, self.pack(p), self.mask, self._priors(len(p.a)), cycle)
        return self.unpack(x)

    def _priors(self, j: int) -> ItemPriors:
        if self.priors is not None:
            return self.priors
        return ItemPriors(*(np.zeros((j, 3)) for _ in range(4)))

    def change(self, old: Params, new: Params) -> float:
        """mirt's ``hasConverged``: the largest change of ``a1``, ``d`` and of ``g``, ``u`` on the
        probability scale (the Rasch model: ``d`` and the latent variance)."""
        parts = [np.nanmax(np.abs(new.d - old.d), initial=0), abs(new.variance - old.variance)]
        if self.slopes != "unit":
            parts.append(np.abs(new.a - old.a).max(initial=0))
        for f, x, y in ((self.mask[2], old.lg, new.lg), (self.mask[3], old.lu, new.lu)):
            if f:
                parts.append(np.abs(expit(y) - expit(x)).max(initial=0))
        return float(max(parts))

    def objective(self, p: Params, loglik: float) -> float:
        """See :class:`ItemModel`: the 2PL family adds mirt's ``logPrior``; with asymptotes, the prior terms
        the M-step maximises (``phi`` for ``expbeta``, :mod:`irtbridge.em.asymptotes`)."""
        if self.plain:
            return loglik + (log_prior_2pl(self.priors, p.a, p.d) if self.priors is not None else 0.0)
        return loglik + asymptotes.penalty_total(self.pack(p), self.mask, self._priors(len(p.a)))

    def log_prior(self, p: Params) -> float:
        """mirt's ``logPrior`` at ``p`` (0 without priors)."""
        if self.priors is None:
            return 0.0
        if self.plain:
            return log_prior_2pl(self.priors, p.a, p.d)
        return log_prior(self.priors, p.a, p.d, p.lg, p.lu)

    def project(self, x: np.ndarray) -> np.ndarray | None:
        """See :class:`ItemModel`: a positive latent variance; logits of the asymptotes inside mirt's bounds."""
        if self.plain:
            return x if np.isfinite(x[-1]) and x[-1] > 0 else None
        first = sum(self.mask[:2])
        x[:, first:] = np.clip(x[:, first:], -_LOGIT_BOUND, _LOGIT_BOUND)
        return x

    def irt_table(self, p: Params, names: list[str]) -> pd.DataFrame:
        """The item table ``a, b, g, u`` with ``b = -d / a`` (mirt's ``coef(fit, IRTpars = TRUE)``)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            b = -p.d / p.a
        g = expit(p.lg) if self.mask[2] else np.zeros(len(p.a))
        u = expit(p.lu) if self.mask[3] else np.ones(len(p.a))
        return pd.DataFrame({"a": p.a, "b": b, "g": g, "u": u}, index=pd.Index(names))

    # -- standard errors (irtbridge.em.se) ---------------------------------------------------------------
    def se_layout(self, n_items: int) -> tuple[np.ndarray, int]:
        """Each item's free parameters' positions in the covariance (items x 4, -1 where fixed) and their
        number: item-major as mirt numbers them; the 1PL's shared slope first; the Rasch variance last."""
        pos = np.full((n_items, 4), -1, dtype=np.int64)
        if self.slopes == "free":
            per = sum(self.mask)
            for k, col in enumerate(np.flatnonzero(self.mask)):
                pos[:, col] = np.arange(n_items) * per + k
            return pos, n_items * per
        first = 1 if self.slopes == "equal" else 0
        per = sum(self.mask[1:])
        if self.slopes == "equal":
            pos[:, 0] = 0
        for k, col in enumerate(np.flatnonzero(self.mask[1:]) + 1):
            pos[:, col] = first + np.arange(n_items) * per + k
        return pos, first + n_items * per + (1 if self.slopes == "unit" else 0)

    def scores(self, p: Params, theta: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Per parameter ``a1, d, g, u`` (None where fixed): ``d log P`` and ``d log Q``, nodes x items."""
        return asymptotes.log_pq_scores(p.a, p.d, p.lg, p.lu, theta, self.mask)

    def prior_information(self, p: Params) -> np.ndarray | None:
        """The diagonal mirt's ``SE.simple`` adds (``Iprior``), in the order of :meth:`se_layout`."""
        if self.priors is None:
            return None
        if self.plain:
            return prior_information(self.priors, self._kind, p.a, p.d)
        pos, n_par = self.se_layout(len(p.a))
        out = np.zeros(n_par)
        for col, (kind, x) in enumerate(zip((self.priors.a1, self.priors.d, self.priors.g, self.priors.u),
                                            (p.a, p.d, p.lg, p.lu))):
            if self.mask[col]:
                np.add.at(out, pos[:, col], mirt_prior_information(kind, x))
        return out

    def irt_standard_errors(self, cov: np.ndarray, p: Params, names: list[str]) -> pd.DataFrame:
        """SEs of ``a, b, g, u`` by the delta method (``b = -d / a``, ``g = expit(logit g)``), NaN where fixed,
        as mirt's ``coef(fit, IRTpars = TRUE, printSE = TRUE)``."""
        pos, _ = self.se_layout(len(p.a))
        var = np.diag(cov)
        nan = np.full(len(p.a), np.nan)
        ia, idd = pos[:, 0], pos[:, 1]
        vd = var[idd]
        if self.slopes == "unit":
            se_a, vb = nan, vd
        else:
            va, cad = var[ia], cov[ia, idd]
            se_a = np.sqrt(va)
            vb = (p.d / p.a**2) ** 2 * va + vd / p.a**2 - 2 * p.d / p.a**3 * cad
        out = {"a": se_a, "b": np.sqrt(vb)}
        for col, name, lam in ((2, "g", p.lg), (3, "u", p.lu)):
            if self.mask[col]:
                v = expit(lam)
                out[name] = v * (1 - v) * np.sqrt(var[pos[:, col]])
            else:
                out[name] = nan
        return pd.DataFrame(out, index=pd.Index(names))


@_documented
class Graded:
    """Samejima's graded model (:mod:`irtbridge.em.graded`): slopes and ordered intercepts per item.

    Parameters
    ----------
    ncat : tuple of int
        Categories per item.
    """

    name = "graded"
    plain = True
    slopes = "free"
    priors: ItemPriors | None = None

    def __init__(self, ncat: tuple[int, ...]):
        self.ncat = np.asarray(ncat)

    def n_parameters(self, n_items: int) -> int:
        """One slope and ``K - 1`` intercepts per item."""
        return int(self.ncat.sum())

    def start(self, data: Any) -> Params:
        """mirt's starting values (:func:`irtbridge.em.graded.start_values`)."""
        a, d = em_graded.start_values(np.asarray(data.A.sum(axis=0)).ravel(), self.ncat)
        return Params(a, d, np.full(len(a), -np.inf), np.full(len(a), np.inf))

    def pack(self, p: Params) -> np.ndarray:
        """See :class:`ItemModel`."""
        return np.concatenate([p.a, p.d.ravel(), [p.variance]])

    def unpack(self, x: np.ndarray) -> Params:
        """See :class:`ItemModel`."""
        j = len(self.ncat)
        return Params(x[:j].copy(), x[j:-1].reshape(j, -1).copy(), np.full(j, -np.inf), np.full(j, np.inf),
                      float(x[-1]))

    def mstep(self, r: np.ndarray, n: np.ndarray, N: np.ndarray, theta: np.ndarray, p: Params,
              cycle: int) -> Params:
        """See :class:`ItemModel` (:func:`irtbridge.em.graded.newton_graded`)."""
        a, d = em_graded.newton_graded(r, self.ncat, theta, p.a, p.d)
        return Params(a, d, p.lg, p.lu, p.variance)

    def change(self, old: Params, new: Params) -> float:
        """The largest change of ``a1, d1..dk`` (NaN past an item's last threshold left out)."""
        return float(max(np.abs(new.a - old.a).max(initial=0), np.nanmax(np.abs(new.d - old.d), initial=0),
                         abs(new.variance - old.variance)))

    def objective(self, p: Params, loglik: float) -> float:
        """The log-likelihood (no priors)."""
        return loglik

    def log_prior(self, p: Params) -> float:
        """0 (no priors)."""
        return 0.0

    def project(self, x: np.ndarray) -> np.ndarray | None:
        """A point whose thresholds are ordered (``d_1 > ... > d_{K-1}``), else None."""
        d = self.unpack(x).d
        if d.shape[1] > 1 and (np.diff(d, axis=1) >= 0).any():  # NaN compares False
            return None
        return x if np.isfinite(x[-1]) and x[-1] > 0 else None

    def log_pq(self, p: Params, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Not defined: a graded item has category probabilities (:mod:`irtbridge.em.graded`)."""
        raise ValidationError("a graded item has category probabilities, not log P and log Q")

    def irt_table(self, p: Params, names: list[str]) -> pd.DataFrame:
        """``a, b1..bk`` with ``b_k = -d_k / a``, NaN past an item's last threshold."""
        with np.errstate(divide="ignore", invalid="ignore"):
            b = -p.d / p.a[:, None]
        frame = pd.DataFrame(b, index=pd.Index(names), columns=[f"b{k + 1}" for k in range(b.shape[1])])
        frame.insert(0, "a", p.a)
        return frame


def item_model(model: str | Model, priors: ItemPriors | None = None, ncat: tuple[int, ...] | None = None
               ) -> Dichotomous | Graded:
    """The item model of a catalogue row (``row.native == "em"``): its ``parameters`` are the mask.

    Parameters
    ----------
    model : str or Model
        A catalogue row or its name.
    priors : ItemPriors, optional
        mirt's item priors (dichotomous models).
    ncat : tuple of int, optional
        Categories per item (graded).

    Returns
    -------
    Dichotomous or Graded

    Examples
    --------
    >>> item_model("3PL").free, item_model("1PL").slopes, item_model("rasch").free
    (('a1', 'd', 'g'), 'equal', ('d',))
    """
    row = CATALOGUE[model] if isinstance(model, str) else model
    if row.native != "em":
        raise ValidationError(f"model {row.name!r} has no native EM (its catalogue row names none)")
    if row.kind == "polytomous":
        return Graded(ncat or ())
    names = {"a": "a1", "b": "d"}
    free = tuple(names.get(p, p) for p in row.parameters if not (p == "a" and row.slopes == "unit"))
    return Dichotomous(row.name, free, row.slopes, priors)
