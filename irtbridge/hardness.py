"""Cost-sensitive instance hardness from instance cost curves (Prudêncio, "Cost Sensitive Evaluation of Instance Hardness in Machine Learning").

An *instance cost curve* plots the loss a scoring model incurs on one instance along the cost
proportion ``c in [0, 1]``; the *instance hardness* is the area under that curve, averaged over a pool
of models. Each threshold choice method (TCM) gives its own curve and its own hardness:

======  ==============  ====================================  ================================
method  threshold T(c)  hardness of a class-0 instance        hardness of a class-1 instance
======  ==============  ====================================  ================================
``sf``  fixed ``t``     ``[s > t]`` (0|1 loss)                ``[s <= t]``
``sd``  ``c``           ``s**2`` (squared error)              ``(1 - s)**2``
``rd``  ``R^-1(c)``     ``R**2 + d*(d/3 - R)`` (Eq. 22)       ``(1-R)**2 + d*(d/3 + 1 - R)`` (26)
``su``  ``U[0, 1]``     ``s`` (absolute error)                ``1 - s``
``ru``  ``R^-1(U[0,1])`` ``R - d/2``                          ``1 - R + d/2``
======  ==============  ====================================  ================================

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
* A pool of scores is shaped ``(n_models, n_instances)``; one model may be given as a vector.
  Pool hardness is the mean over models, class hardness the mean over the instances of a class.

Everything is vectorised: the rates of all models come from one sort per model plus run-length
bookkeeping of ties, ``O(n log n)``; there are no pairwise comparisons.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, NamedTuple, Sequence

import numpy as np
import pandas as pd

from irtbridge._validation import (
    _show,
    check_binary_labels,
    check_choice,
    check_int,
    check_number,
    check_probability,
    check_random_state,
    check_scores,
)
from irtbridge.exceptions import DataWarning, ValidationError

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

#: The five threshold choice methods, in the paper's order.
METHODS = ("sf", "sd", "rd", "su", "ru")

_METHOD_NAMES = {
    "sf": "score-fixed",
    "sd": "score-driven",
    "rd": "rate-driven",
    "su": "score-uniform",
    "ru": "rate-uniform",
}

_DEFAULT_GRID_SIZE = 101


# --------------------------------------------------------------------------------------------------
# input handling
# --------------------------------------------------------------------------------------------------


class _Pool(NamedTuple):
    y: np.ndarray  # (n,) int8
    scores: np.ndarray  # (m, n) float64
    index: pd.Index  # instance labels
    models: pd.Index  # model labels


def _check_method(method: Any) -> str:
    return check_choice(method, "method", METHODS, ignore_case=True)


def _check_methods(methods: Any) -> list[str]:
    if methods is None:
        return list(METHODS)
    if isinstance(methods, str):
        return [_check_method(methods)]
    out = [_check_method(m) for m in methods]
    if not out:
        raise ValidationError("methods is empty; give one or more of " + ", ".join(map(repr, METHODS)))
    if len(set(out)) != len(out):
        raise ValidationError(f"methods={_show(list(methods))} names a method twice")
    return out


def _check_grid(c: Any) -> np.ndarray:
    if c is None:
        return np.linspace(0.0, 1.0, _DEFAULT_GRID_SIZE)
    if isinstance(c, numbers.Real) and not isinstance(c, (bool, np.bool_)):
        c = [c]
    try:
        grid = np.asarray(c, dtype=float)
    except (TypeError, ValueError):
        raise ValidationError(f"c must be numbers in [0, 1], got {_show(c)}") from None
    if grid.ndim != 1 or grid.size == 0:
        raise ValidationError(f"c must be a non-empty 1-D grid of cost proportions, got shape {grid.shape}")
    if not np.isfinite(grid).all() or grid.min() < 0.0 or grid.max() > 1.0:
        raise ValidationError(f"c must hold cost proportions in [0, 1], got {_show(grid.tolist())}")
    return grid


def _pandas_values(obj: pd.Series | pd.DataFrame) -> np.ndarray:
    try:
        return obj.to_numpy(dtype=float, na_value=np.nan)
    except (TypeError, ValueError):
        raise ValidationError("scores must be numeric; it holds values that are not numbers") from None


def _as_pool(y: Any, scores: Any) -> _Pool:
    """Validate ``y`` and ``scores`` and bring them to ``(n,)`` labels and an ``(m, n)`` pool."""
    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise ValidationError(f"y must be one column of 0/1 labels, got a DataFrame with {y.shape[1]} columns")
        y = y.iloc[:, 0]
    labels = check_binary_labels(y, "y")
    n = labels.size
    y_index = y.index if isinstance(y, pd.Series) else None

    if isinstance(scores, pd.DataFrame):
        values = check_scores(_pandas_values(scores), "scores")
        inst_index, models = scores.columns, scores.index
        if y_index is not None and not inst_index.equals(y_index):
            if scores.index.equals(y_index):
                raise ValidationError(
                    f"scores has shape {scores.shape} with instances as rows; a pool is "
                    "(n_models, n_instances): pass scores.T"
                )
            raise ValidationError(
                "the columns of scores (instances) do not match the index of y; align them, e.g. "
                "scores = scores.loc[:, y.index]"
            )
    elif isinstance(scores, pd.Series):
        values = check_scores(_pandas_values(scores), "scores")
        inst_index = scores.index
        models = pd.Index([scores.name if scores.name is not None else "m1"])
        if y_index is not None and not inst_index.equals(y_index):
            raise ValidationError(
                "the index of scores does not match the index of y; align them, e.g. scores = scores.loc[y.index]"
            )
    else:
        try:
            raw = np.asarray(scores, dtype=float)
        except (TypeError, ValueError):
            raise ValidationError("scores must be numeric; it holds values that are not numbers") from None
        if raw.ndim not in (1, 2):
            raise ValidationError(
                f"scores must be (n_instances,) for one model or (n_models, n_instances) for a pool, "
                f"got shape {raw.shape}"
            )
        values = check_scores(raw, "scores")
        inst_index = None
        models = pd.Index([f"m{k + 1}" for k in range(values.shape[0] if values.ndim == 2 else 1)])

    if values.ndim == 1:
        values = values[np.newaxis, :]
    if values.ndim != 2:
        raise ValidationError(f"scores must be 1-D or 2-D, got shape {values.shape}")
    if values.shape[1] != n:
        if values.shape[0] == n:
            raise ValidationError(
                f"scores has shape {values.shape}, i.e. instances as rows; a pool is "
                f"(n_models, n_instances) = ({values.shape[1]}, {n}): pass scores.T"
            )
        raise ValidationError(
            f"y has {n} instances but scores has {values.shape[1]} per model (shape {values.shape}); "
            "give one score per instance"
        )
    if values.shape[0] == 0:
        raise ValidationError("scores holds no model (shape (0, n_instances))")
    index = y_index if y_index is not None else (inst_index if inst_index is not None else pd.RangeIndex(n))
    return _Pool(labels, np.ascontiguousarray(values, dtype=float), index, models)


# --------------------------------------------------------------------------------------------------
# rates and the per-model kernels
# --------------------------------------------------------------------------------------------------


def _rate_counts(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(#{j : s_j <= s_i}, #{j : s_j < s_i})`` for every entry of an ``(m, n)`` pool.

    Notes
    -----
    After sorting a model's scores, a run of equal scores occupies positions ``[start, start + l)``;
    every member of the run has ``#{s_j < s} = start`` and ``#{s_j <= s} = start + l``. Runs are found
    where the sorted value changes, so the cost is one ``O(n log n)`` sort per model plus ``O(n)``
    bookkeeping, and no pairwise comparison.
    """
    m, n = scores.shape
    upto = np.empty((m, n), dtype=np.int64)
    below = np.empty((m, n), dtype=np.int64)
    for k in range(m):  # models are few; each iteration is vectorised over the n instances
        order = np.argsort(scores[k])  # any order within a run of ties gives the same counts
        ordered = scores[k][order]
        new_run = np.empty(n, dtype=bool)
        new_run[0] = True
        np.not_equal(ordered[1:], ordered[:-1], out=new_run[1:])
        starts = np.flatnonzero(new_run)
        lengths = np.diff(starts, append=n)
        below[k, order] = np.repeat(starts, lengths)
        upto[k, order] = np.repeat(starts + lengths, lengths)
    return upto, below


