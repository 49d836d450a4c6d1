"""A synthetic :class:`irtbridge.pipeline.Evaluation` (no R): three datasets, a failed one and an MLC.

Item parameters are drawn at random and the responses built so that one classifier, "exact", has a
known 2 x 2 table on the binary dataset (TP 26, FP 3, FN 2, TN 29: EI = 55 / 5 = 11).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from types import SimpleNamespace

from irtbridge.decodirt import CalibrationAttempt, DatasetResult, StageWarning
from irtbridge.pipeline import MLCRun, Settings, assemble
from irtbridge.hardness import METHODS, PoolHardness
from irtbridge.irt import estimate_abilities, true_score
from irtbridge.efficiency import efficiency_frame

CLASSIFIERS = ["exact", "strong", "medium", "weak", "noisy"]


def _dataset(name: str, n_items: int, n_classes: int, seed: int) -> DatasetResult:
    rng = np.random.default_rng(seed)
    items = pd.DataFrame({
        "a": np.where(np.arange(n_items) % 17 == 3, -0.8, rng.uniform(0.6, 2.0, n_items)),
        "b": rng.normal(0.0, 1.0, n_items), "g": rng.uniform(0.0, 0.2, n_items), "u": 1.0,
    }, index=pd.Index([f"{i}" for i in range(n_items)], name="instance"))
    if n_classes == 2:
        y = np.array([1] * 28 + [0] * (n_items - 28))
    else:
        y = np.arange(n_items) % n_classes
    resp = {}
    if n_classes == 2:
        # "exact" gets TP = 26, FN = 2 (of 28 positives), TN = 29, FP = 3 (of 32 negatives): EI = 55 / 5 = 11
        resp["exact"] = np.concatenate([np.r_[np.ones(26), np.zeros(2)], np.r_[np.ones(29), np.zeros(3)]])
    else:
        resp["exact"] = (rng.random(n_items) < 0.9).astype(float)
    for name_, p in zip(CLASSIFIERS[1:], (0.85, 0.7, 0.55, 0.5)):
        resp[name_] = (rng.random(n_items) < p).astype(float)
    resp["optimal"] = np.ones(n_items)
    resp["pessimal"] = np.zeros(n_items)
    majority = np.bincount(y).argmax()
    resp["majority"] = (y == majority).astype(float)
    resp["minority"] = (y == np.bincount(y).argmin()).astype(float)
    resp["rand1"] = (rng.random(n_items) < 1 / n_classes).astype(float)
    responses = pd.DataFrame(resp).T
    responses.columns = items.index
    responses.index.name = "respondent"
    est = estimate_abilities(responses, items, model="3PL", method="EAP")
    respondents = pd.DataFrame({
        "kind": ["classifier" if r in CLASSIFIERS else "artificial" for r in responses.index],
        "accuracy": responses.mean(axis=1), "theta": est["theta"], "se": est["se"], "at_bound": est["at_bound"],
        "true_score": true_score(est["theta"], items, model="3PL"),
        "true_score_positive": true_score(est["theta"], items, model="3PL", subset="positive"),
    })
    labels = np.array(["neg", "pos"])[y] if n_classes == 2 else np.array([f"c{k}" for k in range(n_classes)])[y]
    full = items.copy()
    full["label"] = labels
    full["share_correct"] = responses.loc[CLASSIFIERS].mean(axis=0).to_numpy()
    typical = float(np.median(respondents.loc[CLASSIFIERS, "theta"]))
    full["p_typical"] = full["g"] + (1 - full["g"]) / (1 + np.exp(-full["a"] * (typical - full["b"])))
    ei = None
    classes = ("neg", "pos") if n_classes == 2 else tuple(f"c{k}" for k in range(n_classes))
    if n_classes == 2:
        scores = pd.DataFrame({m: np.clip(y * 0.6 + rng.random(n_items) * 0.4, 0, 1) for m in ("m1", "m2", "m3")},
                              index=items.index).T
        table = PoolHardness(pd.Series(y, index=items.index), scores).table(METHODS)
        for m in METHODS:
            full[f"hardness_{m}"] = table[m].to_numpy()
        real = responses.loc[CLASSIFIERS].to_numpy()
        pred = np.where(real == 1, y, 1 - y)
        counts = {k: pd.Series(v, index=pd.Index(CLASSIFIERS, name="classifier")) for k, v in {
            "tp": ((pred == 1) & (y == 1)).sum(1), "fp": ((pred == 1) & (y == 0)).sum(1),
            "fn": ((pred == 0) & (y == 1)).sum(1), "tn": ((pred == 0) & (y == 0)).sum(1)}.items()}
        ei = efficiency_frame(counts["tp"], counts["fp"], counts["fn"], counts["tn"])
    # what the report reads of a calibration
    fit = SimpleNamespace(converged=True, engine="ltm", provenance={"engine_version": "0.0-test", "r_version": "R test"})
    return DatasetResult(
        name=name, status="ok", source="synthetic", n_instances=3 * n_items, n_features=6, n_classes=n_classes,
        n_train=2 * n_items, n_test=n_items, classes=classes, items=full, responses=responses,
        respondents=respondents, ei=ei, calibration=fit, engine="ltm", engine_requested="ltm",
        attempts=(CalibrationAttempt("ltm", "converged", "", 0.1),),
        warnings=(StageWarning("calibration", "RWarning", "R: an R warning to show in the notes"),),
        seconds={"total": 1.0},
    )


def _mlc() -> MLCRun:
    classes = pd.DataFrame({
        "label": ["pos", "neg"], "mlc": [1.2, 2.9], "cases_used": [17, 15], "share_used": [0.085, 0.075],
        "converged": [True, True], "stop": ["se", "se"], "accuracy_at_or_below": [0.9, 0.95], "n_at_or_below": [20, 30],
        "accuracy_above": [0.5, np.nan], "n_above": [4, 0],
    }, index=pd.Index([1, 0], name="class"))
    traj = pd.DataFrame({"L": list(range(1, 18)) + list(range(1, 16)), "mlc": np.linspace(0, 1.2, 32),
                         "class": [1] * 17 + [0] * 15})
    metrics = pd.DataFrame({"value": [0.9, 1.2, 2.9], "n_cases": [60, 17, 15], "share": [0.3, 0.085, 0.075],
                            "seconds": [0.001, 0.02, 0.02]}, index=pd.Index(["accuracy", "MLC (class 1)", "MLC (class 0)"], name="metric"))
    return MLCRun(dataset="alpha", classifier="mlp", classes=classes, metrics=metrics, trajectories=traj, seconds=1.0)



def synthetic_evaluation():
    results = [
        _dataset("alpha", 60, 2, 1),
        _dataset("beta", 45, 3, 2),
        _dataset("gamma", 50, 4, 3),
        DatasetResult.failure("broken", "RError: ltm did not converge and mirt failed"),
    ]
    return assemble(results, Settings.quick_run(), mlc=_mlc(), timings={"datasets and MLC (wall)": 3.0},
                    provenance={"irtbridge": "test", "jobs": 1})
