"""A new model's accuracy on the full item set from its answers to ``k`` randomly sampled items, with a 95% interval.

One entry, :func:`estimate_accuracy`, several estimators (``method=``), each a row of :data:`REGISTRY`
(:mod:`irtbridge.leaderboard._estimator_rows`: whether it needs the 2PL, whether its interval is
design-based, what it prepares once, and one model's frame total, variance and degrees of freedom). Every
estimate has the same columns, :data:`COLUMNS` (``theta, theta_se, accuracy, accuracy_se, lower, upper,
predicted_share``). ``J`` items in all, ``S`` the ``k``
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
model that answered every sampled item right still gets an interval. The sample frame is every item but
those named in ``exclude``. Items whose 2PL estimates are not identified (:func:`runaway_items`) and items no
calibration model answered stay in the frame; their 2PL prediction (a feature of ``ppi``, ``composite``,
``ppi_irt``, ``pirt``, ``gpirt``) is replaced by the calibration models' mean on the item and they do not
enter theta's likelihood. Excluded items ``E`` are never sampled: the point estimate predicts them (the
method's own prediction, plus the mean sample residual for the difference estimators), but the interval makes
no assumption about them: ``[T_lower, T_upper + |E|] / J`` with ``[T_lower, T_upper]`` the frame total's t
interval (each excluded answer may be 0 or 1); ``predicted_share = |E| / J`` says how much that is.

A stratified draw (``strata=``, :mod:`irtbridge.leaderboard.strata`) makes ``"ppi"`` and ``"mean"`` the
stratified difference estimator and the stratified mean (per-stratum residual means, variance
``sum_h N_h^2 (1 - k_h/N_h) s_h^2 / k_h``, Welch-Satterthwaite degrees of freedom).

Measured (``speed/lm_estimators.py --seeds 5 --k 50 100``, issue 39: 21 real matrices, 20 NLU test sets of
nyu-mll/nlu-test-sets with 90 checkpoints and ATLAS' 320 x 735 ARC matrix; the protocol of Zhang, Dorner &
Hardt; 5 seeds; k items drawn from every item; the 2PL with the default prior), mean absolute error of the
predicted full accuracy over sets, interpolation / extrapolation / hard (the harder half of the items,
calibrated on the weakest half of the models, predicting the strongest 30%), and the share of new models
inside the 95% interval; ``ppi`` on a simple random draw and on the stratified one (``strata=``, the draw
``build_tiny`` makes by default):

==============  ==========================  ==========================  =====================  =====================
method          MAE, k = 50                 MAE, k = 100                coverage, k = 50       coverage, k = 100
==============  ==========================  ==========================  =====================  =====================
ppi stratified  0.0384 / 0.0474 / 0.0482    0.0242 / 0.0309 / 0.0298    0.960 / 0.953 / 0.948  0.967 / 0.958 / 0.948
ppi             0.0383 / 0.0481 / 0.0452    0.0259 / 0.0313 / 0.0307    0.954 / 0.939 / 0.953  0.950 / 0.954 / 0.944
aipw            0.0386 / 0.0492 / 0.0457    0.0264 / 0.0327 / 0.0322    0.957 / 0.942 / 0.956  0.959 / 0.954 / 0.941
mean            0.0487 / 0.0509 / 0.0451    0.0346 / 0.0350 / 0.0313    0.950 / 0.944 / 0.957  0.940 / 0.936 / 0.948
==============  ==========================  ==========================  =====================  =====================

``ppi`` stays the default estimator, on the stratified draw: at or below the better of the plain mean and
AIPW in every split and k but the hard case at k = 50 (1.07x the plain mean; 1.003x on the random draw), and
no set's coverage below 0.89 (set x split x k cells below 0.85: 0 of 126; 2 on the random draw, the lowest
0.83). With 3 strata instead of 5 at k = 50 the MAE falls (0.0380 / 0.0456 / 0.0470) but one set's coverage
falls to 0.84 (hard case). ``ppi_irt`` was not rerun at 5 seeds (3 seeds: 0.0396 / 0.0478 / 0.0446 at k = 50).
``composite``, ``pirt`` and ``gpirt`` were
not rerun on this calibration; before issue 39 (plain ML, 5 seeds) p-IRT and gp-IRT erred
4-6x AIPW in extrapolation, and ``composite`` fell behind AIPW there. tinyBenchmarks (Maia Polo et al. 2024)
and metabench (Kipnis et al. 2025) build their small item sets the same way, from the answers of public
leaderboards' models.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from irtbridge._constraints import Int, Number, constraints
from irtbridge._validation import check_choice, check_number
from irtbridge.em import fit_em, prepare_responses
from irtbridge.exceptions import ValidationError
from irtbridge.irt import as_item_bank
from irtbridge.leaderboard._answers import response_values
from irtbridge.leaderboard._bank import MAX_FACTORS  # the most factors a bank holds, the calibration's limit
from irtbridge.leaderboard._estimator_rows import AIPW, GPIRT, PIRT, PPI, PPIIRT, Composite, Estimator, Mean
from irtbridge.leaderboard._predictors import bank_arrays
from irtbridge.leaderboard._sample import (IRTParameters, Problem, interval, problem_from_values, runaway_items, samples,
                                           shared_arrays)

__all__ = ["ESTIMATORS", "REGISTRY", "Estimator", "DEFAULT_ESTIMATOR", "DEFAULT_PRIORS", "COLUMNS", "estimate_accuracy",
           "calibrate_2pl", "calibrate_factors", "factor_parameters", "factor_priors", "IRTParameters", "runaway_items",
           "get_estimator", "factor_columns", "calibration_priors", "MAX_FACTORS"]

#: the estimators by name, the default first: each a row (:mod:`irtbridge.leaderboard._estimator_rows`) that
#: says whether it needs the 2PL and whether its interval is design-based
_ROWS: tuple[Estimator, ...] = (PPI(), Composite(), PPIIRT(), AIPW(), Mean(), PIRT(), GPIRT())
REGISTRY: Mapping[str, Estimator] = {e.name: e for e in _ROWS}
ESTIMATORS = tuple(REGISTRY)
DEFAULT_ESTIMATOR = "ppi"
#: the estimators with a stratified form (``strata=``)
STRATIFIED = ("ppi", "mean")
#: the columns of every estimate (``estimate_accuracy``, ``TinyBenchmark.predict``), in order; ``theta`` and
#: ``theta_se`` are NaN for an estimator that does not use the 2PL. ``se`` follows them: a deprecated alias of
#: ``accuracy_se`` (removed in 0.3.0)
COLUMNS = ("theta", "theta_se", "accuracy", "accuracy_se", "lower", "upper", "predicted_share")
#: The item prior of every 2PL calibration of the leaderboard tools (tiny benchmarks and their banks,
#: ``irtbridge leaderboard``, anchors and adaptive evaluation on a bank), mirt's spelling: a weak slope prior
#: centred on 1, wide enough for negative slopes, that keeps the slope of an item which (nearly) splits the
#: models perfectly finite. On ATLAS's ARC matrix (320 x 735) the largest ``|a|`` goes from 1,168 to 5.7.
#: ``priors=None`` (``--no-prior``) fits by plain maximum likelihood.
DEFAULT_PRIORS: Mapping[str, tuple] = {"a1": ("norm", 1.0, 2.0)}


def factor_columns(n_factors: int) -> list[str]:
    """The columns a D-factor calibration adds to an estimate (D > 1): ``F1..FD``, ``se_F1..se_FD`` (posterior
    means and SDs of the factors given the sampled answers, fit_factors' names) and ``cov_Fk_Fl`` (k < l).

    Parameters
    ----------
    n_factors : int
        D.

    Returns
    -------
    list of str
        The column names (none for D = 1).

    Examples
    --------
    >>> factor_columns(2)
    ['F1', 'F2', 'se_F1', 'se_F2', 'cov_F1_F2']
    """
    if n_factors < 2:
        return []
    pairs = [f"cov_F{k + 1}_F{m + 1}" for k in range(n_factors) for m in range(k + 1, n_factors)]
    return [f"F{k + 1}" for k in range(n_factors)] + [f"se_F{k + 1}" for k in range(n_factors)] + pairs


def factor_priors(n_factors: int) -> dict[str, tuple]:
    """The item priors of a D-factor calibration: :data:`DEFAULT_PRIORS` on ``a1`` (``N(1, 2)``) and a weak prior
    centred on 0, ``N(0, 2)``, on every other slope (a secondary factor has no sign to expect); mirt's spelling.

    Parameters
    ----------
    n_factors : int
        D.

    Returns
    -------
    dict of str to tuple

    Examples
    --------
    >>> factor_priors(2)
    {'a1': ('norm', 1.0, 2.0), 'a2': ('norm', 0.0, 2.0)}
    """
    return {**{k: tuple(v) for k, v in DEFAULT_PRIORS.items()},
            **{f"a{k}": ("norm", 0.0, 2.0) for k in range(2, n_factors + 1)}}


def factor_parameters(result: Any, priors: Mapping[str, tuple] | None = None) -> IRTParameters:
    """A D-factor fit (:class:`~irtbridge.em.factors.FactorResult`) as the estimators' calibration.

    Parameters
    ----------
    result : FactorResult
        From :func:`~irtbridge.em.factors.fit_factors`.
    priors : mapping or None
        The fit's item priors, kept for the bank.

    Returns
    -------
    IRTParameters
        ``loadings`` and ``intercepts`` the fit's ``a`` and ``d``; ``a`` and ``b`` each item's
        multidimensional discrimination and difficulty (what :func:`runaway_items` flags).
    """
    A = np.asarray(result.a, dtype=float)
    d = np.asarray(result.d, dtype=float)
    mdisc = np.sqrt((A**2).sum(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        mdiff = np.where(mdisc > 0, -d / np.where(mdisc > 0, mdisc, 1.0), 0.0)
    return IRTParameters(tuple(str(n) for n in result.item_names), mdisc, np.clip(mdiff, -50.0, 50.0), 1.0,
                         bool(result.converged), None if priors is None else {k: tuple(v) for k, v in priors.items()},
                         loadings=A, intercepts=d)


def calibration_priors(priors: Mapping[str, tuple] | None, n_factors: int) -> Mapping[str, tuple] | None:
    """The item priors a calibration with ``n_factors`` factors uses: :data:`DEFAULT_PRIORS` itself (the default
    object) becomes :func:`factor_priors` above one factor; anything else is used as given.

    Parameters
    ----------
    priors : mapping or None
        The caller's priors (None: plain maximum likelihood).
    n_factors : int
        D.

    Returns
    -------
    mapping or None
    """
    return factor_priors(n_factors) if priors is DEFAULT_PRIORS and n_factors > 1 else priors


@constraints(n_factors=Int(low=1, high=MAX_FACTORS), NCYCLES=Int(low=1))
def calibrate_factors(responses: pd.DataFrame, n_factors: int, *,
                      priors: Mapping[str, tuple] | None = DEFAULT_PRIORS, NCYCLES: int = 500) -> IRTParameters:
    """The leaderboard tools' calibration with ``n_factors`` factors: :func:`calibrate_2pl` for 1, else the native
    D-factor 2PL (:func:`irtbridge.em.factors.fit_factors`, exploratory, mirt's quadrature for D <= 3 and
    QMC-EM above) on the models x items 0/1 matrix.

    Parameters
    ----------
    responses : DataFrame
        Models x items, 1/0/NaN.
    n_factors : int
        D, 1 to :data:`MAX_FACTORS`.
    priors : mapping or None, default :data:`DEFAULT_PRIORS`
        Item priors (mirt's spelling); the default becomes :func:`factor_priors` above one factor
        (:func:`calibration_priors`); None: plain maximum likelihood.
    NCYCLES : int, default 500
        Maximum EM cycles.

    Returns
    -------
    IRTParameters
        The 2PL of ``a`` and ``b`` (D = 1), or a D-factor calibration (``loadings``, ``intercepts``).

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> x = (rng.random((60, 8)) < 1 / (1 + np.exp(-rng.normal(size=(60, 1))))) * 1.0
    >>> cal = calibrate_factors(pd.DataFrame(x, columns=list("abcdefgh")), 2, NCYCLES=30)
    >>> cal.n_factors, cal.loadings.shape
    (2, (8, 2))
    """
    priors = calibration_priors(priors, n_factors)
    if n_factors == 1:
        return calibrate_2pl(responses, priors=priors, NCYCLES=NCYCLES)
    from irtbridge.em.factors import fit_factors  # the D-factor engine, imported where it is used

    values = response_values(responses, "responses")
    names = [str(c) for c in responses.columns]
    if len(names) <= n_factors:
        raise ValidationError(f"n_factors: {n_factors} factors need more than {n_factors} items, responses has "
                              f"{len(names)}")
    priors = None if priors is None else {str(k): tuple(v) for k, v in dict(priors).items()}
    result = fit_factors(prepare_responses(values, names), n_factors, priors=priors, NCYCLES=NCYCLES)
    return factor_parameters(result, priors)


def get_estimator(method: str, what: str = "method") -> Estimator:
    """The registry's row for ``method`` (a one-line error naming the choices otherwise).

    Parameters
    ----------
    method : str
        A name of :data:`REGISTRY`.
    what : str, default "method"
        The parameter's name in the error.

    Returns
    -------
    Estimator
        The row.
    """
    return REGISTRY[check_choice(method, what, ESTIMATORS)]


@constraints(NCYCLES=Int(low=1))
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
    values = response_values(responses, "responses")
    names = [str(c) for c in responses.columns]
    priors = None if priors is None else {str(k): tuple(v) for k, v in dict(priors).items()}
    res = fit_em(prepare_responses(values, names), "2PL", NCYCLES=NCYCLES, priors=priors)
    a = np.asarray(res.a, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        b = np.where(a != 0, -np.asarray(res.d, dtype=float) / np.where(a != 0, a, 1.0), 0.0)
    return IRTParameters(tuple(names), a, np.clip(b, -50.0, 50.0), float(res.variance), bool(res.converged), priors)


def _as_irt(calibration: Any) -> IRTParameters:
    if isinstance(calibration, IRTParameters):
        return calibration
    if hasattr(calibration, "n_factors") and hasattr(calibration, "d") and hasattr(calibration, "mask"):
        return factor_parameters(calibration)  # a FactorResult of fit_factors
    items = getattr(calibration, "items", None)
    if items is None or not {"a", "b"} <= set(items.columns):
        raise ValidationError("calibration must be calibrate_2pl(...), a Calibration or an ItemBank of a 2PL")

    bank = as_item_bank(calibration) if not hasattr(calibration, "_plain") else calibration
    a, b = bank_arrays(bank)
    return IRTParameters(tuple(str(n) for n in bank.names), a, b, float(getattr(calibration, "latent_var", 1.0) or 1.0))


def prepare(responses: pd.DataFrame, items: Sequence[str], answers: pd.DataFrame,
            exclude: Sequence[str] | None = None, strata: Sequence[int] | None = None) -> Problem:
    """Check the inputs (one-line errors) and build the arrays."""
    values = response_values(responses, "responses")
    names = tuple(str(c) for c in responses.columns)
    if len(set(names)) != len(names):
        raise ValidationError("responses repeat an item name")
    return problem_from_values(values, names, items, answers, exclude, strata)


def estimate_prepared(prob: Problem, method: str, irt: IRTParameters | None, index: pd.Index, *,
                      alpha: float = 10.0, level: float = 0.95) -> pd.DataFrame:
    """:func:`estimate_accuracy` on checked arrays (used by the tiny benchmark, which stores them)."""
    est = get_estimator(method)
    if irt is not None and len(irt.a) != len(prob.names):
        raise ValidationError(f"calibration has {len(irt.a)} items, responses {len(prob.names)}")
    shared = shared_arrays(prob, irt if est.needs_irt else None, alpha)
    state = est.prepare(shared)
    J = len(prob.names)
    out = np.full((prob.Y.shape[0], len(COLUMNS)), np.nan)
    for s in samples(prob):
        out[s.m, 2:6] = interval(est.estimate(state, shared, s), s.n_e, J, level)
        out[s.m, 6] = s.n_e / J
    if shared.irt_out is not None:
        out[:, 0], out[:, 1] = shared.irt_out[2], shared.irt_out[3]
    frame = pd.DataFrame(out, columns=list(COLUMNS), index=index)
    frame["se"] = frame["accuracy_se"]  # deprecated alias (0.3.0 removes it): theta's SE is theta_se
    if shared.factors is not None:  # a D-factor calibration: F1..FD, se_F1..se_FD, cov_Fk_Fl
        mean, cov = shared.factors
        D = mean.shape[1]
        sd = np.sqrt(np.maximum(np.diagonal(cov, axis1=1, axis2=2), 0.0))
        pairs = [cov[:, k, m] for k in range(D) for m in range(k + 1, D)]
        extra = pd.DataFrame(np.column_stack([mean, sd, *pairs]), columns=factor_columns(D), index=index)
        frame = pd.concat([frame, extra], axis=1)
    return frame


@constraints(alpha=Number(low=0.0, low_open=True), level=Number(low=0.0, high=1.0, low_open=True, high_open=True))
def estimate_accuracy(responses: pd.DataFrame, items: Sequence[str], answers: pd.DataFrame,
                      method: str = DEFAULT_ESTIMATOR, *, calibration: Any = None, exclude: Sequence[str] | None = None,
                      alpha: float = 10.0, level: float = 0.95, strata: Sequence[int] | None = None) -> pd.DataFrame:
    """Predict each new model's share correct on all items of ``responses`` from its answers to ``items``.

    Parameters
    ----------
    responses : DataFrame
        The calibration models x all items, 0/1 (NaN: unanswered).
    items : sequence of str
        The sampled items (a simple random sample of the items not in ``exclude``).
    answers : DataFrame
        New models x ``items`` (more columns are ignored), 0/1, NaN for unanswered.
    method : str, default "ppi"
        A name of :data:`REGISTRY` (see the module docstring).
    calibration : IRTParameters, Calibration, ItemBank or FactorResult, optional
        A 2PL calibration of ``responses``' items for the estimators that need one; fitted natively
        (:func:`calibrate_2pl`, its default prior) when not given. A D-factor calibration
        (:func:`calibrate_factors`, or :func:`~irtbridge.em.factors.fit_factors`' result) makes the IRT feature
        the posterior mean of ``P_j(F)`` under ``F ~ N(0, I)`` (EAP), and adds the columns
        :func:`factor_columns`.
    exclude : sequence of str, optional
        Items left out of the sample frame: predicted only, and the interval spans their whole range.
    alpha : float
        The ridge penalty (10, as Zhang, Dorner & Hardt).
    level : float
        Interval level.
    strata : sequence of int, optional
        One stratum label per item of ``responses`` when ``items`` were drawn stratified
        (:func:`irtbridge.leaderboard.strata.stratified_draw`): ``"ppi"`` and ``"mean"`` then use the
        stratified estimator and variance (:mod:`irtbridge.leaderboard.strata`); other methods refuse it.

    Returns
    -------
    DataFrame
        One row per new model, the columns :data:`COLUMNS`: ``theta``, ``theta_se`` (the 2PL posterior mean
        and SD of ability given the sampled answers; NaN for an estimator without the 2PL), ``accuracy``
        (predicted share correct on all items), ``accuracy_se``, ``lower``, ``upper`` (the interval),
        ``predicted_share`` (the share of the items excluded from the frame), then ``se``, a deprecated alias
        of ``accuracy_se`` (removed in 0.3.0).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> cal = pd.DataFrame((rng.random((30, 40)) < 0.6) * 1.0, columns=[f"q{j}" for j in range(40)])
    >>> new = pd.DataFrame([[1.0, 0.0, 1.0, 1.0, 0.0]], columns=["q0", "q1", "q2", "q3", "q4"])
    >>> out = estimate_accuracy(cal, list(new.columns), new, "mean")
    >>> round(float(out["accuracy"].iloc[0]), 3), list(out.columns[:6])
    (0.6, ['theta', 'theta_se', 'accuracy', 'accuracy_se', 'lower', 'upper'])
    """
    est = get_estimator(method)
    check_number(alpha, "alpha", low=0.0, low_open=True)
    check_number(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    if strata is not None and method not in STRATIFIED:
        raise ValidationError(f"strata: only {', '.join(STRATIFIED)} have a stratified estimator, not {method!r}")
    prob = prepare(responses, items, answers, exclude, strata)
    irt = None
    if est.needs_irt:
        irt = _as_irt(calibration) if calibration is not None else calibrate_2pl(responses)
        if tuple(irt.names) != prob.names:
            raise ValidationError("calibration's items are not responses' items (same names, same order)")
    index = answers.index if isinstance(answers, pd.DataFrame) else pd.RangeIndex(1)
    return estimate_prepared(prob, method, irt, index, alpha=alpha, level=level)
