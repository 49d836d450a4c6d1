"""Instance and class hardness and cost curves: the numerics of :mod:`irtbridge.hardness`.

The conventions (labels, scores, costs, rates, pools) are stated in the package docstring of
:mod:`irtbridge.hardness`.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pandas as pd

from irtbridge._constraints import Choice, Number, constraints
from irtbridge._validation import check_probability, check_scores
from irtbridge.exceptions import ValidationError
from irtbridge.hardness._curves_core import (
    METHODS,
    as_pool,
    check_grid,
    check_method,
    check_methods,
    class_means,
    curve_matrix,
    hardness_matrix,
    pandas_values,
    rate_counts,
    score_rates,
)

__all__ = [
    "METHODS",
    "positive_rate",
    "instance_hardness",
    "class_hardness",
    "hardness_by_model",
    "hardness_table",
    "instance_cost_curves",
    "class_cost_curves",
]

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
    threshold cannot separate the tied instances, which is where Eqs. 21-26 interpolate. Scores within
    ``1e-9`` of each other are tied (``irtbridge._ties``: sorted scores each within 1e-9 of the next
    form one run), so scores equal in exact arithmetic but not in their last bits share their rate.

    Examples
    --------
    >>> from irtbridge.hardness import positive_rate
    >>> positive_rate([0.7, 0.8, 0.8, 0.7, 0.8, 0.75, 0.1, 0.55, 0.8, 0.15]).loc[5].tolist()
    [0.6, 0.5, 1.0]
    """
    index = scores.index if isinstance(scores, pd.Series) else None
    values = check_scores(pandas_values(scores) if index is not None else scores, "scores")
    if values.ndim != 1:
        raise ValidationError(f"scores must be the (n_instances,) scores of one model, got shape {values.shape}")
    upto, below = rate_counts(values[np.newaxis, :])
    n = values.size
    return pd.DataFrame(
        {"rate": upto[0] / n, "previous_rate": below[0] / n, "ties": upto[0] - below[0]},
        index=index if index is not None else pd.RangeIndex(n),
    )


@constraints(method=Choice(METHODS, ignore_case=True), threshold=Number(low=0.0, high=1.0))
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

    * ``sf``: ``[s > t]`` for class 0, ``[s <= t]`` for class 1 (Eqs. 13-14): the 0|1 loss. A score
      within ``1e-9`` of ``t`` counts as ``t`` (predicted class 0), so a forest's ``0.5000000000000001``
      is not a different prediction from ``0.5``.
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
    method = check_method(method)
    threshold = check_probability(threshold, "threshold")
    pool = as_pool(y, scores)
    values = hardness_matrix(pool.y, pool.scores, method, threshold).mean(axis=0)
    return pd.Series(values, index=pool.index, name=method)


@constraints(method=Choice(METHODS, ignore_case=True), threshold=Number(low=0.0, high=1.0))
def class_hardness(y: Any, scores: Any, method: str = "rd", threshold: float = 0.5) -> pd.Series:
    """Class hardness: the mean instance hardness within class 0 and within class 1.

    Parameters
    ----------
    y, scores : array-like
        Labels and scores, as in :func:`instance_hardness`.
    method : str, default "rd"
        As in :func:`instance_hardness`.
    threshold : float, default 0.5
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
    method = check_method(method)
    threshold = check_probability(threshold, "threshold")
    pool = as_pool(y, scores)
    values = hardness_matrix(pool.y, pool.scores, method, threshold).mean(axis=0)
    return pd.Series(class_means(values, pool.y), index=pd.Index([0, 1], name="class"), name=method)


@constraints(method=Choice(METHODS, ignore_case=True), threshold=Number(low=0.0, high=1.0))
def hardness_by_model(y: Any, scores: Any, method: str = "rd", threshold: float = 0.5) -> pd.DataFrame:
    """Instance hardness under each model of the pool separately (before averaging).

    Parameters
    ----------
    y, scores : array-like
        Labels and scores, as in :func:`instance_hardness`.
    method : str, default "rd"
        As in :func:`instance_hardness`.
    threshold : float, default 0.5
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
    method = check_method(method)
    threshold = check_probability(threshold, "threshold")
    pool = as_pool(y, scores)
    values = hardness_matrix(pool.y, pool.scores, method, threshold)
    return pd.DataFrame(values.T, index=pool.index, columns=pool.models)


