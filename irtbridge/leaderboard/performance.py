"""Predicted accuracy on the full item set from answers to anchor items (p-IRT, with an interval).

For a new respondent with answers ``x_j`` on the anchors ``S`` of a calibrated set of ``J`` items, the
accuracy on all ``J`` items is ``(sum_{j in S} x_j + sum_{j not in S} X_j) / J`` where the unseen ``X_j`` are
Bernoulli with ``P_j(theta)``. With the posterior of theta given the anchor answers (normal prior with the
calibration's latent variance, on 121 nodes over [-6, 6]) the prediction is its posterior mean,

    accuracy = (sum_S x_j + E[sum_{not S} P_j(theta)]) / J,

the point estimate of tinyBenchmarks' p-IRT (Polo et al. 2024) averaged over the posterior instead of taken
at one theta. Its variance adds, by the law of total variance, the posterior variance of
``sum_{not S} P_j(theta)`` and the expected Bernoulli variance ``E[sum_{not S} P_j (1 - P_j)]``; the 95%
interval is the normal one, clipped to [0, 1].

That interval treats the item parameters as exact. With a calibration of tens of respondents they are not
(and real data are not exactly 2PL): :mod:`irtbridge.leaderboard.validation` measures the held-out error on
the calibration's own respondents and corrects both the prediction and the interval.
"""

from __future__ import annotations

import os
import warnings
from typing import Any, Sequence

import numpy as np
import pandas as pd

from irtbridge._constraints import Having, constraints
from irtbridge.exceptions import ValidationError, find_stack_level
from irtbridge.leaderboard._answers import answer_matrix as _anchor_matrix
from irtbridge.leaderboard._pirt import Z_95, checked_bank, factor_calibration, factor_pirt_estimates, pirt_estimates

__all__ = ["estimate_performance"]

#: below this many calibrated respondents, an unvalidated interval warns (measured: coverage 0.83-0.87 at 200)
SMALL_CALIBRATION = 500


def warn_small_calibration(calibration: Any, advice: str) -> None:
    """Warn that a calibration of few respondents gives too narrow p-IRT intervals (``advice``: what to do)."""
    n = getattr(calibration, "n_respondents", None)
    if n is not None and n < SMALL_CALIBRATION:
        warnings.warn(f"the calibration has {n} respondents: the 95% interval counts theta and the unseen answers "
                      f"but not the error of its item parameters, and will be too narrow; {advice}", UserWarning,
                      stacklevel=find_stack_level())


