"""A new model's accuracy on the full item set from its answers to ``k`` randomly sampled items, with a 95% interval.

One entry, :func:`estimate_accuracy`, several estimators (``method=``). ``J`` items in all, ``S`` the ``k``
sampled ones (a simple random sample of the items that may be sampled), ``U`` the others, ``N = |U|``,
``y_j`` the new model's 0/1 answers:

* ``"mean"``: the sample mean ``ybar_S``; variance ``(1 - k/J) s_y^2 / k`` (finite-population correction).
* ``"aipw"``: exactly as Zhang, Dorner & Hardt (NeurIPS 2025) define it: for each new model a ridge
  regression (``alpha = 10``, unpenalized intercept) predicts its answer to an item from the calibration
  models' answers to that item, fitted on the ``k`` sampled items; then

      accuracy = (sum_S y_j + N * [mean_U yhat_j + mean_S (y_j - yhat_j) / (1 + k / N)]) / J.

  Interval: ``(1 - k/J) s_e^2 / k`` with ``s_e^2`` the variance of the leave-one-out residuals.
* ``"ppi"`` (the default): a model-assisted, design-based estimator (prediction-powered inference in its
  regression form). For each new model a ridge regression predicts its answer to item ``j`` from two kinds
  of features: the calibration models' answers to ``j`` (as AIPW) and the 2PL prediction
  ``E[P_j(theta) | sampled answers]`` (the calibration's item parameters; the new model's theta posterior),
  the IRT prediction as control variate whose weight the regression tunes (as PPI++ tunes its power). The
  penalty is chosen among 1, 3, 10, 30, 100 by leave-one-out error on the sampled items. Then

      accuracy = (sum_S y_j + sum_U yhat_j + N * mean_S (y_j - yhat_j)) / J,
      var = (1 - k/J) / k * s_e^2,   s_e^2 the variance of the leave-one-out residuals on S,

  the difference (GREG) estimator, approximately unbiased under random sampling of the items however
  badly the 2PL fits (with the intercept the mean residual is zero and the estimate is
  ``ybar_S + beta'(xbar_all - xbar_S)``), and more precise the better the features predict.
* ``"composite"``: ``"ppi"`` pulled toward p-IRT where the two agree,
  ``w * pirt + (1 - w) * ppi`` with ``w = V / (V + 3 d^2)`` (``V`` the ppi variance, ``d`` the difference);
  its interval is ppi's. It gains where the 2PL is right (interpolation) and loses where p-IRT is biased
  (extrapolation): not the default.
* ``"ppi_irt"``: the same design-based estimator with the 2PL prediction alone (leave-one-out values on
  ``S``; intercept and slope fitted on ``S``, ``df = k - 2``).
* ``"pirt"``: p-IRT of tinyBenchmarks (Maia Polo et al. 2024): ``(sum_S y + sum_U E[P_j(theta)]) / J``;
  interval from the leave-one-out residuals on ``S`` (their mean, the bias, and their spread), not from
  the IRT posterior.
* ``"gpirt"``: gp-IRT of tinyBenchmarks: ``lambda * mean + (1 - lambda) * pirt`` with
  ``lambda = b^2 / (b^2 + sigma^2)``, ``b^2`` the p-IRT mean squared error on the calibration models' own
  answers to ``S`` and ``sigma^2`` the sample mean's variance for them.

Intervals are Student-t (``df = k - 1`` for the mean, ``k - 1 - p`` for ``p`` tuned control variates) on the
estimator's own design-based variance; a residual variance below ``1 / (k + 1)`` is raised to it, so a
model that answered every sampled item right still gets an interval. Items named in ``exclude`` (e.g. items
whose calibration ran away) are never sampled: they are predicted only (by the method's own prediction,
plus the mean sample residual), and their prediction error widens the interval by
``|E| s_e^2 + |E|^2 s_e^2 / k`` on the total.

Measured (``speed/lm_estimators.py``: 21 real matrices, 20 NLU test sets of nyu-mll/nlu-test-sets
with 90 checkpoints and ATLAS' 320 x 735 ARC matrix; the protocol of Zhang, Dorner & Hardt; 5 seeds), mean
absolute error of the predicted full accuracy, interpolation / extrapolation:

=========  ===================  ===================  ===================  ===================
method     k = 50               k = 100              95% coverage, k=50   k=100
=========  ===================  ===================  ===================  ===================
ppi        0.0384 / 0.0481      0.0259 / 0.0314      0.954 / 0.939        0.950 / 0.954
composite  0.0345 / 0.0497      0.0238 / 0.0319      0.959 / 0.932        0.960 / 0.951
aipw       0.0386 / 0.0492      0.0264 / 0.0327      0.957 / 0.942        0.959 / 0.954
mean       0.0487 / 0.0509      0.0346 / 0.0350      0.950 / 0.944        0.940 / 0.936
pirt       0.0387 / 0.1965      0.0305 / 0.1877      0.989 / 0.971        0.981 / 0.992
gpirt      0.0347 / 0.1565      0.0271 / 0.1340      0.993 / 0.977        0.987 / 0.992
=========  ===================  ===================  ===================  ===================

``ppi`` is the default: the only estimator at or below AIPW in all four cells, with a purely design-based
interval. ``composite`` is best where the new models resemble the calibration ones and falls behind AIPW
when they are stronger; p-IRT and gp-IRT (and their intervals) fail in extrapolation, 4-6x AIPW's error.
tinyBenchmarks (Maia Polo et al. 2024) and metabench (Kipnis et al. 2025) build their small item sets the
same way, from the answers of public leaderboards' models.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from irtbridge._validation import check_choice, check_number
from irtbridge.exceptions import ValidationError
from irtbridge.leaderboard._answers import answer_matrix as _anchor_matrix, response_values
from irtbridge.leaderboard._predictors import (bank_arrays, irt_predictions, item_features, item_means, ridge_cv,
                                               ridge_predictions)

__all__ = ["ESTIMATORS", "DEFAULT_ESTIMATOR", "DEFAULT_PRIORS", "estimate_accuracy", "calibrate_2pl", "IRTParameters",
           "runaway_items"]

ESTIMATORS = ("ppi", "composite", "ppi_irt", "aipw", "mean", "pirt", "gpirt")
ALPHAS = np.array([1.0, 3.0, 10.0, 30.0, 100.0])
#: the composite weight of p-IRT is V / (V + COMPOSITE * d^2), d the p-IRT minus ppi difference
COMPOSITE = 3.0
DEFAULT_ESTIMATOR = "ppi"
#: The item prior of every 2PL calibration of the leaderboard tools (tiny benchmarks and their banks,
#: ``irtbridge leaderboard``, anchors and adaptive evaluation on a bank), mirt's spelling: a weak slope prior
#: centred on 1, wide enough for negative slopes, that keeps the slope of an item which (nearly) splits the
#: models perfectly finite. On ATLAS's ARC matrix (320 x 735) the largest ``|a|`` goes from 1,168 to 5.7.
#: ``priors=None`` (``--no-prior``) fits by plain maximum likelihood.
DEFAULT_PRIORS: Mapping[str, tuple] = {"a1": ("norm", 1.0, 2.0)}
_NEEDS_IRT = {"ppi", "composite", "ppi_irt", "pirt", "gpirt"}


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
        The item priors of the fit (mirt's spelling, :data:`DEFAULT_PRIORS` for :func:`calibrate_2pl`'s
        default); None: plain maximum likelihood, or not known.
    """

    names: tuple[str, ...]
    a: np.ndarray
    b: np.ndarray
    variance: float = 1.0
    converged: bool = True
    priors: Mapping[str, tuple] | None = None


