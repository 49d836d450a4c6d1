"""Diagnostics of the datasets from their per-dataset results: the item-parameter summary per dataset and
its rankings (Cardoso et al., decodIRT, Table 4 and Figs. 7, 10)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from irtbridge.decodirt.modes import dataset_difficulty
from irtbridge.decodirt.per_dataset import ABERRANT_ZH, MISFIT_ALPHA, DatasetResult
from irtbridge.exceptions import ValidationError

__all__ = ["DIAGNOSTICS", "dataset_diagnostics", "diagnostic_rankings"]

#: the per-dataset statistics of the item parameters (and the columns of the rankings)
DIAGNOSTICS = (
    "difficulty_mean", "difficulty_median", "difficulty_sd",
    "discrimination_mean", "discrimination_median", "discrimination_sd",
    "guessing_mean", "guessing_median", "guessing_sd",
    "share_negative_discrimination", "share_positive_difficulty", "failure_at_median",
)


def _validity(scores: pd.Series) -> bool | None:
    # optimal on top and pessimal at the bottom (ties allowed)
    if "optimal" not in scores.index or "pessimal" not in scores.index or scores.isna().all():
        return None
    s = scores.dropna()
    return bool(s["optimal"] >= s.max() and s["pessimal"] <= s.min())


def dataset_diagnostics(results: Sequence[DatasetResult] | Mapping[str, DatasetResult]) -> pd.DataFrame:
    """Per-dataset summary of the item parameters (Cardoso et al., decodIRT, Table 4 and Figs. 7, 10).

    Parameters
    ----------
    results : sequence or mapping of DatasetResult

    Returns
    -------
    pandas.DataFrame
        Indexed by dataset (failed datasets included with NaN statistics): ``status``, ``engine``,
        ``engine_requested``, ``fallback`` (whether the other engine produced the parameters), sizes
        (``n_instances, n_features, n_classes, n_train, n_test, n_items, n_dropped, n_respondents``),
        the mean / median / sd of difficulty b, discrimination a and guessing g, the share of items with
        a < 0 and with b > 0, ``calibration`` (the mode), ``n_flagged`` (items not identified),
        ``mean_accuracy`` of the real classifiers, ``failure_at_median`` (the share of test instances a
        classifier of the classifiers' median ability is expected to fail:
        :func:`~irtbridge.decodirt.modes.dataset_difficulty`, the dataset difficulty the report ranks by),
        ``share_misfitting`` (items whose S-X2 p-value, adjusted over items by Benjamini-Hochberg, is below
        0.05; mirt fits only), ``aberrant_classifiers`` (real classifiers with person fit Zh < -1.96),
        and ``valid_true_score`` / ``valid_true_score_positive``: whether optimal
        has the highest and pessimal the lowest True-Score on the dataset (the check behind Fig. 9).

    Notes
    -----
    sd is the sample standard deviation (n - 1 in the denominator, pandas' default). Means are plain
    means, as in the paper: a few items with huge ``|b|`` (tiny a) move them, which medians show.
    """
    values = list(results.values()) if isinstance(results, Mapping) else list(results)
    rows = []
    for r in values:
        row: dict[str, Any] = {
            "dataset": r.name, "status": r.status, "engine": r.engine, "engine_requested": r.engine_requested,
            "fallback": bool(r.engine is not None and r.engine != r.engine_requested),
            "n_instances": r.n_instances, "n_features": r.n_features, "n_classes": r.n_classes,
            "n_train": r.n_train, "n_test": r.n_test, "n_items": len(r.items), "n_dropped": len(r.dropped_items),
            "n_respondents": len(r.responses),
        }
        items = r.items if r.ok else r.items.iloc[0:0]
        for stat, col in (("difficulty", "b"), ("discrimination", "a"), ("guessing", "g")):
            v = items[col].astype(float) if len(items) else pd.Series(dtype=float)
            row[f"{stat}_mean"] = v.mean() if len(v) else np.nan
            row[f"{stat}_median"] = v.median() if len(v) else np.nan
            row[f"{stat}_sd"] = v.std() if len(v) > 1 else np.nan
        row["calibration"] = r.calibration_mode
        row["n_flagged"] = r.n_flagged if r.ok else 0
        real = r.respondents[r.respondents["kind"] == "classifier"] if "kind" in r.respondents else r.respondents
        row["mean_accuracy"] = float(real["accuracy"].mean()) if "accuracy" in real and len(real) else np.nan
        median_theta = float(real["theta"].median()) if r.ok and "theta" in real and len(real) else np.nan
        row["failure_at_median"] = (
            dataset_difficulty(items[["a", "b", "g", "u"]], median_theta) if len(items) else np.nan
        )
        misfit = items["misfit_p"].astype(float) if "misfit_p" in items and len(items) else pd.Series(dtype=float)
        row["share_misfitting"] = float((misfit < MISFIT_ALPHA).mean()) if misfit.notna().any() else np.nan
        zh = real["Zh"].astype(float) if "Zh" in real else pd.Series(dtype=float)
        row["aberrant_classifiers"] = ", ".join(map(str, zh.index[zh < ABERRANT_ZH])) if zh.notna().any() else ""
        row["share_negative_discrimination"] = float((items["a"] < 0).mean()) if len(items) else np.nan
        row["share_positive_difficulty"] = float((items["b"] > 0).mean()) if len(items) else np.nan
        row["valid_true_score"] = _validity(r.respondents["true_score"]) if r.ok else None
        row["valid_true_score_positive"] = _validity(r.respondents["true_score_positive"]) if r.ok else None
        rows.append(row)
    if not rows:
        raise ValidationError("results is empty; evaluate at least one dataset")
    frame = pd.DataFrame(rows).set_index("dataset")
    if frame.index.has_duplicates:
        raise ValidationError(f"results hold dataset names twice: {frame.index[frame.index.duplicated()].tolist()[:5]}")
    return frame


def diagnostic_rankings(diagnostics: pd.DataFrame) -> pd.DataFrame:
    """Rank the datasets by each diagnostic: 1 = the largest value (the hardest, most discriminating, …).

    Parameters
    ----------
    diagnostics : DataFrame
        Datasets x diagnostics, as :func:`dataset_diagnostics` gives them.

    Returns
    -------
    pandas.DataFrame
        Datasets x :data:`DIAGNOSTICS`, integer ranks (ties share the smallest rank, pandas' ``"min"``
        method); failed datasets get no rank.
    """
    missing = [c for c in DIAGNOSTICS if c not in diagnostics.columns]
    if missing:
        raise ValidationError(f"diagnostics lack column(s) {missing}; build them with dataset_diagnostics()")
    ranks = diagnostics[list(DIAGNOSTICS)].astype(float).rank(ascending=False, method="min")
    return ranks.astype("Int64")
