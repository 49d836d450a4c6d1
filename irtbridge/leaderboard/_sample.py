"""What every accuracy estimator works on: the calibration, the checked arrays, one new model's sample.

Internal to :mod:`irtbridge.leaderboard.estimators` (the front) and its estimator rows
(:mod:`irtbridge.leaderboard._estimator_rows`). ``J`` items in all; the *sample frame* is every item the
caller did not exclude (``n_pool`` of them); ``S`` the ``k`` sampled items a new model answered.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from irtbridge.calibration.results.flags import flag_items
from irtbridge.exceptions import ValidationError
from irtbridge.leaderboard._answers import answer_matrix
from irtbridge.leaderboard._predictors import factor_predictions, irt_predictions, item_features, item_means

__all__ = ["IRTParameters", "Problem", "Sample", "Estimate", "Shared", "problem_from_values", "runaway_items",
           "usable_items", "irt_outputs", "shared_arrays", "samples", "t_quantile", "floored", "frame_variance", "interval",
           "stratified_difference"]


@dataclass(frozen=True)
class IRTParameters:
    """A 2PL calibration reduced to what the estimators use: item names, ``a``, ``b``, latent variance.

    Parameters
    ----------
    names : tuple of str
        The items.
    a, b : ndarray
        Discrimination and difficulty of each item.
    variance : float, default 1.0
        The latent variance.
    converged : bool, default True
        Whether the calibration converged.
    priors : mapping or None, default None
        The item priors of the fit (mirt's spelling; ``calibrate_2pl``'s default is
        ``{"a1": ("norm", 1, 2)}``); None: plain maximum likelihood, or not known.
    loadings : ndarray or None, default None
        A D-factor calibration (:func:`~irtbridge.leaderboard.estimators.calibrate_factors`): the slopes
        ``a1..aD`` (items x D, mirt's metric, ``F ~ N(0, I)``); None: the 1-D 2PL of ``a`` and ``b``. With
        loadings, ``a`` and ``b`` are each item's multidimensional discrimination ``sqrt(sum_k a_k^2)`` and
        difficulty ``-d / that`` (Reckase's MDISC and MDIFF): what :func:`runaway_items` flags and the strata
        read, never what predicts.
    intercepts : ndarray or None, default None
        The intercepts ``d`` of a D-factor calibration (with ``loadings``).
    """

    names: tuple[str, ...]
    a: np.ndarray
    b: np.ndarray
    variance: float = 1.0
    converged: bool = True
    priors: Mapping[str, tuple] | None = None
    loadings: np.ndarray | None = None
    intercepts: np.ndarray | None = None

    @property
    def n_factors(self) -> int:
        """D: 1 for the 2PL of ``a`` and ``b``, the columns of ``loadings`` otherwise."""
        return 1 if self.loadings is None else int(np.shape(self.loadings)[1])


@dataclass(frozen=True)
class Problem:
    """The checked arrays of one call (:func:`problem_from_values`)."""

    features: np.ndarray  # items x calibration models, missing filled
    seen: np.ndarray  # indices of the sampled items
    pool: np.ndarray  # bool per item: in the sample frame (not excluded by the caller)
    Y: np.ndarray  # new models x k, NaN unanswered
    names: tuple[str, ...]
    fallback: np.ndarray  # per item: the calibration models' mean on it (item_means), the IRT feature's stand-in
    answered: np.ndarray  # per item: how many calibration models answered it
    strata: np.ndarray | None = None  # per item: its stratum of a stratified draw (None: simple random sampling)


@dataclass(frozen=True)
class Shared:
    """What an estimator's ``prepare`` gets: the problem, the calibration (None for an IRT-free estimator),
    the 2PL predictions ``(pred, loo, theta, theta_se)`` of :func:`irt_outputs` (None likewise), the ridge
    penalty, and for a D-factor calibration the posterior means and covariances of ``F`` (theta and theta_se
    are then NaN: there is no one ability)."""

    prob: Problem
    irt: IRTParameters | None
    irt_out: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None
    alpha: float
    factors: tuple[np.ndarray, np.ndarray] | None = None


@dataclass(frozen=True)
class Sample:
    """One new model's sample: row ``m``, its answers ``y`` to the sampled items it answered (``obs`` of the
    ``k`` sampled, at item positions ``s_idx``), the unseen items of the frame (``u_pool``) and the excluded
    ones (``u_excl``), as masks over all ``J`` items, and the frame's size ``n_pool``."""

    m: int
    obs: np.ndarray
    s_idx: np.ndarray
    y: np.ndarray
    u_pool: np.ndarray
    u_excl: np.ndarray
    n_pool: int

    @property
    def k(self) -> int:
        """Answered sampled items."""
        return len(self.y)

    @property
    def n_u(self) -> int:
        """Unseen items of the frame."""
        return int(self.u_pool.sum())

    @property
    def n_e(self) -> int:
        """Excluded items."""
        return int(self.u_excl.sum())

    @property
    def unseen(self) -> np.ndarray:
        """Every item not answered in the sample (frame and excluded)."""
        return self.u_pool | self.u_excl


@dataclass(frozen=True)
class Estimate:
    """One model's estimate: the total right over the sample frame, its design-based variance, the degrees
    of freedom of its t interval, and the predicted total of the excluded items."""

    total: float
    variance: float
    df: float
    excluded: float = 0.0


def runaway_items(calibration: Any) -> list[str]:
    """The items of a 2PL calibration whose estimates the data do not identify, in item order.

    The engine's flags (:func:`irtbridge.calibration.results.flags.flag_items`: ``|a| > 10``, ``|b| > 6`` or
    not finite). They stay in a tiny benchmark's sample frame; the estimators replace their 2PL prediction
    by the calibration models' mean on the item (:func:`usable_items`).

    Parameters
    ----------
    calibration : IRTParameters
        A 2PL calibration (``names``, ``a``, ``b``).

    Returns
    -------
    list of str
        The flagged items.
    """
    table = pd.DataFrame({"a": np.asarray(calibration.a, dtype=float), "b": np.asarray(calibration.b, dtype=float)},
                         index=[str(n) for n in calibration.names])
    flags = flag_items(table)
    return [str(n) for n in flags.index[flags.to_numpy() != ""]]


def usable_items(irt: IRTParameters, prob: Problem) -> np.ndarray:
    """Per item: its 2PL prediction is used (estimates identified, :func:`runaway_items`, and at least one
    calibration model answered it); any other item's IRT feature is the calibration models' mean on it."""
    flagged = set(runaway_items(irt))
    return np.array([n not in flagged for n in irt.names]) & (prob.answered > 0)


def problem_from_values(values: np.ndarray, names: tuple[str, ...], items: Sequence[str], answers: Any,
                        exclude: Sequence[str] | None, strata: Sequence[int] | None = None) -> Problem:
    """The :class:`Problem` of calibration answers ``values`` (models x items), checked (one-line errors);
    ``strata`` one stratum label per item when the items were drawn stratified."""
    pos = {n: j for j, n in enumerate(names)}
    items = [str(i) for i in items]
    if len(items) < 3:
        raise ValidationError(f"items: at least 3 sampled items are needed, got {len(items)}")
    unknown = [i for i in items if i not in pos]
    if unknown:
        raise ValidationError(f"items: {len(unknown)} are not items of responses, e.g. {unknown[:3]}")
    if len(set(items)) != len(items):
        raise ValidationError("items repeat an item")
    excluded = [str(e) for e in (exclude or [])]
    clash = sorted(set(excluded) & set(items))
    if clash:
        raise ValidationError(f"exclude: item(s) {clash[:3]} are also sampled; an excluded item is never sampled")
    Y, index = answer_matrix(answers, items, "answers", "sampled item")
    if len(index) == 0:
        raise ValidationError("answers has no rows (no new model)")
    if (np.isnan(Y).sum(axis=1) > len(items) - 3).any():
        bad = index[np.isnan(Y).sum(axis=1) > len(items) - 3][0]
        raise ValidationError(f"answers: model {bad!r} answered fewer than 3 sampled items")
    pool = np.ones(len(names), dtype=bool)
    pool[[pos[e] for e in excluded if e in pos]] = False
    labels = None
    if strata is not None:
        labels = np.asarray(strata)
        if labels.shape != (len(names),) or not np.issubdtype(labels.dtype, np.integer):
            raise ValidationError(f"strata: one whole-number label per item of responses ({len(names)}) is needed")
    return Problem(item_features(values), np.array([pos[i] for i in items]), pool, Y, names, item_means(values),
                   (~np.isnan(values)).sum(axis=0), labels)


def irt_outputs(irt: IRTParameters, prob: Problem, Y: np.ndarray
                ) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray] | None]:
    """The IRT feature of the models ``Y`` (models x k): ``(pred, loo, theta, theta_se)`` and, for a D-factor
    calibration, ``(F means, F covariances)`` (theta and theta_se NaN); the 1-D 2PL's :func:`irt_predictions`
    otherwise."""
    usable = usable_items(irt, prob)
    if irt.loadings is None:
        return irt_predictions(irt.a, irt.b, prob.seen, Y, irt.variance, usable, prob.fallback), None
    assert irt.intercepts is not None  # calibrate_factors and load_tiny give both
    pred, loo, mean, cov = factor_predictions(irt.loadings, irt.intercepts, prob.seen, Y, usable, prob.fallback)
    nan = np.full(Y.shape[0], np.nan)
    return (pred, loo, nan, nan.copy()), (mean, cov)


