"""Computer-adaptive testing: catsim's component model, vectorized over examinees.

A CAT is four small interchangeable parts and a loop:

* an **initializer** (:class:`FixedPointInitializer`, :class:`RandomInitializer`,
  :class:`PercentileInitializer`) gives each examinee a starting ability;
* a **selector** (:class:`MaxInfoSelector`, :class:`UrrySelector`, :class:`RandomSelector`,
  :class:`RandomesqueSelector`) picks the next item;
* an **estimator** (:class:`AbilityEstimator` with EAP/MAP/ML from :mod:`irtbridge.irt`, or the
  staircase :class:`StepEstimator`) updates the ability and its standard error;
* a **stopper** (:class:`FixedLengthStopper`, :class:`StandardErrorStopper`) ends the test;
* :func:`simulate_cat` runs them for many examinees at once and returns a :class:`CATResult` with the
  trajectories and the item exposure.

The four roles are :mod:`typing.Protocol` classes (:mod:`irtbridge.cat.protocols`) that name every
method the simulator calls, so a user-written component needs no base class. Each component can also
be called on its own (the counterparts of catR's ``nextItem``, ``thetaEst`` and ``semTheta``).

Examples
--------
>>> import numpy as np, pandas as pd
>>> from irtbridge.cat import simulate_cat, StandardErrorStopper
>>> rng = np.random.default_rng(0)
>>> bank = pd.DataFrame({"a": rng.uniform(1, 2, 100), "b": rng.normal(size=100)})
>>> res = simulate_cat(bank, "2PL", theta=np.zeros(20), random_state=0,
...                    stopper=StandardErrorStopper(0.4, max_items=30))
>>> bool((res.estimates["se"] < 0.4).all())
True
"""

from irtbridge.cat.estimators import AbilityEstimator, StepEstimator, step_size
from irtbridge.cat.initializers import FixedPointInitializer, PercentileInitializer, RandomInitializer, item_locations
from irtbridge.cat.selectors import (
    MaxInfoSelector,
    RandomesqueSelector,
    RandomSelector,
    UrrySelector,
    information_matrix,
)
from irtbridge.cat.protocols import Estimator, Initializer, Selector, Stopper
from irtbridge.cat.simulator import CATResult, draw_responses, simulate_cat
from irtbridge.cat.stoppers import FixedLengthStopper, StandardErrorStopper

__all__ = [
    "FixedPointInitializer",
    "RandomInitializer",
    "PercentileInitializer",
    "item_locations",
    "MaxInfoSelector",
    "UrrySelector",
    "RandomSelector",
    "RandomesqueSelector",
    "information_matrix",
    "AbilityEstimator",
    "StepEstimator",
    "step_size",
    "FixedLengthStopper",
    "StandardErrorStopper",
    "simulate_cat",
    "draw_responses",
    "CATResult",
    "Initializer",
    "Selector",
    "Estimator",
    "Stopper",
]