def _rates(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(R(s), R(s) - l/n)`` for every entry of an ``(m, n)`` pool."""
    upto, below = _rate_counts(scores)
    n = scores.shape[1]
    return upto / n, below / n


def _hardness_matrix(
    y: np.ndarray, scores: np.ndarray, method: str, threshold: float, rates: tuple[np.ndarray, np.ndarray] | None = None
) -> np.ndarray:
    """Closed-form hardness of every (model, instance) pair, shape ``(m, n)``; ``rates`` may reuse
    the output of :func:`_rates` for the same scores."""
    neg = y.astype(bool)[np.newaxis, :]  # class 1, the paper's "negative" class
    if method == "sf":
        return np.where(neg, scores <= threshold, scores > threshold).astype(float)
    if method == "sd":
        return np.square(neg - scores)
    if method == "su":
        return np.abs(neg - scores)
    rate, below = _rates(scores) if rates is None else rates
    if method == "ru":
        mid = 0.5 * (rate + below)
        return np.where(neg, 1.0 - mid, mid)
    # rd: Eq. 22 is R^2 + d(d/3 - R) = (a^2 + aR + R^2)/3 with a = R - d, and Eq. 26 is the mirror image
    # in the negative rates 1 - a and 1 - R. This form adds non-negative terms only (no cancellation).
    hi = np.where(neg, 1.0 - below, rate)
    lo = np.where(neg, 1.0 - rate, below)
    return (hi * hi + hi * lo + lo * lo) / 3.0


def _predicted_negative(
    scores_row: np.ndarray, rate: np.ndarray | None, below: np.ndarray | None, method: str, threshold: float, c: np.ndarray
) -> np.ndarray:
    """Probability that each instance is predicted class 1 at each cost proportion, shape ``(n, k)``."""
    s = scores_row[:, np.newaxis]
    if method == "sf":
        return np.broadcast_to(s > threshold, (s.shape[0], c.size)).astype(float)
    if method == "sd":
        return (s > c[np.newaxis, :]).astype(float)
    if method == "su":
        return np.broadcast_to(s, (s.shape[0], c.size))
    r = rate[:, np.newaxis]
    b = below[:, np.newaxis]
    if method == "ru":
        return np.broadcast_to(0.5 * (r + b), (s.shape[0], c.size))
    # rd: predicted class 1 for desired rates below R - d, class 0 from R on, linear in between (Eq. 21)
    return np.clip((r - c[np.newaxis, :]) / (r - b), 0.0, 1.0)


def _curve_matrix(pool: _Pool, method: str, threshold: float, c: np.ndarray) -> np.ndarray:
    """Instance cost curves averaged over the pool, shape ``(n, k)``."""
    neg = pool.y.astype(bool)[:, np.newaxis]
    cost0 = 2.0 * c[np.newaxis, :]
    cost1 = 2.0 * (1.0 - c[np.newaxis, :])
    if method in ("rd", "ru"):
        rate, below = _rates(pool.scores)
    else:
        rate = below = None
    total = np.zeros((pool.y.size, c.size))
    for k in range(pool.scores.shape[0]):
        p_neg = _predicted_negative(
            pool.scores[k], None if rate is None else rate[k], None if below is None else below[k], method, threshold, c
        )
        total += np.where(neg, cost1 * (1.0 - p_neg), cost0 * p_neg)
    return total / pool.scores.shape[0]


def _class_means(values: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Mean of ``values`` (``(n,)`` or ``(n, k)``) within class 0 and class 1; NaN for an absent class."""
    counts = np.bincount(y, minlength=2).astype(float)
    if (counts == 0).any():
        missing = int(np.flatnonzero(counts == 0)[0])
        warnings.warn(
            f"y holds no instance of class {missing}; its class hardness is NaN", DataWarning, stacklevel=3
        )
    sums = np.stack([values[y == 0].sum(axis=0), values[y == 1].sum(axis=0)])
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / (counts if values.ndim == 1 else counts[:, np.newaxis])


# --------------------------------------------------------------------------------------------------
# public functions
# --------------------------------------------------------------------------------------------------


def positive_rate(scores: Any) -> pd.DataFrame:
    """Positive rate ``R(s)`` of one model at each instance's score, and the rate just below it.

    Parameters
    ----------
    scores : array-like of shape (n_instances,)
        Scores ``s = P(y = 1)`` of one model, in ``[0, 1]``.

    Returns
    -------
    pandas.DataFrame
        Indexed like ``scores`` (a RangeIndex for arrays), with columns ``rate`` (``R(s)``, the share of
        instances scored ``<= s``), ``previous_rate`` (``R(s) - l/n``, the share scored ``< s``) and
        ``ties`` (``l``, the number of instances with score ``s``, the instance itself included).

    Notes
    -----
    ``R(t) = #{j : s_j <= t} / n`` is the proportion of instances predicted class 0 (the paper's
    "positive" class) at threshold ``t``. Between ``previous_rate`` and ``rate`` the rate-driven
    threshold cannot separate the tied instances, which is where Eqs. 21-26 interpolate.

    Examples
    --------
    >>> from irtbridge.hardness import positive_rate
    >>> positive_rate([0.7, 0.8, 0.8, 0.7, 0.8, 0.75, 0.1, 0.55, 0.8, 0.15]).loc[5].tolist()
    [0.6, 0.5, 1.0]
    """
    index = scores.index if isinstance(scores, pd.Series) else None
    values = check_scores(_pandas_values(scores) if index is not None else scores, "scores")
    if values.ndim != 1:
        raise ValidationError(f"scores must be the (n_instances,) scores of one model, got shape {values.shape}")
    upto, below = _rate_counts(values[np.newaxis, :])
    n = values.size
    return pd.DataFrame(
        {"rate": upto[0] / n, "previous_rate": below[0] / n, "ties": upto[0] - below[0]},
        index=index if index is not None else pd.RangeIndex(n),
    )


def instance_hardness(y: Any, scores: Any, method: str = "rd", threshold: float = 0.5) -> pd.Series:
    """Instance hardness: area under each instance's cost curve, averaged over a pool of models.

    Parameters
    ----------
    y : array-like of shape (n_instances,)
        Labels, 0 or 1.
    scores : array-like of shape (n_instances,) or (n_models, n_instances)
        Scores ``s = P(y = 1)`` in ``[0, 1]`` (scikit-learn's ``predict_proba(X)[:, 1]``). A DataFrame
        pool has models as rows and instances as columns.
    method : {"sf", "sd", "rd", "su", "ru"}, default "rd"
        Threshold choice method: score-fixed, score-driven, rate-driven, score-uniform, rate-uniform.
    threshold : float, default 0.5
        The fixed threshold of ``sf`` (ignored by the other methods).

    Returns
    -------
    pandas.Series
        Hardness in ``[0, 1]`` per instance, indexed like ``y`` (or the columns of a DataFrame pool; a
        RangeIndex for plain arrays), named after the method.

    Notes
    -----
    With ``IH = int_0^1 QI(s, T(c), c) dc`` (Eqs. 6, 9), ``R`` the positive rate at ``s`` and
    ``d = l/n`` the share of instances tied at ``s``:

    * ``sf``: ``[s > t]`` for class 0, ``[s <= t]`` for class 1 (Eqs. 13-14): the 0|1 loss.
    * ``sd``: ``(y - s)**2`` (Eqs. 16, 18): the squared error.
    * ``rd``: ``R**2 + d*(d/3 - R)`` for class 0 (Eq. 22), ``(1 - R)**2 + d*(d/3 + 1 - R)`` for class 1
      (Eq. 26).
    * ``su``: ``|y - s|`` (Eqs. 28, 30): the absolute error.
    * ``ru``: ``R - d/2`` for class 0, ``1 - R + d/2`` for class 1. Eqs. 32 and 34 give ``R`` and
      ``1 - R`` for continuous scores; with a finite pool the uniformly drawn rate falls between ``R - d``
      and ``R`` with probability ``d``, and the same interpolation as ``rd`` gives the ``d/2`` term, so
      that ``ru`` is the average over rates of the ``rd`` decision. It vanishes as ``n`` grows.

    Examples
    --------
    >>> from irtbridge.hardness import instance_hardness
    >>> instance_hardness([0, 1], [0.2, 0.6], method="sd").round(12).tolist()
    [0.04, 0.16]
    >>> instance_hardness([0, 1], [[0.2, 0.6], [0.7, 0.9]], method="sf").tolist()
    [0.5, 0.0]
    """
    method = _check_method(method)
    threshold = check_probability(threshold, "threshold")
    pool = _as_pool(y, scores)
    values = _hardness_matrix(pool.y, pool.scores, method, threshold).mean(axis=0)
    return pd.Series(values, index=pool.index, name=method)


def class_hardness(y: Any, scores: Any, method: str = "rd", threshold: float = 0.5) -> pd.Series:
    """Class hardness: the mean instance hardness within class 0 and within class 1.

    Parameters
    ----------
    y, scores, method, threshold
        As in :func:`instance_hardness`.

    Returns
    -------
    pandas.Series
        Indexed by ``class`` (0 and 1), named after the method. An absent class gives NaN and a
        :class:`~irtbridge.exceptions.DataWarning`.

    Notes
    -----
    ``CH_k = mean_{i : y_i = k} IH(x_i)``, an estimate of the class loss ``L_k / pi_k`` of Eqs. 7 and 10.

    Examples
    --------
    >>> from irtbridge.hardness import class_hardness
    >>> class_hardness([0, 0, 1, 1], [0.2, 0.6, 0.4, 0.9], method="sf").tolist()
    [0.5, 0.5]
    """
    method = _check_method(method)
    threshold = check_probability(threshold, "threshold")
    pool = _as_pool(y, scores)
    values = _hardness_matrix(pool.y, pool.scores, method, threshold).mean(axis=0)
    return pd.Series(_class_means(values, pool.y), index=pd.Index([0, 1], name="class"), name=method)


def hardness_by_model(y: Any, scores: Any, method: str = "rd", threshold: float = 0.5) -> pd.DataFrame:
    """Instance hardness under each model of the pool separately (before averaging).

    Parameters
    ----------
    y, scores, method, threshold
        As in :func:`instance_hardness`.

    Returns
    -------
    pandas.DataFrame
        Shape ``(n_instances, n_models)``: indexed like ``y``, one column per model (the index of a
        DataFrame pool, ``m1, m2, ...`` otherwise). Its row means are :func:`instance_hardness`.

    Examples
    --------
    >>> from irtbridge.hardness import hardness_by_model
    >>> hardness_by_model([0, 1], [[0.2, 0.6], [0.7, 0.9]], method="su").round(12).to_dict("list")
    {'m1': [0.2, 0.4], 'm2': [0.7, 0.1]}
    """
    method = _check_method(method)
    threshold = check_probability(threshold, "threshold")
    pool = _as_pool(y, scores)
    values = _hardness_matrix(pool.y, pool.scores, method, threshold)
    return pd.DataFrame(values.T, index=pool.index, columns=pool.models)


def hardness_table(y: Any, scores: Any, methods: Sequence[str] | None = None, threshold: float = 0.5) -> pd.DataFrame:
    """Instance hardness under several threshold choice methods side by side.

    Parameters
    ----------
    y, scores, threshold
        As in :func:`instance_hardness`.
    methods : sequence of str, optional
        Methods to compute, default all five (``sf, sd, rd, su, ru``).

    Returns
    -------
    pandas.DataFrame
        Indexed like ``y``; a ``label`` column (0/1) followed by one column per method. Class hardness of
        every method is ``table.groupby("label").mean()``.

    Examples
    --------
    >>> from irtbridge.hardness import hardness_table
    >>> hardness_table([0, 1], [0.2, 0.4], methods=["sf", "su"]).round(12).to_dict("list")
    {'label': [0, 1], 'sf': [0.0, 1.0], 'su': [0.2, 0.6]}
    """
    methods = _check_methods(methods)
    threshold = check_probability(threshold, "threshold")
    pool = _as_pool(y, scores)
    columns: dict[str, np.ndarray] = {"label": pool.y.astype(int)}
    # rd and ru share the positive rates: sort once
    rates = _rates(pool.scores) if {"rd", "ru"} & set(methods) else None
    for method in methods:
        columns[method] = _hardness_matrix(pool.y, pool.scores, method, threshold, rates).mean(axis=0)
    return pd.DataFrame(columns, index=pool.index)


def instance_cost_curves(
    y: Any, scores: Any, method: str = "rd", c: Any = None, threshold: float = 0.5
) -> pd.DataFrame:
    """Instance cost curves ``QI(s, T(c), c)`` on a grid of cost proportions, averaged over the pool.

    Parameters
    ----------
    y, scores, method, threshold
        As in :func:`instance_hardness`.
    c : float or array-like, optional
        Cost proportions in ``[0, 1]``; default 101 equally spaced points ``0, 0.01, ..., 1``.

    Returns
    -------
    pandas.DataFrame
        Shape ``(n_instances, len(c))``: indexed like ``y``, one column per cost proportion (columns
        named ``c``). The area under each row is the :func:`instance_hardness` of that instance.

    Notes
    -----
    With ``p(c)`` the probability that the instance is predicted class 1 at cost proportion ``c``, the
    curve is ``2c p(c)`` for a class-0 instance (Eq. 5) and ``2(1 - c)(1 - p(c))`` for a class-1 instance
    (Eq. 8), where ``p(c)`` is ``[s > t]`` (sf), ``[s > c]`` (sd, Eqs. 15/17),
    ``clip((R - c)/d, 0, 1)`` (rd, Eqs. 19/21/23/25), ``s`` (su, Eqs. 27/29) and ``R - d/2`` (ru,
    Eqs. 31/33 with the tie interpolation). Memory is ``n_instances * len(c)`` floats.

    Examples
    --------
    >>> from irtbridge.hardness import instance_cost_curves
    >>> instance_cost_curves([0], [0.6], method="sd", c=[0.25, 0.5, 0.75]).iloc[0].tolist()
    [0.5, 1.0, 0.0]
    """
    method = _check_method(method)
    threshold = check_probability(threshold, "threshold")
    grid = _check_grid(c)
    pool = _as_pool(y, scores)
    curves = _curve_matrix(pool, method, threshold, grid)
    return pd.DataFrame(curves, index=pool.index, columns=pd.Index(grid, name="c"))


def class_cost_curves(y: Any, scores: Any, method: str = "rd", c: Any = None, threshold: float = 0.5) -> pd.DataFrame:
    """Class cost curves: the mean instance cost curve of each class (Fig. 7 of Prudêncio's cost-sensitive hardness paper).

    Parameters
    ----------
    y, scores, method, c, threshold
        As in :func:`instance_cost_curves`.

    Returns
    -------
    pandas.DataFrame
        Shape ``(2, len(c))``: index ``class`` (0, 1), one column per cost proportion. The area under a
        row is the :func:`class_hardness` of that class.

    Examples
    --------
    >>> from irtbridge.hardness import class_cost_curves
    >>> class_cost_curves([0, 1], [0.2, 0.6], method="su", c=[0.0, 0.5, 1.0]).round(12).values.tolist()
    [[0.0, 0.2, 0.4], [0.8, 0.4, 0.0]]
    """
    method = _check_method(method)
    threshold = check_probability(threshold, "threshold")
    grid = _check_grid(c)
    pool = _as_pool(y, scores)
    curves = _class_means(_curve_matrix(pool, method, threshold, grid), pool.y)
    return pd.DataFrame(curves, index=pd.Index([0, 1], name="class"), columns=pd.Index(grid, name="c"))


# --------------------------------------------------------------------------------------------------
# plots
# --------------------------------------------------------------------------------------------------

_CLASS_COLOURS = {0: "tab:red", 1: "tab:blue"}


def plot_cost_curves(
    y: Any,
    scores: Any,
    methods: str | Sequence[str] = ("sf", "sd", "rd"),
    *,
    instances: Iterable[Any] | None = None,
    c: Any = None,
    threshold: float = 0.5,
    figsize: tuple[float, float] | None = None,
):
    """Plot instance cost curves and the two class cost curves, one panel per method (Figs. 5-7).

    Parameters
    ----------
    y, scores, threshold
        As in :func:`instance_hardness`.
    methods : str or sequence of str, default ("sf", "sd", "rd")
        One panel per method.
    instances : iterable of labels, optional
        Instances (labels of ``y``'s index) whose own curves are drawn as thin lines, coloured by class
        and annotated with their hardness. Default: every instance when there are at most 30, none
        otherwise. The class cost curves are always drawn (thick), with the class hardness in the legend.
    c : array-like, optional
        Cost-proportion grid (default 101 points on ``[0, 1]``).
    figsize : (float, float), optional
        Figure size in inches.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from irtbridge.hardness import plot_cost_curves
    >>> fig = plot_cost_curves([0, 0, 1, 1], [0.2, 0.6, 0.4, 0.9], methods="rd")
    >>> len(fig.axes)
    1
    """
    import matplotlib.pyplot as plt

    methods = _check_methods(methods)
    threshold = check_probability(threshold, "threshold")
    grid = _check_grid(c)
    pool = _as_pool(y, scores)
    if instances is None:
        chosen = np.arange(pool.y.size) if pool.y.size <= 30 else np.arange(0)
    else:
        wanted = list(instances)
        positions = pool.index.get_indexer(wanted)
        if (positions < 0).any():
            bad = [w for w, p in zip(wanted, positions) if p < 0]
            raise ValidationError(f"instances {_show(bad)} are not labels of y's index")
        chosen = positions
    fig, axes = plt.subplots(1, len(methods), figsize=figsize or (4.2 * len(methods), 3.8), squeeze=False)
    for ax, method in zip(axes[0], methods):
        curves = _curve_matrix(pool, method, threshold, grid)
        hardness = _hardness_matrix(pool.y, pool.scores, method, threshold).mean(axis=0)
        for i in chosen:
            ax.plot(grid, curves[i], color=_CLASS_COLOURS[int(pool.y[i])], lw=0.8, alpha=0.6)
            peak = int(np.argmax(curves[i]))
            ax.annotate(
                f"{pool.index[i]} ({hardness[i]:.2f})", (grid[peak], curves[i][peak]), fontsize=6, alpha=0.8
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DataWarning)
            means = _class_means(curves, pool.y)
            ch = _class_means(hardness, pool.y)
        for k in (0, 1):
            if np.isfinite(ch[k]):
                ax.plot(grid, means[k], color=_CLASS_COLOURS[k], lw=2.5, label=f"class {k}: CH = {ch[k]:.3f}")
        ax.set_title(f"{_METHOD_NAMES[method]} ({method})")
        ax.set_xlabel("cost proportion c")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 2)
        ax.legend(fontsize=7, loc="upper center")
    axes[0][0].set_ylabel("loss")
    fig.tight_layout()
    return fig


