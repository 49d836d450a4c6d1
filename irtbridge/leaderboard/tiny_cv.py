"""How well a tiny benchmark predicts held-out models, and how many calibration models it needs.

:func:`validate_tiny` repeats, on the models of ``responses``, exactly what a user does with a tiny
benchmark, on the calibration models of each fold only: :func:`~irtbridge.leaderboard.build_tiny` on them
(the 2PL with the same prior, its flags, the features, the draw of the ``k`` items), then
:meth:`~irtbridge.leaderboard.TinyBenchmark.predict` on the held-out models from their answers to the ``k``
items, compared with their accuracy on all items. Nothing is computed from the held-out models but the truth.
Two splits, the protocol of Zhang, Dorner & Hardt (NeurIPS 2025): *interpolation* (25% of the models drawn
at random are held out, the rest calibrate; a new split and a new item draw each repeat) and
*extrapolation* (calibrate on the weakest 50% by accuracy, predict the strongest 30%; the same split, a new
item draw each repeat). The learning curve calibrates on 10, 20, 50, 100, 200, 500, ... random models (as
many as the data allow) and answers "how many models do I need".

Each row: the mean absolute error of the predicted accuracy and the share of held-out models inside their
95% interval, each with its own uncertainty. Every calibration fit (a fold's 2PL) is scored on ``draws``
item draws (a draw costs a prediction; a fit costs an EM run), so that the item draw, the larger part of the
table's own noise, is averaged out cheaply: on four real 90-model leaderboards at k = 50 one draw's coverage
varies with a standard deviation of 0.05-0.07 around its mean, and three draws put the table up to 0.05 away
from it. ``mae_se`` and ``coverage_se`` are the standard errors of the table's means over its replication
units: the splits (each a fit; their means over the draws) where there are several, the item draws where the
split is fixed (extrapolation); never below the item draws' share (their pooled spread within a fit over
every draw) nor, for coverage, below the binomial error of every prediction (Agresti-Coull, so a table that
covered every model still says how little that proves). ``coverage_lower``/``coverage_upper`` are the Wilson
95% interval of the covered share at the effective number of predictions that standard error implies (the
held-out models of one draw share its items, so they count as fewer independent ones; Kish's design
effect). A coverage below :data:`LOW_COVERAGE` is a :class:`~irtbridge.exceptions.DataWarning` and a note of
the result (the CLI, the summary, ``summary.json`` and the HTML say it).
"""

from __future__ import annotations

import warnings
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from irtbridge._constraints import Choice, Int, constraints
from irtbridge.exceptions import DataWarning, ValidationError, find_stack_level
from irtbridge.leaderboard._answers import one_row_per_model, response_values, unique_names
from irtbridge.leaderboard.diagnostics import wilson_interval
from irtbridge.leaderboard.estimators import (DEFAULT_ESTIMATOR, DEFAULT_PRIORS, MAX_FACTORS, STRATIFIED, IRTParameters,
                                              calibrate_factors)
from irtbridge.leaderboard.tiny import DESIGNS, build_tiny, sample_items

__all__ = ["protocol_splits", "held_out_error", "validate_tiny", "CURVE_SIZES", "DRAWS", "LOW_COVERAGE", "MIN_MODELS"]

CURVE_SIZES = (10, 20, 50, 100, 200, 500, 1000, 2000, 5000)
#: the fewest models validation splits (25% held out in interpolation, 30% in extrapolation)
MIN_MODELS = 8
#: item draws per calibration fit of the error table (each costs a prediction, not a fit)
DRAWS = 10
#: a 95% interval that covers less than this share of held-out models is flagged
LOW_COVERAGE = 0.90


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


