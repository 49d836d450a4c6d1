"""p-IRT's numerics, shared by :func:`irtbridge.leaderboard.estimate_performance`, its validation and the
leaderboard report (tinyBenchmarks, Maia Polo et al. 2024): the calibration and anchors checked, and theta, its
SE and the predicted accuracy with its model sd from the answers on the anchors."""

from __future__ import annotations

import os
from typing import Any, Sequence

import numpy as np
from scipy.special import expit, logsumexp

from irtbridge.exceptions import ValidationError
from irtbridge.irt import as_item_bank
from irtbridge.irt.fast import log_category_probs, prob_correct
from irtbridge.leaderboard._predictors import factor_posterior
from irtbridge.leaderboard.tiny import TinyBenchmark, load_bank, load_tiny

# the posterior's nodes (121 over [-6, 6]) and the normal quantile of a 95% interval
_GRID = np.linspace(-6.0, 6.0, 121)
Z_95 = 1.959963984540054


def pirt_estimates(x: np.ndarray, bank: Any, anchors: list[str], var: float) -> tuple[np.ndarray, ...]:
    """theta, se, accuracy and its model sd (before any validation) for answers ``x`` on ``anchors``."""
    names = [str(n) for n in bank.names]
    pos = {n: j for j, n in enumerate(names)}
    seen = np.array([pos[a] for a in anchors])
    unseen = np.setdiff1d(np.arange(len(names)), seen)
    log_prior = -0.5 * _GRID**2 / var
    logp = log_category_probs(bank, _GRID)[:, seen, :]  # nodes x anchors x (wrong, right)
    obs = ~np.isnan(x)
    right = np.where(obs, np.nan_to_num(x), 0.0)
    wrong = np.where(obs, 1.0 - np.nan_to_num(x), 0.0)
    log_post = right @ logp[:, :, 1].T + wrong @ logp[:, :, 0].T + log_prior[None, :]
    post = np.exp(log_post - logsumexp(log_post, axis=1, keepdims=True))  # respondents x nodes
    theta = post @ _GRID
    se = np.sqrt(np.maximum(post @ _GRID**2 - theta**2, 0.0))
    # what is not observed (unseen items and unanswered anchors) is predicted at every node
    p_all = prob_correct(bank, _GRID)  # nodes x items
    p_unseen, p_anchor = p_all[:, unseen], p_all[:, seen]
    missing = (~obs).astype(float)
    total = p_unseen.sum(axis=1)[None, :] + missing @ p_anchor.T  # respondents x nodes
    bern = (p_unseen * (1 - p_unseen)).sum(axis=1)[None, :] + missing @ (p_anchor * (1 - p_anchor)).T
    mean_rest = (post * total).sum(axis=1)
    var_rest = np.maximum((post * total**2).sum(axis=1) - mean_rest**2, 0.0) + (post * bern).sum(axis=1)
    n_items = len(names)
    return theta, se, (right.sum(axis=1) + mean_rest) / n_items, np.sqrt(var_rest) / n_items


def factor_calibration(calibration: Any) -> tuple[tuple[str, ...], np.ndarray, np.ndarray] | None:
    """Item names, slopes (items x D) and intercepts of a D-factor calibration (D > 1): a tiny bank's path or
    object of ``build_tiny(n_factors=D)``, its :class:`IRTParameters`, or a ``fit_factors`` result; None for
    anything else (a 1-D calibration)."""
    if isinstance(calibration, (str, os.PathLike)):
        tiny = load_tiny(calibration)
        calibration = tiny if tiny.n_factors > 1 else None
    if isinstance(calibration, TinyBenchmark):
        calibration = calibration.calibration
    loadings = getattr(calibration, "loadings", None)
    if isinstance(loadings, np.ndarray) and loadings.ndim == 2 and loadings.shape[1] > 1:
        return tuple(str(n) for n in calibration.names), loadings, np.asarray(calibration.intercepts, dtype=float)
    if hasattr(calibration, "mask") and getattr(calibration, "n_factors", 1) > 1:  # a FactorResult
        return tuple(str(n) for n in calibration.item_names), np.asarray(calibration.a), np.asarray(calibration.d)
    return None


def factor_pirt_estimates(x: np.ndarray, names: Sequence[str], A: np.ndarray, d: np.ndarray,
                          anchors: list[str]) -> tuple[np.ndarray, ...]:
    """p-IRT on a D-factor calibration: the factors' posterior means and SDs (models x D; EAP under
    ``N(0, I)``), the predicted accuracy and its model sd, with the unobserved answers' expected total and its
    variance (the posterior variance of ``sum P_j(F)`` plus the expected Bernoulli variance) as the 1-D form."""
    pos = {n: j for j, n in enumerate(names)}
    seen = np.array([pos[a] for a in anchors])
    nodes, _, post, mean, cov = factor_posterior(A, d, seen, x)
    unseen = np.setdiff1d(np.arange(len(names)), seen)
    total_u, bern_u = np.zeros(len(nodes)), np.zeros(len(nodes))
    step = max(1, 4_000_000 // len(nodes))
    for start in range(0, len(unseen), step):  # the unseen items' expected total at each point, in blocks
        cols = unseen[start:start + step]
        P = expit(nodes @ A[cols].T + d[cols][None, :])
        total_u += P.sum(axis=1)
        bern_u += (P * (1 - P)).sum(axis=1)
    P_s = expit(nodes @ A[seen].T + d[seen][None, :])  # points x anchors: an unanswered anchor is predicted
    obs = ~np.isnan(x)
    missing = (~obs).astype(float)
    total = total_u[None, :] + missing @ P_s.T
    bern = bern_u[None, :] + missing @ (P_s * (1 - P_s)).T
    mean_rest = (post * total).sum(axis=1)
    var_rest = np.maximum((post * total**2).sum(axis=1) - mean_rest**2, 0.0) + (post * bern).sum(axis=1)
    right = np.where(obs, np.nan_to_num(x), 0.0)
    sd = np.sqrt(np.maximum(np.diagonal(cov, axis1=1, axis2=2), 0.0))
    return mean, sd, (right.sum(axis=1) + mean_rest) / len(names), np.sqrt(var_rest) / len(names)


def bank_of(calibration: Any) -> Any:
    """An ItemBank from a calibration, an ItemBank, or the path of a tiny-benchmark bank file (read offline)."""
    if isinstance(calibration, (str, os.PathLike)):
        return load_bank(calibration)
    return as_item_bank(calibration) if not hasattr(calibration, "_plain") else calibration


def checked_bank(calibration: Any, anchors: Sequence[str]) -> tuple[Any, list[str]]:
    bank = bank_of(calibration)
    if not bank.dichotomous:
        raise ValidationError("estimate_performance needs a dichotomous calibration (rasch, 1PL-4PL)")
    names = {str(n) for n in bank.names}
    anchors = [str(a) for a in anchors]
    if not anchors:
        raise ValidationError("anchors is empty")
    unknown = [a for a in anchors if a not in names]
    if unknown:
        raise ValidationError(f"{len(unknown)} anchor(s) are not items of the calibration, e.g. {unknown[:3]}")
    if len(set(anchors)) != len(anchors):
        raise ValidationError("anchors repeat an item")
    return bank, anchors