def plot_hardness_map(
    X: Any,
    hardness: Any,
    y: Any = None,
    *,
    scale: bool = True,
    cmap: str = "viridis",
    vmax: float | None = None,
    label: str = "hardness",
    figsize: tuple[float, float] | None = None,
):
    """Map instance hardness on the first two principal components of the features (Figs. 8-12).

    Parameters
    ----------
    X : array-like of shape (n_instances, n_features)
        Numeric features.
    hardness : array-like of shape (n_instances,) or DataFrame
        Hardness per instance (a Series from :func:`instance_hardness`), or a DataFrame with one column
        per panel (e.g. :func:`hardness_table` without ``label``, or :func:`instance_cost_curves` at a few
        values of ``c``). NaN leaves an instance out of the colour map (drawn grey), e.g. to show one
        class at a time on the PCA of all instances.
    y : array-like of shape (n_instances,), optional
        Labels; when given, class 0 is drawn with triangles and class 1 with circles.
    scale : bool, default True
        Standardise each feature before the PCA (features on different scales would otherwise dominate).
    cmap : str, default "viridis"
        Matplotlib colormap of the hardness.
    vmax : float, optional
        Upper end of the colour scale; default the largest value shown (``c``-specific losses reach 2).
    label : str, default "hardness"
        Colour bar label (e.g. "loss" for cost-curve values at fixed ``c``).
    figsize : (float, float), optional

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    The PCA is an SVD of the (standardised, centred) feature matrix, the same as
    ``prcomp(X, scale. = TRUE)$x[, 1:2]`` in R up to the sign of each component.

    Examples
    --------
    >>> import numpy as np
    >>> from irtbridge.hardness import plot_hardness_map
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> fig = plot_hardness_map(X, np.linspace(0, 1, 20))
    >>> len(fig.axes)  # the map and its colour bar
    2
    """
    import matplotlib.pyplot as plt

    if isinstance(X, pd.DataFrame):
        bad = [str(col) for col, dt in X.dtypes.items() if not pd.api.types.is_numeric_dtype(dt)]
        if bad:
            raise ValidationError(f"X has non-numeric column(s) {', '.join(map(repr, bad[:5]))}; encode them first")
    try:
        features = np.asarray(X, dtype=float)
    except (TypeError, ValueError):
        raise ValidationError("X must hold numbers only") from None
    if features.ndim != 2 or features.shape[1] < 2:
        raise ValidationError(f"X must be (n_instances, n_features) with at least 2 features, got shape {features.shape}")
    if not np.isfinite(features).all():
        raise ValidationError("X has missing or infinite values; impute or drop them before mapping")
    panels = hardness if isinstance(hardness, pd.DataFrame) else pd.DataFrame({getattr(hardness, "name", None) or "hardness": np.asarray(hardness, dtype=float)})
    values = panels.to_numpy(dtype=float)
    if values.shape[0] != features.shape[0]:
        raise ValidationError(f"hardness has {values.shape[0]} instances but X has {features.shape[0]} rows")
    if np.isinf(values).any():
        raise ValidationError("hardness has infinite values; use NaN for instances to leave out of a panel")
    if np.isnan(values).all(axis=0).any():
        empty = [str(c) for c, e in zip(panels.columns, np.isnan(values).all(axis=0)) if e]
        raise ValidationError(f"hardness column(s) {', '.join(map(repr, empty))} hold no value to map")
    labels = None if y is None else check_binary_labels(y, "y")
    if labels is not None and labels.size != features.shape[0]:
        raise ValidationError(f"y has {labels.size} labels but X has {features.shape[0]} rows")

    centred = features - features.mean(axis=0)
    if scale:
        sd = centred.std(axis=0, ddof=1)
        centred = centred[:, sd > 0] / sd[sd > 0]
    u, sv, _ = np.linalg.svd(centred, full_matrices=False)
    coords = u[:, :2] * sv[:2]
    explained = sv[:2] ** 2 / np.sum(sv**2)

    top = float(np.nanmax(values)) if vmax is None else check_number(vmax, "vmax", low=0.0, low_open=True)
    ncol = panels.shape[1]
    fig, axes = plt.subplots(
        1, ncol, figsize=figsize or (4.4 * ncol + 0.8, 4.0), squeeze=False, constrained_layout=True
    )
    everyone = np.ones(features.shape[0], dtype=bool)
    groups = [(None, everyone, "o")] if labels is None else [(1, labels == 1, "o"), (0, labels == 0, "^")]
    art = None
    for j, ax in enumerate(axes[0]):
        shown = ~np.isnan(values[:, j])
        # instances without a value stay visible as context, so that panels share one PCA
        ax.scatter(coords[~shown, 0], coords[~shown, 1], c="0.85", marker=".", s=8, edgecolors="none")
        for k, mask, marker in groups:
            mask = mask & shown
            if not mask.any():
                continue
            art = ax.scatter(
                coords[mask, 0], coords[mask, 1], c=values[mask, j], cmap=cmap, vmin=0.0, vmax=max(top, 1e-12),
                marker=marker, s=14, edgecolors="none", label=None if k is None else f"class {k}",
            )
        ax.set_title(str(panels.columns[j]))
        ax.set_xlabel(f"PC1 ({explained[0]:.0%})")
        ax.set_ylabel(f"PC2 ({explained[1]:.0%})")
        if labels is not None:
            ax.legend(fontsize=7, loc="best")
    fig.colorbar(art, ax=list(axes[0]), label=label)
    return fig


