"""Simulated responses from known item parameters: :func:`simulate` (mirt's ``simdata``, seeded in R)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pandas as pd

from irtbridge._constraints import Int, Seed, constraints
from irtbridge._validation import R_SEED_MAX, check_seed
from irtbridge.exceptions import ValidationError

__all__ = ["simulate", "SIMDATA_ITEMTYPES"]

# simdata's own item classes, and the mirt itemtype names it converts to them
SIMDATA_ITEMTYPES = ("dich", "graded", "gpcm", "nominal", "sequential", "partcomp", "nestlogit",
                     "Rasch", "2PL", "3PL", "3PLu", "4PL", "grsm", "rsm")


@constraints(n=Int(low=1, allow_none=True, phrase="a positive integer"), seed=Seed(high=R_SEED_MAX))
def simulate(a: Any, d: Any, n: int | None, itemtype: str | Sequence[str] = "dich", *, seed: int,
             guess: Any = 0.0, upper: Any = 1.0, mu: Any = None, sigma: Any = None, theta: Any = None,
             item_names: Sequence[str] | None = None) -> pd.DataFrame:
    """Simulate responses with mirt's ``simdata`` after ``set.seed(seed)`` in R.

    Parameters
    ----------
    a : array-like, (items,) or (items, factors)
        Slopes (mirt's slope-intercept form, ``a1..``); 0 or NaN where an item does not load.
    d : array-like, (items,) or (items, intercepts)
        Intercepts: one per dichotomous item; for polytomous items one column per category boundary,
        NaN-padded to the item with the most categories (``graded``: decreasing intercepts).
    n : int or None
        Number of respondents (``None`` with ``theta``: its rows).
    itemtype : str or sequence of str
        One for every item or one per item: simdata's classes ``dich``, ``graded``, ``gpcm``,
        ``nominal``, ``sequential``, ``partcomp``, ``nestlogit``, or mirt names it converts (``2PL``,
        ``3PL``, ``Rasch``, ...).
    seed : int
        R's ``set.seed(seed)`` right before the draw: the same seed gives the same data as the R call.
    guess, upper : float or array-like (items,)
        Lower and upper asymptotes of dichotomous items (default 0 and 1).
    mu, sigma : array-like, optional
        Mean vector and covariance matrix of the latent traits (default 0 and the identity).
    theta : array-like, (n, factors), optional
        The latent traits themselves (mirt's ``Theta``); then ``mu``/``sigma`` are not used.
    item_names : sequence of str, optional
        Column names (default: the index of ``a`` when it is a Series/DataFrame, else mirt's
        ``Item_1, Item_2, ...``).

    Returns
    -------
    DataFrame
        ``n`` rows, one integer column per item (categories from 0).

    Notes
    -----
    R equivalent: ``set.seed(seed); simdata(a, d, N = n, itemtype, sigma, mu, guess, upper, Theta = theta)``.
    ``set.seed`` changes the embedded R session's random state (as any seeded R call does).

    Examples
    --------
    >>> from irtbridge.calibration import simulate
    >>> data = simulate([1.0, 1.5, 0.8], [0.5, 0.0, -1.0], 4, seed=1)      # doctest: +R
    >>> data.shape, list(data.columns)
    ((4, 3), ['Item_1', 'Item_2', 'Item_3'])
    """
    names = _names(a, item_names)
    slopes = _matrix(a, "a")
    intercepts = _matrix(d, "d")
    items, factors = slopes.shape
    if intercepts.shape[0] != items:
        raise ValidationError(f"d: {intercepts.shape[0]} rows for {items} items (rows of a)")
    args: dict[str, Any] = {"a": slopes, "d": intercepts, "itemtype": _itemtypes(itemtype, items),
                            "guess": _per_item(guess, "guess", items), "upper": _per_item(upper, "upper", items),
                            "seed": _seed(seed)}
    if theta is not None:
        traits = _matrix(theta, "theta")
        if traits.shape[1] != factors or np.isnan(traits).any():
            raise ValidationError(f"theta must be complete with {factors} column(s) (the columns of a), got shape "
                                  f"{traits.shape}")
        if n is not None and int(n) != traits.shape[0]:
            raise ValidationError(f"n={n} but theta has {traits.shape[0]} rows; pass n=None with theta")
        args["theta"] = traits
        n = traits.shape[0]
    elif mu is not None or sigma is not None:
        args.update(_distribution(mu, sigma, factors))
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
        raise ValidationError(f"n must be a positive integer, got {n!r}")
    if names is not None and len(names) != items:
        raise ValidationError(f"item_names: {len(names)} names for {items} items")
    from irtbridge._r import session  # the R boundary loads with the first R call, never on import

    session.ensure_packages("mirt")
    out = session.call("irtb_simdata", n=int(n), **args)
    frame = pd.DataFrame(out.to_numpy(dtype=np.int64, copy=True), columns=names or list(out.columns))
    return frame


def _names(a: Any, item_names: Sequence[str] | None) -> list[str] | None:
    if item_names is not None:
        if isinstance(item_names, str) or not all(isinstance(x, str) for x in item_names):
            raise ValidationError("item_names must be a sequence of strings")
        if len(set(item_names)) != len(item_names):
            raise ValidationError("item_names has duplicates")
        return list(item_names)
    if isinstance(a, (pd.Series, pd.DataFrame)):
        return [str(i) for i in a.index]
    return None


def _matrix(value: Any, name: str) -> np.ndarray:
    """A float matrix (a vector becomes one column); a one-line error naming ``name`` otherwise."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValidationError(f"{name} must be numbers (a vector or a matrix), got {type(value).__name__}") from None
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.size == 0:
        raise ValidationError(f"{name} must be a non-empty vector or matrix, got shape {arr.shape}")
    if np.isinf(arr).any():
        raise ValidationError(f"{name} has infinite values")
    return np.ascontiguousarray(arr)


def _itemtypes(itemtype: Any, items: int) -> list[str]:
    types = [itemtype] if isinstance(itemtype, str) else list(itemtype)
    bad = [t for t in types if t not in SIMDATA_ITEMTYPES]
    if bad:
        raise ValidationError(f"itemtype={bad[0]!r} is not one simdata takes here; use one of "
                              f"{', '.join(SIMDATA_ITEMTYPES)}")
    if len(types) not in (1, items):
        raise ValidationError(f"itemtype: {len(types)} item types for {items} items (give one, or one per item)")
    return types


def _per_item(value: Any, name: str, items: int) -> list[float]:
    arr = np.atleast_1d(np.asarray(value, dtype=float))
    if arr.ndim != 1 or arr.size not in (1, items) or np.isnan(arr).any():
        raise ValidationError(f"{name} must be one number or one per item ({items}), got {value!r}")
    return arr.tolist()


def _distribution(mu: Any, sigma: Any, factors: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if mu is not None:
        mean = np.atleast_1d(np.asarray(mu, dtype=float))
        if mean.shape != (factors,):
            raise ValidationError(f"mu must hold {factors} mean(s) (one per factor), got {mu!r}")
        out["mu"] = mean.tolist()
    if sigma is not None:
        cov = np.atleast_2d(np.asarray(sigma, dtype=float))
        if cov.shape != (factors, factors) or not np.allclose(cov, cov.T):
            raise ValidationError(f"sigma must be a symmetric {factors}x{factors} covariance matrix")
        out["sigma"] = cov
    return out


def _seed(seed: Any) -> int:
    return int(check_seed(seed, "seed", high=R_SEED_MAX))  # type: ignore[arg-type]  # R's set.seed
