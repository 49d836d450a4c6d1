"""The MLC CAT over the test cases of one class, run by :func:`irtbridge.cat.simulate_cat`.

The MLC paper's staircase (Table 3) is four :mod:`irtbridge.cat` components: a percentile start, the
unused case nearest the target (Urry), the step-and-noise target update, and a standard-error stopper. The
only MLC-specific piece is :class:`RunningMLCEstimator`, the step estimator whose standard error is that
of the running MLC (:func:`~irtbridge.mlc.running_standard_error`); the classifier answers through the
simulator's live ``respond`` hook, one case at a time.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd

from irtbridge._constraints import Int, RandomState, constraints
from irtbridge._validation import check_choice, check_int, check_random_state
from irtbridge.cat import PercentileInitializer, StandardErrorStopper, StepEstimator, UrrySelector, simulate_cat
from irtbridge.exceptions import ValidationError
from irtbridge.irt import as_item_bank
from irtbridge.mlc.estimate import SE_RULES, mlc_estimate, running_mlc, running_standard_error

__all__ = ["ClassCAT", "StaircaseSettings", "RunningMLCEstimator", "run_mlc_cat"]

# the simulator's stop reasons in the words of the MLC procedure
_STOPS = {"se": "se", "max_items": "max_cases", "exhausted": "pool exhausted"}


@dataclass(frozen=True)
class StaircaseSettings:
    """The settings of the MLC CAT of a class (Table 3 of the MLC paper), taken by :func:`run_mlc_cat`
    and :func:`~irtbridge.mlc.evaluate_mlc` as keyword arguments.

    Attributes
    ----------
    start_percentile : float, default 25
        The first target is this percentile of the pool (25, Table 3).
    step : {"halving", "harmonic"} or callable, default "halving"
        Step rule of :class:`irtbridge.cat.StepEstimator` (``2 / 2**L``, Eqs. 6-7).
    noise : float, default 0.1
        Standard deviation of the Gaussian noise added to each move (0.1).
    se_rule : {"running_sd", "running_sem", "wright_linacre"}, default "running_sd"
        See :func:`running_standard_error` for what each is and why ``"running_sd"`` is the default.
    window : int, default 6
        Estimates in the ``"running_sd"`` window (6).
    reliability, sigma : float, default 0.98 and 1
        The CAT stops when the standard error is below ``sigma * sqrt(1 - reliability)`` (Eq. 8: 0.1414).
    min_cases : int, default 5
        The MLC is computed (and the rule checked) from this many cases on (5).
    max_cases : int, default 100
        Cap: a CAT still running after this many cases stops, flagged ``converged = False``.

    Examples
    --------
    >>> StaircaseSettings.of({"noise": 0.0}).options()["noise"]
    0.0
    """

    start_percentile: float = 25.0
    step: Any = "halving"
    noise: float = 0.1
    se_rule: str = "running_sd"
    window: int = 6
    reliability: float = 0.98
    sigma: float = 1.0
    min_cases: int = 5
    max_cases: int = 100

    @classmethod
    def of(cls, options: Mapping[str, Any]) -> "StaircaseSettings":
        """The settings from keyword arguments; a name that is not a setting is an error naming it.

        Parameters
        ----------
        options : mapping of str to Any
            Setting -> value.

        Returns
        -------
        StaircaseSettings
            The settings.
        """
        names = [f.name for f in fields(cls)]
        unknown = sorted(set(options) - set(names))
        if unknown:
            raise ValidationError(
                f"{', '.join(map(repr, unknown))} is not a setting of the MLC CAT; its settings are {', '.join(names)}"
            )
        return cls(**options)

    def options(self) -> dict[str, Any]:
        """The settings as keyword arguments.

        Returns
        -------
        dict of str to Any
            Setting -> value.
        """
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True, eq=False)
class ClassCAT:
    """The MLC CAT of one class (see :func:`run_mlc_cat`).

    Attributes
    ----------
    label : int
        The class (0 or 1).
    mlc : float
        The last running MLC (NaN if fewer than ``min_cases`` cases could be presented).
    cases_used : int
        Cases presented.
    n_pool : int
        Test cases of this class available to the CAT.
    n_total : int
        Cases in the whole data set (the denominator of :attr:`share_used`).
    converged : bool
        True when the standard-error rule stopped the CAT; False when the cap or an exhausted pool did.
    stop : str
        ``"se"``, ``"max_cases"`` or ``"pool exhausted"``.
    start : float
        The starting target CDI_0 (the pool's 25th percentile).
    seconds : float
        Wall time of the CAT, classifier calls included.
    trajectory : pandas.DataFrame
        Indexed by ``L``: ``case, cdi, difficulty, target, correct, mlc, se``.
    settings : dict
    """

    label: int
    mlc: float
    cases_used: int
    n_pool: int
    n_total: int
    converged: bool
    stop: str
    start: float
    seconds: float
    trajectory: pd.DataFrame = field(repr=False)
    settings: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @property
    def share_used(self) -> float:
        """Share of the whole data set the CAT needed (``cases_used / n_total``)."""
        return self.cases_used / self.n_total if self.n_total else float("nan")

    @property
    def extreme(self) -> bool:
        """True when every presented case was classified right (or every one wrong).

        The MLC then rests on the half-case correction of Eq. 11 (Eq. 10): ``ln(2L - 1)`` grows without
        bound, and the estimate says only that the classifier's reach lies beyond the cases presented.
        """
        right = self.trajectory["correct"].to_numpy(dtype=bool)
        return bool(right.size) and (right.all() or not right.any())


@dataclass
class _MLCState:
    step: Any
    difficulty: np.ndarray
    H: np.ndarray
    R: np.ndarray
    W: np.ndarray
    history: list


@dataclass(frozen=True)
class RunningMLCEstimator:
    """The MLC paper's staircase as a CAT estimator: the target moves as :class:`~irtbridge.cat.StepEstimator`
    moves it, and the standard error it reports is that of the running MLC.

    ``theta`` is the target case difficulty ``CDI_t`` (Eqs. 6-7); the standard error is
    :func:`~irtbridge.mlc.running_standard_error` of the running MLC ``H / L + ln(R / W)`` (Eqs. 9-11),
    NaN before ``min_cases`` cases, so a :class:`~irtbridge.cat.StandardErrorStopper` ends the test as
    the procedure does. An item's difficulty is its ``b`` in the bank.

    Parameters
    ----------
    step : {"halving", "harmonic"} or callable, default "halving"
    noise : float, default 0.1
        See :class:`~irtbridge.cat.StepEstimator`.
    se_rule : str, default "running_sd"
    window : int, default 6
        See :func:`~irtbridge.mlc.running_standard_error`.
    min_cases : int
        The MLC (and its standard error) exist from this many cases on.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from irtbridge.irt import as_item_bank
    >>> bank = as_item_bank(pd.DataFrame({"b": [0.0, 0.5, 1.0]}), "rasch")
    >>> est = RunningMLCEstimator(noise=0.0, se_rule="wright_linacre", min_cases=2)
    >>> state = est.begin(bank, np.array([0.0]))
    >>> est.update(state, np.array([0]), np.array([0]), np.array([1]))     # target 0 + 2/2; one case: no SE
    (array([1.]), array([nan]))
    >>> t, se = est.update(state, np.array([0]), np.array([2]), np.array([0]))
    >>> float(t[0]), round(float(se[0]), 6)                             # 1 - 2/4; sqrt(2 / (1 * 1))
    (0.5, 1.414214)
    """

    step: Any = "halving"
    noise: float = 0.1
    se_rule: str = "running_sd"
    window: int = 6
    min_cases: int = 5

    def __post_init__(self) -> None:
        object.__setattr__(self, "se_rule", check_choice(self.se_rule, "se_rule", SE_RULES))
        object.__setattr__(self, "window", check_int(self.window, "window", low=2))
        object.__setattr__(self, "min_cases", check_int(self.min_cases, "min_cases", low=1))
        StepEstimator(self.step, self.noise)  # validates step and noise

    def begin(self, bank: Any, theta: np.ndarray, rng: np.random.Generator | None = None) -> _MLCState:
        """A fresh staircase and running MLC for ``len(theta)`` examinees.

        Parameters
        ----------
        bank : ItemBank
            The cases (their difficulties ``b``).
        theta : ndarray
            The starting targets.
        rng : numpy.random.Generator, optional
            The noise's draws.

        Returns
        -------
        object
            The state :meth:`update` takes.
        """
        n = len(theta)
        return _MLCState(
            step=StepEstimator(self.step, self.noise).begin(bank, theta, rng),
            difficulty=np.asarray(bank.b, dtype=float),
            H=np.zeros(n),
            R=np.zeros(n, dtype=np.int64),
            W=np.zeros(n, dtype=np.int64),
            history=[[] for _ in range(n)],
        )

    def update(self, state: _MLCState, rows: np.ndarray, items: np.ndarray, values: np.ndarray):
        """Move the targets (:class:`~irtbridge.cat.StepEstimator`) and update each running MLC.

        Parameters
        ----------
        state : object
            What :meth:`begin` returned.
        rows : ndarray of int
            The examinees.
        items : ndarray of int
            The case each was given.
        values : ndarray
            Their responses (1 correct).

        Returns
        -------
        target, se : ndarray
            The new targets and the standard error of the running MLC (NaN before ``min_cases``).
        """
        rows, items = np.asarray(rows), np.asarray(items)
        target, _ = StepEstimator(self.step, self.noise).update(state.step, rows, items, values)
        right = np.asarray(values) >= 1
        state.H[rows] += state.difficulty[items]
        state.R[rows] += right
        state.W[rows] += ~right
        se = np.full(rows.size, np.nan)
        for j, r in enumerate(rows):
            H, R, W = state.H[r], int(state.R[r]), int(state.W[r])
            if R + W >= self.min_cases:
                state.history[r].append(mlc_estimate(H, R + W, R, W))
                se[j] = running_standard_error(self.se_rule, R + W, R, W, state.history[r], self.window)
        return target, se


@constraints(n_total=Int(low=1, allow_none=True), random_state=RandomState())
def run_mlc_cat(
    difficulty: pd.Series,
    respond: Callable[[Any], bool],
    *,
    label: int = 0,
    cdi: pd.Series | None = None,
    n_total: int | None = None,
    random_state: Any = None,
    **staircase: Any,
) -> ClassCAT:
    """Run the MLC CAT over a pool of cases of one class.

    Parameters
    ----------
    difficulty : pandas.Series
        Difficulty of each case in the pool, indexed by case id (the CDI, negated for class 1).
    respond : callable
        ``respond(case_id) -> bool``: present one case to the classifier, True when it is classified right.
    label : int
        The class, for the record.
    cdi : pandas.Series, optional
        The cases' CDIs before any negation, recorded in the trajectory (default: ``difficulty``).
    n_total : int, optional
        Size of the whole data set, for ``share_used`` (default: the pool size).
    random_state : None, int or numpy.random.Generator
        Seeds the noise.
    **staircase
        The settings of :class:`StaircaseSettings`: ``start_percentile`` (25), ``step`` ("halving"),
        ``noise`` (0.1), ``se_rule`` ("running_sd"), ``window`` (6), ``reliability`` (0.98), ``sigma`` (1),
        ``min_cases`` (5), ``max_cases`` (100).

    Returns
    -------
    ClassCAT

    Notes
    -----
    :func:`irtbridge.cat.simulate_cat` with the components of Table 3:
    :class:`~irtbridge.cat.PercentileInitializer`, :class:`~irtbridge.cat.UrrySelector` (the unused case
    nearest the target), :class:`RunningMLCEstimator` (the target update, reporting the running standard
    error of the MLC) and :class:`~irtbridge.cat.StandardErrorStopper`; the classifier answers through
    the simulator's ``respond`` hook, one case at a time. A case is never presented twice; when the pool
    runs out the CAT stops (``"pool exhausted"``).

    Ties for the nearest case (cases of equal difficulty, or a target midway between two difficulties)
    go to the case that comes first in ``difficulty``; distances within ``1e-9 * max(1, |target| +
    max |difficulty|)`` of the smallest count as tied (``irtbridge._ties``). Rounding noise in the
    difficulties (a calibration with its scale turned around gives CDIs that differ in the last bits)
    therefore never changes which case is presented, nor the MLC.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> pool = pd.Series(np.linspace(-2, 2, 200), index=[f"c{i}" for i in range(200)])
    >>> easy = lambda case: pool[case] < 0.5     # a classifier that gets every case below 0.5 right
    >>> res = run_mlc_cat(pool, easy, random_state=1)
    >>> res.converged, 10 <= res.cases_used <= 30
    (True, True)
    """
    if not isinstance(difficulty, pd.Series):
        difficulty = pd.Series(np.asarray(difficulty, dtype=float))
    d = difficulty.to_numpy(dtype=float)
    if d.size == 0 or not np.isfinite(d).all():
        raise ValidationError("difficulty must be a non-empty series of finite case difficulties")
    if not callable(respond):
        raise ValidationError(f"respond must be a function of the case id, got {type(respond).__name__}")
    cdi = difficulty if cdi is None else cdi
    s = StaircaseSettings.of(staircase)
    estimator = RunningMLCEstimator(s.step, s.noise, s.se_rule, s.window, s.min_cases)
    max_cases = check_int(s.max_cases, "max_cases", low=estimator.min_cases)
    n_total = d.size if n_total is None else check_int(n_total, "n_total", low=d.size)
    stopper = StandardErrorStopper.from_reliability(
        s.reliability, s.sigma, min_items=estimator.min_cases, max_items=max_cases
    )

    def answer(rows: np.ndarray, positions: np.ndarray) -> np.ndarray:
        return np.array([int(bool(respond(difficulty.index[p]))) for p in positions])

    run = simulate_cat(
        as_item_bank(pd.DataFrame({"b": d}, index=[f"{i}" for i in range(d.size)]), "rasch"),
        respond=answer,
        initializer=PercentileInitializer(s.start_percentile),
        selector=UrrySelector(),
        estimator=estimator,
        stopper=stopper,
        random_state=check_random_state(random_state),
    )
    given = run.items[0]
    # the running MLC along the presented cases: the very numbers the estimator fed the stopper
    traj = running_mlc(d[given], run.responses[0] == 1, min_cases=estimator.min_cases,
                       se_rule=estimator.se_rule, window=estimator.window)
    cases = difficulty.index[given]
    traj = pd.DataFrame({
        "case": cases, "cdi": cdi.loc[cases].to_numpy(dtype=float), "difficulty": traj["difficulty"].to_numpy(),
        "target": run.theta_history[0, :given.size], "correct": traj["correct"].to_numpy(),
        "mlc": traj["mlc"].to_numpy(), "se": traj["se"].to_numpy(),
    }, index=traj.index)
    stop = _STOPS[run.estimates["stop"].iloc[0]]
    return ClassCAT(
        label=int(label),
        mlc=float(traj["mlc"].iloc[-1]) if len(traj) else float("nan"),
        cases_used=len(traj),
        n_pool=int(d.size),
        n_total=int(n_total),
        converged=stop == "se",
        stop=stop,
        start=float(run.theta_history[0, 0]),
        seconds=run.elapsed,
        trajectory=traj,
        settings={
            "start_percentile": float(s.start_percentile), "step": s.step if isinstance(s.step, str) else repr(s.step),
            "noise": float(s.noise), "se_rule": estimator.se_rule, "window": estimator.window,
            "reliability": float(s.reliability), "sigma": float(s.sigma), "max_se": float(stopper.max_se),
            "min_cases": estimator.min_cases, "max_cases": max_cases,
        },
    )