# --------------------------------------------------------------------------------------------------
# scores from scikit-learn estimators
# --------------------------------------------------------------------------------------------------


def default_estimators(random_state: int | None = None) -> dict[str, Any]:
    """The paper's five-model pool as scikit-learn estimators (unfitted).

    Parameters
    ----------
    random_state : int, optional
        Seed for the tree and the forest.

    Returns
    -------
    dict
        ``{"tree": ..., "knn5": ..., "logistic": ..., "naive_bayes": ..., "random_forest": ...}``.

    Notes
    -----
    Prudêncio's paper used Weka's J48, IBk (k = 5), Logistic, NaiveBayes and RandomForest with default options.
    The closest scikit-learn equivalents, chosen to keep Weka's defaults where they matter:

    * ``tree``: ``DecisionTreeClassifier(min_samples_leaf=2)`` (J48's ``-M 2``; J48 also prunes, CART
      here does not, so its leaf frequencies are more extreme).
    * ``knn5``: min-max scaling + ``KNeighborsClassifier(5)`` (IBk normalises attributes to [0, 1]).
    * ``logistic``: standardisation + ``LogisticRegression(max_iter=1000)`` (Weka adds a tiny ridge,
      scikit-learn an L2 penalty with ``C = 1``).
    * ``naive_bayes``: ``GaussianNB()`` (Weka models nominal attributes with frequency tables, here every
      column is treated as Gaussian).
    * ``random_forest``: ``RandomForestClassifier(n_estimators=100)`` (Weka 3.8's default size).

    Examples
    --------
    >>> from irtbridge.hardness import default_estimators
    >>> sorted(default_estimators(0))
    ['knn5', 'logistic', 'naive_bayes', 'random_forest', 'tree']
    """
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler, StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    if random_state is not None:
        random_state = check_int(random_state, "random_state", low=0)
    return {
        "tree": DecisionTreeClassifier(min_samples_leaf=2, random_state=random_state),
        "knn5": make_pipeline(MinMaxScaler(), KNeighborsClassifier(n_neighbors=5)),
        "logistic": make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
        "naive_bayes": GaussianNB(),
        "random_forest": RandomForestClassifier(n_estimators=100, random_state=random_state),
    }