@constraints(validation=Having(("apply",), "validate_anchors(...)'s AnchorValidation"))
def estimate_performance(responses_on_anchors: Any, calibration: Any, anchors: Sequence[str], *,
                         validation: Any = None) -> pd.DataFrame:
    """Predict each respondent's accuracy on the whole calibrated item set from its anchor answers.

    Parameters
    ----------
    responses_on_anchors : DataFrame
        New respondents x anchor items, 0/1 (NaN: not answered).
    calibration : Calibration, ItemBank, path, TinyBenchmark, IRTParameters or FactorResult
        A dichotomous calibration of the full item set (``.items``, ``.model``), or the path of a bank file
        written by :meth:`irtbridge.leaderboard.TinyBenchmark.save` (read offline, :func:`load_bank`). A
        D-factor calibration (D > 1: a bank of ``build_tiny(n_factors=D)``, its path, its ``calibration``, or
        :func:`~irtbridge.em.factors.fit_factors`' result) predicts from the factors' posterior under
        ``N(0, I)`` (EAP): ``theta`` and ``theta_se`` are then NaN and the columns ``F1..FD`` and
        ``se_F1..se_FD`` follow ``se``; ``validation`` is for 1-D calibrations only.
    anchors : sequence of str
        The anchor items (names in the calibration), e.g. from :func:`select_anchors`.
    validation : AnchorValidation, optional
        From :func:`validate_anchors` on the calibration's own respondents, with these anchors. The model's
        interval counts the uncertainty of theta and of the unseen answers, not the error of the item
        parameters nor the model's misfit, which dominate when few respondents were calibrated (tens of
        classifiers rather than hundreds of models). With ``validation`` the prediction is the
        cross-validated blend ``(1 - weight) * p-IRT + weight * anchor mean`` and the interval's half-width is
        multiplied by ``validation.scale`` (both chosen by cross-validation over those respondents).
        Without it, a calibration of fewer than 500 respondents gets a warning.

    Returns
    -------
    DataFrame
        One row per respondent, the column vocabulary of every estimate: ``theta`` and ``theta_se``
        (posterior mean and sd given the anchors), ``accuracy`` (predicted share correct on all items),
        ``accuracy_se`` (its model sd, scaled by ``validation`` when given), ``lower``, ``upper`` (95%
        interval), then ``se``, a deprecated alias of ``theta_se`` (removed in 0.3.0).

    Examples
    --------
    >>> from irtbridge.irt import as_item_bank
    >>> items = pd.DataFrame({"a": 1.0, "b": np.linspace(-2, 2, 50)}, index=[f"q{j}" for j in range(50)])
    >>> out = estimate_performance(pd.DataFrame({"q0": [1.0], "q25": [1.0], "q49": [0.0]}),
    ...                            as_item_bank(items, "2PL"), ["q0", "q25", "q49"])
    >>> list(out.columns), bool(0 < out["accuracy"].iloc[0] < 1)
    (['theta', 'theta_se', 'accuracy', 'accuracy_se', 'lower', 'upper', 'se'], True)
    """
    factors = factor_calibration(calibration)
    if factors is not None:
        return _factor_performance(responses_on_anchors, factors, anchors, validation)
    bank, anchors = checked_bank(calibration, anchors)
    x, index = _anchor_matrix(responses_on_anchors, anchors)
    silent = np.isnan(x).all(axis=1)
    if silent.any():  # a prior-only "estimate" is no estimate (TinyBenchmark.predict refuses it too)
        raise ValidationError(f"responses_on_anchors: model {index[silent][0]!r} answered no anchor item")
    var = float(getattr(calibration, "latent_var", 1.0) or 1.0)
    theta, se, accuracy, sd = pirt_estimates(x, bank, anchors, var)
    calibration = bank if isinstance(calibration, (str, os.PathLike)) else calibration
    if validation is not None:
        accuracy, sd = validation.apply(x, anchors, accuracy, sd)
    else:
        warn_small_calibration(calibration, "pass validation=validate_anchors(responses, calibration, anchors)")
    return pd.DataFrame({"theta": theta, "theta_se": se, "accuracy": accuracy, "accuracy_se": sd,
                         "lower": np.clip(accuracy - Z_95 * sd, 0.0, 1.0), "upper": np.clip(accuracy + Z_95 * sd, 0.0, 1.0),
                         "se": se},  # deprecated alias of theta_se (0.3.0 removes it)
                        index=index)


def _factor_performance(responses_on_anchors: Any, factors: tuple, anchors: Sequence[str], validation: Any) -> pd.DataFrame:
    """:func:`estimate_performance` on a D-factor calibration (``names, slopes, intercepts``)."""
    names, A, d = factors
    if validation is not None:
        raise ValidationError("validation: validate_anchors measures a 1-D calibration; a D-factor calibration "
                              "takes none (pass validation=None)")
    anchors = [str(a) for a in anchors]
    unknown = [a for a in anchors if a not in set(names)]
    if not anchors or unknown or len(set(anchors)) != len(anchors):
        raise ValidationError("anchors is empty" if not anchors else "anchors repeat an item" if not unknown else
                              f"{len(unknown)} anchor(s) are not items of the calibration, e.g. {unknown[:3]}")
    x, index = _anchor_matrix(responses_on_anchors, anchors)
    silent = np.isnan(x).all(axis=1)
    if silent.any():
        raise ValidationError(f"responses_on_anchors: model {index[silent][0]!r} answered no anchor item")
    mean, sd_f, accuracy, sd = factor_pirt_estimates(x, names, A, d, anchors)
    nan = np.full(len(accuracy), np.nan)
    out = pd.DataFrame({"theta": nan, "theta_se": nan, "accuracy": accuracy, "accuracy_se": sd,
                        "lower": np.clip(accuracy - Z_95 * sd, 0.0, 1.0), "upper": np.clip(accuracy + Z_95 * sd, 0.0, 1.0),
                        "se": nan}, index=index)
    for k in range(A.shape[1]):
        out[f"F{k + 1}"] = mean[:, k]
    for k in range(A.shape[1]):
        out[f"se_F{k + 1}"] = sd_f[:, k]
    return out
