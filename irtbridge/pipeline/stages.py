"""The per-dataset unit of the pipeline and the stages that read its result (see :mod:`irtbridge.pipeline`)."""

# One per-dataset record, :class:`irtbridge.decodirt.DatasetResult`, for both runners. The benchmark's
# own pipeline (split, classifiers, calibration, scoring) makes it; `irtbridge benchmark` writes it as it
# is (items indexed by ``item``, no stage columns: its tables and ``--json`` shape are a contract), and
# `irtbridge evaluate`'s extra stages return a copy with the columns they add (``label``, ``p_typical``,
# hardness) and the EI table. A dataset that could not even be loaded is a failed record with ``error``.
# The calibration attempts and warnings are structured objects (:class:`CalibrationAttempt`,
# :class:`StageWarning`), never strings; writers render them with ``str()``.

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

import numpy as np
import pandas as pd
from scipy.special import expit

from irtbridge._constraints import Flag, Int, constraints
from irtbridge.decodirt import BenchmarkDataset, class_labels, evaluate_dataset, load_benchmark_dataset, prepare_features
from irtbridge.decodirt.records import DatasetResult, StageWarning
from irtbridge.decodirt.settings import Settings
from irtbridge.exceptions import ValidationError
from irtbridge.pipeline._names import dataset_label
from irtbridge.pipeline._units import lost_dataset, run_all, worker_count


@constraints(extras=Flag(), strict=Flag())
def run_dataset(ref: Any, settings: Settings | None = None, extras: bool = True, strict: bool = False) -> DatasetResult:
    """The per-dataset unit of :func:`evaluate` and of :func:`irtbridge.pipeline.run_benchmark` (run it in
    spawned workers: one R per process).

    ``extras``: also the report's stages that read the benchmark's record (each item's class, share correct
    and typical-classifier probability; the EI family and cost-curve hardness of binary datasets); without
    them the record is the benchmark's as it is (plus ``seconds["total"]``).
    Unless ``strict``, never raises for a bad dataset: the reason is kept in ``error`` so the other
    datasets go on (decodIRT, Cardoso et al., lost "pc4" to a calibration that did not converge);
    ``strict`` (the benchmark's contract) lets the dataset's error propagate.

    Parameters
    ----------
    ref : str, DatasetRef or BenchmarkDataset
        The dataset.
    settings : Settings, optional
        The run's settings (default ``Settings()``).
    extras : bool, default True
        Also run the report's stages that read the benchmark's record (see above).
    strict : bool, default False
        Raise an error instead of recording the dataset as failed.

    Returns
    -------
    DatasetResult
        The result (a failed one, with the error, unless ``strict``).
    """
    settings = settings or Settings()
    start = time.perf_counter()
    name = ref.name if isinstance(ref, BenchmarkDataset) else dataset_label(ref)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # kept in the benchmark result and reported on the page
            ds = load_benchmark_dataset(ref)
            result = evaluate_dataset(ds, settings)
    except Exception as exc:  # one dataset's failure must not stop the evaluation
        if strict:
            raise
        return DatasetResult.failure(name, f"{type(exc).__name__}: {exc}", time.perf_counter() - start)
    if result.ok and extras:
        result = _typical(result)
        if result.binary:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    result = binary_extras(result)
            except Exception as exc:  # the IRT part stands on its own; say why the extras are missing
                lost = StageWarning("ei/hardness", "DataWarning", f"EI/hardness not computed: {type(exc).__name__}: {exc}")
                result = replace(result, warnings=result.warnings + (lost,))
    return replace(result, seconds={**result.seconds, "total": time.perf_counter() - start})


def _typical(result: DatasetResult) -> DatasetResult:
    """Each item's class, share of real classifiers answering it correctly, and the 3PL probability that
    the median classifier does (Cardoso et al., decodIRT, Eq. 1); the items are then indexed ``instance``."""
    items = result.items.copy()
    items.index = items.index.astype(str)
    items.index.name = "instance"
    respondents = result.respondents
    real = list(respondents.index[respondents["kind"] == "classifier"])
    responses = result.responses.rename(columns=str)
    items["label"] = result.y_test.reindex(items.index).to_numpy()
    items["share_correct"] = responses.loc[real, items.index].mean(axis=0).to_numpy()
    typical = float(np.nanmedian(respondents.loc[real, "theta"].to_numpy(dtype=float)))
    a, b, g, u = (items[c].to_numpy(dtype=float) for c in ("a", "b", "g", "u"))
    # 3PL (4PL with u) response function at the median classifier's ability
    items["p_typical"] = g + (u - g) * expit(a * (typical - b))
    return replace(result, items=items, responses=responses)


