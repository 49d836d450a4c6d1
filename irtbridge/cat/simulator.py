"""The CAT simulator: runs an initializer, a selector, an estimator and a stopper for many examinees.

All examinees advance together: step ``t`` selects, administers and scores the ``t``-th item of every
examinee still testing with a handful of array operations, so a step costs about the same for one
examinee or ten thousand.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd

from irtbridge import irt
from irtbridge._constraints import Int, RandomState, constraints
from irtbridge._summary import HasSummary, Line, Summary
from irtbridge.irt import fast
from irtbridge._validation import check_random_state
from irtbridge.cat.estimators import AbilityEstimator
from irtbridge.cat.initializers import FixedPointInitializer
from irtbridge.cat.protocols import ROLES
from irtbridge.cat.selectors import MaxInfoSelector
from irtbridge.cat.stoppers import FixedLengthStopper
from irtbridge.exceptions import ValidationError
from irtbridge.irt import ItemBank
from irtbridge.irt.bank import MODEL

__all__ = ["simulate_cat", "CATResult", "draw_responses"]


@constraints(model=MODEL, random_state=RandomState())
def draw_responses(theta: Any, items: Any, model: str | None = None, random_state: Any = None) -> np.ndarray:
    """Responses of examinees with abilities ``theta`` to every item, drawn from the IRT model.

    Parameters
    ----------
    theta : array-like, shape (n,)
    items : Calibration, ItemBank or DataFrame
    model : str, optional
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    numpy.ndarray or pandas.DataFrame, shape (n, n_items)
        Categories ``0..K-1`` (0/1 for dichotomous items) as floats; a DataFrame (indexed like ``theta``,
        one column per item) when ``theta`` is a Series.

    Notes
    -----
    Category ``k`` is drawn by inverting the cumulative category probabilities of
    :func:`irtbridge.irt.category_probabilities` with one uniform number per (examinee, item).

    Examples
    --------
    >>> import pandas as pd
    >>> items = pd.DataFrame({"a": [1.0, 1.0], "b": [-10.0, 10.0]})
    >>> draw_responses([0.0], items, "2PL", random_state=0)
    array([[1., 0.]])
    """
    bank = irt.as_item_bank(items, model)
    rng = check_random_state(random_state)
    index = theta.index if isinstance(theta, pd.Series) else None
    theta = np.asarray(theta, dtype=float).reshape(-1)
    if not np.isfinite(theta).all():
        raise ValidationError("theta must be finite")
    u = rng.random((theta.size, bank.n_items))
    if bank.dichotomous:
        out = (u < fast.prob_correct(bank, theta)).astype(float)
    else:
        cum = np.cumsum(np.exp(fast.log_category_probs(bank, theta)), axis=-1)
        out = (u[..., None] > cum[..., :-1]).sum(axis=-1).astype(float)
    return out if index is None else pd.DataFrame(out, index=index, columns=list(bank.names))


@dataclass(frozen=True, eq=False)
class CATResult(HasSummary):
    """The outcome of :func:`simulate_cat`.

    Attributes
    ----------
    estimates : pandas.DataFrame
        One row per examinee (labelled like the input): final ``theta`` and ``se``, ``n_items``,
        ``stop`` (why the test ended: the stopper's reason, or ``"exhausted"`` when no item was left) and,
        when abilities were given, ``true_theta``.
    items : numpy.ndarray, shape (n, T)
        Bank position of the ``t``-th item of each examinee, -1 after the test ended.
    responses : numpy.ndarray, shape (n, T)
        The responses to those items, NaN after the end.
    theta_history, se_history : numpy.ndarray, shape (n, T + 1)
        Estimates after 0, 1, ..., T items (column 0: the initializer's start and ``inf``); NaN after the end.
    exposure : pandas.Series
        Exposure rate of each item: the share of examinees who got it.
    bank : ItemBank
    settings : dict
        The components and the seed.
    elapsed : float
        Wall time of the simulation in seconds.
    """

    estimates: pd.DataFrame
    items: np.ndarray = field(repr=False)
    responses: np.ndarray = field(repr=False)
    theta_history: np.ndarray = field(repr=False)
    se_history: np.ndarray = field(repr=False)
    exposure: pd.Series = field(repr=False)
    bank: ItemBank = field(repr=False)
    settings: Mapping[str, Any] = field(default_factory=dict)
    elapsed: float = 0.0

    @property
    def n_administered(self) -> int:
        """Total number of item administrations."""
        return int(self.estimates["n_items"].sum())

    @property
    def test_overlap(self) -> float:
        """Average share of items two examinees have in common (Chen, Ankenmann & Spray, 2003).

        ``T = n / (n - 1) * sum_j r_j^2 / mean(L) - 1 / (n - 1)`` with exposure rates ``r_j`` and test
        lengths ``L``; exact for fixed-length tests.
        """
        n = len(self.estimates)
        if n < 2:
            return float("nan")
        r = self.exposure.to_numpy()
        return float(n / (n - 1) * (r**2).sum() / self.estimates["n_items"].mean() - 1.0 / (n - 1))

    def trajectory(self, examinee: Any) -> pd.DataFrame:
        """Step-by-step record of one examinee: item, response, theta and se after each step.

        Parameters
        ----------
        examinee : label
            A label of :attr:`estimates`' index.

        Returns
        -------
        DataFrame
            One row per step.
        """
        try:
            i = self.estimates.index.get_loc(examinee)
        except KeyError:
            raise ValidationError(f"examinee {examinee!r} is not in this result") from None
        n = int(self.estimates["n_items"].iloc[i])
        pos = self.items[i, :n]
        return pd.DataFrame(
            {
                "item": [self.bank.names[p] for p in pos],
                "response": self.responses[i, :n],
                "theta": self.theta_history[i, 1 : n + 1],
                "se": self.se_history[i, 1 : n + 1],
            },
            index=pd.RangeIndex(1, n + 1, name="step"),
        )

    def summary(self) -> Summary:
        """Test lengths, precision, exposure, and bias/RMSE when true abilities are known.

        Returns
        -------
        Summary
            The simulation's summary.
        """
        est = self.estimates
        lines = [
            Line.of("length", f"test length: mean {est['n_items'].mean():.2f}, min {est['n_items'].min()}, "
                              f"max {est['n_items'].max()}"),
            Line.of("se", f"final se: mean {est['se'].mean():.4f}"),
            Line.of("exposure", f"exposure: max {self.exposure.max():.3f}, items never used "
                                f"{int((self.exposure == 0).sum())}, test overlap {self.test_overlap:.3f}"),
        ]
        if "true_theta" in est:
            err = est["theta"] - est["true_theta"]
            lines.append(Line.of("error", f"bias {err.mean():.4f}, RMSE {np.sqrt((err**2).mean()):.4f}"))
        lines.append(Line.of("stop", "stop: " + ", ".join(f"{k} {v}" for k, v in est["stop"].value_counts().items())))
        notes = tuple(f"{k}: {v}" for k, v in self.settings.items())
        title = (f"CAT simulation: {len(est)} examinees, bank of {self.bank.n_items} {self.bank.model} items, "
                 f"{self.n_administered} administrations in {self.elapsed:.3f} s")
        return Summary(title, tuple(lines), notes=notes, data={"estimates": est.reset_index()})


def _response_matrix(responses: Any, bank: ItemBank) -> tuple[np.ndarray, pd.Index]:
    if isinstance(responses, pd.DataFrame):
        cols = [str(c) for c in responses.columns]
        missing = [n for n in bank.names if n not in cols]
        if missing:
            raise ValidationError(
                f"responses has no column for item(s) {', '.join(map(repr, missing[:10]))}; give one column per bank item"
            )
        values = responses.rename(columns=str)[list(bank.names)].to_numpy(dtype=float, na_value=np.nan)
        index = responses.index
    else:
        try:
            values = np.array(responses, dtype=float)
        except (TypeError, ValueError):
            raise ValidationError("responses must be numeric (NaN for an item the examinee cannot get)") from None
        if values.ndim != 2 or values.shape[1] != bank.n_items:
            raise ValidationError(
                f"responses must be examinees x items with {bank.n_items} columns in bank order, got shape {values.shape}"
            )
        index = pd.RangeIndex(values.shape[0])
    if values.shape[0] == 0:
        raise ValidationError("responses has no examinees (no rows)")
    top = (bank.n_categories - 1)[None, :]
    seen = ~np.isnan(values)
    bad = seen & ((values != np.round(values)) | (values < 0) | (values > top))
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise ValidationError(
            f"responses: item {bank.names[c]!r} holds {values[r, c]:g} for examinee {index[r]!r}; it must be a "
            f"category from 0 to {int(top[0, c])} (NaN when the examinee cannot get the item)"
        )
    return values, index


def _live_answers(respond: Callable, rows: np.ndarray, pos: np.ndarray, bank: ItemBank) -> np.ndarray:
    try:
        values = np.asarray(respond(rows, pos), dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ValidationError("respond(rows, items) must return numeric categories") from None
    if values.shape != rows.shape:
        raise ValidationError(f"respond(rows, items) returned {values.size} answer(s) for {rows.size} item(s) given")
    top = bank.n_categories[pos] - 1
    bad = ~np.isfinite(values) | (values != np.round(values)) | (values < 0) | (values > top)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise ValidationError(
            f"respond answered {values[j]:g} for item {bank.names[pos[j]]!r}; it must be a category from 0 to {int(top[j])}"
        )
    return values


def _answers(bank: ItemBank, theta: Any, responses: Any, respond: Any, n_examinees: Any, rng: np.random.Generator):
    """The (examinees x items) answers known before the test, their index and the true abilities if any.

    A live ``respond`` test knows none in advance: zeros, replaced by the answers as items are given.
    """
    true_theta = None
    if theta is not None:
        index = theta.index if isinstance(theta, pd.Series) else None
        true_theta = np.asarray(theta, dtype=float).reshape(-1)
        if true_theta.size == 0:
            raise ValidationError("theta is empty; give one true ability per examinee")
        full = draw_responses(true_theta, bank, random_state=rng)
        index = pd.RangeIndex(true_theta.size) if index is None else index
    elif responses is not None:
        full, index = _response_matrix(responses, bank)
    else:
        if not callable(respond):
            raise ValidationError(f"respond must be a function of (rows, items), got {type(respond).__name__}")
        n = int(n_examinees)  # declared: simulate_cat's n_examinees
        full, index = np.zeros((n, bank.n_items)), pd.RangeIndex(n)
    return full, index, true_theta


def _check_components(**components: Any) -> None:
    # the protocols in cat/protocols.py name every method used below; a missing one fails here, before
    # any work, with the role and the method named
    for name, comp in components.items():
        _, methods = ROLES[name]
        for method in methods:
            if method == "max_items":
                if not hasattr(comp, method):
                    raise ValidationError(f"{name} must have a max_items attribute (None for no cap), "
                                          f"got {type(comp).__name__}")
            elif not callable(getattr(comp, method, None)):
                raise ValidationError(f"{name} must have a {method}() method, got {type(comp).__name__}")


@constraints(model=MODEL, n_examinees=Int(low=1), random_state=RandomState())
def simulate_cat(
    items: Any,
    model: str | None = None,
    *,
    theta: Any = None,
    responses: Any = None,
    respond: Callable[[np.ndarray, np.ndarray], Any] | None = None,
    n_examinees: int = 1,
    initializer: Any = None,
    selector: Any = None,
    estimator: Any = None,
    stopper: Any = None,
    random_state: Any = None,
) -> CATResult:
    """Simulate computer-adaptive tests for many examinees at once.

    Parameters
    ----------
    items : Calibration, ItemBank or pandas.DataFrame
        The item bank (see :func:`irtbridge.irt.as_item_bank`).
    model : str, optional
        Required when ``items`` is a DataFrame.
    theta : array-like or pandas.Series, optional
        True abilities: responses are drawn from the model (:func:`draw_responses`) before the test, one
        per (examinee, item), so an item's answer does not depend on when it is given.
    responses : pandas.DataFrame or array-like, optional
        A post-hoc simulation on known responses (examinees x items, bank order or item-named columns);
        NaN marks an item the examinee cannot get.
    respond : callable, optional
        A live test: ``respond(rows, items) -> values`` is asked, at each step, only for the items just
        given (examinee rows and bank positions, equal-length integer arrays) and returns one category
        each -- a classifier shown one case, a person at a terminal. Give exactly one of ``theta``,
        ``responses`` and ``respond``.
    n_examinees : int
        How many examinees a ``respond`` test has (default 1).
    initializer : Initializer, optional
    selector : Selector, optional
    estimator : Estimator, optional
    stopper : Stopper, optional
        The four components: any objects with the methods of :class:`~irtbridge.cat.protocols.Initializer`,
        :class:`~irtbridge.cat.protocols.Selector`, :class:`~irtbridge.cat.protocols.Estimator` and
        :class:`~irtbridge.cat.protocols.Stopper`. Defaults: :class:`FixedPointInitializer` (0),
        :class:`MaxInfoSelector`, :class:`AbilityEstimator` (EAP), :class:`FixedLengthStopper` (20).
    random_state : None, int or numpy.random.Generator
        Seeds the response draws and any random component; the same seed gives the same result.

    Returns
    -------
    CATResult

    Notes
    -----
    Each step: the stopper decides who is done; the selector picks the next item of everyone else
    among the items they have not had; the response is read; the estimator updates their ability and
    standard error. A test also ends when no item is left (``stop = "exhausted"``). The loop is the one
    of catR's ``randomCAT`` / catsim's ``Simulator``, vectorized over examinees.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> bank = pd.DataFrame({"a": rng.uniform(0.8, 2, 50), "b": rng.normal(0, 1, 50)})
    >>> res = simulate_cat(bank, "2PL", theta=rng.normal(size=100), stopper=FixedLengthStopper(10),
    ...                    random_state=1)
    >>> res.n_administered
    1000
    """
    started = time.perf_counter()
    bank = irt.as_item_bank(items, model)
    rng = check_random_state(random_state)
    initializer = FixedPointInitializer() if initializer is None else initializer
    selector = MaxInfoSelector() if selector is None else selector
    estimator = AbilityEstimator() if estimator is None else estimator
    stopper = FixedLengthStopper() if stopper is None else stopper
    _check_components(initializer=initializer, selector=selector, estimator=estimator, stopper=stopper)
    if (theta is not None) + (responses is not None) + (respond is not None) != 1:
        raise ValidationError(
            "give exactly one of theta (true abilities), responses (a post-hoc simulation) and respond (a live test)"
        )

    full, index, true_theta = _answers(bank, theta, responses, respond, n_examinees, rng)
    n, n_items = full.shape

    length = n_items if stopper.max_items is None else min(n_items, int(stopper.max_items))
    est = np.asarray(initializer.initialize(bank, n, rng), dtype=float)
    if est.shape != (n,):
        raise ValidationError(f"the initializer returned shape {est.shape}, expected ({n},)")
    se = np.full(n, np.inf)
    unavailable = np.isnan(full)
    n_items_given = np.zeros(n, dtype=np.int64)
    exhausted = np.zeros(n, dtype=bool)
    given = np.full((n, length), -1, dtype=np.int64)
    answers = np.full((n, length), np.nan)
    theta_hist = np.full((n, length + 1), np.nan)
    se_hist = np.full((n, length + 1), np.nan)
    theta_hist[:, 0], se_hist[:, 0] = est, se
    counts = np.zeros(n_items, dtype=np.int64)
    state = estimator.begin(bank, est, rng)

    for t in range(length):
        active = ~exhausted & ~np.asarray(stopper.stop(n_items_given, se), dtype=bool)
        rows = np.flatnonzero(active)
        if rows.size == 0:
            break
        pos = np.asarray(selector.select(bank, est[rows], unavailable[rows], rng), dtype=np.int64)
        none_left = pos < 0
        exhausted[rows[none_left]] = True
        rows, pos = rows[~none_left], pos[~none_left]
        if rows.size == 0:
            break
        values = full[rows, pos] if respond is None else _live_answers(respond, rows, pos, bank)
        unavailable[rows, pos] = True
        given[rows, t], answers[rows, t] = pos, values
        n_items_given[rows] += 1
        counts += np.bincount(pos, minlength=n_items)
        new_theta, new_se = estimator.update(state, rows, pos, values)
        est[rows], se[rows] = new_theta, new_se
        theta_hist[rows, t + 1], se_hist[rows, t + 1] = new_theta, new_se

    reason = np.full(n, "", dtype=object)
    stopped = np.asarray(stopper.stop(n_items_given, se), dtype=bool)
    reason[stopped] = np.asarray(stopper.reason(n_items_given, se), dtype=object)[stopped]
    reason[~stopped] = "exhausted"
    frame = pd.DataFrame({"theta": est, "se": se, "n_items": n_items_given, "stop": reason}, index=index)
    if true_theta is not None:
        frame["true_theta"] = true_theta
    used = int(n_items_given.max()) if n else 0
    return CATResult(
        estimates=frame,
        items=given[:, :used],
        responses=answers[:, :used],
        theta_history=theta_hist[:, : used + 1],
        se_history=se_hist[:, : used + 1],
        exposure=pd.Series(counts / n, index=list(bank.names), name="exposure"),
        bank=bank,
        settings={
            "initializer": repr(initializer),
            "selector": repr(selector),
            "estimator": repr(estimator),
            "stopper": repr(stopper),
            "random_state": random_state if isinstance(random_state, (int, type(None))) else repr(random_state),
        },
        elapsed=time.perf_counter() - started,
    )
