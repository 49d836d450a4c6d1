"""Input checks for performance matrices (datasets as rows, algorithms as columns), and their rescaling to the
continuous response model's scale."""

from __future__ import annotations

import numbers
from typing import Any, Mapping, Sequence, cast

import numpy as np
import pandas as pd

from irtbridge._validation import numeric_table, show_value
from irtbridge.exceptions import ValidationError

MIN_ALGORITHMS = 2
# The latent trait analysis fits a 10-knot spline per algorithm against dataset easiness (mgcv's default
# basis dimension), which needs at least 10 distinct easiness values.
MIN_DATASETS = 10


def performance_matrix(
    data: Any, name: str = "performance", *, min_datasets: int = MIN_DATASETS, allow_constant: bool = False
) -> tuple[np.ndarray, list[str], pd.Index | None]:
    """Check a datasets x algorithms matrix; return ``(values, algorithm_names, row_index)``.

    ``values`` is a float64 C-contiguous copy. Missing or infinite values, non-numeric columns, fewer than
    2 algorithms or ``min_datasets`` datasets, and (unless ``allow_constant``) an algorithm with the same
    performance everywhere are errors that name the problem.
    """
    values, names, index = numeric_table(
        data, name, column="algorithm", rows="datasets", allow_bool=False,
        hint="e.g. accuracy per dataset; put dataset names in the index (or the CSV's first column)",
    )
    n, m = values.shape
    if m < MIN_ALGORITHMS:
        raise ValidationError(f"{name} has {m} algorithm column(s); a portfolio needs at least {MIN_ALGORITHMS}")
    if n < min_datasets:
        raise ValidationError(
            f"{name} has {n} dataset row(s); portfolio evaluation needs at least {min_datasets} (the latent trait "
            "analysis fits a 10-knot spline against dataset easiness)"
        )
    missing = ~np.isfinite(values)
    if missing.any():
        r, c = np.argwhere(missing)[0]
        label = index[r] if index is not None else r + 1
        raise ValidationError(
            f"{name} has {int(missing.sum())} missing or infinite value(s) (first: algorithm {names[c]!r}, dataset "
            f"{label!r}); the evaluation needs a complete matrix: drop or impute those datasets"
        )
    constant = [names[j] for j in range(m) if values[:, j].min() == values[:, j].max()]
    if constant and not allow_constant:
        raise ValidationError(
            f"{name}: algorithm(s) {', '.join(map(repr, constant[:10]))} perform identically on every dataset and "
            "carry no information about dataset easiness; drop them"
        )
    return values, names, index


def bounds(value: Any, names: list[str], which: str, default: np.ndarray) -> np.ndarray:
    """Per-algorithm bound: None (the default), one number for all, a sequence, or a mapping by name."""
    if value is None:
        return np.asarray(default, dtype=float).copy()
    if isinstance(value, pd.Series):
        value = value.to_dict()
    if isinstance(value, Mapping):
        keys = [str(k) for k in value]
        unknown = [k for k in keys if k not in names]
        if unknown:
            raise ValidationError(f"{which} names unknown algorithm(s) {', '.join(map(repr, unknown[:5]))}")
        lookup = {str(k): v for k, v in value.items()}
        missing = [n for n in names if n not in lookup]
        if missing:
            raise ValidationError(f"{which} has no bound for algorithm(s) {', '.join(map(repr, missing[:5]))}")
        value = [lookup[n] for n in names]
    if isinstance(value, (numbers.Real, np.number)) and not isinstance(value, (bool, np.bool_)):
        out = np.full(len(names), float(value))
    else:
        if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
            raise ValidationError(f"{which} must be a number, one number per algorithm, or a mapping; got {show_value(value)}")
        value = cast(Sequence[Any], value)  # it has a length: a sequence, whose entries float() checks below
        if len(value) != len(names):
            raise ValidationError(f"{which} has {len(value)} value(s) for {len(names)} algorithms")
        try:
            out = np.array([float(v) for v in value], dtype=float)
        except (TypeError, ValueError):
            raise ValidationError(f"{which} must hold numbers, got {show_value(value)}") from None
    if not np.isfinite(out).all():
        raise ValidationError(f"{which} must be finite, got {show_value(out.tolist())}")
    return out


def check_within(values: np.ndarray, names: list[str], lo: np.ndarray, hi: np.ndarray, index: pd.Index | None,
                 name: str) -> None:
    """Every value must lie within its algorithm's [lo, hi], and lo < hi."""
    flat = np.flatnonzero(lo >= hi)
    if flat.size:
        j = flat[0]
        raise ValidationError(f"min_item must be below max_item; for algorithm {names[j]!r} they are {lo[j]:g} and {hi[j]:g}")
    for label, mask, bound, word in ((" min_item", values < lo[None, :], lo, "below"),
                                     (" max_item", values > hi[None, :], hi, "above")):
        if mask.any():
            r, c = np.argwhere(mask)[0]
            row = index[r] if index is not None else r + 1
            raise ValidationError(
                f"{name}: {int(mask.sum())} value(s) lie {word} the bound{label}; e.g. algorithm {names[c]!r} has "
                f"{values[r, c]:g} on dataset {row!r} but its bound is {bound[c]:g}. Widen the bound or fix the data"
            )


def to_model_scale(values: np.ndarray, lo: np.ndarray, hi: np.ndarray, scale: str | None):
    """Performance values and their bounds on the model's scale: rescaled to [0, 1] per algorithm when ``scale`` is set."""
    if scale is None:
        return values, lo, hi
    return (values - lo[None, :]) / (hi - lo)[None, :], np.zeros_like(lo), np.ones_like(hi)
