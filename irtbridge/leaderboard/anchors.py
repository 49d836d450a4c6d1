"""Anchor items: a small subset of a calibrated item set that a new model answers instead of all of it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from irtbridge._constraints import Choice, Int, Seed, constraints
from irtbridge._ties import stable_argsort, tie_argmax, tie_argmin
from irtbridge._validation import check_choice, check_int
from irtbridge.exceptions import ValidationError

__all__ = ["ANCHOR_METHODS", "select_anchors"]

ANCHOR_METHODS = ("random", "stratified", "cluster")


def _items_of(calibration: Any) -> pd.DataFrame:
    items = getattr(calibration, "items", None)
    if not isinstance(items, pd.DataFrame) or not {"a", "b"} <= set(items.columns):
        raise ValidationError("calibration must have an item table with columns a and b (a Calibration or ItemBank)")
    return items


def _sq_dist(points: np.ndarray, centres: np.ndarray, norms: np.ndarray) -> np.ndarray:
    """Squared distances, points x centres, without a points x centres x dims temporary."""
    return np.maximum(norms[:, None] - 2.0 * points @ centres.T + (centres**2).sum(axis=1)[None, :], 0.0)


def _kmeans_medoids(points: np.ndarray, k: int, rng: np.random.Generator, iterations: int = 50) -> np.ndarray:
    """Indices of the points nearest to the centres of ``k`` k-means clusters (k-means++ start)."""
    n = len(points)
    norms = (points**2).sum(axis=1)
    first = int(rng.integers(n))
    picked = [points[first]]
    nearest = _sq_dist(points, points[[first]], norms)[:, 0]
    for _ in range(1, k):
        total = nearest.sum()
        pick = int(rng.choice(n, p=nearest / total)) if total > 0 else int(rng.integers(n))
        picked.append(points[pick])
        nearest = np.minimum(nearest, _sq_dist(points, points[[pick]], norms)[:, 0])
    centres = np.asarray(picked)
    # squared distances come from |p|^2 - 2 p.c + |c|^2: their rounding noise scales with the norms, so
    # ties (irtbridge._ties) are judged on that scale; a tie goes to the first centre / the first item
    scale = float(norms.max(initial=0.0)) * 4.0
    for _ in range(iterations):
        labels = tie_argmin(_sq_dist(points, centres, norms), scale=scale)
        counts = np.bincount(labels, minlength=k)
        sums = np.zeros_like(centres)
        np.add.at(sums, labels, points)
        moved = np.where(counts[:, None] > 0, sums / np.maximum(counts, 1)[:, None], centres)
        if np.allclose(moved, centres):
            break
        centres = moved
    dist = _sq_dist(points, centres, norms)
    chosen: list[int] = []
    taken = np.zeros(n, dtype=bool)
    for c in range(k):
        first = int(tie_argmin(np.where(taken, np.inf, dist[:, c]), scale=scale))
        chosen.append(first)
        taken[first] = True
    return np.asarray(chosen)


@constraints(k=Int(low=1), method=Choice(ANCHOR_METHODS), seed=Seed())
def select_anchors(calibration: Any, k: int, method: str = "stratified", *, responses: pd.DataFrame | None = None,
                   seed: int = 0) -> list[str]:
    """Choose ``k`` anchor items of a calibration; returns their names (a list).

    Parameters
    ----------
    calibration : Calibration or ItemBank
        Anything with an item table ``.items`` (columns ``a``, ``b``). A calibration's flagged items
        (``fit.flagged_items``: estimates the data do not identify, :mod:`irtbridge.calibration.results.flags`)
        are never chosen.
    k : int
        How many anchors (at most the number of items).
    method : {"random", "stratified", "cluster"}, default "stratified"
        ``random``: a uniform sample. ``stratified``: the items sorted by difficulty ``b`` are cut into ``k``
        strata of (nearly) equal size and the most discriminating item of each stratum is taken, so the
        anchors span the difficulty range and carry the most information. ``cluster``: k-means on the items'
        response profiles (``responses``, respondents x items, the calibration data; missing cells filled
        with the item's mean) or, without ``responses``, on their standardized ``(a, b)``; the item nearest
        each cluster centre is taken (the anchor points of tinyBenchmarks, Polo et al. 2024).
    responses : DataFrame, optional
        For ``method="cluster"``.
    seed : int
        Seeds ``random`` and the k-means start.

    Returns
    -------
    list of str
        The anchor items.

    Notes
    -----
    Ties are judged up to rounding noise (``irtbridge._ties``): difficulties, discriminations and squared
    distances within ``1e-9 * max(1, scale)`` of each other are equal (``scale`` the largest magnitude
    compared; for distances, that of the squared norms they are computed from), and a tie goes to the
    item earlier in the calibration's order (``stratified``: the earlier in difficulty order within a
    stratum), or to the first cluster. So a calibration whose numbers differ only in their last bits
    (another BLAS, R's output read back) gives the same anchors.

    Examples
    --------
    >>> items = pd.DataFrame({"a": [1.0, 2.0, 0.5, 1.5], "b": [-2.0, -1.0, 0.5, 2.0]}, index=list("wxyz"))
    >>> from irtbridge.irt import as_item_bank
    >>> select_anchors(as_item_bank(items, "2PL"), 2, "stratified")
    ['x', 'z']
    """
    items = _items_of(calibration)
    method = check_choice(method, "method", ANCHOR_METHODS)
    k = check_int(k, "k", low=1)
    if k > len(items):
        raise ValidationError(f"k = {k} anchors asked of a calibration with {len(items)} items")
    # a calibration's flagged items (estimates the data do not identify) are never anchors
    flagged = {str(n) for n in getattr(calibration, "flagged_items", ())}
    if flagged:
        items = items.loc[[str(n) not in flagged for n in items.index]]
        if k > len(items):
            raise ValidationError(f"k = {k} anchors asked of a calibration with {len(items)} identified items "
                                  f"({len(flagged)} flagged in fit.item_flags, e.g. {sorted(flagged)[:3]})")
    names = np.asarray([str(n) for n in items.index])
    rng = np.random.default_rng(seed)
    if method == "random":
        return [str(n) for n in names[np.sort(rng.choice(len(names), k, replace=False))]]
    if method == "stratified":
        order = stable_argsort(items["b"].to_numpy(dtype=float))
        a = items["a"].to_numpy(dtype=float)
        # strata follow one another in difficulty order, so the anchors come out sorted by b
        chosen = [int(stratum[tie_argmax(a[stratum])]) for stratum in np.array_split(order, k)]
        return [str(names[i]) for i in chosen]
    if responses is not None:
        given = set(map(str, responses.columns))
        missing = [n for n in names if n not in given]
        if missing:
            raise ValidationError(f"responses lack {len(missing)} calibrated item(s), e.g. {missing[:3]}")
        profile = responses.rename(columns=str)[list(names)].to_numpy(dtype=float)
        profile = np.where(np.isnan(profile), np.nanmean(profile, axis=0, keepdims=True), profile).T
    else:
        ab = items[["a", "b"]].to_numpy(dtype=float)
        profile = (ab - ab.mean(axis=0)) / np.where(ab.std(axis=0) > 0, ab.std(axis=0), 1.0)
    medoids = _kmeans_medoids(np.nan_to_num(profile), k, rng)
    return [str(n) for n in names[np.sort(medoids)]]
