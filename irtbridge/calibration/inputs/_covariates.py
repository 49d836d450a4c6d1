"""Person covariates as R receives them (mirt's latent regression), shared by the latent arguments of
:func:`irtbridge.calibrate` and the explanatory front doors."""

from __future__ import annotations

from typing import Any

import pandas as pd

from irtbridge.exceptions import ValidationError


def covariate_columns(covariates: Any, responses: Any) -> dict[str, Any]:
    """The covariates as named columns for R: numbers as floats, text and categories as strings."""
    if not isinstance(covariates, pd.DataFrame) or covariates.shape[1] == 0:
        raise ValidationError("covariates must be a DataFrame with one row per respondent and one column per "
                              f"covariate, got {type(covariates).__name__}")
    n = responses.shape[0] if hasattr(responses, "shape") else len(responses)
    if covariates.shape[0] != n:
        raise ValidationError(f"covariates: {covariates.shape[0]} rows for {n} respondents; give one row per "
                              "respondent, in the order of responses")
    if isinstance(responses, pd.DataFrame) and not covariates.index.equals(responses.index):
        raise ValidationError("covariates: its index differs from responses' index; align the rows "
                              "(e.g. covariates.loc[responses.index])")
    names = [str(c) for c in covariates.columns]
    if len(set(names)) != len(names):
        raise ValidationError(f"covariates has duplicate column names: {sorted({c for c in names if names.count(c) > 1})}")
    columns: dict[str, Any] = {}
    for name, (_, col) in zip(names, covariates.items()):
        if col.isna().any():
            raise ValidationError(f"covariates: column {name!r} has {int(col.isna().sum())} missing value(s); mirt's "
                                  "latent regression needs complete covariates")
        if pd.api.types.is_bool_dtype(col.dtype):
            columns[name] = [bool(v) for v in col]
        elif pd.api.types.is_numeric_dtype(col.dtype):
            columns[name] = col.to_numpy(dtype=float).tolist()
        else:
            columns[name] = [str(v) for v in col]  # text and categories: a factor in R's model matrix
    return columns