def binary_extras(result: DatasetResult) -> DatasetResult:
    """EI family per classifier and cost-curve instance hardness of a binary dataset, from its result.

    Nothing is refitted or re-split: both stages read what the benchmark's pipeline kept in the record:
    the test labels ``y_test``, each real classifier's ``predictions`` and its scores ``P(y = positive)``
    (``scores``).

    Parameters
    ----------
    result : DatasetResult
        A binary dataset's result.

    Returns
    -------
    DatasetResult
        A copy with the hardness in its ``items`` and the EI family in ``ei``.

    Notes
    -----
    With the minority class as positive (1), ``TP = #(pred = 1, y = 1)`` etc., and
    :func:`irtbridge.efficiency.efficiency_frame` gives EI = (TP + TN) / (FP + FN) and its variants with
    95% intervals (Larner 2023). Hardness: the scores of the benchmark's classifier pool on the test
    instances, ``s = P(y = 1)``, are Prudêncio's pool of scoring models;
    :meth:`irtbridge.hardness.PoolHardness.table` gives every threshold choice method.
    """
    from irtbridge.efficiency import efficiency_frame  # the stage's package (up to ~1.3 s) loads when the stage runs
    from irtbridge.hardness import METHODS, PoolHardness  # the stage's package (up to ~1.3 s) loads when the stage runs

    bres = result
    positive = result.classes[1]
    labels = [str(c) for c in result.responses.columns]
    y_test = (bres.y_test.reindex(labels).to_numpy() == positive).astype(int)
    kinds = result.respondents["kind"]
    real = [r for r in bres.predictions.index if kinds.get(r) == "classifier"]
    pred = (bres.predictions.loc[real, labels].to_numpy() == positive).astype(int)
    counts = {
        "tp": ((pred == 1) & (y_test == 1)).sum(axis=1), "fp": ((pred == 1) & (y_test == 0)).sum(axis=1),
        "fn": ((pred == 0) & (y_test == 1)).sum(axis=1), "tn": ((pred == 0) & (y_test == 0)).sum(axis=1),
    }
    names = pd.Index(real, name="classifier")
    ei = efficiency_frame(*(pd.Series(counts[k], index=names) for k in ("tp", "fp", "fn", "tn")))
    pool = PoolHardness(y=pd.Series(y_test, index=labels), scores=bres.scores.loc[real, labels])
    table = pool.table(METHODS)
    items = result.items.copy()
    for m in METHODS:
        items[f"hardness_{m}"] = table[m].reindex(items.index).to_numpy()
    return replace(result, items=items, ei=ei)


@constraints(extras=Flag(), strict=Flag())
def dataset_units(refs: Sequence[Any], settings: Settings, *, extras: bool = True,
                  strict: bool = False) -> dict[tuple[str, Any], tuple[Any, tuple]]:
    """The per-dataset units of a run, ``("dataset", ref) -> (run_dataset, args)`` (see :func:`run_dataset`).

    Parameters
    ----------
    refs : sequence
        The datasets.
    settings : Settings
        The run's settings.
    extras, strict : bool
        As in :func:`run_dataset`.

    Returns
    -------
    dict
        ``("dataset", ref) -> (run_dataset, args)``.
    """
    return {("dataset", r): (run_dataset, (r, settings, extras, strict)) for r in refs}


@constraints(jobs=Int(low=1, allow_none=True), progress=Flag(), extras=Flag(), strict=Flag())
def run_datasets(refs: Sequence[Any], settings: Settings, *, jobs: int | None = None, progress: bool = False,
                 extras: bool = True, strict: bool = False, desc: str = "datasets") -> list[DatasetResult]:
    """The per-dataset stages of every dataset, in spawned workers (one R each), in the order given.

    The one runner of the benchmark's datasets: :func:`evaluate` runs these units (with the MLC unit
    beside them) and :func:`irtbridge.pipeline.run_benchmark` runs them without the report's stages
    (``extras=False``) and with ``strict`` errors.

    Parameters
    ----------
    refs : sequence
        The datasets.
    settings : Settings
        The run's settings.
    jobs : int, optional
        Worker processes (default: one per CPU, at most one per dataset).
    progress : bool, default False
        Show a progress bar.
    extras, strict : bool
        As in :func:`run_dataset`.
    desc : str, default "datasets"
        The progress bar's label.

    Returns
    -------
    list of DatasetResult
        One per dataset, in the order given.
    """
    units = dataset_units(refs, settings, extras=extras, strict=strict)
    done = run_all(units, worker_count(jobs, len(units)), progress, desc, lost=None if strict else lost_dataset)
    return [done[("dataset", r)] for r in refs]


