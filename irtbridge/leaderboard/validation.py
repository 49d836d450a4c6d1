"""Cross-validated trust for anchor-based predictions: a blend weight and an interval scale.

The p-IRT interval of :func:`~irtbridge.leaderboard.performance.estimate_performance` is exact only if the
item parameters are: it counts the posterior uncertainty of theta and the Bernoulli noise of the unseen
answers. A calibration on a few dozen respondents (the classifiers of one ``irtbridge evaluate`` dataset)
has item parameters far from exact, and real response matrices are not exactly unidimensional 2PL, so the
interval is too narrow and the prediction can be worse than the plain anchor mean.

:func:`validate_anchors` measures both on the calibration's own respondents by K-fold cross-validation: each
fold is recalibrated on the other respondents (same model and engine), and every held-out respondent's
accuracy on all items is predicted from its anchor answers alone. From the held-out predictions ``p_i``
(p-IRT), anchor means ``m_i``, model sds ``s_i`` and true accuracies ``t_i``:

* ``weight`` = argmin over [0, 1] of ``sum_i ((1 - w) p_i + w m_i - t_i)^2``, which is
  ``sum (p - t)(p - m) / sum (p - m)^2`` clipped to [0, 1]: the blend of p-IRT and the anchor mean in the
  spirit of tinyBenchmarks' gp-IRT (Polo et al. 2024), with the weight fitted on held-out error;
* ``scale`` = the root mean square of the held-out standardized errors ``e_i / s_i`` (``e`` the blend's
  error), and at least 1: the variance inflation that makes the normal 95% interval as wide as held-out
  respondents' errors say. (The split-conformal quantile, tried on simulated two-dimensional data of 45
  respondents, is the largest of ~36 ratios there and over-covered: 0.96-1.00 against 0.91-0.98.)

Items that a fold's training respondents all answered alike are not calibrated there (as in
``drop_constant=True``); within that fold they are predicted at their constant answer.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import pandas as pd

from irtbridge._catalogue import CATALOGUE, models_where
from irtbridge._constraints import Int, Seed, constraints
from irtbridge._parallel import progress_bar
from irtbridge._summary import Line, Summary
from irtbridge._validation import check_int
from irtbridge.calibration import calibrate
from irtbridge.exceptions import ValidationError
from irtbridge.irt import as_item_bank
from irtbridge.leaderboard._pirt import Z_95, checked_bank, pirt_estimates

__all__ = ["AnchorValidation", "validate_anchors"]

# a calibrated item's parameters for an item the fold's respondents all got right (or wrong): P ~ 1 (or 0)
_CONSTANT_B = 20.0
# the native EM's dichotomous models without an asymptote (a 3PL or 4PL calibration is refitted by mirt)
_NATIVE = tuple(m for m in models_where(native="em", kind="dichotomous")
                if {"g", "u"}.isdisjoint(CATALOGUE[m].parameters))


@dataclass(frozen=True)
class AnchorValidation:
    """What :func:`validate_anchors` measured; pass it to ``estimate_performance(..., validation=...)``.

    Attributes
    ----------
    anchors : tuple of str
        The anchors it was measured with (``estimate_performance`` checks they are the same).
    weight : float
        The anchor mean's share in the prediction (0: p-IRT alone, 1: anchor mean alone).
    scale : float
        The factor on the model interval's half-width (>= 1).
    folds : int
        Cross-validation folds.
    metrics : dict
        Held-out mean absolute errors (``mae_pirt``, ``mae_anchor_mean``, ``mae_blend``), the model
        interval's coverage before (``coverage_model``) and after (``coverage_scaled``) scaling,
        ``respondents`` and ``refits_converged`` (how many fold calibrations converged). The scaled
        coverage is in-sample for ``scale``.
    held_out : DataFrame
        One row per respondent: ``truth, pirt, anchor_mean, sd`` (held-out).
    refits : tuple
        Per fold: (held-out respondents, the fold's item bank, its latent variance, converged); pass it as
        ``validate_anchors(..., refits=...)`` to validate other anchors without refitting.
    """

    anchors: tuple[str, ...]
    weight: float
    scale: float
    folds: int
    metrics: dict = field(default_factory=dict)
    held_out: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    refits: tuple = field(default=(), repr=False)

    def apply(self, x: np.ndarray, anchors: Sequence[str], accuracy: np.ndarray, sd: np.ndarray):
        """The blended prediction and the scaled sd for anchor answers ``x`` (respondents x anchors).

        Parameters
        ----------
        x : ndarray
            Respondents x anchors, the answers.
        anchors : sequence of str
            The anchors (the ones validated, in any order).
        accuracy : ndarray
            The predicted accuracy of each respondent.
        sd : ndarray
            Its standard deviation.

        Returns
        -------
        accuracy, sd : ndarray
            The blended prediction and the scaled sd.
        """
        if sorted(anchors) != sorted(self.anchors):
            raise ValidationError("validation was measured with other anchors than these; rerun validate_anchors "
                                  "with the anchors you estimate from")
        return (1.0 - self.weight) * accuracy + self.weight * _anchor_mean(x, accuracy), self.scale * sd

    def summary(self) -> Summary:
        """The blend weight, the interval scale and the held-out errors and coverage behind them.

        Returns
        -------
        Summary
            The validation's summary.
        """
        s = self.metrics
        title = (f"anchor validation ({self.folds}-fold, {s.get('respondents', '?')} respondents, "
                 f"{len(self.anchors)} anchors)")
        lines = (
            Line.of("blend", f"weight on the anchor mean {self.weight:.2f}, interval scale {self.scale:.2f}"),
            Line.of("mae", f"held-out MAE p-IRT {s.get('mae_pirt', np.nan):.4f}, anchor mean "
                           f"{s.get('mae_anchor_mean', np.nan):.4f}, blend {s.get('mae_blend', np.nan):.4f}"),
            Line.of("coverage", f"model interval coverage {s.get('coverage_model', np.nan):.2f}, scaled "
                                f"{s.get('coverage_scaled', np.nan):.2f}"),
            Line.of("refits", f"{s.get('refits_converged', '?')} of {self.folds} refits converged"),
        )
        return Summary(title, lines, data={"weight": self.weight, "scale": self.scale, "folds": self.folds,
                                           "anchors": list(self.anchors), **s})

    def __str__(self) -> str:
        s = self.summary()
        return f"{s.title}: " + "; ".join(x.text for x in s.lines)

    def _repr_html_(self) -> str:
        return self.summary().as_html()


def _anchor_mean(x: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """Each respondent's share correct over its answered anchors (``fallback`` where it answered none)."""
    answered = (~np.isnan(x)).sum(axis=1)
    return np.where(answered > 0, np.nansum(x, axis=1) / np.maximum(answered, 1), fallback)


def _fold_bank(train: pd.DataFrame, model: str, engine: str, items: list[str]):
    """The fold's calibration as an item bank over all ``items`` (constant items at their constant answer), its
    latent variance and whether it converged. Its warnings are not repeated: ``metrics["refits_converged"]``
    counts the folds that converged."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = calibrate(train, model, engine=engine, se=False, drop_constant=True)
    table = fit.items[[c for c in ("a", "b", "g", "u") if c in fit.items.columns]].copy()
    table.index = table.index.map(str)
    calibrated = set(table.index)
    rest = [n for n in items if n not in calibrated]
    if rest:
        share = train[rest].mean(axis=0).fillna(0.5).to_numpy()
        extra = pd.DataFrame({"a": 1.0, "b": np.where(share >= 0.5, -_CONSTANT_B, _CONSTANT_B)}, index=rest)
        table = pd.concat([table, extra.reindex(columns=table.columns).fillna({"g": 0.0, "u": 1.0})])
    bank_model = model if model in ("3PL", "4PL") else "2PL"
    return as_item_bank(table.loc[items], bank_model), float(getattr(fit, "latent_var", 1.0) or 1.0), bool(fit.converged)


@constraints(folds=Int(low=2), seed=Seed())
def validate_anchors(responses: Any, calibration: Any, anchors: Sequence[str], *, folds: int = 5,
                     seed: int = 0, engine: str | None = None, refits: tuple | None = None,
                     progress: bool = False) -> AnchorValidation:
    """Cross-validate anchor-based prediction on the calibration's own respondents (see the module notes).

    Parameters
    ----------
    responses : DataFrame
        The calibration data: respondents x items, 0/1, NaN for unanswered. Must hold every calibrated item.
    calibration : Calibration or ItemBank
        The fit of ``responses`` the anchors come from; each fold is refitted with its model and engine
        (an item bank has no engine: ``native`` for rasch, 1PL and 2PL, else ``mirt``).
    anchors : sequence of str
        The anchors (e.g. from :func:`select_anchors`).
    folds : int, default 5
        Cross-validation folds over respondents (at least 2, at most the number of respondents).
    seed : int
        Seeds the assignment of respondents to folds.
    engine : str, optional
        Refit the folds with this engine instead.
    refits : tuple, optional
        The fold calibrations of an earlier validation of the same responses and calibration (its
        ``.refits``): compare other anchors (another method, another k) without refitting.
    progress : bool
        A progress bar over the fold refits on stderr.

    Returns
    -------
    AnchorValidation

    Examples
    --------
    >>> import irtbridge
    >>> rng = np.random.default_rng(0)
    >>> theta, b = rng.normal(size=(60, 1)), np.linspace(-1.5, 1.5, 30)
    >>> train = pd.DataFrame((rng.random((60, 30)) < 1 / (1 + np.exp(b - theta))).astype(float),
    ...                      columns=[f"q{j}" for j in range(30)])
    >>> cal = irtbridge.calibrate(train, "2PL", engine="native", se=False)
    >>> anchors = irtbridge.select_anchors(cal, 8)
    >>> check = irtbridge.validate_anchors(train, cal, anchors)
    >>> 0.0 <= check.weight <= 1.0 <= check.scale
    True
    >>> irtbridge.estimate_performance(train.iloc[:2][anchors], cal, anchors, validation=check).shape
    (2, 7)
    """
    bank, anchors = checked_bank(calibration, anchors)
    model = bank.model
    engine = engine or getattr(calibration, "engine", None) or ("native" if model in _NATIVE else "mirt")
    if not isinstance(responses, pd.DataFrame):
        raise ValidationError(f"responses must be a DataFrame (respondents x items), got {type(responses).__name__}")
    items = [str(n) for n in bank.names]
    data = responses.rename(columns=str)
    given = set(data.columns)
    missing = [n for n in items if n not in given]
    if missing:
        raise ValidationError(f"responses lack {len(missing)} calibrated item(s), e.g. {missing[:3]}")
    data = data[items].astype(float)
    n = len(data)
    if refits is None:
        folds = check_int(folds, "folds", low=2)
        if folds > n:
            raise ValidationError(f"folds = {folds} is more than the {n} respondents")
        order = np.random.default_rng(seed).permutation(n)
        fitted = []
        bar = progress_bar(progress, folds, desc="validate anchors", unit="fold")
        try:
            for part in np.array_split(order, folds):
                fitted.append((tuple(data.index[part]),
                               *_fold_bank(data.iloc[np.setdiff1d(order, part)], model, engine, items)))
                bar.update(1)
        finally:
            bar.close()
        refits = tuple(fitted)
    else:
        respondents = sorted(str(r) for held_out, *_ in refits for r in held_out)
        if respondents != sorted(map(str, data.index)) or any(list(b.names) != items for _, b, *_ in refits):
            raise ValidationError("refits come from other responses or another calibration than these")
    rows = []
    for held_out, fold_bank, var, _ in refits:
        test = data.loc[list(held_out)]
        x = test[anchors].to_numpy()
        _, _, pirt, sd = pirt_estimates(x, fold_bank, anchors, var)
        rows.append(pd.DataFrame({"truth": test.mean(axis=1).to_numpy(), "pirt": pirt, "sd": sd,
                                  "anchor_mean": _anchor_mean(x, pirt)}, index=test.index))
    held = pd.concat(rows).loc[data.index]
    t, p, m = (held[c].to_numpy() for c in ("truth", "pirt", "anchor_mean"))
    den = float(((p - m) ** 2).sum())
    weight = float(np.clip(((p - t) * (p - m)).sum() / den, 0.0, 1.0)) if den > 0 else 0.0
    blend = (1.0 - weight) * p + weight * m
    sd = np.maximum(held["sd"].to_numpy(), 0.5 / len(items))  # half an item: the accuracy's resolution
    scale = max(1.0, float(np.sqrt(np.mean(((blend - t) / sd) ** 2))))
    metrics = {"respondents": n, "mae_pirt": float(np.abs(p - t).mean()), "mae_anchor_mean": float(np.abs(m - t).mean()),
               "mae_blend": float(np.abs(blend - t).mean()),
               "coverage_model": float((np.abs(p - t) <= Z_95 * sd).mean()),
               "coverage_scaled": float((np.abs(blend - t) <= Z_95 * scale * sd).mean()),
               "refits_converged": sum(converged for *_, converged in refits)}
    return AnchorValidation(tuple(anchors), weight, scale, len(refits), metrics, held, refits)
