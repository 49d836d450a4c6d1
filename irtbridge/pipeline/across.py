"""The stages across datasets (native, in the calling process): diagnostics, benchmark subsets, hard instances, pooled EI."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from irtbridge._moved import moved_names
from irtbridge.decodirt import PAPER_ORDERS, dataset_diagnostics as bench_diagnostics, order_datasets, tournament
from irtbridge.decodirt.records import DatasetResult
from irtbridge.decodirt.settings import Settings
from irtbridge.pipeline._names import is_artificial

# one name, one function: irtbridge.decodirt.dataset_diagnostics is the per-dataset table itself
__getattr__ = moved_names(__name__, {"dataset_diagnostics": "irtbridge.pipeline.across:ranked_dataset_diagnostics"})


def ranked_dataset_diagnostics(results: Sequence[DatasetResult]) -> pd.DataFrame:
    """Item-parameter summary per dataset (:func:`irtbridge.decodirt.dataset_diagnostics`, whose
    ``mean_accuracy`` is the real classifiers' mean accuracy), with two ranks: ``rank_difficulty`` (1 = the
    largest share of instances a classifier of median ability fails, ``failure_at_median``) and
    ``rank_bad_discrimination`` (1 = largest share of negative discrimination). Each number appears once.

    Parameters
    ----------
    results : sequence of DatasetResult
        The per-dataset results.

    Returns
    -------
    DataFrame
        One row per dataset.
    """
    ok = [r for r in results if r.ok]
    frame = bench_diagnostics(ok)
    frame = frame[frame["status"] == "ok"].copy()
    frame["rank_difficulty"] = frame["failure_at_median"].rank(ascending=False, method="min").astype("Int64")
    frame["rank_bad_discrimination"] = frame["share_negative_discrimination"].rank(ascending=False, method="min").astype(int)
    return frame


def benchmark_subsets(table: pd.DataFrame, diagnostics: pd.DataFrame, settings: Settings,
                      played: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """Glicko-2 tournaments on the paper's six dataset orders/subsets: is each a valid benchmark?

    Returns one row per order: the datasets played, whether optimal ranks first and pessimal last,
    and the best real classifier with its rating (Cardoso et al., decodIRT, Tables 5-9). ``played``
    holds tournaments already played on the same table (order -> TournamentResult), reused, not replayed.

    Parameters
    ----------
    table : DataFrame
        The True-Scores of every respondent on every dataset.
    diagnostics : DataFrame
        :func:`ranked_dataset_diagnostics`' table (the orders read it).
    settings : Settings
        The run's settings (``tau``, ``tolerance``).
    played : mapping of str to Any, optional
        Tournaments already played, by order (not played again).

    Returns
    -------
    DataFrame
        Indexed by ``order``; empty when no order applies.
    """
    rows = []
    for order in PAPER_ORDERS:
        chosen = order_datasets(diagnostics, order)
        if not chosen:
            continue
        t = (played or {}).get(order) or tournament(table, chosen, name=order, tolerance=settings.tolerance,
                                                    tau=settings.tau)
        ratings = t.ratings.set_index("player")
        real = [p for p in ratings.index if not is_artificial(p)]
        rows.append({
            "order": order, "n_datasets": len(chosen), "datasets": ", ".join(chosen),
            "valid": t.validity.valid, "optimal_rank": t.validity.optimal_rank, "pessimal_rank": t.validity.pessimal_rank,
            "best_classifier": real[0] if real else None, "best_rating": ratings.loc[real[0], "rating"] if real else np.nan,
        })
    return pd.DataFrame(rows).set_index("order") if rows else pd.DataFrame()


def hard_instances(results: Sequence[DatasetResult]) -> pd.DataFrame:
    """Every test instance with its IRT parameters and hardness, hardest first.

    Sorted by ``p_typical`` (the chance a classifier of median ability gets it right under the fitted
    3PL), which folds difficulty, discrimination and guessing into one number where ``b`` alone misleads
    for flat (a near 0) or inverted (a < 0) items; ties by the share of classifiers that got it right.

    Parameters
    ----------
    results : sequence of DatasetResult
        The per-dataset results.

    Returns
    -------
    DataFrame
        Columns ``dataset``, ``instance``, ``a``, ``b``, ``g``, ``u``, ``label``, ``share_correct``,
        ``p_typical`` and, where computed, the hardness.
    """
    frames = []
    for r in results:
        if r.ok and len(r.items):
            f = r.items.reset_index()
            f.insert(0, "dataset", r.name)
            frames.append(f)
    if not frames:
        return pd.DataFrame(columns=["dataset", "instance", "a", "b", "g", "u", "label", "share_correct", "p_typical"])
    return pd.concat(frames, ignore_index=True).sort_values(["p_typical", "share_correct"], kind="stable").reset_index(drop=True)


def pooled_efficiency(results: Sequence[DatasetResult]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """EI family per classifier: per binary dataset, and pooled over them (2 x 2 counts summed).

    Parameters
    ----------
    results : sequence of DatasetResult
        The per-dataset results.

    Returns
    -------
    per_dataset : DataFrame
        One row per binary dataset and classifier.
    pooled : DataFrame
        One row per classifier, by decreasing EI (both empty without binary datasets).
    """
    from irtbridge.efficiency import efficiency_frame  # the stage's package (up to ~1.3 s) loads when the stage runs

    frames = []
    for r in results:
        if r.ok and r.ei is not None:
            f = r.ei.reset_index()
            f.insert(0, "dataset", r.name)
            frames.append(f)
    if not frames:
        return pd.DataFrame(), pd.DataFrame()
    per = pd.concat(frames, ignore_index=True)
    counts = per.groupby("classifier", sort=False)[["tp", "fp", "fn", "tn"]].sum()
    pooled = efficiency_frame(counts["tp"], counts["fp"], counts["fn"], counts["tn"])
    pooled.index.name = "classifier"
    return per, pooled.sort_values("ei", ascending=False, kind="stable")