def shared_arrays(prob: Problem, irt: IRTParameters | None, alpha: float) -> Shared:
    """The :class:`Shared` of a call: the IRT predictions computed once when there is a calibration."""
    if irt is None:
        return Shared(prob, None, None, alpha)
    out, factors = irt_outputs(irt, prob, prob.Y)
    return Shared(prob, irt, out, alpha, factors)


def samples(prob: Problem):
    """Each new model's :class:`Sample`, in row order."""
    J = len(prob.names)
    n_pool = int(prob.pool.sum())
    for m in range(prob.Y.shape[0]):
        obs = ~np.isnan(prob.Y[m])
        s_idx = prob.seen[obs]
        unseen = np.ones(J, dtype=bool)
        unseen[s_idx] = False
        yield Sample(m, obs, s_idx, prob.Y[m, obs], unseen & prob.pool, unseen & ~prob.pool, n_pool)


def t_quantile(level: float, df: float) -> float:
    """The two-sided Student-t quantile of ``level`` (``df`` at least 1)."""
    return float(stats.t.ppf(0.5 + level / 2.0, max(df, 1.0)))


def floored(s2: float, k: int) -> float:
    """A residual variance, raised to ``1 / (k + 1)``: a model that answered every sampled item alike still
    gets an interval."""
    return max(s2, 1.0 / (k + 1.0))


