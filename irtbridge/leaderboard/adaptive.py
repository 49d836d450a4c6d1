"""Adaptive evaluation of a new model: the CAT engine asks it only the items that tell the most.

The caller's ``answer(item) -> 0/1`` (one model run on one item) is the respondent of a live
:func:`irtbridge.cat.simulate_cat` test: the most informative item at the current ability is given next
(or a random one, for comparison), the EAP ability and its posterior SD are updated, and the test stops once
the SD falls below ``stop`` (or after ``max_items``). The answers then feed :func:`estimate_performance`,
which predicts the accuracy on the whole calibrated item set with its 95% interval.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd

from irtbridge._summary import Line, Summary
from irtbridge._validation import check_choice, check_int, check_number
from irtbridge.cat import AbilityEstimator, MaxInfoSelector, RandomSelector, StandardErrorStopper, simulate_cat
from irtbridge.exceptions import ValidationError
from irtbridge.leaderboard._pirt import bank_of
from irtbridge.leaderboard.performance import estimate_performance, warn_small_calibration

__all__ = ["AdaptiveResult", "adaptive_evaluate", "SELECTIONS"]

SELECTIONS = ("maxinfo", "random")


@dataclass(frozen=True)
class AdaptiveResult:
    """The outcome of :func:`adaptive_evaluate`.

    Attributes
    ----------
    theta, se : float
        EAP ability and posterior SD after the last item.
    items : tuple of str
        The items given, in order.
    responses : tuple of float
        The answers to them.
    accuracy, lower, upper : float
        Predicted share correct on the full item set and its 95% interval (:func:`estimate_performance`).
    stop : str
        Why the test ended: ``"se"``, ``"max_items"`` or ``"exhausted"``.
    se_history : numpy.ndarray
        The SD after 0, 1, ..., n items.
    """

    theta: float
    se: float
    items: tuple[str, ...]
    responses: tuple[float, ...]
    accuracy: float
    lower: float
    upper: float
    stop: str
    se_history: np.ndarray = field(repr=False)

    @property
    def n_items(self) -> int:
        """The number of items given."""
        return len(self.items)

    def to_dict(self) -> dict[str, Any]:
        """The result as plain data (the CLI's ``--json``).

        Returns
        -------
        dict of str to Any
            ``theta``, ``se``, ``n_items``, ``items``, ``responses``, ``accuracy``, ``lower``, ``upper``, ``stop``.
        """
        return {"theta": self.theta, "se": self.se, "n_items": self.n_items, "items": list(self.items),
                "responses": list(self.responses), "accuracy": self.accuracy, "lower": self.lower,
                "upper": self.upper, "stop": self.stop}

    def summary(self) -> Summary:
        """The predicted accuracy with its interval, and how many items it took.

        Returns
        -------
        Summary
            The result's summary.
        """
        lines = (Line.of("accuracy", f"predicted accuracy {self.accuracy:.3f} (95% interval {self.lower:.3f} to "
                                     f"{self.upper:.3f})"),
                 Line.of("ability", f"ability {self.theta:.3f} (posterior SD {self.se:.3f})"),
                 Line.of("stop", f"{self.n_items} item(s) asked; stopped by {self.stop}"))
        return Summary("adaptive evaluation", lines, data=self.to_dict())

    def _repr_html_(self) -> str:
        return self.summary().as_html()


class _BadAnswer(Exception):
    """Carries a bad answer's message past the simulator (which rewords ValueErrors of ``respond``)."""


def _live(answer: Callable[[str], Any], names: list[str]) -> Callable[[np.ndarray, np.ndarray], list[float]]:
    def respond(rows: np.ndarray, items: np.ndarray) -> list[float]:
        out = []
        for j in items:
            value = answer(names[int(j)])
            try:
                value = float(value)
            except (TypeError, ValueError):
                raise _BadAnswer(f"answer({names[int(j)]!r}) returned {value!r}; it must be 0 or 1") from None
            if value not in (0.0, 1.0):
                raise _BadAnswer(f"answer({names[int(j)]!r}) returned {value:g}; it must be 0 or 1")
            out.append(value)
        return out

    return respond


def adaptive_evaluate(answer: Callable[[str], Any], calibration: Any, stop: float = 0.2, *,
                      max_items: int | None = 100, selection: str = "maxinfo", seed: int = 0) -> AdaptiveResult:
    """Evaluate a new model adaptively: ask it items one at a time until its ability is known to ``stop``.

    Parameters
    ----------
    answer : callable
        ``answer(item_name) -> 0 or 1``: the model's score on one item (a model run, a lookup, ...).
    calibration : Calibration, ItemBank or path
        A dichotomous calibration of the item set (``.items``, ``.model``), or a tiny-benchmark bank file.
    stop : float, default 0.2
        Stop once the posterior SD of theta is below this.
    max_items : int or None, default 100
        Stop after this many items whatever the SD (None: only the item set limits the test).
    selection : {"maxinfo", "random"}, default "maxinfo"
        Next item: the most informative at the current EAP (a CAT) or a uniformly random one (the baseline).
    seed : int
        Seeds the random selection.

    Returns
    -------
    AdaptiveResult

    Examples
    --------
    >>> from irtbridge.irt import as_item_bank
    >>> rng = np.random.default_rng(0)
    >>> items = pd.DataFrame({"a": rng.uniform(1, 2, 200), "b": rng.normal(size=200)},
    ...                      index=[f"q{j}" for j in range(200)])
    >>> bank = as_item_bank(items, "2PL")
    >>> truth = dict(zip(items.index, (rng.random(200) < 1 / (1 + np.exp(-items.a * (0.5 - items.b)))).astype(int)))
    >>> res = adaptive_evaluate(truth.__getitem__, bank, stop=0.3)
    >>> res.stop, res.se < 0.3, res.n_items < 50
    ('se', True, True)
    """
    if not callable(answer):
        raise ValidationError(f"answer must be a callable item -> 0/1, got {type(answer).__name__}")
    bank = bank_of(calibration)
    if not bank.dichotomous:
        raise ValidationError("adaptive_evaluate needs a dichotomous calibration (rasch, 1PL-4PL)")
    stop = check_number(stop, "stop", low=0.0, low_open=True)
    selection = check_choice(selection, "selection", SELECTIONS)
    if max_items is not None:
        max_items = check_int(max_items, "max_items", low=1)
    names = [str(n) for n in bank.names]
    selector = MaxInfoSelector() if selection == "maxinfo" else RandomSelector()
    var = float(getattr(calibration, "latent_var", 1.0) or 1.0)
    estimator = AbilityEstimator(method="EAP", prior=(0.0, float(np.sqrt(var))), quadrature=121)
    try:
        cat = simulate_cat(bank, respond=_live(answer, names), n_examinees=1, selector=selector,
                           estimator=estimator, stopper=StandardErrorStopper(stop, max_items=max_items),
                           random_state=seed)
    except _BadAnswer as exc:
        raise ValidationError(str(exc)) from None
    given = [int(j) for j in cat.items[0] if j >= 0]
    used = [names[j] for j in given]
    values = [float(v) for v in cat.responses[0][: len(given)]]
    est = cat.estimates.iloc[0]
    if used:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="the calibration has", category=UserWarning)
            perf = estimate_performance(pd.DataFrame([values], columns=used), calibration, used).iloc[0]
        warn_small_calibration(calibration, "read lower and upper as a lower bound on the uncertainty")
        accuracy, lower, upper = float(perf["accuracy"]), float(perf["lower"]), float(perf["upper"])
    else:
        accuracy = lower = upper = float("nan")
    return AdaptiveResult(theta=float(est["theta"]), se=float(est["se"]), items=tuple(used), responses=tuple(values),
                          accuracy=accuracy, lower=lower, upper=upper, stop=str(est["stop"]),
                          se_history=cat.se_history[0][: len(given) + 1].copy())
