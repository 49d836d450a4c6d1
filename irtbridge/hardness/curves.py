"""Instance and class hardness and cost curves: the numerics of :mod:`irtbridge.hardness`.

The conventions (labels, scores, costs, rates, pools) are stated in the package docstring of
:mod:`irtbridge.hardness`.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any, NamedTuple, Sequence

import numpy as np
import pandas as pd

from irtbridge._ties import snap, tie_greater
from irtbridge._validation import show_value, check_binary_labels, check_choice, check_probability, check_scores
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
        raise ValidationError(f"methods={show_value(list(methods))} names a method twice")
    return out


def _check_grid(c: Any) -> np.ndarray:
    if c is None:
        return np.linspace(0.0, 1.0, _DEFAULT_GRID_SIZE)
    if isinstance(c, numbers.Real) and not isinstance(c, (bool, np.bool_)):
        c = [c]
    try:
        grid = np.asarray(c, dtype=float)
    except (TypeError, ValueError):
        raise ValidationError(f"c must be numbers in [0, 1], got {show_value(c)}") from None
    if grid.ndim != 1 or grid.size == 0:
        raise ValidationError(f"c must be a non-empty 1-D grid of cost proportions, got shape {grid.shape}")
    if not np.isfinite(grid).all() or grid.min() < 0.0 or grid.max() > 1.0:
        raise ValidationError(f"c must hold cost proportions in [0, 1], got {show_value(grid.tolist())}")
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
    bookkeeping, and no pairwise comparison. Scores within the tie tolerance of :mod:`irtbridge._ties`
    (``1e-9``; scores lie in ``[0, 1]``) are one run: a forest's ``0.1 + 0.2`` ties with ``0.3``.
    """
    m, n = scores.shape
    upto = np.empty((m, n), dtype=np.int64)
    below = np.empty((m, n), dtype=np.int64)
    snapped = snap(scores)
    for k in range(m):  # models are few; each iteration is vectorised over the n instances
        order = np.argsort(snapped[k])  # any order within a run of ties gives the same counts
        ordered = snapped[k][order]
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
        above = tie_greater(scores, threshold)
        return np.where(neg, ~above, above).astype(float)
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
        return np.broadcast_to(tie_greater(s, threshold), (s.shape[0], c.size)).astype(float)
    if method == "sd":
        return tie_greater(s, c[np.newaxis, :]).astype(float)
    if method == "su":
        return np.broadcast_to(s, (s.shape[0], c.size))
    assert rate is not None and below is not None  # _curve_matrix gives them to "ru" and "rd"
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
    rate: np.ndarray | None = None
    below: np.ndarray | None = None
    if method in ("rd", "ru"):
        rate, below = _rates(pool.scores)
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
    method = _check_method(method)
    threshold = check_probability(threshold, "threshold")
    pool = _as_pool(y, scores)
    values = _hardness_matrix(pool.y, pool.scores, method, threshold).mean(axis=0)
    return pd.Series(values, index=pool.index, name=method)


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
    method = _check_method(method)
    threshold = check_probability(threshold, "threshold")
    pool = _as_pool(y, scores)
    values = _hardness_matrix(pool.y, pool.scores, method, threshold).mean(axis=0)
    return pd.Series(_class_means(values, pool.y), index=pd.Index([0, 1], name="class"), name=method)


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
    method = _check_method(method)
    threshold = check_probability(threshold, "threshold")
    pool = _as_pool(y, scores)
    values = _hardness_matrix(pool.y, pool.scores, method, threshold)
    return pd.DataFrame(values.T, index=pool.index, columns=pool.models)


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
    method = _check_method(method)
    threshold = check_probability(threshold, "threshold")
    grid = _check_grid(c)
    pool = _as_pool(y, scores)
    curves = _class_means(_curve_matrix(pool, method, threshold, grid), pool.y)
    return pd.DataFrame(curves, index=pd.Index([0, 1], name="class"), columns=pd.Index(grid, name="c"))