def _named_estimators(estimators: Any, seed: int | None) -> dict[str, Any]:
    from sklearn.base import clone

    if estimators is None:
        return default_estimators(seed)
    if isinstance(estimators, Mapping):
        items = list(estimators.items())
    else:
        try:
            items = list(estimators)
        except TypeError:
            raise ValidationError(
                f"estimators must be a dict name -> estimator or a list of estimators, got {_show(estimators)}"
            ) from None
        items = [it if isinstance(it, tuple) and len(it) == 2 and isinstance(it[0], str) else (None, it) for it in items]
    if not items:
        raise ValidationError("estimators is empty; pass at least one classifier (or None for the paper's pool)")
    out: dict[str, Any] = {}
    for name, est in items:
        if not (hasattr(est, "fit") and hasattr(est, "predict_proba")):
            raise ValidationError(
                f"estimator {_show(est)} has no predict_proba; hardness needs scores P(y = 1), e.g. use "
                "SVC(probability=True) or CalibratedClassifierCV"
            )
        label = name if name is not None else type(est).__name__
        base, k = label, 2
        while label in out:
            label, k = f"{base}_{k}", k + 1
        out[label] = clone(est)
    return out


def hardness_from_estimators(
    X: Any,
    y: Any,
    estimators: Any = None,
    cv: Any = 10,
    random_state: Any = None,
    threshold: float = 0.5,
    n_jobs: int | None = None,
) -> "PoolHardness":
    """Score every instance out of fold with a pool of classifiers and return its hardness.

    Parameters
    ----------
    X : array-like of shape (n_instances, n_features)
        Features, numeric (encode categories first).
    y : array-like of shape (n_instances,)
        Labels 0/1.
    estimators : dict, list or None, default None
        Unfitted scikit-learn classifiers with ``predict_proba`` (cloned before use); a dict or
        ``(name, estimator)`` pairs name them. ``None`` uses :func:`default_estimators`, the paper's
        pool.
    cv : int or scikit-learn splitter, default 10
        Folds. An int gives ``StratifiedKFold(cv, shuffle=True)`` seeded by ``random_state`` (Weka's
        cross-validation is also stratified and randomised).
    random_state : int, numpy Generator or None
        Seeds the fold assignment and the default pool's tree and forest.
    threshold : float, default 0.5
        Fixed threshold used by ``sf``.
    n_jobs : int, optional
        Passed to ``cross_val_predict``.

    Returns
    -------
    PoolHardness
        Out-of-fold scores ``(n_models, n_instances)`` with the labels; its methods give instance and
        class hardness, cost curves and plots.

    Notes
    -----
    Equivalent to ``cross_val_predict(est, X, y, cv=cv, method="predict_proba")[:, 1]`` for each
    estimator, stacked into a pool, as in Prudêncio's cost-sensitive hardness paper (scores by 10-fold cross-validation).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from irtbridge.hardness import hardness_from_estimators
    >>> X, y = make_classification(60, 4, random_state=0)
    >>> res = hardness_from_estimators(X, y, {"nb": GaussianNB()}, cv=3, random_state=0)
    >>> res.scores.shape
    (1, 60)
    """
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    labels = check_binary_labels(y.iloc[:, 0] if isinstance(y, pd.DataFrame) and y.shape[1] == 1 else y, "y")
    n = labels.size
    if isinstance(X, pd.DataFrame):
        bad = [str(col) for col, dt in X.dtypes.items() if not (pd.api.types.is_numeric_dtype(dt) or pd.api.types.is_bool_dtype(dt))]
        if bad:
            raise ValidationError(
                f"X has non-numeric column(s) {', '.join(map(repr, bad[:5]))}; encode them first, e.g. pandas.get_dummies(X)"
            )
    try:
        features = np.asarray(X, dtype=float)
    except (TypeError, ValueError):
        raise ValidationError("X must hold numbers only; encode categorical columns first") from None
    if features.ndim != 2:
        raise ValidationError(f"X must be (n_instances, n_features), got shape {features.shape}")
    if features.shape[0] != n:
        raise ValidationError(f"X has {features.shape[0]} rows but y has {n} labels")
    if not np.isfinite(features).all():
        raise ValidationError("X has missing or infinite values; impute or drop them first")
    counts = np.bincount(labels, minlength=2)

    rng = check_random_state(random_state)
    seed = None if random_state is None else int(rng.integers(2**31 - 1))
    if isinstance(cv, numbers.Integral) and not isinstance(cv, (bool, np.bool_)):
        folds = check_int(cv, "cv", low=2)
        if counts.min() < folds:
            raise ValidationError(
                f"cv={folds} needs at least {folds} instances of each class; y has {counts[0]} of class 0 "
                f"and {counts[1]} of class 1"
            )
        splitter = StratifiedKFold(folds, shuffle=True, random_state=seed)
    elif hasattr(cv, "split"):
        splitter = cv
    else:
        raise ValidationError(f"cv must be a number of folds (>= 2) or a scikit-learn splitter, got {_show(cv)}")
    threshold = check_probability(threshold, "threshold")
    pool = _named_estimators(estimators, seed)

    if isinstance(X, pd.DataFrame) and isinstance(y, (pd.Series, pd.DataFrame)) and not X.index.equals(y.index):
        raise ValidationError("the index of X does not match the index of y; align them, e.g. X = X.loc[y.index]")
    index = y.index if isinstance(y, (pd.Series, pd.DataFrame)) else (X.index if isinstance(X, pd.DataFrame) else pd.RangeIndex(n))
    rows = []
    for est in pool.values():
        proba = cross_val_predict(est, features, labels, cv=splitter, method="predict_proba", n_jobs=n_jobs)
        rows.append(proba[:, 1])
    scores = pd.DataFrame(np.vstack(rows), index=pd.Index(list(pool), name="model"), columns=index)
    return PoolHardness(
        y=pd.Series(labels.astype(int), index=index, name="label"),
        scores=scores,
        threshold=threshold,
        cv=repr(splitter),
    )