# --------------------------------------------------------------------------------------------------
# MLC (the MLC paper)
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MLCRun:
    """The MLC stage of :func:`evaluate`: plain tables, so it travels between processes and to files.

    Attributes
    ----------
    dataset : str or None
        The binary dataset it ran on (None when the run had none).
    classifier : str or None
    classes : DataFrame or None
        Per class (index ``class``): ``label``, ``mlc``, ``cases_used``, ``share_used``, ``converged``,
        ``stop``, and the accuracy of the test cases at or below / above the MLC with their counts.
    metrics : DataFrame or None
        The MLC paper's Tables 4-5 layout (:meth:`irtbridge.mlc.MLCResult.table`).
    trajectories : DataFrame or None
        The MLC after each case used, per class (``L``, ``mlc``, ``class``, ...).
    error : str or None
        Why there is no MLC.
    seconds : float
    """

    dataset: str | None = None
    classifier: str | None = None
    classes: pd.DataFrame | None = field(default=None, repr=False)
    metrics: pd.DataFrame | None = field(default=None, repr=False)
    trajectories: pd.DataFrame | None = field(default=None, repr=False)
    error: str | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """Whether the MLC ran without error and has its class table."""
        return self.error is None and self.classes is not None

    def tables(self) -> dict[str, pd.DataFrame]:
        """The tables that exist, by the report's file stems (``mlc``, ``mlc_metrics``, ``mlc_trajectories``).

        Returns
        -------
        dict of str to DataFrame
            Stem -> table.
        """
        named = {"mlc": self.classes, "mlc_metrics": self.metrics, "mlc_trajectories": self.trajectories}
        return {k: v for k, v in named.items() if isinstance(v, pd.DataFrame)}


def run_mlc(ref: str, settings: Settings | None = None) -> MLCRun:
    """Per-class Machine Learning Capability of one binary dataset (:func:`irtbridge.mlc.evaluate_mlc`).

    The CDIs come from the features cut at their quartiles (graded model in R); class 1 is the minority
    class. Never raises: a failure is kept in :attr:`MLCRun.error`.

    Parameters
    ----------
    ref : str
        A binary dataset.
    settings : Settings, optional
        The run's settings (default ``Settings()``).

    Returns
    -------
    MLCRun
        Its result, or the error.
    """
    from irtbridge.mlc import evaluate_mlc  # the stage's package (up to ~1.3 s) loads when the stage runs

    settings = settings or Settings()
    start = time.perf_counter()
    out: dict[str, Any] = {"dataset": dataset_label(ref), "classifier": settings.mlc_classifier}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ds = load_benchmark_dataset(ref)
            classes = class_labels(ds.y)
            if len(classes) != 2:
                raise ValidationError(f"the MLC needs two classes; {out['dataset']} has {len(classes)}")
            X, _ = prepare_features(ds.X, ds.X)  # numbers and one-hot categories; scaling is harmless
            X = pd.DataFrame(X, index=ds.X.index, columns=[f"x{j + 1}" for j in range(X.shape[1])])
            y = (ds.y.astype(str) == classes[1]).astype(int)
            res = evaluate_mlc(X, y, settings.mlc_classifier, features="quartiles", random_state=settings.seed)
        by = res.accuracy_by_mlc("true")
        rows = []
        for c in res.classes:
            rows.append({
                "class": c.label, "label": classes[c.label], "mlc": c.mlc, "cases_used": c.cases_used,
                "share_used": c.share_used, "converged": bool(c.converged), "stop": c.stop,
                "accuracy_at_or_below": by.loc[c.label, "accuracy_below"], "n_at_or_below": int(by.loc[c.label, "n_below"]),
                "accuracy_above": by.loc[c.label, "accuracy_above"], "n_above": int(by.loc[c.label, "n_above"]),
            })
        out["classes"] = pd.DataFrame(rows).set_index("class")
        out["metrics"] = res.table()
        out["trajectories"] = pd.concat(
            [c.trajectory.reset_index().assign(**{"class": c.label}) for c in res.classes], ignore_index=True)
    except Exception as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"
    return MLCRun(**out, seconds=time.perf_counter() - start)
