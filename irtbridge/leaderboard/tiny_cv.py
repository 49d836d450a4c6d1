"""How well a tiny benchmark predicts held-out models, and how many calibration models it needs.

:func:`validate_tiny` repeats, on the models of ``responses``, what a user does with a tiny benchmark: build
it on some models, predict others from their answers to the ``k`` items, compare with their accuracy on
all items. Two splits, the protocol of Zhang, Dorner & Hardt (NeurIPS 2025): *interpolation* (25% of the
models drawn at random are held out, the rest calibrate; repeated over seeds) and *extrapolation*
(calibrate on the weakest 50% by accuracy, predict the strongest 30%). The learning curve calibrates on
10, 20, 50, 100, 200, 500, ... random models (as many as the data allow, the same held-out 25% each time)
and answers "how many models do I need". Each row: mean absolute error of the predicted accuracy and the
share of held-out models inside their 95% interval.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from irtbridge._validation import check_int
from irtbridge.exceptions import ValidationError
from irtbridge.leaderboard._answers import unique_names
from irtbridge.leaderboard.estimators import DEFAULT_ESTIMATOR, DEFAULT_PRIORS, calibrate_2pl, estimate_accuracy
from irtbridge.leaderboard.tiny import sample_items

__all__ = ["protocol_splits", "held_out_error", "validate_tiny", "CURVE_SIZES"]

CURVE_SIZES = (10, 20, 50, 100, 200, 500, 1000, 2000, 5000)
#: the fewest models validation splits (25% held out in interpolation, 30% in extrapolation)
MIN_MODELS = 8


def protocol_splits(responses: pd.DataFrame, seed: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Calibration and held-out model positions of the interpolation and extrapolation splits.

    Parameters
    ----------
    responses : DataFrame
        Models x items.
    seed : int
        Seed of the splits.

    Returns
    -------
    dict of str to tuple of ndarray
        ``"interpolation"`` and ``"extrapolation"`` -> (calibration positions, held-out positions).
    """
    n = responses.shape[0]
    order = np.random.default_rng(seed).permutation(n)
    n_new = int(round(0.25 * n))
    by_acc = np.argsort(responses.mean(axis=1).to_numpy(), kind="stable")
    return {"interpolation": (np.sort(order[n_new:]), np.sort(order[:n_new])),
            "extrapolation": (by_acc[: int(round(0.5 * n))], by_acc[n - int(round(0.3 * n)):])}


def held_out_error(responses: pd.DataFrame, cal_idx: np.ndarray, new_idx: np.ndarray, items: list[str],
                   method: str, exclude: Sequence[str] | None = None, NCYCLES: int = 500,
                   priors: Mapping[str, tuple] | None = DEFAULT_PRIORS) -> tuple[np.ndarray, np.ndarray]:
    """Absolute errors and interval hits of ``method`` for the models ``new_idx`` calibrated on ``cal_idx``.

    Parameters
    ----------
    responses : DataFrame
        Models x items.
    cal_idx, new_idx : ndarray
        Positions of the calibration models and of the held-out ones.
    items : list of str
        The tiny benchmark's items.
    method : str
        The estimator.
    exclude : sequence of str, optional
        Items left out of the calibration.
    NCYCLES : int, default 500
        Maximum EM cycles.
    priors : mapping or None
        Item priors of the 2PL fit.

    Returns
    -------
    errors, hits : ndarray
        Per held-out model.
    """
    cal = responses.iloc[cal_idx]
    irt = calibrate_2pl(cal, priors=priors, NCYCLES=NCYCLES) if method not in ("mean", "aipw") else None
    out = estimate_accuracy(cal, items, responses.iloc[new_idx][items], method, calibration=irt, exclude=exclude)
    truth = responses.iloc[new_idx].mean(axis=1).to_numpy()
    return (np.abs(out["accuracy"].to_numpy() - truth),
            (out["lower"].to_numpy() <= truth) & (truth <= out["upper"].to_numpy()))


