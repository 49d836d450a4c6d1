"""Estimators: the ability (and its standard error) after each response.

An estimator is a small frozen object. The simulator drives it through two methods that carry the
running state explicitly:

* ``begin(bank, theta, rng) -> state``: a fresh state for ``len(theta)`` examinees starting at ``theta``;
* ``update(state, rows, items, values) -> (theta, se)``: examinees ``rows`` answered ``items`` with
  ``values``; returns their new abilities and standard errors.

:class:`AbilityEstimator` also has a one-shot ``estimate(bank, responses) -> (theta, se)`` on a response
matrix, the counterpart of catR's ``thetaEst`` + ``semTheta``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from irtbridge import irt
from irtbridge.irt import fast
from irtbridge._validation import check_choice, check_int, check_number
from irtbridge.exceptions import ValidationError
from irtbridge.irt import ItemBank, estimate_abilities

__all__ = ["AbilityEstimator", "StepEstimator", "step_size"]

_SE_KINDS = {"EAP": ("posterior",), "MAP": ("expected", "observed"), "ML": ("expected", "observed")}


def _pair(value: Any, name: str) -> tuple[float, float]:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise ValidationError(f"{name} must be a pair of numbers, got {value!r}")
    return check_number(value[0], f"{name}[0]"), check_number(value[1], f"{name}[1]")


@dataclass
class _ResponseState:
    bank: ItemBank
    responses: np.ndarray  # (n, J), NaN = not administered


@dataclass
class _GridState:
    grid: np.ndarray  # (Q,)
    log_prior: np.ndarray  # (Q,)
    table: np.ndarray  # (Q, J, K) log P(X = k | grid_q) from the kernel
    loglik: np.ndarray  # (n, Q) running log-likelihood of each examinee on the grid


@dataclass(frozen=True)
class AbilityEstimator:
    """EAP, MAP or ML ability estimates from the native kernel (:func:`irtbridge.irt.estimate_abilities`).

    Parameters
    ----------
    method : {"EAP", "MAP", "ML"}
        mirt's option values; catR calls MAP ``"BM"``.
    prior : (float, float)
        Mean and standard deviation of the normal prior (EAP, MAP).
    bounds : (float, float)
        EAP quadrature range; MAP/ML search interval (catR ``range``). An ML estimate of an all-correct
        or all-wrong pattern is the bound.
    quadrature : int
        Number of equally spaced EAP points over ``bounds``.
    se : {"posterior", "expected", "observed"}, optional
        EAP: the posterior standard deviation. MAP/ML: ``"expected"`` (default) is
        ``1 / sqrt(sum_j I_j(theta) + 1 / sd^2)`` over the administered items (the prior term for MAP
        only), as catR's ``semTheta`` and most CAT software; ``"observed"`` uses the observed information
        (the kernel's ``se``, mirt's). They coincide for 1PL/2PL items.

    Notes
    -----
    EAP: ``theta = sum_q theta_q L(theta_q) phi_q / sum_q L(theta_q) phi_q`` on
    ``theta_q = linspace(bounds[0], bounds[1], quadrature)`` with equal weights. catR integrates the same
    grid with the trapezoidal rule (half weight on the two end points); the two agree to ~1e-9 once the
    end points carry no prior mass, e.g. ``bounds = (-6, 6)`` and catR ``parInt = c(-6, 6, 121)``.
    In a simulation the EAP log-likelihood on the grid is accumulated item by item from the kernel's
    log-probability table, so each step costs O(n_examinees x quadrature) whatever the bank size.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from irtbridge.irt import as_item_bank
    >>> bank = as_item_bank(pd.DataFrame({"a": [1.0, 1.0], "b": [-0.5, 0.5]}), "2PL")
    >>> theta, se = AbilityEstimator("ML", bounds=(-4, 4)).estimate(bank, np.array([[1.0, 0.0]]))
    >>> round(float(theta[0]), 10), round(float(se[0]), 4)
    (0.0, 1.4586)
    """

    method: str = "EAP"
    prior: tuple = (0.0, 1.0)
    bounds: tuple = (-6.0, 6.0)
    quadrature: int = 61
    se: str | None = None

    def __post_init__(self) -> None:
        method = check_choice(self.method, "method", tuple(_SE_KINDS), ignore_case=True)
        mu, sd = _pair(self.prior, "prior")
        if sd <= 0:
            raise ValidationError(f"prior[1] is the prior standard deviation and must be > 0, got {sd}")
        lo, hi = _pair(self.bounds, "bounds")
        if not lo < hi:
            raise ValidationError(f"bounds must be (lower, upper) with lower < upper, got {(lo, hi)}")
        kinds = _SE_KINDS[method]
        se = kinds[0] if self.se is None else check_choice(self.se, "se", kinds)
        object.__setattr__(self, "method", method)
        object.__setattr__(self, "prior", (mu, sd))
        object.__setattr__(self, "bounds", (lo, hi))
        object.__setattr__(self, "quadrature", check_int(self.quadrature, "quadrature", low=3))
        object.__setattr__(self, "se", se)

    # -- one shot ---------------------------------------------------------------------------------
    def estimate(self, bank: ItemBank, responses: Any) -> tuple[np.ndarray, np.ndarray]:
        """Ability and standard error of each row of ``responses`` (NaN = item not administered).

        Parameters
        ----------
        bank : ItemBank
        responses : array-like, shape (n, n_items) or (n_items,)
            In bank order; every row needs at least one response.

        Returns
        -------
        theta, se : numpy.ndarray, shape (n,)
        """
        bank = irt.as_item_bank(bank)
        x = np.atleast_2d(np.asarray(responses, dtype=float))
        if x.shape[1] != bank.n_items:
            raise ValidationError(f"responses must have one column per item ({bank.n_items}), got shape {x.shape}")
        est = estimate_abilities(
            x, bank, method=self.method, prior=self.prior, bounds=self.bounds, quadrature=self.quadrature
        )
        theta = est["theta"].to_numpy()
        if self.se in ("posterior", "observed"):
            return theta, est["se"].to_numpy()
        return theta, self._expected_se(bank, theta, ~np.isnan(x))

    def _expected_se(self, bank: ItemBank, theta: np.ndarray, administered: np.ndarray) -> np.ndarray:
        info = np.where(administered, fast.information(bank, theta), 0.0).sum(axis=1)
        if self.method == "MAP":
            info = info + 1.0 / self.prior[1] ** 2
        with np.errstate(divide="ignore"):
            return 1.0 / np.sqrt(info)

    # -- incremental (used by the simulator) -------------------------------------------------------
    def begin(self, bank: ItemBank, theta: np.ndarray, rng: np.random.Generator | None = None):
        """A fresh running state for ``len(theta)`` examinees.

        Parameters
        ----------
        bank : ItemBank
            The items.
        theta : ndarray
            The starting abilities (their number is what counts).
        rng : numpy.random.Generator, optional
            Not used.

        Returns
        -------
        object
            The state :meth:`update` takes.
        """
        n = len(theta)
        if self.method == "EAP":
            grid = np.linspace(self.bounds[0], self.bounds[1], self.quadrature)
            mu, sd = self.prior
            return _GridState(
                grid=grid,
                log_prior=-0.5 * ((grid - mu) / sd) ** 2,
                table=fast.log_category_probs(bank, grid),
                loglik=np.zeros((n, grid.size)),
            )
        return _ResponseState(bank=bank, responses=np.full((n, bank.n_items), np.nan))

    def update(self, state, rows: np.ndarray, items: np.ndarray, values: np.ndarray):
        """Record that examinees ``rows`` answered ``items`` with ``values``; their new (theta, se).

        Parameters
        ----------
        state : object
            What :meth:`begin` returned.
        rows : ndarray of int
            The examinees.
        items : ndarray of int
            The item each answered.
        values : ndarray
            Their responses.

        Returns
        -------
        theta, se : ndarray
            One per row.
        """
        values = np.asarray(values)
        if isinstance(state, _GridState):
            state.loglik[rows] += state.table[:, items, values.astype(np.int64)].T
            return self._posterior_moments(state, rows)
        state.responses[rows, items] = values
        return self.estimate(state.bank, state.responses[rows])

    @staticmethod
    def _posterior_moments(state: _GridState, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # the same posterior as estimate_abilities(method="EAP"): prior times likelihood on the grid,
        # normalized; the max is subtracted first so exp never overflows or underflows everywhere
        logpost = state.loglik[rows] + state.log_prior
        logpost -= logpost.max(axis=1, keepdims=True)
        w = np.exp(logpost)
        m0 = w.sum(axis=1)
        theta = (w @ state.grid) / m0
        var = np.maximum((w @ state.grid**2) / m0 - theta**2, 0.0)
        return theta, np.sqrt(var)


def step_size(rule: str | Callable[[np.ndarray], np.ndarray], n_presented: np.ndarray) -> np.ndarray:
    """Size of the move after the ``L``-th item under a step rule.

    Parameters
    ----------
    rule : {"halving", "harmonic"} or callable
        ``"halving"``: ``2 / 2**L`` (the MLC paper, Eqs. 6-7); ``"harmonic"``: ``2 / L`` (the step of
        Linacre's simple CAT algorithm); a callable maps the array of ``L`` to step sizes.
    n_presented : array of int
        ``L``, the number of items (cases) presented so far, counting the one just answered.

    Returns
    -------
    ndarray
        One move size per entry of ``n_presented``.

    Examples
    --------
    >>> step_size("halving", np.array([1, 2, 3]))
    array([1.  , 0.5 , 0.25])
    >>> step_size("harmonic", np.array([1, 2, 4]))
    array([2. , 1. , 0.5])
    """
    L = np.asarray(n_presented, dtype=float)
    if callable(rule):
        return np.asarray(rule(L), dtype=float) * np.ones_like(L)
    if rule == "halving":
        return 2.0 / np.exp2(L)
    if rule == "harmonic":
        return 2.0 / L
    raise ValidationError(f"step={rule!r} is not supported; use 'halving', 'harmonic' or a function of L")


@dataclass
class _StepState:
    theta: np.ndarray
    count: np.ndarray
    rng: np.random.Generator | None


@dataclass(frozen=True)
class StepEstimator:
    """A fixed-step staircase: up after a correct response, down after an error, plus Gaussian noise.

    ``theta_{t+1} = theta_t + s * step(L) + N(0, noise)`` with ``s = +1`` after a correct (1) response
    and ``-1`` after an incorrect (0) one, ``L`` the number of items presented so far (the MLC paper,
    Eqs. 6-7, where ``theta`` is the target case difficulty ``CDI_t``). It reports no standard error
    (NaN): pair it with a stopper fed by another precision measure, as the MLC procedure does.

    Parameters
    ----------
    step : {"halving", "harmonic"} or callable
        See :func:`step_size`.
    noise : float
        Standard deviation of the Gaussian noise added to each move (0 for none).

    Examples
    --------
    >>> import numpy as np
    >>> est = StepEstimator("halving", noise=0.0)
    >>> state = est.begin(None, np.array([0.0]))
    >>> est.update(state, np.array([0]), np.array([3]), np.array([1]))[0]
    array([1.])
    >>> est.update(state, np.array([0]), np.array([5]), np.array([0]))[0]
    array([0.5])
    """

    step: Any = "halving"
    noise: float = 0.1

    def __post_init__(self) -> None:
        if not callable(self.step):
            check_choice(self.step, "step", ("halving", "harmonic"))
        object.__setattr__(self, "noise", check_number(self.noise, "noise", low=0.0))

    def begin(self, bank: ItemBank | None, theta: np.ndarray, rng: np.random.Generator | None = None) -> _StepState:
        """A fresh staircase for ``len(theta)`` examinees starting at ``theta``.

        Parameters
        ----------
        bank : ItemBank or None
            Not used.
        theta : ndarray
            The starting abilities.
        rng : numpy.random.Generator, optional
            The noise's draws (required when ``noise > 0``).

        Returns
        -------
        object
            The state :meth:`update` takes.
        """
        if self.noise > 0 and rng is None:
            raise ValidationError("StepEstimator with noise > 0 needs a random generator (rng)")
        theta = np.array(theta, dtype=float)
        return _StepState(theta=theta, count=np.zeros(theta.size, dtype=np.int64), rng=rng)

    def update(self, state: _StepState, rows: np.ndarray, items: np.ndarray, values: np.ndarray):
        """Move the examinees ``rows`` up after a correct answer and down after an error.

        Parameters
        ----------
        state : object
            What :meth:`begin` returned.
        rows : ndarray of int
            The examinees.
        items : ndarray of int
            The item each answered (not used).
        values : ndarray
            Their responses (1 correct).

        Returns
        -------
        theta, se : ndarray
            The new targets, and NaN (no standard error).
        """
        rows = np.asarray(rows)
        state.count[rows] += 1
        sign = np.where(np.asarray(values) >= 1, 1.0, -1.0)
        move = sign * step_size(self.step, state.count[rows])
        if self.noise > 0:
            move = move + state.rng.normal(0.0, self.noise, rows.size)
        state.theta[rows] += move
        return state.theta[rows].copy(), np.full(rows.size, np.nan)