def frame_variance(s: Sample, s2: float) -> float:
    """The design-based variance of a frame total under simple random sampling (finite-population corrected)
    for residual variance ``s2``: ``n_pool^2 (1 - k / n_pool) s2 / k``."""
    return s.n_pool**2 * (1.0 - s.k / s.n_pool) * s2 / s.k


def interval(est: Estimate, n_e: int, J: int, level: float) -> tuple[float, float, float, float]:
    """accuracy, accuracy_se, lower, upper from one model's :class:`Estimate`.

    The frame's total gets its t interval; the excluded share enters with its whole range (0 to ``n_e``
    right answers), so the interval does not rest on how well the excluded items are predicted."""
    excl = float(np.clip(est.excluded, 0.0, n_e))
    acc = float(np.clip((est.total + excl) / J, 0.0, 1.0))
    half = t_quantile(level, est.df) * float(np.sqrt(est.variance))
    lower = min(max((est.total - half) / J, 0.0), acc)
    upper = max(min((est.total + half + n_e) / J, 1.0), acc)
    return acc, float(np.sqrt(est.variance)) / J, lower, upper


def stratified_difference(s: Sample, strata: np.ndarray, pool: np.ndarray, pred: np.ndarray,
                          loo: np.ndarray) -> Estimate | None:
    """The difference estimator of a stratified draw (None when a stratum of the frame has fewer than two
    answered sampled items: the caller falls back to the unstratified formula).

    Per stratum ``h`` of the frame: ``sum_S_h y + sum_U_h pred + N_U_h mean_S_h (y - pred)``; variance
    ``sum_h N_h^2 (1 - k_h / N_h) s_h^2 / k_h`` with ``s_h^2`` the variance of the leave-one-out residuals
    ``y - loo`` in the stratum (raised to ``1 / (k + 1)``, :func:`floored`); Welch-Satterthwaite degrees of
    freedom. ``pred`` (all items) and ``loo`` (the answered sampled items) are the model's predictions; zero
    for the stratified mean. The excluded items get ``pred`` plus the mean sample residual."""
    lab_s = strata[s.s_idx]
    resid = s.y - pred[s.s_idx]
    total, var, parts = 0.0, 0.0, []
    for h in np.unique(strata[pool]):
        in_s = lab_s == h
        k_h = int(in_s.sum())
        if k_h < 2:
            return None
        n_h = int((pool & (strata == h)).sum())
        u_h = s.u_pool & (strata == h)
        total += float(s.y[in_s].sum() + pred[u_h].sum() + u_h.sum() * resid[in_s].mean())
        s2 = floored(float(np.var(s.y[in_s] - loo[in_s], ddof=1)), s.k)
        part = n_h**2 * max(1.0 - k_h / n_h, 0.0) * s2 / k_h
        var += part
        parts.append((part, k_h))
    df = var**2 / sum(p**2 / (k - 1) for p, k in parts) if var > 0 else float(s.k - 1)
    return Estimate(total, var, df, float(pred[s.u_excl].sum() + s.n_e * resid.mean()))