def calibrate_2pl(responses: pd.DataFrame, *, priors: Mapping[str, tuple] | None = DEFAULT_PRIORS,
                  NCYCLES: int = 500) -> IRTParameters:
    """Native 2PL (marginal maximum a posteriori, :func:`irtbridge.em.fit_em`) on a models x items 0/1 matrix.

    The one calibration of the leaderboard tools: ``irtbridge leaderboard`` fits with the same
    :data:`DEFAULT_PRIORS` and the estimators flag the same items (:func:`runaway_items`). ``NCYCLES`` caps
    the EM cycles (mirt's default 500). Items that every model answers alike have no finite difficulty
    whatever the prior (they are flagged; their predictions are near 0 or 1 either way).

    Parameters
    ----------
    responses : DataFrame
        Models x items, 1/0/NaN.
    priors : mapping or None, default :data:`DEFAULT_PRIORS`
        Item priors as :func:`irtbridge.em.priors.item_priors` takes them (``{"a1": ("norm", 1, 2)}``);
        ``None`` fits by plain maximum likelihood (``--no-prior`` on the command line).
    NCYCLES : int, default 500
        Maximum EM cycles.

    Returns
    -------
    IRTParameters
        The items' ``a`` and ``b`` (``b`` clipped to [-50, 50]), the latent variance and convergence.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> x = (rng.random((200, 6)) < 1 / (1 + np.exp(-(rng.normal(size=(200, 1)) - np.linspace(-1, 1, 6))))) * 1.0
    >>> cal = calibrate_2pl(pd.DataFrame(x, columns=list("abcdef")))
    >>> cal.names, bool(cal.b[0] < cal.b[-1])
    (('a', 'b', 'c', 'd', 'e', 'f'), True)
    """
    from irtbridge.em import fit_em, prepare_responses

    values = response_values(responses, "responses")
    names = [str(c) for c in responses.columns]
    priors = None if priors is None else {str(k): tuple(v) for k, v in dict(priors).items()}
    res = fit_em(prepare_responses(values, names), "2PL", NCYCLES=NCYCLES, priors=priors)
    a = np.asarray(res.a, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        b = np.where(a != 0, -np.asarray(res.d, dtype=float) / np.where(a != 0, a, 1.0), 0.0)
    return IRTParameters(tuple(names), a, np.clip(b, -50.0, 50.0), float(res.variance), bool(res.converged), priors)


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
    from irtbridge.calibration.results.flags import flag_items

    table = pd.DataFrame({"a": np.asarray(calibration.a, dtype=float), "b": np.asarray(calibration.b, dtype=float)},
                         index=[str(n) for n in calibration.names])
    flags = flag_items(table)
    return [str(n) for n in flags.index[flags.to_numpy() != ""]]


def _as_irt(calibration: Any) -> IRTParameters:
    if isinstance(calibration, IRTParameters):
        return calibration
    items = getattr(calibration, "items", None)
    if items is None or not {"a", "b"} <= set(items.columns):
        raise ValidationError("calibration must be calibrate_2pl(...), a Calibration or an ItemBank of a 2PL")
    from irtbridge.irt import as_item_bank

    bank = as_item_bank(calibration) if not hasattr(calibration, "_plain") else calibration
    a, b = bank_arrays(bank)
    return IRTParameters(tuple(str(n) for n in bank.names), a, b, float(getattr(calibration, "latent_var", 1.0) or 1.0))


@dataclass(frozen=True)
class Problem:
    """The arrays every estimator works on (built once by :func:`prepare`)."""

    features: np.ndarray  # items x calibration models, missing filled
    seen: np.ndarray  # indices of the sampled items
    pool: np.ndarray  # bool per item: in the sample frame (not excluded by the caller)
    Y: np.ndarray  # new models x k, NaN unanswered
    names: tuple[str, ...]
    fallback: np.ndarray  # per item: the calibration models' mean on it (item_means), the IRT feature's stand-in
    answered: np.ndarray  # per item: how many calibration models answered it


def prepare(responses: pd.DataFrame, items: Sequence[str], answers: pd.DataFrame,
            exclude: Sequence[str] | None = None) -> Problem:
    """Check the inputs (one-line errors) and build the arrays."""
    values = response_values(responses, "responses")
    names = tuple(str(c) for c in responses.columns)
    if len(set(names)) != len(names):
        raise ValidationError("responses repeat an item name")
    return problem_from_values(values, names, items, answers, exclude)


def problem_from_values(values: np.ndarray, names: tuple[str, ...], items: Sequence[str], answers: Any,
                        exclude: Sequence[str] | None) -> Problem:
    """The :class:`Problem` of calibration answers ``values`` (models x items), checked."""
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
    Y, index = _anchor_matrix(answers, items, "answers", "sampled item")
    if len(index) == 0:
        raise ValidationError("answers has no rows (no new model)")
    if (np.isnan(Y).sum(axis=1) > len(items) - 3).any():
        bad = index[np.isnan(Y).sum(axis=1) > len(items) - 3][0]
        raise ValidationError(f"answers: model {bad!r} answered fewer than 3 sampled items")
    pool = np.ones(len(names), dtype=bool)
    pool[[pos[e] for e in excluded if e in pos]] = False
    return Problem(item_features(values), np.array([pos[i] for i in items]), pool, Y, names, item_means(values),
                   (~np.isnan(values)).sum(axis=0))


def usable_items(irt: IRTParameters, prob: Problem) -> np.ndarray:
    """Per item: its 2PL prediction is used (estimates identified, :func:`runaway_items`, and at least one
    calibration model answered it); any other item's IRT feature is the calibration models' mean on it."""
    flagged = set(runaway_items(irt))
    return np.array([n not in flagged for n in irt.names]) & (prob.answered > 0)


def _t(level: float, df: float) -> float:
    return float(stats.t.ppf(0.5 + level / 2.0, max(df, 1.0)))


def _floor(s2: float, k: int) -> float:
    return max(s2, 1.0 / (k + 1.0))


def _regression(y: np.ndarray, Fs: np.ndarray, Fu: np.ndarray, Fe: np.ndarray, n_pool: int,
                ) -> tuple[float, float, float, int]:
    """Frame total (sampled + unseen frame items), its variance, the excluded items' predicted total and the
    residual df (tuned GREG)."""
    k, p = Fs.shape
    Z = np.column_stack([np.ones(k), Fs])
    beta = np.linalg.lstsq(Z.T @ Z + 1e-8 * np.eye(p + 1), Z.T @ y, rcond=None)[0]
    e = y - Z @ beta
    df = max(k - p - 1, 1)
    s2 = _floor(float(e @ e) / df, k)
    total = y.sum() + (beta[0] * len(Fu) + (Fu @ beta[1:]).sum())
    var = n_pool**2 * (1.0 - k / n_pool) * s2 / k
    excl = float(beta[0] * len(Fe) + (Fe @ beta[1:]).sum()) if len(Fe) else 0.0
    return total, var, excl, df


def _difference(y: np.ndarray, loo: np.ndarray, n_pool: int) -> float:
    """Design-based variance of a frame total from leave-one-out residuals."""
    k = len(y)
    s2 = _floor(float(np.var(y - loo, ddof=1)), k)
    return n_pool**2 * (1.0 - k / n_pool) * s2 / k


def _per_model(method: str, prob: Problem, irt: IRTParameters | None, alpha: float, level: float,
               lam: float) -> np.ndarray:
    """accuracy, se, lower, upper, theta, theta_se, predicted_share for each new model (rows).

    Each method estimates the total over the sample frame (the items not excluded) with its design-based
    variance, and predicts the excluded items' total; the interval is the frame's t interval plus the whole
    range of the excluded share (each excluded answer may be 0 or 1: no assumption about them is made).
    """
    X, seen, Y = prob.features, prob.seen, prob.Y
    J = X.shape[0]
    n_pool = int(prob.pool.sum())
    out = np.full((Y.shape[0], 7), np.nan)
    ridge = ridge_predictions(X, seen, Y.T, alpha) if method == "aipw" else None
    irt_out = None
    if irt is not None:
        irt_out = irt_predictions(irt.a, irt.b, seen, Y, irt.variance, usable_items(irt, prob), prob.fallback)
    for m in range(Y.shape[0]):
        obs = ~np.isnan(Y[m])
        s_idx = seen[obs]
        y = Y[m, obs]
        k = len(y)
        unseen = np.ones(J, dtype=bool)
        unseen[s_idx] = False
        u_pool = unseen & prob.pool
        u_excl = unseen & ~prob.pool
        n_u, n_e = int(u_pool.sum()), int(u_excl.sum())
        df = k - 1
        excl = 0.0  # the excluded items' predicted total
        if irt_out is not None:
            out[m, 4], out[m, 5] = irt_out[2][m], irt_out[3][m]
        if method == "mean":
            s2 = _floor(float(np.var(y, ddof=1)), k)
            total, excl = y.sum() + y.mean() * n_u, y.mean() * n_e
            var = n_pool**2 * (1.0 - k / n_pool) * s2 / k
        elif method == "aipw":
            assert ridge is not None  # computed above for aipw
            pred, loo = ridge[0][:, m], ridge[1][obs, m]
            resid = y - pred[s_idx]
            total = y.sum() + (n_u * (pred[u_pool].mean() + resid.mean() / (1.0 + k / n_u)) if n_u else 0.0)
            excl = float(pred[u_excl].sum() + n_e * resid.mean())
            var = _difference(y, loo, n_pool)
        elif method in ("ppi", "composite"):
            assert irt_out is not None  # the methods in _NEEDS_IRT get their calibration
            feats = np.column_stack([X, irt_out[0][m]])
            pred, loo, _ = ridge_cv(feats, s_idx, y, ALPHAS)
            mr = float(np.mean(y - pred[s_idx]))
            total = y.sum() + pred[u_pool].sum() + n_u * mr
            excl = float(pred[u_excl].sum() + n_e * mr)
            var = _difference(y, loo, n_pool)
        if method == "composite":  # pull toward p-IRT where the two agree
            assert irt_out is not None
            pirt_total = y.sum() + irt_out[0][m][u_pool].sum()
            d2 = (pirt_total - total) ** 2
            w = var / (var + COMPOSITE * d2) if var + d2 > 0 else 0.0
            total = w * pirt_total + (1 - w) * total
        elif method == "ppi_irt":
            assert irt_out is not None
            F_all = irt_out[0][m][:, None]
            Fs = irt_out[1][m, obs][:, None]
            total, var, excl, df = _regression(y, Fs, F_all[u_pool], F_all[u_excl], n_pool)
        elif method in ("pirt", "gpirt"):
            assert irt_out is not None
            pred, loo = irt_out[0][m], irt_out[1][m, obs]
            e = y - loo
            total, excl = y.sum() + pred[u_pool].sum(), float(pred[u_excl].sum())
            s2 = _floor(float(np.var(e, ddof=1)), k)
            var = n_u**2 * (float(e.mean()) ** 2 + (1.0 - k / n_pool) * s2 / k)
            if method == "gpirt":
                s2m = _floor(float(np.var(y, ddof=1)), k)
                mean_total = y.sum() + y.mean() * n_u
                var_mean = n_pool**2 * (1.0 - k / n_pool) * s2m / k
                total = lam * mean_total + (1.0 - lam) * total
                excl = lam * y.mean() * n_e + (1.0 - lam) * excl
                var = (lam * np.sqrt(var_mean) + (1.0 - lam) * np.sqrt(var)) ** 2
        out[m, :4] = _interval(total, var, excl, n_e, J, _t(level, df))
        out[m, 6] = n_e / J
    return out


def _interval(total: float, var: float, excl: float, n_e: int, J: int, t: float) -> tuple[float, float, float, float]:
    """accuracy, se, lower, upper from the frame total, its variance and the excluded items' prediction.

    The excluded share enters the interval with its whole range (0 to ``n_e`` right answers), so the
    interval does not rest on how well they are predicted."""
    excl = float(np.clip(excl, 0.0, n_e))
    acc = float(np.clip((total + excl) / J, 0.0, 1.0))
    half = t * float(np.sqrt(var))
    lower = min(max((total - half) / J, 0.0), acc)
    upper = max(min((total + half + n_e) / J, 1.0), acc)
    return acc, float(np.sqrt(var)) / J, lower, upper


def gpirt_lambda(prob: Problem, irt: IRTParameters) -> float:
    """tinyBenchmarks' weight of the sample mean in gp-IRT, from the calibration models' own answers."""
    X, seen = prob.features, prob.seen
    k = len(seen)
    Yc = X[seen].T  # calibration models x k (filled answers)
    truth = X.mean(axis=0)
    pred = irt_predictions(irt.a, irt.b, seen, Yc, irt.variance, usable_items(irt, prob), prob.fallback)[0]
    unseen = np.setdiff1d(np.arange(X.shape[0]), seen)
    pirt = (Yc.sum(axis=1) + pred[:, unseen].sum(axis=1)) / X.shape[0]
    b2 = float(np.mean((pirt - truth) ** 2))
    sigma2 = float(np.mean(truth * (1.0 - truth))) / k * (1.0 - k / X.shape[0])
    return b2 / (b2 + sigma2) if b2 + sigma2 > 0 else 0.5


def estimate_prepared(prob: Problem, method: str, irt: IRTParameters | None, index: pd.Index, *,
                      alpha: float = 10.0, level: float = 0.95) -> pd.DataFrame:
    """:func:`estimate_accuracy` on checked arrays (used by the tiny benchmark, which stores them)."""
    if irt is not None and len(irt.a) != len(prob.names):
        raise ValidationError(f"calibration has {len(irt.a)} items, responses {len(prob.names)}")
    lam = 0.0
    if method == "gpirt":
        assert irt is not None  # both callers pass a calibration to every method in _NEEDS_IRT
        lam = gpirt_lambda(prob, irt)
    out = _per_model(method, prob, irt if method in _NEEDS_IRT else None, alpha, level, lam)
    frame = pd.DataFrame(out[:, :4], columns=["accuracy", "se", "lower", "upper"], index=index)
    if method in _NEEDS_IRT:
        frame["theta"], frame["theta_se"] = out[:, 4], out[:, 5]
    frame["predicted_share"] = out[:, 6]
    return frame


def estimate_accuracy(responses: pd.DataFrame, items: Sequence[str], answers: pd.DataFrame,
                      method: str = DEFAULT_ESTIMATOR, *, calibration: Any = None, exclude: Sequence[str] | None = None,
                      alpha: float = 10.0, level: float = 0.95) -> pd.DataFrame:
    """Predict each new model's share correct on all items of ``responses`` from its answers to ``items``.

    Parameters
    ----------
    responses : DataFrame
        The calibration models x all items, 0/1 (NaN: unanswered).
    items : sequence of str
        The sampled items (a simple random sample of the items not in ``exclude``).
    answers : DataFrame
        New models x ``items`` (more columns are ignored), 0/1, NaN for unanswered.
    method : {"ppi", "ppi_irt", "aipw", "mean", "pirt", "gpirt"}, default "ppi"
        The estimator (see the module docstring).
    calibration : IRTParameters, Calibration or ItemBank, optional
        A 2PL calibration of ``responses``' items for the IRT-based methods; fitted natively
        (:func:`calibrate_2pl`) when not given.
    exclude : sequence of str, optional
        Items that were never eligible for sampling (e.g. runaway items): predicted only.
    alpha : float
        The ridge penalty (10, as Zhang, Dorner & Hardt).
    level : float
        Interval level.

    Returns
    -------
    DataFrame
        One row per new model: ``accuracy``, ``se``, ``lower``, ``upper`` (and ``theta``, ``theta_se`` for the
        IRT-based methods).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> cal = pd.DataFrame((rng.random((30, 40)) < 0.6) * 1.0, columns=[f"q{j}" for j in range(40)])
    >>> new = pd.DataFrame([[1.0, 0.0, 1.0, 1.0, 0.0]], columns=["q0", "q1", "q2", "q3", "q4"])
    >>> out = estimate_accuracy(cal, list(new.columns), new, "mean")
    >>> round(float(out["accuracy"].iloc[0]), 3)
    0.6
    """
    method = check_choice(method, "method", ESTIMATORS)
    check_number(alpha, "alpha", low=0.0, low_open=True)
    check_number(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    prob = prepare(responses, items, answers, exclude)
    irt = None
    if method in _NEEDS_IRT:
        irt = _as_irt(calibration) if calibration is not None else calibrate_2pl(responses)
        if tuple(irt.names) != prob.names:
            raise ValidationError("calibration's items are not responses' items (same names, same order)")
    index = answers.index if isinstance(answers, pd.DataFrame) else pd.RangeIndex(1)
    return estimate_prepared(prob, method, irt, index, alpha=alpha, level=level)