def validate_tiny(responses: pd.DataFrame, k: int, seed: int = 0, *, exclude: Sequence[str] | None = None,
                  method: str = DEFAULT_ESTIMATOR, repeats: int = 3, sizes: Sequence[int] | None = None,
                  priors: Mapping[str, tuple] | None = DEFAULT_PRIORS, NCYCLES: int = 500) -> dict[str, Any]:
    """The cross-validated error table and the learning curve of a tiny benchmark of ``k`` items.

    Parameters
    ----------
    responses : DataFrame
    k : int
    seed : int, default 0
    exclude : sequence of str, optional
    method : str, default "ppi"
        As :func:`~irtbridge.leaderboard.build_tiny`; each repeat draws its own ``k`` items (seeds
        ``seed``, ``seed + 1``, ...).
    repeats : int
        Seeds of the interpolation split and of each learning-curve point.
    sizes : sequence of int, optional
        Calibration sizes of the learning curve (default 10, 20, 50, 100, 200, 500, ... up to the models
        left after holding out 25%).
    priors : mapping or None, default ``DEFAULT_PRIORS``
        Item priors of each 2PL fit (as :func:`~irtbridge.leaderboard.build_tiny`).
    NCYCLES : int
        EM cycles of each 2PL fit.

    Returns
    -------
    dict
        ``errors``: rows ``split, k, n_calibration, n_held_out, mae, coverage``; ``learning_curve``: rows
        ``n_calibration, n_held_out, mae, coverage``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> theta = rng.normal(size=(40, 1))
    >>> x = (rng.random((40, 80)) < 1 / (1 + np.exp(-(theta - rng.normal(size=80))))) * 1.0
    >>> v = validate_tiny(pd.DataFrame(x, columns=[f"q{j}" for j in range(80)]), 20, repeats=1, method="mean")
    >>> [r["split"] for r in v["errors"]], [r["n_calibration"] for r in v["learning_curve"]]
    (['interpolation', 'extrapolation'], [10, 20, 30])
    """
    k = check_int(k, "k", low=3)
    repeats = check_int(repeats, "repeats", low=1)
    n = responses.shape[0]
    if n < MIN_MODELS:
        raise ValidationError(f"responses has {n} models; validating a tiny benchmark needs at least {MIN_MODELS}")
    names = [str(c) for c in responses.columns]
    unique_names(names, "item", "responses")
    unique_names([str(i) for i in responses.index], "model", "responses")
    frame = responses.rename(columns=str)
    errors = []
    for split in ("interpolation", "extrapolation"):
        abs_err, hits, n_cal = [], [], 0
        for r in range(repeats if split == "interpolation" else 1):
            cal_idx, new_idx = protocol_splits(frame, seed + r)[split]
            items = sample_items(names, k, seed + r, exclude)
            e, h = held_out_error(frame, cal_idx, new_idx, items, method, exclude, NCYCLES, priors)
            abs_err.append(e)
            hits.append(h)
            n_cal = len(cal_idx)
        errors.append({"split": split, "k": k, "n_calibration": n_cal, "n_held_out": int(len(np.concatenate(hits))),
                       "mae": float(np.concatenate(abs_err).mean()), "coverage": float(np.concatenate(hits).mean())})
    n_test = int(round(0.25 * n))
    available = n - n_test
    if sizes is None:
        sizes = [s for s in CURVE_SIZES if s < available] + [available]
    curve = []
    for size in sorted({int(s) for s in sizes}):
        if size < 3 or size > available:
            raise ValidationError(f"sizes: {size} calibration models asked; between 3 and {available} are available")
        abs_err, hits = [], []
        for r in range(repeats):
            order = np.random.default_rng([seed, r, size]).permutation(n)
            new_idx, cal_idx = np.sort(order[:n_test]), np.sort(order[n_test:n_test + size])
            e, h = held_out_error(frame, cal_idx, new_idx, sample_items(names, k, seed + r, exclude), method,
                                  exclude, NCYCLES, priors)
            abs_err.append(e)
            hits.append(h)
        curve.append({"n_calibration": size, "n_held_out": int(len(np.concatenate(hits))),
                      "mae": float(np.concatenate(abs_err).mean()), "coverage": float(np.concatenate(hits).mean())})
    return {"errors": errors, "learning_curve": curve}