@dataclass(frozen=True)
class PoolHardness:
    """Labels and out-of-fold scores of a pool of models, with their hardness.

    Returned by :func:`hardness_from_estimators`; also built directly from any pool of scores.

    Attributes
    ----------
    y : pandas.Series
        Labels 0/1, indexed by instance.
    scores : pandas.DataFrame
        ``(n_models, n_instances)`` scores ``P(y = 1)``: one row per model, columns like ``y.index``.
    threshold : float
        The fixed threshold of ``sf``.
    cv : str
        How the scores were obtained (the splitter's repr), for provenance.

    Examples
    --------
    >>> import pandas as pd
    >>> from irtbridge.hardness import PoolHardness
    >>> res = PoolHardness(pd.Series([0, 1]), pd.DataFrame([[0.2, 0.6]]))
    >>> res.class_hardness("sd").round(12).tolist()
    [0.04, 0.16]
    """

    y: pd.Series
    scores: pd.DataFrame
    threshold: float = 0.5
    cv: str = ""

    def __post_init__(self) -> None:
        pool = _as_pool(self.y, self.scores)
        object.__setattr__(self, "y", pd.Series(pool.y.astype(int), index=pool.index, name="label"))
        object.__setattr__(self, "scores", pd.DataFrame(pool.scores.copy(), index=pool.models, columns=pool.index))
        object.__setattr__(self, "threshold", check_probability(self.threshold, "threshold"))

    def instance_hardness(self, method: str = "rd") -> pd.Series:
        """Pool-averaged hardness per instance; see :func:`instance_hardness`."""
        return instance_hardness(self.y, self.scores, method, self.threshold)

    def class_hardness(self, method: str = "rd") -> pd.Series:
        """Mean hardness per class; see :func:`class_hardness`."""
        return class_hardness(self.y, self.scores, method, self.threshold)

    def by_model(self, method: str = "rd") -> pd.DataFrame:
        """Hardness per instance and model; see :func:`hardness_by_model`."""
        return hardness_by_model(self.y, self.scores, method, self.threshold)

    def table(self, methods: Sequence[str] | None = None) -> pd.DataFrame:
        """Instance hardness under every method; see :func:`hardness_table`."""
        return hardness_table(self.y, self.scores, methods, self.threshold)

    def class_table(self, methods: Sequence[str] | None = None) -> pd.DataFrame:
        """Class hardness, one row per class and one column per method."""
        table = self.table(methods)
        out = table.drop(columns="label").groupby(table["label"]).mean()
        out.index.name = "class"
        return out.reindex([0, 1])

    def model_class_table(self, method: str = "rd") -> pd.DataFrame:
        """Class hardness of each model alone: one row per model, columns ``0`` and ``1``."""
        per = self.by_model(method)
        out = per.groupby(self.y.to_numpy()).mean().T.reindex(columns=[0, 1])
        out.columns.name = "class"
        return out

    def instance_cost_curves(self, method: str = "rd", c: Any = None) -> pd.DataFrame:
        """See :func:`instance_cost_curves`."""
        return instance_cost_curves(self.y, self.scores, method, c, self.threshold)

    def class_cost_curves(self, method: str = "rd", c: Any = None) -> pd.DataFrame:
        """See :func:`class_cost_curves`."""
        return class_cost_curves(self.y, self.scores, method, c, self.threshold)

    def plot_cost_curves(self, methods: str | Sequence[str] = METHODS, **kwargs: Any):
        """See :func:`plot_cost_curves`."""
        return plot_cost_curves(self.y, self.scores, methods, threshold=self.threshold, **kwargs)

    def summary(self) -> str:
        """Class hardness under every method and per model, as text."""
        lines = [
            f"Instance hardness: {self.scores.shape[1]} instances "
            f"({int((self.y == 0).sum())} of class 0, {int((self.y == 1).sum())} of class 1), "
            f"{self.scores.shape[0]} model(s): {', '.join(map(str, self.scores.index))}",
            "",
            "Class hardness (mean instance hardness, pool-averaged):",
            self.class_table().to_string(float_format=lambda v: f"{v:.4f}"),
        ]
        if self.cv:
            lines += ["", f"Notes: scores out of fold from {self.cv}; sf threshold {self.threshold:g}."]
        return "\n".join(lines)
