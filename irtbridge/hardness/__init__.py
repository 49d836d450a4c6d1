"""Cost-sensitive instance hardness from instance cost curves
(Prudêncio, "Cost Sensitive Evaluation of Instance Hardness in Machine Learning").

An *instance cost curve* plots the loss a scoring model incurs on one instance along the cost
proportion ``c in [0, 1]``; the *instance hardness* is the area under that curve, averaged over a pool
of models. Each threshold choice method (TCM) gives its own curve and its own hardness:

======  ================  ====================================  ================================
method  threshold T(c)    hardness of a class-0 instance        hardness of a class-1 instance
======  ================  ====================================  ================================
``sf``  fixed ``t``       ``[s > t]`` (0|1 loss)                ``[s <= t]``
``sd``  ``c``             ``s**2`` (squared error)              ``(1 - s)**2``
``rd``  ``R^-1(c)``       ``R**2 + d*(d/3 - R)`` (Eq. 22)       ``(1-R)**2 + d*(d/3 + 1 - R)`` (26)
``su``  ``U[0, 1]``       ``s`` (absolute error)                ``1 - s``
``ru``  ``R^-1(U[0,1])``  ``R - d/2``                           ``1 - R + d/2``
======  ================  ====================================  ================================

Conventions (stated once, enforced everywhere)
-----------------------------------------------
* Labels ``y`` are 0 or 1. Scores are ``s = P(y = 1)``, exactly what scikit-learn's
  ``predict_proba(X)[:, 1]`` returns, and lie in ``[0, 1]``.
* In the paper's words class 0 is the "positive" class and ``s`` is the chance of the "negative"
  class 1. An instance is predicted class 0 when ``s <= t`` and class 1 when ``s > t``.
* Costs are normalised to ``c0 + c1 = 2``: a class-0 instance predicted as 1 costs ``c0 = 2c``, a
  class-1 instance predicted as 0 costs ``c1 = 2(1 - c)``.
* ``R(s)`` is the positive rate of a model at threshold ``s``: the share of the ``n`` instances it
  scores ``<= s``. ``l`` is the number of instances sharing the score ``s`` (the instance itself
  included) and ``d = l/n``; ``R - d`` is the rate just below ``s``. Between the two rates the
  instance is predicted class 0 with the interpolated frequency of Eqs. 21-26 (the paper's "stochastic
  interpolation"); with ``n`` large and no ties ``rd`` tends to ``R**2`` / ``(1 - R)**2`` (Eqs. 20, 24).
* Comparisons of scores allow for rounding noise (``irtbridge._ties``): scores within ``1e-9`` of
  each other are tied (one ``l``) and a score within ``1e-9`` of ``t`` (or of ``c``) counts as equal
  to it, so the last bits of a ``predict_proba`` never change a rate or a prediction.
* A pool of scores is shaped ``(n_models, n_instances)``; one model may be given as a vector.
  Pool hardness is the mean over models, class hardness the mean over the instances of a class.

Everything is vectorised: the rates of all models come from one sort per model plus run-length
bookkeeping of ties, ``O(n log n)``; there are no pairwise comparisons.

Modules: :mod:`~irtbridge.hardness.curves` (rates, hardness, cost curves),
:mod:`~irtbridge.hardness.pools` (scikit-learn model pools, :class:`PoolHardness`),
:mod:`~irtbridge.hardness.plots` (the figures).
"""

from irtbridge.hardness.curves import (
    METHODS,
    class_cost_curves,
    class_hardness,
    hardness_by_model,
    hardness_table,
    instance_cost_curves,
    instance_hardness,
    positive_rate,
)
from irtbridge.hardness.plots import plot_cost_curves, plot_hardness_map
from irtbridge.hardness.pools import PoolHardness, default_estimators, hardness_from_estimators

__all__ = [
    "METHODS",
    "positive_rate",
    "instance_hardness",
    "class_hardness",
    "hardness_by_model",
    "hardness_table",
    "instance_cost_curves",
    "class_cost_curves",
    "plot_cost_curves",
    "plot_hardness_map",
    "default_estimators",
    "hardness_from_estimators",
    "PoolHardness",
]
