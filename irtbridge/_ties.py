"""Discrete choices that do not depend on rounding noise: ties within a tolerance, broken by position.

Wherever a float comparison decides something discrete (which item a CAT gives next, which dataset a
tournament plays first, who ranks above whom, which side of a threshold a score falls on), two numbers
that are equal in exact arithmetic may differ in their last bits, and which one wins then depends on
the machine, the BLAS, the order of a sum or the direction of a calibration's scale. Every such choice
in irtbridge goes through this module, with one rule:

* Two values are **tied** when they differ by at most ``tol = TIE_TOLERANCE * max(1, scale)``, with
  ``TIE_TOLERANCE = 1e-9`` and ``scale`` the largest finite magnitude among the values compared (or a
  scale the caller names, e.g. that of the inputs a distance was computed from). That is an absolute
  1e-9 for numbers up to 1 and a relative 1e-9 above: a thousand times the 1e-12 relative noise the
  tests apply, a million times double-precision rounding, and far below any difference a user means.
* Tied values are treated as equal, and a tie goes to the **earlier position** (item, case, column or
  row order), as a stable sort does.

Values are not rounded to a fixed grid (``round(x, 9)``): a value that sits near a grid boundary would
still round either way on 1e-15 of noise. Instead sorted values are **snapped**: a run of values each
within ``tol`` of the previous one becomes one tie group, represented by its smallest value. A group
can therefore span more than ``tol`` when many values lie closer than ``tol`` to each other (single
linkage); :func:`tie_argmin` / :func:`tie_argmax` take, without chaining, the first value within ``tol``
of the extreme.

Everything works along the last axis, vectorized over the leading ones (one row per examinee, model or
dataset). NaN is never tied with anything and sorts last.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "TIE_TOLERANCE",
    "tie_tolerance",
    "snap",
    "stable_argsort",
    "tie_argmin",
    "tie_argmax",
    "tie_rank",
    "tie_greater",
    "tie_floor",
]

#: Values closer than ``TIE_TOLERANCE * max(1, scale)`` are tied (see the module docstring).
TIE_TOLERANCE = 1e-9


def tie_tolerance(values: Any = None, *, scale: Any = None) -> np.ndarray:
    """The tie tolerance ``TIE_TOLERANCE * max(1, scale)`` for each slice along the last axis.

    ``scale`` defaults to the largest finite ``|value|`` of the slice; the result keeps the last axis (of
    length 1) so that it broadcasts against ``values``.

    Examples
    --------
    >>> float(tie_tolerance([0.2, -0.5]).item()), float(tie_tolerance([1500.0, 1400.0]).item())
    (1e-09, 1.5e-06)
    >>> float(tie_tolerance(scale=0.5))
    1e-09
    """
    if scale is None:
        x = np.abs(np.asarray(values, dtype=float))
        x = np.where(np.isfinite(x), x, 0.0)
        scale = x.max(axis=-1, keepdims=True) if x.ndim and x.shape[-1] else np.zeros(x.shape[:-1] + (1,))
    return TIE_TOLERANCE * np.maximum(1.0, np.asarray(scale, dtype=float))


def _sorted_groups(x: np.ndarray, tol: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stable order along the last axis, the sorted values, and for each sorted position the position
    where its tie group starts."""
    order = np.argsort(x, axis=-1, kind="stable")
    s = np.take_along_axis(x, order, axis=-1)
    with np.errstate(invalid="ignore"):
        # inf - inf is NaN: equal infinities are still one group
        joined = (np.diff(s, axis=-1) <= tol) | (s[..., 1:] == s[..., :-1])
    n = s.shape[-1]
    starts = np.where(np.concatenate([np.ones(s.shape[:-1] + (1,), dtype=bool), ~joined], axis=-1), np.arange(n), 0)
    return order, s, np.maximum.accumulate(starts, axis=-1)


def snap(values: Any, *, scale: Any = None) -> np.ndarray:
    """Replace each tie group along the last axis by its smallest value.

    Examples
    --------
    >>> snap([0.3, 0.1 + 0.2, 0.2, 0.3 + 1e-6]).tolist()
    [0.3, 0.3, 0.2, 0.300001]
    """
    x = np.asarray(values, dtype=float)
    if x.ndim == 0 or x.shape[-1] < 2:
        return x.copy()
    order, s, start = _sorted_groups(x, tie_tolerance(x, scale=scale))
    out = np.empty_like(x)
    np.put_along_axis(out, order, np.take_along_axis(s, start, axis=-1), axis=-1)
    return out


