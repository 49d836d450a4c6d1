"""A stratified item draw for a tiny benchmark: strata on what the calibration models know about each item.

The sample frame stays every item (design-based means the whole population); the draw is a stratified
simple random sample instead of a simple random one. :func:`item_strata` cuts the items into ``n_strata``
groups of (nearly) equal size by the calibration models' share right on each item (their rank, so ties are
split by item order); items no calibration model answered, and items the 2PL flags
(:func:`irtbridge.leaderboard.runaway_items`) when a calibration is given, form a stratum of their own.
:func:`stratified_draw` allocates ``k`` proportionally (``k_h`` about ``k N_h / N``, largest remainders,
at least two per stratum so each has a residual variance) and draws ``k_h`` items at random in each stratum.
``estimate_accuracy(..., strata=labels)`` then uses the stratified difference estimator (``"ppi"``, and
the stratified mean for ``"mean"``): per stratum ``sum_S_h y + sum_U_h yhat + N_U_h mean_S_h (y - yhat)``,
variance ``sum_h N_h^2 (1 - k_h / N_h) s_h^2 / k_h`` (``s_h^2`` the leave-one-out residuals' variance in
the stratum) and Welch-Satterthwaite degrees of freedom (Cochran, *Sampling Techniques*, 1977, ch. 5).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pandas as pd

from irtbridge._validation import check_int
from irtbridge.exceptions import ValidationError
from irtbridge.leaderboard._answers import response_values
from irtbridge.leaderboard._predictors import item_means
from irtbridge.leaderboard._sample import runaway_items

__all__ = ["N_STRATA", "MIN_PER_STRATUM", "item_strata", "allocate", "stratified_draw"]

#: the default number of difficulty strata (at k = 50 about ten items each)
N_STRATA = 5
#: the least items a stratified draw takes from a stratum (all of a smaller one)
MIN_PER_STRATUM = 2


def item_strata(responses: pd.DataFrame, n_strata: int = N_STRATA, calibration: Any = None) -> np.ndarray:
    """Each item's stratum: quantile groups of the calibration models' share right on the item.

    Parameters
    ----------
    responses : DataFrame
        The calibration models x all items, 0/1 (NaN: unanswered).
    n_strata : int, default :data:`N_STRATA`
        The number of difficulty groups (of nearly equal size, by rank).
    calibration : IRTParameters, optional
        A 2PL calibration of the same items; its flagged items (:func:`runaway_items`) form a stratum of
        their own (label ``n_strata + 1``).

    Returns
    -------
    ndarray of int
        One label per column of ``responses``: 0 (the hardest) to ``n_strata - 1``; ``n_strata`` for items
        no calibration model answered; ``n_strata + 1`` for flagged items.

    Examples
    --------
    >>> cal = pd.DataFrame([[1, 0, 1, 0], [1, 1, 0, 0]], columns=list("abcd"), dtype=float)
    >>> item_strata(cal, 2).tolist()  # d hardest, then b (ties with c, first in item order), c, a
    [1, 0, 1, 0]
    """
    n_strata = check_int(n_strata, "n_strata", low=1)
    values = response_values(responses, "responses")
    answered = (~np.isnan(values)).sum(axis=0) > 0
    share = item_means(values)
    labels = np.full(values.shape[1], n_strata, dtype=int)
    if calibration is not None:
        flagged = set(runaway_items(calibration))
        names = [str(c) for c in responses.columns]
        if tuple(str(n) for n in calibration.names) != tuple(names):
            raise ValidationError("calibration's items are not responses' items (same names, same order)")
        labels[[j for j, n in enumerate(names) if n in flagged]] = n_strata + 1
    rest = np.flatnonzero(answered & (labels == n_strata))
    order = rest[np.argsort(share[rest], kind="stable")]
    for h, chunk in enumerate(np.array_split(order, n_strata)):
        labels[chunk] = h
    return labels


def allocate(sizes: Sequence[int], k: int, minimum: int = MIN_PER_STRATUM) -> np.ndarray:
    """Proportional allocation of ``k`` draws to strata of ``sizes`` items (largest remainders), each
    stratum at least ``min(minimum, N_h)`` draws and at most ``N_h``.

    Parameters
    ----------
    sizes : sequence of int
        The strata's sizes ``N_h`` (positive).
    k : int
        The draws in all (at most ``sum N_h``).
    minimum : int, default 2
        The least draws per stratum.

    Returns
    -------
    ndarray of int
        ``k_h``, summing to ``k``.

    Examples
    --------
    >>> allocate([50, 30, 20], 10).tolist()
    [5, 3, 2]
    """
    n = np.asarray(sizes, dtype=int)
    if (n <= 0).any() or k > n.sum():
        raise ValidationError(f"k: {k} draws from strata of sizes {n.tolist()} (each positive, k at most their sum)")
    floor = np.minimum(minimum, n)
    if floor.sum() > k:
        raise ValidationError(f"k: {k} draws cannot give each of {len(n)} strata {minimum} items; use fewer strata")
    kh = floor.copy()
    while kh.sum() < k:  # largest remainder of the proportional share, among strata with room
        want = k * n / n.sum() - kh
        want[kh >= n] = -np.inf
        kh[int(np.argmax(want))] += 1
    return kh


def stratified_draw(labels: Sequence[int] | np.ndarray, k: int, rng: np.random.Generator,
                    pool: np.ndarray | None = None) -> np.ndarray:
    """A stratified simple random sample of ``k`` item positions (sorted), allocated by :func:`allocate`.

    Parameters
    ----------
    labels : sequence of int
        Each item's stratum (:func:`item_strata`).
    k : int
        Items to draw.
    rng : numpy Generator
        The random source.
    pool : ndarray of bool, optional
        The sample frame (default every item).

    Returns
    -------
    ndarray of int
        The drawn positions, sorted.

    Examples
    --------
    >>> stratified_draw([0, 0, 0, 0, 1, 1, 1, 1], 4, np.random.default_rng(0)).size
    4
    """
    lab = np.asarray(labels, dtype=int)
    frame = np.ones(len(lab), dtype=bool) if pool is None else np.asarray(pool, dtype=bool)
    groups = [np.flatnonzero(frame & (lab == h)) for h in np.unique(lab[frame])]
    kh = allocate([len(g) for g in groups], k)
    return np.sort(np.concatenate([rng.choice(g, n, replace=False) for g, n in zip(groups, kh)]))
