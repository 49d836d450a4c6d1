"""Algorithm-portfolio evaluation with IRT, as airt does it (Kandanaarachchi & Smith-Miles 2020).

A performance matrix has datasets as rows and algorithms as columns. Algorithms are the items and datasets
the respondents, so a dataset's latent trait is its *easiness*. From a fitted model (continuous: the CRM of
:mod:`irtbridge.portfolio.crm`; polytomous: mirt's gpcm or graded model on binned performance) this module
derives, natively:

* algorithm characteristics: discrimination, anomalousness (``a < 0``), stability ``1 / |a|``, the gap
  ``max|a| - |a|``, and the difficulty limit ``-b``;
* model goodness curves (share of datasets whose predicted performance is within a tolerance of the actual)
  and actual/predicted effectiveness curves (share of datasets reaching a performance level), with the
  areas under them;
* the latent trait analysis: each algorithm's performance against easiness smoothed by a penalized spline,
  the best (strengths) and worst (weaknesses) algorithms along the easiness axis and the share of datasets
  each one covers (latent trait occupancy).

Two conventions. ``"irtbridge"`` (default) follows the definitions: the predicted performance of a dataset
is the model's median (CRM) or most likely level (polytomous) at its own latent trait. ``"airt"`` repeats
airt 0.2.2's computations step by step, so its numbers can be reproduced: for the CRM it predicts with
``(theta - b) / alpha`` where the model has ``alpha (theta - b)``, standardizes ``theta`` against rescaled
bounds, and compares values EstCRM has moved 0.01 off the bounds; for the polytomous model it assigns
levels through ranges of a 6N-point theta grid, and where a dataset falls between two ranges it also
counts the *actual* level as 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import pandas as pd

from irtbridge._constraints import Choice, Int, Number, constraints
from irtbridge._summary import HasSummary, Line, Summary
from irtbridge._validation import check_choice, check_int, check_number
from irtbridge import irt
from irtbridge.calibration import calibrate
from irtbridge.example_data import r_dataset
from irtbridge.exceptions import ValidationError
from irtbridge.portfolio._checks import performance_matrix, to_model_scale
from irtbridge.portfolio.crm import (
    CRMCalibration,
    crm_abilities,
    crm_predict,
    fit_crm,
)
from irtbridge.portfolio.latent import LatentTraitAnalysis, algorithm_characteristics, latent_trait_analysis

__all__ = ["MODELS", "CONVENTIONS", "IRT_MODELS", "PortfolioEvaluation", "evaluate_portfolio", "bin_performance",
           "airt_performance"]

MODELS = ("continuous", "polytomous")
CONVENTIONS = ("irtbridge", "airt")
IRT_MODELS = ("gpcm", "graded")
BIN_METHODS = ("width", "quantile")
EXAMPLES = ("classification_cts", "classification_poly")
# Tolerances / thresholds of the continuous goodness and effectiveness curves: 0, 0.01, ..., 1.
_CTS_POINTS = 101


# --------------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------------


@constraints(name=Choice(EXAMPLES))
def airt_performance(name: str = "classification_cts") -> pd.DataFrame:
    """airt's example performance matrices (10 classifiers x 235 datasets), loaded from R's airt package.

    Parameters
    ----------
    name : {"classification_cts", "classification_poly"}
        Accuracy of each classifier on each dataset (Muñoz et al. 2018, MATILDA), or the same binned into
        levels 1..5 (``bin_performance(classification_cts, 5)``).

    Returns
    -------
    DataFrame, datasets as rows, algorithms as columns.

    Examples
    --------
    >>> perf = airt_performance("classification_cts")    # doctest: +R
    >>> perf.shape
    (235, 10)
    """
    name = check_choice(name, "name", EXAMPLES)
    frame = r_dataset("airt", name)
    return frame.astype(float)


@constraints(levels=Int(low=2), method=Choice(BIN_METHODS, ignore_case=True))
def bin_performance(
    performance: Any,
    levels: int = 5,
    method: str = "width",
    *,
    min_value: float | None = None,
    max_value: float | None = None,
):
    """Bin performance into ordered levels ``1..levels`` (P1 the lowest) for the polytomous model.

    Parameters
    ----------
    performance : DataFrame or 2-D array
        Datasets x algorithms.
    levels : int
        Number of levels (airt uses 5).
    method : {"width", "quantile"}
        ``"width"``: equal-width bins over ``[min_value, max_value]`` (default: the whole matrix's range),
        airt's ``make_polyIRT_data(df, method = 1)``; ``"quantile"``: bins at the quantiles ``1/levels,
        2/levels, ...`` of all values, airt's ``method = 2``. The same cut points serve every algorithm, so
        levels stay comparable across algorithms.
    min_value, max_value : float, optional
        The scale's ends for ``"width"`` (e.g. 0 and 1 for accuracy).

    Returns
    -------
    Same type as ``performance`` with integer levels.

    Notes
    -----
    ``"width"``: ``u = (x - min) / (max - min)``, level ``= 1 + #{k in 1..levels-1 : u >= k / levels}``.
    ``"quantile"``: level ``= 1 + #{k : x >= q_k}`` with ``q_k`` R's type-7 quantile at ``k / levels``.

    Examples
    --------
    >>> import numpy as np
    >>> bin_performance(np.array([[0.0, 0.19], [0.2, 0.99], [1.0, 0.5]]), 5).tolist()
    [[1, 1], [2, 5], [5, 3]]
    """
    levels = check_int(levels, "levels", low=2)
    method = check_choice(method, "method", BIN_METHODS, ignore_case=True)
    values, _, _ = performance_matrix(performance, min_datasets=1, allow_constant=True)
    if method == "width":
        lo = values.min() if min_value is None else check_number(min_value, "min_value")
        hi = values.max() if max_value is None else check_number(max_value, "max_value")
        if not lo < hi:
            raise ValidationError(f"min_value must be below max_value, got {lo:g} and {hi:g}")
        if values.min() < lo or values.max() > hi:
            raise ValidationError(
                f"performance spans {values.min():g} to {values.max():g}, outside [min_value, max_value] = [{lo:g}, {hi:g}]"
            )
        u = (values - lo) / (hi - lo)
        cuts = np.arange(1, levels) / levels
    else:
        if min_value is not None or max_value is not None:
            raise ValidationError("min_value and max_value apply to method='width' only")
        u = values
        cuts = np.quantile(values.ravel(), np.arange(1, levels) / levels)
    out = 1 + (u[..., None] >= cuts).sum(axis=-1)
    if isinstance(performance, pd.DataFrame):
        return pd.DataFrame(out, index=performance.index, columns=performance.columns)
    return out


def _level_matrix(performance: Any) -> tuple[np.ndarray, list[str], pd.Index | None]:
    values, names, index = performance_matrix(performance)
    if (values != np.round(values)).any():
        r, c = np.argwhere(values != np.round(values))[0]
        raise ValidationError(
            f"the polytomous model needs integer performance levels; algorithm {names[c]!r} has {values[r, c]:g}. "
            "Bin continuous performance first with bin_performance(performance, levels=5) (CLI: --bins 5)"
        )
    return values, names, index


# --------------------------------------------------------------------------------------------------
# Curves
# --------------------------------------------------------------------------------------------------


def _auc(curves: pd.DataFrame) -> pd.Series:
    """Trapezoidal area under each column over the index (pracma::trapz in airt)."""
    x = curves.index.to_numpy(dtype=float)
    y = curves.to_numpy(dtype=float)
    return pd.Series(((y[1:] + y[:-1]) * np.diff(x)[:, None]).sum(axis=0) / 2.0, index=curves.columns)


def _within(diff: np.ndarray, tolerances: np.ndarray) -> np.ndarray:
    """Share of rows with ``diff <= t`` for each tolerance: shape (n_tolerances, n_algorithms)."""
    return (diff[None, :, :] <= tolerances[:, None, None]).mean(axis=1)


def _at_least(values: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    return (values[None, :, :] >= thresholds[:, None, None]).mean(axis=1)


def _frame(y: np.ndarray, x: np.ndarray, names: list[str], label: str) -> pd.DataFrame:
    return pd.DataFrame(y, index=pd.Index(x, name=label), columns=names)


@dataclass(frozen=True)
class _Curves:
    """Goodness and effectiveness of every algorithm, on grids indexed by the curve's x."""

    goodness: pd.DataFrame
    effectiveness_actual: pd.DataFrame
    effectiveness_predicted: pd.DataFrame
    mse: np.ndarray


def _curves(actual: np.ndarray, predicted: np.ndarray, tolerances: np.ndarray, thresholds: np.ndarray,
            x: np.ndarray, names: list[str]) -> _Curves:
    """The goodness curve (share within each tolerance), both effectiveness curves and the MSE, at once."""
    diff = np.abs(actual - predicted)
    return _Curves(
        goodness=_frame(_within(diff, tolerances), x, names, "tolerance"),
        effectiveness_actual=_frame(_at_least(actual, thresholds), x, names, "x"),
        effectiveness_predicted=_frame(_at_least(predicted, thresholds), x, names, "x"),
        mse=(diff**2).mean(axis=0),
    )


@dataclass(frozen=True)
class _Fitted:
    """What the continuous or the polytomous branch hands to :func:`evaluate_portfolio`."""

    calibration: Any
    performance: pd.DataFrame
    datasets: pd.DataFrame
    predicted: pd.DataFrame
    curves: _Curves
    difficulty: np.ndarray


# --------------------------------------------------------------------------------------------------
# The evaluation
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class PortfolioEvaluation(HasSummary):
    """Everything :func:`evaluate_portfolio` computes.

    Attributes
    ----------
    model : {"continuous", "polytomous"}
    convention : {"irtbridge", "airt"}
    calibration : CRMCalibration or Calibration
        The fitted IRT model (algorithms are the items).
    performance : DataFrame
        The input (datasets x algorithms; levels for the polytomous model).
    algorithms : DataFrame
        One row per algorithm: ``discrimination``, ``anomalous``, ``stability``, ``stability_gap``,
        ``difficulty_limit`` (see :func:`algorithm_characteristics`), ``goodness_auc``, ``goodness_mse``,
        ``effectiveness_auc_actual`` and ``effectiveness_auc_predicted``.
    datasets : DataFrame
        One row per dataset: ``easiness`` (the latent trait used on the easiness axis), ``theta`` (the
        trait the predictions use) and ``se``.
    predicted : DataFrame
        The IRT-predicted performance of every algorithm on every dataset (data units, or levels).
    goodness_curves : DataFrame
        Share of datasets with ``|actual - predicted| <= tolerance`` (index: tolerance on [0, 1]).
    effectiveness_actual, effectiveness_predicted : DataFrame
        Share of datasets reaching each performance threshold, from the best threshold (x = 0) down to the
        lowest (x = 1).
    latent : LatentTraitAnalysis
    options : dict
    """

    model: str
    convention: str
    calibration: Any = field(repr=False)
    performance: pd.DataFrame = field(repr=False)
    algorithms: pd.DataFrame = field(repr=False)
    datasets: pd.DataFrame = field(repr=False)
    predicted: pd.DataFrame = field(repr=False)
    goodness_curves: pd.DataFrame = field(repr=False)
    effectiveness_actual: pd.DataFrame = field(repr=False)
    effectiveness_predicted: pd.DataFrame = field(repr=False)
    latent: LatentTraitAnalysis = field(repr=False)
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def occupancy(self) -> pd.DataFrame:
        """Latent trait occupancy (``latent.occupancy``)."""
        return self.latent.occupancy

    def to_dict(self) -> dict[str, Any]:
        """The CLI's ``--json`` object: ``{"algorithms": [...], "occupancy": [...]}``.

        Returns
        -------
        dict of str to Any
            See above.
        """
        rows = []
        for name, row in self.algorithms.iterrows():
            rows.append({
                "algorithm": str(name),
                "discrimination": float(row["discrimination"]),
                "anomalous": bool(row["anomalous"]),
                "stability": float(row["stability"]),
                "goodness_auc": float(row["goodness_auc"]),
                "effectiveness_auc_actual": float(row["effectiveness_auc_actual"]),
                "effectiveness_auc_predicted": float(row["effectiveness_auc_predicted"]),
            })
        occupancy = [{"algorithm": str(r.algorithm), "proportion": float(r.proportion)}
                     for r in self.occupancy.itertuples()]
        return {"algorithms": rows, "occupancy": occupancy}

    def summary(self, digits: int = 3) -> Summary:
        """The algorithm table, occupancy, and Notes.

        Parameters
        ----------
        digits : int, default 3
            Digits shown.

        Returns
        -------
        Summary
            The evaluation's summary.
        """
        cal = self.calibration
        kind = "continuous response model (EstCRM)" if self.model == "continuous" else f"{cal.model} model (mirt)"
        cols = ["discrimination", "anomalous", "stability", "goodness_auc", "effectiveness_auc_actual",
                "effectiveness_auc_predicted"]
        occ = self.occupancy.set_index("algorithm")[["proportion"]]
        lines = (Line.of("size", f"datasets {len(self.datasets)}   algorithms {len(self.algorithms)}"),)
        notes = []
        if not cal.converged:
            notes.append("the IRT calibration did not converge; treat the results with caution")
        anomalous = list(self.algorithms.index[self.algorithms["anomalous"]])
        if anomalous:
            notes.append(f"anomalous algorithm(s) (negative discrimination): {', '.join(anomalous)}")
        notes += [f"calibration warning: {w}" for w in cal.warnings]
        tables = (("algorithms", self.algorithms[cols]),
                  (f"latent trait occupancy (epsilon = {self.latent.epsilon:g})", occ))
        return Summary(f"irtbridge portfolio evaluation: {kind}, convention {self.convention!r}", lines, tables,
                       tuple(notes), data=self.to_dict(), digits=digits)


@constraints(model=Choice(MODELS, ignore_case=True), convention=Choice(CONVENTIONS, ignore_case=True), epsilon=Number(low=0.0),
             n_grid=Int(low=2))
def evaluate_portfolio(
    performance: Any,
    model: str = "continuous",
    *,
    min_item: Any = None,
    max_item: Any = None,
    scale: str | None = None,
    epsilon: float = 0.0,
    irt_model: str = "gpcm",
    convention: str = "irtbridge",
    estimator: str = "airt",
    n_grid: int = 80,
) -> PortfolioEvaluation:
    """Evaluate an algorithm portfolio with IRT (airt's workflow, Kandanaarachchi & Smith-Miles (2020)).

    Parameters
    ----------
    performance : DataFrame or 2-D array
        Datasets (rows) x algorithms (columns), higher is better; complete. For ``"polytomous"``, integer
        levels (see :func:`bin_performance`).
    model : {"continuous", "polytomous"}
        The CRM (calibrated by EstCRM in R) or a polytomous model (``irt_model``, calibrated by mirt).
    min_item, max_item : number, sequence or mapping, optional
        Continuous model only: each algorithm's performance bounds (default: observed column min and max,
        as airt). Values outside their bounds are an error.
    scale : {None, "single", "multiple"}
        Continuous model only: rescale to [0, 1] before fitting (see :func:`rescale_performance`).
    epsilon : float
        Tolerance of the strengths and weaknesses (see :func:`latent_trait_analysis`).
    irt_model : {"gpcm", "graded"}
        Polytomous model only. airt fits the generalized partial credit model (``mirt(dat, 1, itemtype =
        "gpcm")``), which reproduces the seed's tables; ``"graded"`` is Samejima's graded response model.
    convention : {"irtbridge", "airt"}
        How predictions, goodness and effectiveness are computed (see the module docstring and Notes).
    estimator : {"airt", "EstCRM"}
        Continuous model only; see :func:`fit_crm`.
    n_grid : int
        Easiness grid of the latent trait analysis.

    Returns
    -------
    PortfolioEvaluation

    Notes
    -----
    Continuous model, ``"irtbridge"`` convention, with ``u = (x - min) / (max - min)``:
    ``theta_i`` is the CRM's maximum likelihood trait (:func:`crm_abilities`), the predicted
    ``u_hat_ij = expit(alpha_j (theta_i - b_j))`` (the model's median), the goodness curve
    ``G_j(t) = mean_i [|u_ij - u_hat_ij| <= t]`` and the effectiveness curves ``E_j(x) = mean_i [u_ij >=
    1 - x]`` (and with ``u_hat``), for ``t, x`` in ``0, 0.01, ..., 1``; ``goodness_mse = mean (u - u_hat)^2``.

    Polytomous model, ``"irtbridge"``: ``theta_i`` is the EAP score (mirt's ``fscores`` default: 121
    quadrature points on [-6, 6]), the predicted level is the most likely category at ``theta_i``. With
    the matrix's ``K`` levels ranked ``0..K-1``, ``G_j(t) = mean_i [|r_ij - r_hat_ij| <= t]`` for ``t =
    0..K-1`` and ``E_j(m) = mean_i [r_ij >= K - 1 - m]``, plotted at ``x = t / (K - 1)``.

    Every AUC is the trapezoidal area over x in [0, 1] (airt's ``pracma::trapz``). ``"airt"`` reproduces
    ``model_goodness_crm``/``effectiveness_crm`` and ``model_goodness_poly``/``effectiveness_poly`` of
    airt 0.2.2 (100-point CRM curves on the shifted data scale; see the module docstring for the rest).

    R equivalent (airt 0.2.2)::

        mod  <- cirtmodel(df, max.item, min.item)                # or pirtmodel(levels_df)
        good <- model_goodness_crm(mod); eff <- effectiveness_crm(mod)
        lta  <- latent_trait_analysis(df, mod$model$param, min.item, max.item, epsilon = 0)

    Examples
    --------
    >>> from irtbridge.portfolio import airt_performance, evaluate_portfolio
    >>> ev = evaluate_portfolio(airt_performance("classification_cts"), min_item=0, max_item=1)  # doctest: +R
    >>> ev.occupancy["algorithm"].iloc[0]               # the algorithm best over most of the latent range
    'J48'
    """
    model = check_choice(model, "model", MODELS, ignore_case=True)
    convention = check_choice(convention, "convention", CONVENTIONS, ignore_case=True)
    epsilon = check_number(epsilon, "epsilon", low=0.0)
    n_grid = check_int(n_grid, "n_grid", low=2)
    options: dict[str, Any] = {"epsilon": epsilon, "n_grid": n_grid}
    if model == "continuous":
        fitted = _evaluate_continuous(performance, min_item, max_item, scale, convention, estimator)
        options.update(scale=scale, estimator=estimator)
    else:
        if min_item is not None or max_item is not None or scale is not None:
            raise ValidationError(
                "min_item, max_item and scale apply to the continuous model; for the polytomous model bin the "
                "performance first with bin_performance(performance, levels, min_value=..., max_value=...)"
            )
        irt_model = check_choice(irt_model, "irt_model", IRT_MODELS, ignore_case=True)
        fitted = _evaluate_polytomous(performance, irt_model, convention)
        options.update(irt_model=irt_model)
    frame, curves = fitted.performance, fitted.curves
    algorithms = algorithm_characteristics(fitted.calibration.items["a"].rename(None), fitted.difficulty)
    algorithms.index = pd.Index(list(frame.columns), name="algorithm")
    algorithms["goodness_auc"] = _auc(curves.goodness).to_numpy()
    algorithms["goodness_mse"] = curves.mse
    algorithms["effectiveness_auc_actual"] = _auc(curves.effectiveness_actual).to_numpy()
    algorithms["effectiveness_auc_predicted"] = _auc(curves.effectiveness_predicted).to_numpy()
    latent = latent_trait_analysis(frame, fitted.datasets["easiness"], epsilon=epsilon, n_grid=n_grid)
    return PortfolioEvaluation(
        model=model,
        convention=convention,
        calibration=fitted.calibration,
        performance=frame,
        algorithms=algorithms,
        datasets=fitted.datasets,
        predicted=fitted.predicted,
        goodness_curves=curves.goodness,
        effectiveness_actual=curves.effectiveness_actual,
        effectiveness_predicted=curves.effectiveness_predicted,
        latent=latent,
        options=options,
    )


def _as_frame(values: np.ndarray, names: list[str], index: pd.Index | None) -> pd.DataFrame:
    return pd.DataFrame(values, index=index if index is not None else pd.RangeIndex(values.shape[0]), columns=names)


def _evaluate_continuous(performance, min_item, max_item, scale, convention, estimator) -> _Fitted:
    values, names, index = performance_matrix(performance)
    frame = _as_frame(values, names, index)
    cal = fit_crm(frame, min_item, max_item, scale=scale, estimator=estimator)
    abil = crm_abilities(frame, cal)
    lo, hi = cal.min_item.to_numpy(), cal.max_item.to_numpy()
    if convention == "irtbridge":
        u = (values - lo[None, :]) / (hi - lo)[None, :]
        u_hat = crm_predict(abil["theta"].to_numpy(), cal, normalized=True)
        x = np.linspace(0.0, 1.0, _CTS_POINTS)
        thresholds = (_CTS_POINTS - 1 - np.arange(_CTS_POINTS)) / (_CTS_POINTS - 1)
        curves = _curves(u, u_hat, x, thresholds, x, names)
        predicted = lo[None, :] + (hi - lo)[None, :] * u_hat
        datasets = abil
    else:
        curves, predicted, theta = _airt_crm(values, cal)
        datasets = abil.assign(theta=theta)
    return _Fitted(cal, frame, datasets, _as_frame(predicted, names, frame.index), curves, cal.items["b"].to_numpy())


def _airt_crm(values: np.ndarray, cal: CRMCalibration):
    """airt 0.2.2's actual_vs_predicted_crm / model_goodness_crm / effectiveness_crm, step by step."""
    names = cal.item_names
    lo, hi = cal.min_item.to_numpy(), cal.max_item.to_numpy()
    v, mlo, mhi = to_model_scale(values, lo, hi, cal.scale)
    # EstCRM keeps the data shifted to 0 with boundary values moved 0.01 inside (its $data)
    span = mhi - mlo
    data = v - mlo[None, :]
    data = np.where(data == span, span - 0.01, data)
    data = np.where(data == 0.0, 0.01, data)
    # airt then re-estimates theta (EstCRMperson) with the observed column range as bounds (+0.001 on top)
    top = data.max(axis=0) + 0.001
    bottom = data.min(axis=0)
    w = data - bottom[None, :]
    w = np.where(w == top - bottom, top - bottom - 0.01, w)
    w = np.where(w == 0.0, 0.01, w)
    z = np.log(w / ((top - bottom)[None, :] - w))
    a, b, alpha = (cal.items[c].to_numpy() for c in ("a", "b", "alpha"))
    raw = (a**2 * (b[None, :] + z / alpha[None, :])).sum(axis=1) / (a**2).sum()
    theta = (raw - raw.mean()) / raw.std(ddof=1)
    arg = np.minimum((theta[:, None] - b[None, :]) / alpha[None, :], 10.0)
    pred = top[None, :] * np.exp(arg) / (1.0 + np.exp(arg))
    curves = _curves(data, pred, np.arange(100) / 100.0, np.arange(100, 0, -1) / 100.0, np.linspace(0.0, 1.0, 100),
                     names)
    # airt's predictions live on the shifted model scale: put them back in the data's units
    predicted = pred + mlo[None, :]
    if cal.scale is not None:
        predicted = lo[None, :] + (hi - lo)[None, :] * predicted
    return curves, predicted, theta


def _evaluate_polytomous(performance, irt_model, convention) -> _Fitted:
    values, names, index = _level_matrix(performance)
    frame = _as_frame(values, names, index)
    cal = calibrate(frame, model=irt_model, engine="mirt", se=False)
    item_levels = [np.unique(values[:, j]) for j in range(values.shape[1])]
    # mirt codes each item's observed values as categories 0..K_j-1
    codes = np.column_stack([np.searchsorted(item_levels[j], values[:, j]) for j in range(values.shape[1])])
    scores = irt.estimate_abilities(
        pd.DataFrame(codes, columns=names), cal, method="EAP", quadrature=121,
        prior=(cal.latent_mean, float(np.sqrt(cal.latent_var))), mins=False,  # codes are 0..K_j-1 already
    )
    theta = scores["theta"].to_numpy()
    k_items = cal.items.shape[1]  # a, b1..b(K-1): K = the most categories of any item
    if convention == "irtbridge":
        probs = irt.category_probabilities(theta, cal)
        mode = probs.argmax(axis=2)
        pred = np.column_stack([item_levels[j][mode[:, j]] for j in range(values.shape[1])])
        levels = np.unique(values)
        K = levels.size
        r_act = np.searchsorted(levels, values).astype(float)
        r_pred = np.searchsorted(levels, pred).astype(float)
        curves = _curves(r_act, r_pred, np.arange(K, dtype=float), np.arange(K - 1, -1, -1, dtype=float),
                         np.linspace(0.0, 1.0, K), names)
    else:
        act, pred = _airt_poly_predictions(values, item_levels, theta, cal)
        curves = _curves(act, pred, np.arange(k_items, dtype=float), np.arange(k_items, 0, -1, dtype=float),
                         np.linspace(0.0, 1.0, k_items), names)
    items = cal.items
    last = np.array([items.iloc[j, 1:].dropna().iloc[-1] for j in range(len(items))])
    datasets = pd.DataFrame({"easiness": theta, "theta": theta, "se": scores["se"].to_numpy()}, index=frame.index)
    return _Fitted(cal, frame, datasets, _as_frame(pred.astype(float), names, frame.index), curves, last)


def _airt_poly_predictions(values, item_levels, theta, cal):
    """airt 0.2.2's actual_vs_predicted_poly: levels from ranges of a 6N-point grid of theta."""
    n, m = values.shape
    grid = np.linspace(-6.0, 6.0, 6 * n)
    probs = irt.category_probabilities(grid, cal)
    n_values = np.unique(values).size
    act = np.zeros((n, m))
    pred = np.zeros((n, m))
    for j in range(m):
        observed = item_levels[j]
        modal = probs[:, j, : observed.size].argmax(axis=1) + 1
        original = modal.copy()
        distinct = np.unique(modal)
        if not np.isin(distinct, observed).all():
            # airt maps the l-th distinct modal category to the l-th observed level
            for rank, category in enumerate(distinct):
                modal[original == category] = observed[rank]
        for level in range(1, n_values + 1):
            on = modal == level
            if on.any():
                inside = (theta >= grid[on].min()) & (theta <= grid[on].max())
                act[inside, j] = values[inside, j]
                pred[inside, j] = level
        # datasets between two ranges get the level of the nearest grid point, and keep actual = 0
        for i in np.flatnonzero(pred[:, j] == 0):
            pred[i, j] = modal[np.argmin(np.abs(grid - theta[i]))]
    return act, pred