def stable_argsort(values: Any, *, descending: bool = False, scale: Any = None) -> np.ndarray:
    """Indices that sort ``values`` along the last axis, ties (within the tolerance) in position order.

    Examples
    --------
    >>> stable_argsort([0.3, 0.1 + 0.2, 0.2]).tolist()          # 0.1 + 0.2 is 0.30000000000000004
    [2, 0, 1]
    >>> stable_argsort([0.1 + 0.2, 0.3, 0.2], descending=True).tolist()
    [0, 1, 2]
    """
    x = snap(values, scale=scale)
    if descending:
        # negation keeps ties equal, and NaN (negated or not) still sorts last
        x = -x
    return np.argsort(x, axis=-1, kind="stable")


def _tie_extreme(values: Any, scale: Any, largest: bool) -> np.ndarray:
    x = np.asarray(values, dtype=float)
    if x.ndim == 0 or x.shape[-1] == 0:
        raise ValueError("tie_argmin/tie_argmax need at least one value along the last axis")
    y = x if largest else -x
    with np.errstate(invalid="ignore"):
        best = np.max(np.where(np.isnan(y), -np.inf, y), axis=-1, keepdims=True)
        near = y >= best - tie_tolerance(x, scale=scale)
    # argmax of a boolean is its first True: the earliest of the tied values; a slice of NaN only gives 0
    return np.argmax(near, axis=-1)


def tie_argmin(values: Any, *, scale: Any = None) -> np.ndarray:
    """Position of the smallest value along the last axis; among values within the tolerance of it, the first.

    Examples
    --------
    >>> int(tie_argmin([0.5, 0.1 + 0.2, 0.3]))                   # 0.30000000000000004 and 0.3 tie
    1
    >>> tie_argmin([[2.0, 1.0], [1.0, 1.0 + 1e-15]]).tolist()
    [1, 0]
    """
    return _tie_extreme(values, scale, largest=False)


def tie_argmax(values: Any, *, scale: Any = None) -> np.ndarray:
    """Position of the largest value along the last axis; among values within the tolerance of it, the first.

    Examples
    --------
    >>> int(tie_argmax([0.2, 0.3, 0.1 + 0.2]))
    1
    """
    return _tie_extreme(values, scale, largest=True)


def tie_rank(values: Any, *, method: str = "average", descending: bool = False, scale: Any = None) -> np.ndarray:
    """Ranks along the last axis (1 = smallest, or largest when ``descending``), tied values sharing a rank.

    ``method`` is scipy's ``rankdata`` method (``"average"``, ``"min"``, ``"max"``, ``"dense"``,
    ``"ordinal"``; ``"ordinal"`` breaks ties by position). Values must be finite.

    Examples
    --------
    >>> tie_rank([0.3, 0.1 + 0.2, 0.9]).tolist()
    [1.5, 1.5, 3.0]
    >>> tie_rank([1500.0, 1500.0 + 1e-10, 1400.0], method="min", descending=True).tolist()
    [1.0, 1.0, 3.0]
    """
    from scipy import stats  # scipy.stats loads with a ranking, not with every import of this module (~0.3 s)

    x = snap(values, scale=scale)
    return stats.rankdata(-x if descending else x, method=method, axis=-1).astype(float)


def tie_greater(a: Any, b: Any, *, scale: Any = None) -> np.ndarray:
    """``a > b`` beyond the tolerance: values within it of ``b`` count as equal to ``b`` (not greater).

    The default scale is ``max(|a|, |b|)`` elementwise.

    Examples
    --------
    >>> tie_greater([0.5, 0.5 + 1e-15, 0.6], 0.5).tolist()
    [False, False, True]
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if scale is None:
        with np.errstate(invalid="ignore"):
            scale = np.where(np.isfinite(a) & np.isfinite(b), np.maximum(np.abs(a), np.abs(b)), 0.0)
    with np.errstate(invalid="ignore"):
        return a - b > TIE_TOLERANCE * np.maximum(1.0, scale)


def tie_floor(values: Any, *, scale: Any = None) -> np.ndarray:
    """``floor`` in which a value within the tolerance below an integer counts as that integer.

    The default scale is ``|value|`` elementwise.

    Examples
    --------
    >>> tie_floor([2.9999999999999996, 2.5, -1e-15]).tolist()
    [3.0, 2.0, 0.0]
    """
    x = np.asarray(values, dtype=float)
    tol = TIE_TOLERANCE * np.maximum(1.0, np.abs(x) if scale is None else np.asarray(scale, dtype=float))
    return np.floor(x + tol)
