"""A two-phase design for one new model's accuracy: a random first phase, then the items it is least sure of.

Phase 1: the model answers ``n1`` items (a tiny benchmark's simple random sample, or any set ``s1``). A ridge
regression (features: the calibration models' answers to each item, and the 2PL prediction when the bank
has a calibration: the predictor of :mod:`irtbridge.leaderboard.estimators`' ``"ppi"``, fitted on the
phase-1 answers) predicts the model's answer ``p_j`` to every item. Phase 2: every other item ``j`` (the set
``U2``, ``N2 = J - |s1|`` items) is drawn independently (Poisson sampling) with the known probability

    pi_j = min(1, c * w_j),   w_j = (1 - floor) * sqrt(p_j (1 - p_j)) / sum_U2 sqrt(p (1 - p)) + floor / N2,

``c`` set so that ``sum_U2 pi_j = n2`` (the expected phase-2 size; capped items are taken with certainty).
``sqrt(p (1 - p))`` is the standard deviation of the answer where the prediction is right: the allocation
that minimises the variance below when the prediction is calibrated (Neyman's allocation; as active
statistical inference, Zrnic & Candes ICML 2024, samples labels), and the ``floor`` share of a uniform
design keeps every item's probability at least ``floor * n2 / N2`` (a "defensive" mixture), so the design
covers every item and a wrong prediction cannot make a weight explode.

Two estimators of the total ``T = sum_j y_j`` (accuracy ``T / J``), interval ``T_hat / J +- t_{df} sqrt(V) / J``:

* ``"difference"``: the difference estimator with the phase-1 prediction (Sarndal, Swensson & Wretman 1992,
  Model Assisted Survey Sampling, sec. 6.3), Horvitz-Thompson on the residuals of phase 2::

      T_hat = sum_s1 y_j + sum_U2 p_j + sum_s2 (y_j - p_j) / pi_j,
      V     = sum_s2 (1 - pi_j) (y_j - p_j)^2 / pi_j^2,        df = |s2| - 1.

  Given phase 1, ``p`` and ``pi`` are fixed, so ``E[T_hat | s1] = T`` exactly and ``V`` is unbiased for its
  variance (Poisson sampling, SSW eq. 3.2.9): **unbiased by design whatever the predictor** (the 2PL may be
  misspecified, the new model stronger than every calibration model), and whatever ``s1`` was.
* ``"greg"`` (the default): every answered item serves both to predict and to correct. The ridge is refitted
  on ``s1`` and ``s2``; with ``e_j`` its leave-one-out residuals and ``pi*_j = n1 / J + (1 - n1 / J) min(1,
  c * w_j)`` each item's inclusion probability over the two phases (phase 1 a simple random sample of
  ``n1`` of ``J``)::

      T_hat = sum_s y_j + sum_{not s} yhat_j + sum_s e_j (1 - pi*_j) / pi*_j,
      V     = sum_s (1 - pi*_j) e_j^2 / pi*_j^2,                 df = |s| - 1,

  the generalized regression (GREG) estimator of SSW (sec. 6.4) with leave-one-out residuals (as AIPW, Zhang,
  Dorner & Hardt NeurIPS 2025, uses them), approximately design-unbiased (bias of order ``1 / |s|``).

Both intervals use ``max(V, A)`` with ``A`` the *anticipated* variance (Isaki & Fuller 1982): ``V``'s expectation
were the prediction calibrated, ``A = sum_U2 (1 - pi_j) / pi_j p_j (1 - p_j)`` (``"difference"``; for ``"greg"``
``sum_s (1 - pi*_j) / pi*_j^2 p_j (1 - p_j)``). ``A`` is fixed before the phase-2 answers are seen; it keeps
the interval from collapsing when the draw happens to miss the rare items the model gets wrong (a strong
model: simulated coverage 0.79-0.84 without it), while ``V`` takes over when the prediction is wrong.

Measured (``speed/lm_twophase.py``, the benchmark-prediction protocol of Zhang, Dorner & Hardt on real
matrices) and the reason the gain is small are in that script's docstring and in the README.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from irtbridge._io import atomic_write_text
from irtbridge._validation import check_choice, check_int, check_number
from irtbridge.exceptions import ValidationError
from irtbridge.leaderboard._answers import response_values
from irtbridge.leaderboard._bank import writable_path
from irtbridge.leaderboard._estimator_rows import ALPHAS
from irtbridge.leaderboard._predictors import factor_predictions, irt_predictions, item_features, ridge_cv
from irtbridge.leaderboard.estimators import IRTParameters
from irtbridge.leaderboard.tiny import TinyBenchmark, load_tiny

__all__ = ["PhaseTwoPlan", "plan_phase_two", "twophase_estimate", "inclusion_probabilities", "predict_answers",
           "difference_estimate", "greg_estimate", "load_plan", "TWOPHASE_ESTIMATORS", "PLAN_FORMAT", "FLOOR"]

PLAN_FORMAT = "irtbridge-twophase-plan"
TWOPHASE_ESTIMATORS = ("greg", "difference")
#: the share of the uniform design in phase 2's probabilities (every item at least FLOOR * n2 / N2)
FLOOR = 0.2
_CLIP = 0.005  # predictions are kept in [_CLIP, 1 - _CLIP] (a residual is never exactly zero)


def inclusion_probabilities(prediction: np.ndarray, n2: int, floor: float = FLOOR) -> tuple[np.ndarray, float]:
    """Phase-2 probabilities of the candidate items: ``min(1, c * w_j)`` summing to ``n2`` (module docstring).

    Parameters
    ----------
    prediction : ndarray
        The predicted answer ``p_j`` (probability of a right answer) of each candidate item.
    n2 : int
        The expected number of phase-2 items (at most the number of candidates).
    floor : float, default 0.2
        The share of the uniform design, in (0, 1].

    Returns
    -------
    pi : ndarray
        Each candidate's inclusion probability, in (0, 1].
    scale : float
        ``c``: ``pi_j = min(1, c * w_j)`` (applies to any item's ``w_j``).

    Examples
    --------
    >>> pi, c = inclusion_probabilities(np.array([0.5, 0.5, 0.01, 0.99]), 2, floor=0.2)
    >>> round(float(pi.sum()), 6), bool(pi[0] > pi[2] > 0)
    (2.0, True)
    """
    p = np.clip(np.asarray(prediction, dtype=float), _CLIP, 1.0 - _CLIP)
    n = len(p)
    if not 0 < n2 <= n:
        raise ValidationError(f"n2 = {n2}: between 1 and the {n} items not answered in phase 1")
    w = _weights(p, floor)
    capped = np.zeros(n, dtype=bool)
    scale = n2 / w.sum()
    for _ in range(n + 1):  # cap at 1 and spread what is left over the others (at most n rounds)
        scale = (n2 - capped.sum()) / w[~capped].sum() if (~capped).any() else scale
        over = ~capped & (scale * w >= 1.0)
        if not over.any():
            break
        capped |= over
    return np.where(capped, 1.0, np.minimum(scale * w, 1.0)), float(scale)


def _weights(p: np.ndarray, floor: float) -> np.ndarray:
    s = np.sqrt(p * (1.0 - p))
    return (1.0 - floor) * s / s.sum() + floor / len(p)


def predict_answers(features: np.ndarray, seen: np.ndarray, y: np.ndarray,
                    irt: IRTParameters | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The ridge prediction of one model's answer to every item from its answers ``y`` to the items ``seen``.

    Parameters
    ----------
    features : ndarray
        Items x calibration models: the calibration models' answers (missing filled with the item's mean).
    seen : ndarray
        Positions of the answered items.
    y : ndarray
        The 0/1 answers to them.
    irt : IRTParameters, optional
        A 2PL of the items: its posterior-mean prediction given ``y`` is one more feature (as ``"ppi"``).

    Returns
    -------
    pred, loo : ndarray
        Predictions on all items (clipped to [0.005, 0.995]) and leave-one-out predictions on ``seen``.
    """
    X = features
    if irt is not None:
        if irt.loadings is None:
            feature = irt_predictions(irt.a, irt.b, seen, y[None, :], irt.variance)[0][0]
        else:  # a D-factor bank (build_tiny(n_factors=D)): the factors' posterior mean of P_j
            assert irt.intercepts is not None
            feature = factor_predictions(irt.loadings, irt.intercepts, seen, y[None, :])[0][0]
        X = np.column_stack([features, feature])
    pred, loo, _ = ridge_cv(X, seen, y, ALPHAS)
    return np.clip(pred, _CLIP, 1.0 - _CLIP), loo


def _interval(total: float, var: float, df: int, n_items: int, level: float) -> dict[str, float]:
    acc = total / n_items
    se = float(np.sqrt(max(var, 0.0))) / n_items
    half = float(stats.t.ppf(0.5 + level / 2.0, max(df, 1))) * se
    return {"accuracy": float(np.clip(acc, 0.0, 1.0)), "accuracy_se": se, "lower": max(acc - half, 0.0),
            "upper": min(acc + half, 1.0)}


def difference_estimate(y1: np.ndarray, prediction_u2: np.ndarray, y2: np.ndarray, prediction_s2: np.ndarray,
                        pi_s2: np.ndarray, level: float = 0.95, anticipated: float = 0.0) -> dict[str, float]:
    """The ``"difference"`` estimator (module docstring) from arrays.

    Parameters
    ----------
    y1 : ndarray
        Phase-1 answers.
    prediction_u2 : ndarray
        The phase-1 prediction of every item not in phase 1.
    y2, prediction_s2, pi_s2 : ndarray
        Phase-2 answers, their items' predictions and inclusion probabilities.
    level : float, default 0.95
        Interval level.
    anticipated : float, default 0.0
        The variance's lower bound (the anticipated variance, module docstring).

    Returns
    -------
    dict of str to float
        ``accuracy``, ``accuracy_se``, ``lower``, ``upper``.

    Examples
    --------
    >>> out = difference_estimate(np.array([1.0, 0.0]), np.full(4, 0.5), np.array([1.0]), np.array([0.5]),
    ...                           np.array([0.25]))
    >>> out["accuracy"]  # (1 + 2 + 0.5 / 0.25) / 6
    0.8333333333333334
    """
    e = y2 - prediction_s2
    total = float(y1.sum() + prediction_u2.sum() + (e / pi_s2).sum())
    var = max(float(((1.0 - pi_s2) * e**2 / pi_s2**2).sum()), anticipated)
    return _interval(total, var, len(y2) - 1, len(y1) + len(prediction_u2), level)


def greg_estimate(y: np.ndarray, loo: np.ndarray, prediction_unseen: np.ndarray, pi: np.ndarray,
                  level: float = 0.95, anticipated: float = 0.0) -> dict[str, float]:
    """The ``"greg"`` estimator (module docstring) from arrays.

    Parameters
    ----------
    y : ndarray
        The answers to every answered item (both phases).
    loo : ndarray
        Their leave-one-out predictions.
    prediction_unseen : ndarray
        The prediction of every item not answered.
    pi : ndarray
        The answered items' inclusion probabilities over the two phases.
    level : float, default 0.95
        Interval level.
    anticipated : float, default 0.0
        The variance's lower bound (the anticipated variance, module docstring).

    Returns
    -------
    dict of str to float
        ``accuracy``, ``accuracy_se``, ``lower``, ``upper``.
    """
    e = y - loo
    total = float(y.sum() + prediction_unseen.sum() + (e * (1.0 - pi) / pi).sum())
    var = max(float(((1.0 - pi) * e**2 / pi**2).sum()), anticipated)
    return _interval(total, var, len(y) - 1, len(y) + len(prediction_unseen), level)


@dataclass(frozen=True)
class PhaseTwoPlan:
    """One model's phase-2 draw (from :func:`plan_phase_two`; saved as JSON, read back by :func:`load_plan`).

    Attributes
    ----------
    model : str
        The model planned for.
    item_names : tuple of str
        All ``J`` items (the accuracy is the share correct on all of them).
    phase1 : tuple of str
        The items answered in phase 1.
    phase1_answers : ndarray
        Their answers.
    prediction : ndarray
        The phase-1 prediction ``p_j`` of every item (``J``).
    pi : ndarray
        Every item's phase-2 inclusion probability (0 for the phase-1 items).
    scale : float
        ``c`` of :func:`inclusion_probabilities` (``pi*`` of the phase-1 items uses it).
    phase2 : tuple of str
        The items drawn for phase 2 (Poisson sampling with ``pi``).
    n2 : int
        The expected phase-2 size.
    floor : float
        The share of the uniform design.
    seed : int
        Seed of the draw.
    """

    model: str
    item_names: tuple[str, ...]
    phase1: tuple[str, ...]
    phase1_answers: np.ndarray = field(repr=False)
    prediction: np.ndarray = field(repr=False)
    pi: np.ndarray = field(repr=False)
    scale: float
    phase2: tuple[str, ...]
    n2: int
    floor: float
    seed: int

    def to_dict(self) -> dict[str, Any]:
        """The plan as the JSON object :meth:`save` writes.

        Returns
        -------
        dict of str to Any
            Every attribute, arrays as lists.
        """
        return {"format": PLAN_FORMAT, "version": 1, "model": self.model, "item_names": list(self.item_names),
                "phase1": list(self.phase1), "phase1_answers": [float(v) for v in self.phase1_answers],
                "prediction": [float(v) for v in self.prediction], "pi": [float(v) for v in self.pi],
                "scale": self.scale, "phase2": list(self.phase2), "n2": self.n2, "floor": self.floor,
                "seed": self.seed}

    def save(self, path: str | os.PathLike) -> str:
        """Write the plan (one JSON file); returns the path.

        Parameters
        ----------
        path : str or os.PathLike
            The file.

        Returns
        -------
        str
            The path written.
        """
        path = writable_path(path)
        atomic_write_text(path, json.dumps(self.to_dict()))
        return path


def load_plan(path: str | os.PathLike) -> PhaseTwoPlan:
    """Read a plan written by :meth:`PhaseTwoPlan.save`.

    Parameters
    ----------
    path : str or os.PathLike
        The file.

    Returns
    -------
    PhaseTwoPlan
        The plan.
    """
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        raise ValidationError(f"plan file {path!r} does not exist") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValidationError(f"plan file {path!r} is not JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != PLAN_FORMAT:
        raise ValidationError(f"plan file {path!r} is not an irtbridge two-phase plan (format {PLAN_FORMAT!r})")
    keys = ("model", "item_names", "phase1", "phase1_answers", "prediction", "pi", "scale", "phase2", "n2", "floor",
            "seed")
    missing = [k for k in keys if k not in data]
    if missing:
        raise ValidationError(f"plan file {path!r} lacks {', '.join(missing)}")
    n = len(data["item_names"])
    if len(data["prediction"]) != n or len(data["pi"]) != n or len(data["phase1_answers"]) != len(data["phase1"]):
        raise ValidationError(f"plan file {path!r}: prediction and pi need one entry per item ({n}), phase1_answers "
                              "one per phase-1 item")
    return PhaseTwoPlan(model=str(data["model"]), item_names=tuple(map(str, data["item_names"])),
                        phase1=tuple(map(str, data["phase1"])),
                        phase1_answers=np.asarray(data["phase1_answers"], dtype=float),
                        prediction=np.asarray(data["prediction"], dtype=float), pi=np.asarray(data["pi"], dtype=float),
                        scale=float(data["scale"]), phase2=tuple(map(str, data["phase2"])), n2=int(data["n2"]),
                        floor=float(data["floor"]), seed=int(data["seed"]))


def _one_model(answers: Any, what: str, model: str | None) -> tuple[str, pd.Series]:
    """One model's answers as a Series named by the model (a DataFrame's row chosen by ``model``)."""
    if isinstance(answers, pd.DataFrame):
        if model is not None:
            if model not in set(map(str, answers.index)):
                raise ValidationError(f"{what}: no model {model!r} (models: {', '.join(map(str, answers.index[:5]))})")
            answers = answers.loc[[m for m in answers.index if str(m) == model][0]]
        elif len(answers) != 1:
            raise ValidationError(f"{what} holds {len(answers)} models; the design is planned for one: name it "
                                  "(model=, --model)")
        else:
            answers = answers.iloc[0]
    if not isinstance(answers, pd.Series):
        raise ValidationError(f"{what} must be a Series (item -> 0/1) or a DataFrame of models x items, "
                              f"got {type(answers).__name__}")
    series = pd.to_numeric(answers, errors="coerce").rename(index=str)
    bad = series.notna() & ~series.isin((0.0, 1.0))
    if bad.any() or (answers.notna() & series.isna()).any():
        raise ValidationError(f"{what} must be 0/1 (NaN for unanswered)")
    return str(model if model is not None else (answers.name if answers.name is not None else "model")), series


def _bank_parts(bank: Any) -> tuple[tuple[str, ...], np.ndarray, IRTParameters | None]:
    """Item names, the calibration models' answers (items x models) and the 2PL of a tiny bank or its path
    (or of a ``(responses, calibration)`` pair: models x items, and an IRTParameters or None)."""
    if isinstance(bank, tuple) and len(bank) == 2 and isinstance(bank[0], pd.DataFrame):
        responses, irt = bank
        names = tuple(str(c) for c in responses.columns)
        if irt is not None and tuple(irt.names) != names:
            raise ValidationError("bank: the calibration's items are not the responses' items")
        return names, item_features(response_values(responses, "bank responses")), irt
    tiny = bank if isinstance(bank, TinyBenchmark) else load_tiny(bank)
    values = tiny._values  # the calibration models' answers, which every bank keeps (build_tiny, load_tiny)
    assert values is not None
    return tuple(tiny.item_names), item_features(values), tiny.calibration


def plan_phase_two(bank: Any, answers: Any, n2: int, *, floor: float = FLOOR, seed: int = 0,
                   model: str | None = None) -> PhaseTwoPlan:
    """Draw phase 2 for one model from its phase-1 answers (module docstring).

    Parameters
    ----------
    bank : TinyBenchmark, path or tuple
        A tiny benchmark (:func:`~irtbridge.leaderboard.build_tiny`) or its bank file: the items, the
        calibration models' answers and the 2PL; or a pair ``(responses, calibration)``: the calibration
        models x all items (0/1/NaN) and an :class:`~irtbridge.leaderboard.estimators.IRTParameters` of them
        (or None: the prediction uses the calibration models' answers alone, as AIPW).
    answers : Series or DataFrame
        The model's phase-1 answers (item -> 0/1, NaN or absent: not answered), or a models x items table
        with ``model`` naming the row. Every answered item of the bank is phase 1 (at least 3).
    n2 : int
        The expected number of phase-2 items.
    floor : float, default 0.2
        The share of the uniform design in phase 2 (every item's probability at least ``floor * n2 / N2``).
    seed : int, default 0
        Seed of the Poisson draw.
    model : str, optional
        The row of ``answers`` (a DataFrame of several models).

    Returns
    -------
    PhaseTwoPlan
        The phase-2 items and everything the estimate needs.

    Examples
    --------
    >>> from irtbridge.leaderboard import build_tiny
    >>> rng = np.random.default_rng(0)
    >>> theta = rng.normal(size=(40, 1))
    >>> x = (rng.random((40, 300)) < 1 / (1 + np.exp(-(theta - rng.normal(size=300))))) * 1.0
    >>> tiny = build_tiny(pd.DataFrame(x, columns=[f"q{j}" for j in range(300)]), 20)
    >>> first = pd.Series(1.0, index=tiny.items, name="new")
    >>> plan = plan_phase_two(tiny, first, 20, seed=1)
    >>> plan.model, round(float(plan.pi.sum()), 6), set(plan.phase2).isdisjoint(tiny.items)
    ('new', 20.0, True)
    """
    n2 = check_int(n2, "n2", low=1)
    floor = check_number(floor, "floor", low=0.0, high=1.0, low_open=True)
    name, series = _one_model(answers, "answers", model)
    names, X, irt = _bank_parts(bank)
    pos = {n: j for j, n in enumerate(names)}
    unknown = [i for i in series.index if i not in pos]
    if unknown:
        raise ValidationError(f"answers: {len(unknown)} item(s) are not items of the bank, e.g. {unknown[:3]}")
    series = series.dropna()
    if len(series) < 3:
        raise ValidationError(f"answers: {len(series)} item(s) answered in phase 1; at least 3 are needed")
    seen = np.array([pos[i] for i in series.index])
    y = series.to_numpy(dtype=float)
    pred, _ = predict_answers(X, seen, y, irt)
    u2 = np.setdiff1d(np.arange(len(names)), seen)
    if n2 > len(u2):
        raise ValidationError(f"n2 = {n2}: only {len(u2)} items were not answered in phase 1")
    pi_u2, scale = inclusion_probabilities(pred[u2], n2, floor)
    pi = np.zeros(len(names))
    pi[u2] = pi_u2
    take = np.random.default_rng(seed).random(len(u2)) < pi_u2
    return PhaseTwoPlan(model=name, item_names=names, phase1=tuple(series.index), phase1_answers=y, prediction=pred,
                        pi=pi, scale=scale, phase2=tuple(names[j] for j in u2[take]), n2=n2, floor=floor,
                        seed=int(seed))


def twophase_estimate(plan: PhaseTwoPlan | str | os.PathLike, answers: Any, *, method: str = "greg",
                      bank: Any = None, level: float = 0.95) -> pd.DataFrame:
    """The model's accuracy on all items from its answers to both phases, with a design-based interval.

    Parameters
    ----------
    plan : PhaseTwoPlan or path
        From :func:`plan_phase_two` (or its saved file).
    answers : Series or DataFrame
        The model's answers to the phase-2 items (phase-1 items may be included; they must agree with the
        plan's). A DataFrame row is chosen by the plan's model when there are several.
    method : {"greg", "difference"}, default "greg"
        The estimator (module docstring).
    bank : TinyBenchmark, path or tuple, optional
        The bank the plan was drawn from (as :func:`plan_phase_two` takes it); needed by ``"greg"`` (it refits
        the prediction).
    level : float, default 0.95
        Interval level.

    Returns
    -------
    DataFrame
        One row (the model): ``accuracy``, ``accuracy_se``, ``lower``, ``upper``, ``n_phase1``, ``n_phase2``.
    """
    method = check_choice(method, "method", TWOPHASE_ESTIMATORS)
    check_number(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    if not isinstance(plan, PhaseTwoPlan):
        plan = load_plan(plan)
    if isinstance(answers, pd.DataFrame) and len(answers) > 1:
        _, series = _one_model(answers, "answers", plan.model)
    else:
        _, series = _one_model(answers, "answers", None)
    missing = [i for i in plan.phase2 if i not in series.index or np.isnan(series[i])]
    if missing:
        raise ValidationError(f"answers lack {len(missing)} phase-2 item(s) of the plan, e.g. {missing[:3]} "
                              "(every drawn item must be answered: the design has no room for non-response)")
    clash = [i for i, v in zip(plan.phase1, plan.phase1_answers) if i in series.index and not np.isnan(series[i])
             and series[i] != v]
    if clash:
        raise ValidationError(f"answers disagree with the plan's phase-1 answers on {len(clash)} item(s), e.g. "
                              f"{clash[:3]}")
    names = plan.item_names
    pos = {n: j for j, n in enumerate(names)}
    s2 = np.array([pos[i] for i in plan.phase2], dtype=int)
    y2 = series[list(plan.phase2)].to_numpy(dtype=float)
    s1 = np.array([pos[i] for i in plan.phase1], dtype=int)
    in1 = np.zeros(len(names), dtype=bool)
    in1[s1] = True
    if method == "difference" or len(s2) == 0:
        p_u2, pi_u2 = plan.prediction[~in1], plan.pi[~in1]
        out = difference_estimate(plan.phase1_answers, p_u2, y2, plan.prediction[s2], plan.pi[s2], level,
                                  float(((1.0 - pi_u2) / pi_u2 * p_u2 * (1.0 - p_u2)).sum()))
    else:
        if bank is None:
            raise ValidationError("method='greg' refits the prediction on both phases: pass bank= (the tiny bank)")
        bank_names, X, irt = _bank_parts(bank)
        if bank_names != names:
            raise ValidationError("bank: its items are not the plan's items (a plan is drawn from one bank)")
        seen = np.concatenate([s1, s2])
        y = np.concatenate([plan.phase1_answers, y2])
        pred, loo = predict_answers(X, seen, y, irt)
        share = len(s1) / len(names)
        star = plan.pi.copy()
        # a phase-1 item's phase-2 probability had it not been drawn first: the same formula at the same scale
        star[in1] = np.minimum(plan.scale * _phase1_weights(plan, in1), 1.0)
        pi = np.minimum(share + (1.0 - share) * star[seen], 1.0)
        unseen = np.ones(len(names), dtype=bool)
        unseen[seen] = False
        p_s = pred[seen]
        out = greg_estimate(y, np.clip(loo, 0.0, 1.0), pred[unseen], pi, level,
                            float(((1.0 - pi) / pi**2 * p_s * (1.0 - p_s)).sum()))
    row: dict[str, float] = {**out, "n_phase1": float(len(s1)), "n_phase2": float(len(s2))}
    frame = pd.DataFrame([row], index=pd.Index([plan.model], name="model"))
    return frame.astype({"n_phase1": int, "n_phase2": int})


def _phase1_weights(plan: PhaseTwoPlan, in1: np.ndarray) -> np.ndarray:
    """``w_j`` of the phase-1 items on the phase-2 scale (the sum over the phase-2 candidates normalises it)."""
    p = np.clip(plan.prediction, _CLIP, 1.0 - _CLIP)
    s = np.sqrt(p * (1.0 - p))
    n_u2 = int((~in1).sum())
    return (1.0 - plan.floor) * s[in1] / s[~in1].sum() + plan.floor / n_u2
