"""The numerics under :mod:`irtbridge.hardness.curves`, shared with its plots and pools: the checks of
methods and cost grids, the pool of labels and scores, the rates, and the per-model hardness and cost-curve kernels.

The conventions (labels, scores, costs, rates, pools) are stated in the package docstring of
:mod:`irtbridge.hardness`.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from irtbridge._ties import snap, tie_greater
from irtbridge._validation import check_binary_labels, check_choice, check_scores, show_value
from irtbridge.exceptions import DataWarning, ValidationError, find_stack_level

#: The five threshold choice methods, in the paper's order.
METHODS = ("sf", "sd", "rd", "su", "ru")

METHOD_NAMES = {
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


def check_method(method: Any) -> str:
    return check_choice(method, "method", METHODS, ignore_case=True)


def check_methods(methods: Any) -> list[str]:
    if methods is None:
        return list(METHODS)
    if isinstance(methods, str):
        return [check_method(methods)]
    out = [check_method(m) for m in methods]
    if not out:
        raise ValidationError("methods is empty; give one or more of " + ", ".join(map(repr, METHODS)))
    if len(set(out)) != len(out):
        raise ValidationError(f"methods={show_value(list(methods))} names a method twice")
    return out


def check_grid(c: Any) -> np.ndarray:
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


def pandas_values(obj: pd.Series | pd.DataFrame) -> np.ndarray:
    try:
        return obj.to_numpy(dtype=float, na_value=np.nan)
    except (TypeError, ValueError):
        raise ValidationError("scores must be numeric; it holds values that are not numbers") from None


def as_pool(y: Any, scores: Any) -> _Pool:
    """Validate ``y`` and ``scores`` and bring them to ``(n,)`` labels and an ``(m, n)`` pool."""
    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise ValidationError(f"y must be one column of 0/1 labels, got a DataFrame with {y.shape[1]} columns")
        y = y.iloc[:, 0]
    labels = check_binary_labels(y, "y")
    n = labels.size
    y_index = y.index if isinstance(y, pd.Series) else None

    if isinstance(scores, pd.DataFrame):
        values = check_scores(pandas_values(scores), "scores")
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
        values = check_scores(pandas_values(scores), "scores")
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


def rate_counts(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


def score_rates(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(R(s), R(s) - l/n)`` for every entry of an ``(m, n)`` pool."""
    upto, below = rate_counts(scores)
    n = scores.shape[1]
    return upto / n, below / n


def hardness_matrix(
    y: np.ndarray, scores: np.ndarray, method: str, threshold: float, rates: tuple[np.ndarray, np.ndarray] | None = None
) -> np.ndarray:
    """Closed-form hardness of every (model, instance) pair, shape ``(m, n)``; ``rates`` may reuse
    the output of :func:`score_rates` for the same scores."""
    neg = y.astype(bool)[np.newaxis, :]  # class 1, the paper's "negative" class
    if method == "sf":
        above = tie_greater(scores, threshold)
        return np.where(neg, ~above, above).astype(float)
    if method == "sd":
        return np.square(neg - scores)
    if method == "su":
        return np.abs(neg - scores)
    rate, below = score_rates(scores) if rates is None else rates
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
    assert rate is not None and below is not None  # curve_matrix gives them to "ru" and "rd"
    r = rate[:, np.newaxis]
    b = below[:, np.newaxis]
    if method == "ru":
        return np.broadcast_to(0.5 * (r + b), (s.shape[0], c.size))
    # rd: predicted class 1 for desired rates below R - d, class 0 from R on, linear in between (Eq. 21)
    return np.clip((r - c[np.newaxis, :]) / (r - b), 0.0, 1.0)


def curve_matrix(pool: _Pool, method: str, threshold: float, c: np.ndarray) -> np.ndarray:
    """Instance cost curves averaged over the pool, shape ``(n, k)``."""
    neg = pool.y.astype(bool)[:, np.newaxis]
    cost0 = 2.0 * c[np.newaxis, :]
    cost1 = 2.0 * (1.0 - c[np.newaxis, :])
    rate: np.ndarray | None = None
    below: np.ndarray | None = None
    if method in ("rd", "ru"):
        rate, below = score_rates(pool.scores)
    total = np.zeros((pool.y.size, c.size))
    for k in range(pool.scores.shape[0]):
        p_neg = _predicted_negative(
            pool.scores[k], None if rate is None else rate[k], None if below is None else below[k], method, threshold, c
        )
        total += np.where(neg, cost1 * (1.0 - p_neg), cost0 * p_neg)
    return total / pool.scores.shape[0]


def class_means(values: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Mean of ``values`` (``(n,)`` or ``(n, k)``) within class 0 and class 1; NaN for an absent class."""
    counts = np.bincount(y, minlength=2).astype(float)
    if (counts == 0).any():
        missing = int(np.flatnonzero(counts == 0)[0])
        warnings.warn(
            f"y holds no instance of class {missing}; its class hardness is NaN", DataWarning, stacklevel=find_stack_level()
        )
    sums = np.stack([values[y == 0].sum(axis=0), values[y == 1].sum(axis=0)])
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / (counts if values.ndim == 1 else counts[:, np.newaxis])