@constraints(threshold=Number(low=0.0, high=1.0))
def hardness_table(y: Any, scores: Any, methods: Sequence[str] | None = None, threshold: float = 0.5) -> pd.DataFrame:
    """Instance hardness under several threshold choice methods side by side.

    Parameters
    ----------
    y, scores : array-like
        Labels and scores, as in :func:`instance_hardness`.
    threshold : float, default 0.5
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
    methods = check_methods(methods)
    threshold = check_probability(threshold, "threshold")
    pool = as_pool(y, scores)
    columns: dict[str, np.ndarray] = {"label": pool.y.astype(int)}
    # rd and ru share the positive rates: sort once
    rates = score_rates(pool.scores) if {"rd", "ru"} & set(methods) else None
    for method in methods:
        columns[method] = hardness_matrix(pool.y, pool.scores, method, threshold, rates).mean(axis=0)
    return pd.DataFrame(columns, index=pool.index)


@constraints(method=Choice(METHODS, ignore_case=True), threshold=Number(low=0.0, high=1.0))
def instance_cost_curves(
    y: Any, scores: Any, method: str = "rd", c: Any = None, threshold: float = 0.5
) -> pd.DataFrame:
    """Instance cost curves ``QI(s, T(c), c)`` on a grid of cost proportions, averaged over the pool.

    Parameters
    ----------
    y, scores : array-like
        Labels and scores, as in :func:`instance_hardness`.
    method : str, default "rd"
        As in :func:`instance_hardness`.
    threshold : float, default 0.5
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
    Eqs. 31/33 with the tie interpolation). ``s > t`` and ``s > c`` hold only beyond ``1e-9``
    (``irtbridge._ties``), and rates count scores within ``1e-9`` as tied. Memory is
    ``n_instances * len(c)`` floats.

    Examples
    --------
    >>> from irtbridge.hardness import instance_cost_curves
    >>> instance_cost_curves([0], [0.6], method="sd", c=[0.25, 0.5, 0.75]).iloc[0].tolist()
    [0.5, 1.0, 0.0]
    """
    method = check_method(method)
    threshold = check_probability(threshold, "threshold")
    grid = check_grid(c)
    pool = as_pool(y, scores)
    curves = curve_matrix(pool, method, threshold, grid)
    return pd.DataFrame(curves, index=pool.index, columns=pd.Index(grid, name="c"))


@constraints(method=Choice(METHODS, ignore_case=True), threshold=Number(low=0.0, high=1.0))
def class_cost_curves(y: Any, scores: Any, method: str = "rd", c: Any = None, threshold: float = 0.5) -> pd.DataFrame:
    """Class cost curves: the mean instance cost curve of each class (Fig. 7 of Prudêncio's cost-sensitive hardness paper).

    Parameters
    ----------
    y, scores : array-like
        Labels and scores, as in :func:`instance_hardness`.
    method : str, default "rd"
        As in :func:`instance_hardness`.
    c : float or array-like, optional
        As in :func:`instance_cost_curves`.
    threshold : float, default 0.5
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
    method = check_method(method)
    threshold = check_probability(threshold, "threshold")
    grid = check_grid(c)
    pool = as_pool(y, scores)
    curves = class_means(curve_matrix(pool, method, threshold, grid), pool.y)
    return pd.DataFrame(curves, index=pd.Index([0, 1], name="class"), columns=pd.Index(grid, name="c"))