def held_out_error(responses: pd.DataFrame, cal_idx: np.ndarray, new_idx: np.ndarray, k: int, seed: int,
                   method: str = DEFAULT_ESTIMATOR, exclude: Sequence[str] | None = None, *,
                   calibration: IRTParameters | None = None, priors: Mapping[str, tuple] | None = DEFAULT_PRIORS,
                   NCYCLES: int = 500, design: str = "auto", n_factors: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Absolute errors and interval hits of a user's run: a tiny benchmark built on the models ``cal_idx``
    alone (draw ``seed``), predicting the models ``new_idx``.

    Parameters
    ----------
    responses : DataFrame
        Models x items.
    cal_idx, new_idx : ndarray
        Positions of the calibration models and of the held-out ones.
    k : int
        Items of the tiny benchmark.
    seed : int
        Seed of its item draw.
    method : str
        The estimator.
    exclude : sequence of str, optional
        Items the user left out of the sample frame.
    calibration : IRTParameters, optional
        The 2PL fit of the calibration models (``calibrate_2pl(responses.iloc[cal_idx], priors=priors)``),
        when already made; fitted otherwise.
    priors : mapping or None
        Item priors of that fit.
    NCYCLES : int, default 500
        Maximum EM cycles.
    design : {"auto", "random", "stratified"}, default "auto"
        The item draw (:func:`~irtbridge.leaderboard.build_tiny`), redrawn on the calibration models.
    n_factors : int, default 1
        The factors of the calibration (:func:`~irtbridge.leaderboard.build_tiny`).

    Returns
    -------
    errors, hits : ndarray
        Per held-out model.
    """
    tiny = build_tiny(responses.iloc[cal_idx], k, seed, exclude=exclude, method=method, calibration=calibration,
                      priors=priors, NCYCLES=NCYCLES, design=design, n_factors=n_factors)
    out = tiny.predict(responses.iloc[new_idx][tiny.items])
    truth = responses.iloc[new_idx].mean(axis=1).to_numpy()
    return (np.abs(out["accuracy"].to_numpy() - truth),
            (out["lower"].to_numpy() <= truth) & (truth <= out["upper"].to_numpy()))


def _mean_se(values: np.ndarray, clusters: np.ndarray) -> float:
    """Standard error of the mean of per-draw ``values`` whose draws share a calibration fit within a cluster:
    between the clusters' means where there are two or more, over the draws where there is one; at least the
    draws' pooled within-cluster share. NaN for a single draw."""
    n = len(values)
    if n < 2:
        return float("nan")
    labels, index = np.unique(clusters, return_inverse=True)
    means = np.bincount(index, weights=values) / np.bincount(index)
    within = float(((values - means[index]) ** 2).sum())
    var = within / (n - len(labels)) / n if n > len(labels) else 0.0
    if len(labels) > 1:
        var = max(var, float(np.var(means, ddof=1)) / len(labels))
    return float(np.sqrt(var))


def _row(errors: list[np.ndarray], hits: list[np.ndarray], clusters: list[Any]) -> dict[str, Any]:
    """MAE and coverage over the draws (``clusters``: each draw's calibration fit), with their standard errors
    and the coverage's Wilson interval at its effective number of predictions."""
    ids = {c: i for i, c in enumerate(dict.fromkeys(clusters))}
    fit = np.array([ids[c] for c in clusters])
    maes = np.array([e.mean() for e in errors])
    covs = np.array([h.mean() for h in hits])
    every = np.concatenate(hits)
    n, covered = len(every), int(every.sum())
    tilde = (covered + 2.0) / (n + 4.0)  # Agresti-Coull: a floor that is not zero when every model was covered
    coverage_se = _mean_se(covs, fit)
    if np.isfinite(coverage_se):
        coverage_se = max(coverage_se, float(np.sqrt(tilde * (1 - tilde) / n)))
        n_eff = min(float(n), tilde * (1 - tilde) / coverage_se**2)  # Kish: n over the design effect
    else:
        n_eff = float(n)  # one draw: nothing to tell the models' dependence by
    lower, upper = wilson_interval(every.mean() * n_eff, n_eff)
    return {"n_held_out": n, "draws": len(errors), "mae": float(np.concatenate(errors).mean()),
            "mae_se": _mean_se(maes, fit), "coverage": float(every.mean()), "coverage_se": coverage_se,
            "coverage_lower": float(lower), "coverage_upper": float(upper)}


def _low_coverage_note(row: dict[str, Any], what: str) -> str | None:
    if row["coverage"] >= LOW_COVERAGE:
        return None
    return (f"{what}: the 95% intervals covered {row['coverage']:.3f} of {row['n_held_out']} held-out predictions "
            f"(Wilson 95% {row['coverage_lower']:.3f}-{row['coverage_upper']:.3f}), below {LOW_COVERAGE:.2f}: "
            "on these data the intervals are too narrow; read them as wider, or use more items (k)")


@constraints(k=Int(low=3), seed=Int(low=0), repeats=Int(low=1), draws=Int(low=1), design=Choice(DESIGNS),
             n_factors=Int(low=1, high=MAX_FACTORS))
def validate_tiny(responses: pd.DataFrame, k: int, seed: int = 0, *, exclude: Sequence[str] | None = None,
                  method: str = DEFAULT_ESTIMATOR, repeats: int = 3, sizes: Sequence[int] | None = None,
                  priors: Mapping[str, tuple] | None = DEFAULT_PRIORS, NCYCLES: int = 500,
                  design: str = "auto", draws: int = DRAWS, n_factors: int = 1) -> dict[str, Any]:
    """The cross-validated error table and the learning curve of a tiny benchmark of ``k`` items.

    Parameters
    ----------
    responses : DataFrame
        Models x items; a model named twice counts once if its rows agree and is an error otherwise (as
        :func:`~irtbridge.leaderboard.build_tiny`).
    k : int
    seed : int, default 0
    exclude : sequence of str, optional
    method : str, default "ppi"
        As :func:`~irtbridge.leaderboard.build_tiny`. Interpolation's repeat ``r`` makes its own split (seed
        ``seed + r``); the ``d``-th item draw of repeat ``r`` draws its own ``k`` items (seed
        ``seed + r + repeats * d``).
    repeats : int
        Splits (calibration fits) of interpolation and of each learning-curve point; extrapolation's split is
        fixed, so its repeats are item draws on one fit.
    draws : int, default :data:`DRAWS`
        Item draws per repeat, each scored on the repeat's fit (a draw costs a prediction, a fit an EM run):
        a row's ``draws`` is ``repeats * draws``. Two or more in all give the standard errors.
    sizes : sequence of int, optional
        Calibration sizes of the learning curve (default 10, 20, 50, 100, 200, 500, ... up to the models
        left after holding out 25%).
    priors : mapping or None, default ``DEFAULT_PRIORS``
        Item priors of each 2PL fit (as :func:`~irtbridge.leaderboard.build_tiny`).
    NCYCLES : int
        EM cycles of each 2PL fit.
    design : {"auto", "random", "stratified"}, default "auto"
        The item draw of :func:`~irtbridge.leaderboard.build_tiny`; each draw of the table redraws it (the
        strata from the calibration models of its fold).
    n_factors : int, default 1
        The factors of each calibration (:func:`~irtbridge.leaderboard.build_tiny`).

    Returns
    -------
    dict
        ``errors``: rows ``split, k, n_calibration, n_held_out, draws, mae, mae_se, coverage, coverage_se,
        coverage_lower, coverage_upper``; ``learning_curve``: the same without ``split`` and ``k``;
        ``notes``: a sentence per split whose coverage is below :data:`LOW_COVERAGE` (each also warned). The
        standard errors and the Wilson interval as the module says.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> theta = rng.normal(size=(40, 1))
    >>> x = (rng.random((40, 80)) < 1 / (1 + np.exp(-(theta - rng.normal(size=80))))) * 1.0
    >>> v = validate_tiny(pd.DataFrame(x, columns=[f"q{j}" for j in range(80)]), 20, repeats=2, method="mean",
    ...                   draws=3)
    >>> [(r["split"], r["draws"]) for r in v["errors"]], [r["n_calibration"] for r in v["learning_curve"]]
    ([('interpolation', 6), ('extrapolation', 6)], [10, 20, 30])
    """
    k, seed, repeats, draws = int(k), int(seed), int(repeats), int(draws)  # checked by the declaration above
    response_values(responses, "responses")
    responses = one_row_per_model(responses, "responses")  # the commands' rule: identical repeats count once
    n = responses.shape[0]
    if n < MIN_MODELS:
        raise ValidationError(f"responses has {n} models; validating a tiny benchmark needs at least {MIN_MODELS}")
    names = [str(c) for c in responses.columns]
    unique_names(names, "item", "responses")
    frame = responses.rename(columns=str)
    n_test = int(round(0.25 * n))
    available = n - n_test
    if sizes is None:
        sizes = [s for s in CURVE_SIZES if s < available] + [available]
    sizes = sorted({int(s) for s in sizes})
    bad = [s for s in sizes if s < 3 or s > available]
    if bad:
        raise ValidationError(f"sizes: {bad[0]} calibration models asked; between 3 and {available} are available")
    sample_items(names, k, seed, exclude)  # k and exclude checked before any fit
    if design == "stratified" and method not in STRATIFIED:
        raise ValidationError(f"design: a stratified draw needs method {' or '.join(STRATIFIED)}, not {method!r}")
    fits: dict[tuple[int, ...], IRTParameters] = {}

    def run(cal_idx: np.ndarray, new_idx: np.ndarray, r: int, errs: list, hits: list, keys: list) -> None:
        key = tuple(int(i) for i in cal_idx)  # one 2PL per set of calibration models, as a user's run fits once
        if key not in fits:
            fits[key] = calibrate_factors(frame.iloc[cal_idx], n_factors, priors=priors, NCYCLES=NCYCLES)
        for d in range(draws):
            e, h = held_out_error(frame, cal_idx, new_idx, k, seed + r + repeats * d, method, exclude,
                                  calibration=fits[key], design=design, n_factors=n_factors)
            errs.append(e)
            hits.append(h)
            keys.append(key)

    errors, notes = [], []
    for split in ("interpolation", "extrapolation"):
        errs: list[np.ndarray] = []
        hits: list[np.ndarray] = []
        keys: list[tuple[int, ...]] = []
        for r in range(repeats):
            cal_idx, new_idx = protocol_splits(frame, seed + r)[split]
            run(cal_idx, new_idx, r, errs, hits, keys)
        row = {"split": split, "k": k, "n_calibration": len(cal_idx), **_row(errs, hits, keys)}
        errors.append(row)
        note = _low_coverage_note(row, split)
        if note:
            notes.append(note)
            warnings.warn(note, DataWarning, stacklevel=find_stack_level())
    curve = []
    for size in sizes:
        errs, hits, keys = [], [], []
        for r in range(repeats):
            order = np.random.default_rng([seed, r, size]).permutation(n)
            new_idx, cal_idx = np.sort(order[:n_test]), np.sort(order[n_test:n_test + size])
            run(cal_idx, new_idx, r, errs, hits, keys)
        curve.append({"n_calibration": size, **_row(errs, hits, keys)})
    return {"errors": errors, "learning_curve": curve, "notes": notes}
