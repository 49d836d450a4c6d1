"""The MLC's input checks, shared by its preparation, procedure, difficulty and result modules: the target as
0/1 labels and the features as a numeric table."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from irtbridge.exceptions import ValidationError


def binary_labels(y: Any, positive: Any = None) -> tuple[pd.Series, dict]:
    """0/1 labels from any two-valued target; class 1 is ``positive`` or the larger value."""
    series = y.copy() if isinstance(y, pd.Series) else pd.Series(np.asarray(y))
    if series.isna().any():
        raise ValidationError(f"y has {int(series.isna().sum())} missing value(s); every case needs its class")
    values = sorted(series.unique().tolist(), key=lambda v: (str(type(v)), v))
    if len(values) != 2:
        raise ValidationError(
            f"y must hold exactly two classes, found {len(values)}: {values[:6]!r}; the MLC is defined per class "
            "of a binary problem"
        )
    if positive is None:
        positive = values[1]
    elif positive not in values:
        raise ValidationError(f"positive={positive!r} is not one of the classes {values!r}")
    mapping = {v: int(v == positive) for v in values}
    return series.map(mapping).astype(int), mapping


def feature_table(X: Any) -> pd.DataFrame:
    if isinstance(X, pd.DataFrame):
        frame = X.copy()
        frame.columns = [str(c) for c in frame.columns]
    else:
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise ValidationError(f"X must be two-dimensional (cases x features), got shape {arr.shape}")
        frame = pd.DataFrame(arr, columns=[f"x{j + 1}" for j in range(arr.shape[1])])
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise ValidationError(f"X is empty (shape {frame.shape})")
    if frame.columns.duplicated().any():
        raise ValidationError(f"X has duplicate column names: {sorted(set(frame.columns[frame.columns.duplicated()]))!r}")
    bad = [c for c in frame.columns if not (pd.api.types.is_numeric_dtype(frame[c]) or pd.api.types.is_bool_dtype(frame[c]))]
    if bad:
        raise ValidationError(
            f"feature column(s) {', '.join(map(repr, bad[:5]))} are not numeric; encode them as numbers (0/1 for "
            "binary features) or drop them"
        )
    return frame.astype(float)
