"""Samejima's continuous response model (CRM) for algorithm portfolios, as airt fits it.

Algorithms are the items and datasets the respondents. Calibration runs in R (Shojima's EM in EstCRM,
through :mod:`irtbridge._r`); the model's density, the datasets' latent trait (easiness) and predicted
performance are native.

Model (EstCRM's parameterization, columns ``a, b, alpha``): a performance ``x`` of algorithm ``j`` with
bounds ``[min_j, max_j]`` is mapped to ``z = log(v / (M_j - v))``, ``v = x - min_j``, ``M_j = max_j - min_j``,
and ``z | theta ~ Normal(alpha_j (theta - b_j), (alpha_j / a_j)^2)``, i.e. the density
``f(z | theta) = |a_j / alpha_j| phi(a_j (theta - b_j - z / alpha_j))``.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import pandas as pd
from scipy.special import expit

from irtbridge._constraints import Choice, Flag, Int, Number, constraints
from irtbridge import __version__
from irtbridge._summary import HasSummary, Line, Summary
from irtbridge._validation import check_choice, check_int, check_number
from irtbridge.exceptions import ConvergenceWarning, DataWarning, RError, RWarning, ValidationError, find_stack_level
from irtbridge.portfolio._checks import bounds, check_within, performance_matrix, to_model_scale

__all__ = [
    "CRMCalibration",
    "fit_crm",
    "crm_z",
    "crm_abilities",
    "crm_density",
    "crm_predict",
    "rescale_performance",
    "ESTIMATORS",
]

ESTIMATORS = ("airt", "EstCRM")
SCALINGS = ("single", "multiple")
# EstCRM moves values that sit exactly on a bound this far inside it (in the data's own units) so the logit
# stays finite.
_EDGE = 0.01


@dataclass(frozen=True, eq=False)
class CRMCalibration(HasSummary):
    """The result of :func:`fit_crm`.

    Attributes
    ----------
    items : DataFrame
        One row per algorithm, columns ``a`` (discrimination; negative for an anomalous algorithm), ``b``
        (difficulty) and ``alpha`` (scale of ``z``), exactly EstCRM's ``$param``.
    standard_errors : DataFrame
        EstCRM's ``$std.err`` (NaN where its Hessian is not positive definite).
    min_item, max_item : Series
        The bounds of each algorithm in the data's units (with ``scale="single"``, the common bounds). With a
        ``scale``, the model itself saw ``(x - min_item) / (max_item - min_item)`` with bounds 0 and 1.
    loglik : float
        The EM's final log-likelihood (EstCRM's ``$LL``).
    iterations : int
        EM cycles run.
    converged : bool
        Whether the last change in log-likelihood was within ``converge``.
    estimator : str
        ``"airt"`` (airt's variant, admits negative discriminations) or ``"EstCRM"``.
    scale : str or None
        The rescaling applied before fitting (see :func:`rescale_performance`).
    n_datasets : int
    options : dict
        ``max_em_cycle`` and ``converge``.
    warnings : tuple of str
        Warnings raised while fitting.
    provenance : dict
        irtbridge, EstCRM/airt and R versions, and the fit's wall time.
    """

    items: pd.DataFrame
    standard_errors: pd.DataFrame
    min_item: pd.Series
    max_item: pd.Series
    loglik: float
    iterations: int
    converged: bool
    estimator: str
    n_datasets: int
    scale: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    provenance: Mapping[str, Any] = field(default_factory=dict)

    model = "crm"

    @property
    def item_names(self) -> list[str]:
        """The algorithms (the items), in the order of :attr:`items`."""
        return list(self.items.index)

    def __repr__(self) -> str:
        return (
            f"CRMCalibration(estimator={self.estimator!r}, algorithms={len(self.items)}, "
            f"datasets={self.n_datasets}, loglik={self.loglik:.4f}, converged={self.converged})"
        )

    def summary(self, digits: int = 3) -> Summary:
        """The item table, bounds and Notes.

        Parameters
        ----------
        digits : int, default 3
            Digits shown.

        Returns
        -------
        Summary
            The calibration's summary.
        """
        table = self.items.assign(min_item=self.min_item, max_item=self.max_item)
        lines = (
            Line.of("fit", f"datasets {self.n_datasets}   algorithms {len(self.items)}   log-likelihood "
                           f"{self.loglik:.{digits}f}"),
            Line.of("converged", f"converged {'yes' if self.converged else 'NO'} after {self.iterations} EM cycles"),
        )
        notes = []
        if not self.converged:
            notes.append("the EM stopped at max_em_cycle before the log-likelihood settled")
        if (self.items["a"] < 0).any():
            notes.append("negative a: anomalous algorithm(s) " + ", ".join(self.items.index[self.items["a"] < 0]))
        notes += list(self.warnings)
        title = (f"continuous response model by {self.estimator} (Shojima EM; EstCRM "
                 f"{self.provenance.get('engine_version', '?')}, R {self.provenance.get('r_version', '?')})")
        return Summary(title, lines, (("items", table),), tuple(notes), digits=digits,
                       data={"loglik": self.loglik, "converged": bool(self.converged), "items": table.reset_index()})


@constraints(scale=Choice(SCALINGS, ignore_case=True))
def rescale_performance(performance: Any, scale: str, min_item: Any = None, max_item: Any = None):
    """Rescale performance to [0, 1] before a CRM fit.

    Parameters
    ----------
    performance : DataFrame or 2-D array
        Datasets x algorithms.
    scale : {"single", "multiple"}
        ``"single"``: one linear map for the whole matrix, from ``[min(min_item), max(max_item)]`` to [0, 1]
        (keeps algorithms comparable); ``"multiple"``: each algorithm from its own ``[min_item, max_item]``.
    min_item, max_item : number, sequence or mapping, optional
        Bounds per algorithm; by default each column's observed minimum and maximum.

    Returns
    -------
    DataFrame or ndarray (like the input), with values in [0, 1].

    Notes
    -----
    EstCRM moves boundary values 0.01 inside the bounds in the data's own units, so fits depend on the unit
    of measurement (accuracy in [0, 1] or in percent); rescaling removes that dependence.

    Examples
    --------
    >>> import numpy as np
    >>> rescale_performance(np.array([[50.0, 80.0], [100.0, 90.0]]), "single", 0, 100).tolist()
    [[0.5, 0.8], [1.0, 0.9]]
    """
    scale = check_choice(scale, "scale", SCALINGS, ignore_case=True)
    values, names, index = performance_matrix(performance, min_datasets=1, allow_constant=True)
    lo = bounds(min_item, names, "min_item", values.min(axis=0))
    hi = bounds(max_item, names, "max_item", values.max(axis=0))
    check_within(values, names, lo, hi, index, "performance")
    if scale == "single":
        lo, hi = np.full_like(lo, lo.min()), np.full_like(hi, hi.max())
    out = (values - lo[None, :]) / (hi - lo)[None, :]
    if isinstance(performance, pd.DataFrame):
        return pd.DataFrame(out, index=performance.index, columns=performance.columns)
    return out


@constraints(estimator=Choice(ESTIMATORS, ignore_case=True), max_em_cycle=Int(low=2), converge=Number(low=0.0, low_open=True),
             scale=Choice(SCALINGS, ignore_case=True, allow_none=True))
def fit_crm(
    performance: Any,
    min_item: Any = None,
    max_item: Any = None,
    *,
    scale: str | None = None,
    estimator: str = "airt",
    max_em_cycle: int = 200,
    converge: float = 0.01,
) -> CRMCalibration:
    """Calibrate the continuous response model in R (EstCRM's EM, as ``airt::cirtmodel``).

    Parameters
    ----------
    performance : DataFrame or 2-D array
        Datasets (rows) x algorithms (columns), e.g. accuracy; complete, numeric.
    min_item, max_item : number, sequence or mapping, optional
        The performance bounds of each algorithm (one number for all, one per column, or a mapping by
        algorithm name). Default: each column's observed minimum and maximum (airt's default). A value
        outside its bounds is a :class:`ValidationError`.
    scale : {None, "single", "multiple"}
        Rescale to [0, 1] first (see :func:`rescale_performance`); the bounds then become 0 and 1.
    estimator : {"airt", "EstCRM"}
        ``"airt"`` runs airt's variant of EstCRM's EM (``airt:::EstCRMitem2``, what ``cirtmodel`` uses),
        where the sign of each discrimination follows the data, so an algorithm that does well where the
        others fail gets ``a < 0`` (anomalous). ``"EstCRM"`` runs ``EstCRM::EstCRMitem``, whose
        discriminations are positive (it fails when the data need a negative one).
    max_em_cycle, converge : int, float
        EM limits: at most ``max_em_cycle`` cycles (airt uses 200), stop when the log-likelihood changes by
        at most ``converge`` (EstCRM's 0.01).

    Returns
    -------
    CRMCalibration

    Raises
    ------
    ValidationError
        Non-numeric or incomplete data, fewer than 2 algorithms or 10 datasets, a constant algorithm,
        bounds that do not hold the data, or a bound range of at most 0.02 (EstCRM moves boundary values
        0.01 inside).

    Warns
    -----
    ConvergenceWarning
        When the EM stopped at ``max_em_cycle``.
    DataWarning
        When EstCRM could not compute some standard errors.

    Notes
    -----
    R equivalent::

        airt::cirtmodel(df, max.item, min.item)$model      # estimator = "airt"
        EstCRM::EstCRMitem(df, max.item, min.item, max.EMCycle = 200, converge = 0.01, type = "Shojima")

    Examples
    --------
    >>> from irtbridge.portfolio import airt_performance, fit_crm
    >>> perf = airt_performance("classification_cts")           # doctest: +R
    >>> fit = fit_crm(perf, min_item=0, max_item=1)
    >>> round(float(fit.items.loc["QDA", "a"]), 4)
    0.0426
    """
    from irtbridge._r import session  # the R boundary loads with the first R call, never on import

    estimator = check_choice(estimator, "estimator", ESTIMATORS, ignore_case=True)
    max_em_cycle = check_int(max_em_cycle, "max_em_cycle", low=2)
    converge = check_number(converge, "converge", low=0.0, low_open=True)
    values, names, index = performance_matrix(performance)
    lo = bounds(min_item, names, "min_item", values.min(axis=0))
    hi = bounds(max_item, names, "max_item", values.max(axis=0))
    check_within(values, names, lo, hi, index, "performance")
    if scale is not None:
        scale = check_choice(scale, "scale", SCALINGS, ignore_case=True)
        if scale == "single":
            lo, hi = np.full_like(lo, lo.min()), np.full_like(hi, hi.max())
    # the bounds kept on the result are in the data's units; the model itself may see rescaled data
    data_lo, data_hi = lo, hi
    values, lo, hi = to_model_scale(values, lo, hi, scale)
    narrow = np.flatnonzero(hi - lo <= 2 * _EDGE)
    if narrow.size:
        j = narrow[0]
        raise ValidationError(
            f"the bounds of algorithm {names[j]!r} span only {hi[j] - lo[j]:g}; EstCRM moves boundary values "
            f"{_EDGE} inside the bounds, so the range must exceed {2 * _EDGE}: rescale (scale='single')"
        )
    packages = ["EstCRM"] + (["airt"] if estimator == "airt" else [])
    session.ensure_packages(*packages)
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = session.call(
                "irtb_crm_fit", data=values, item_names=names, max_item=hi.tolist(), min_item=lo.tolist(),
                estimator=estimator, max_em_cycle=max_em_cycle, converge=converge,
            )
        except RError as exc:
            # EstCRMitem takes log(alpha) in its likelihood: an algorithm that needs a negative
            # discrimination makes it NaN and the EM loop stops on `while (abs(d) > converge ...)`.
            if estimator == "EstCRM" and "missing value where TRUE/FALSE needed" in exc.r_message:
                raise ValidationError(
                    "EstCRM::EstCRMitem cannot fit these data: some algorithm performs well where the others do "
                    "badly and needs a negative discrimination, which EstCRM does not allow; use estimator='airt'"
                ) from exc
            raise
    elapsed = time.perf_counter() - started
    items = _table(out["param"], names)
    se = _table(out["se"], names)
    kept = _relay_warnings(caught, se)
    iterations = int(out["iterations"])
    change = float(out["change"])
    converged = bool(change <= converge)
    if not converged:
        warnings.warn(
            f"the CRM's EM stopped after {iterations} cycles with the log-likelihood still changing by {change:.3g} "
            f"(> converge = {converge}); raise max_em_cycle",
            ConvergenceWarning,
            stacklevel=find_stack_level(),
        )
    versions = session.r_versions(packages)
    return CRMCalibration(
        items=items,
        standard_errors=se,
        min_item=pd.Series(data_lo, index=names, name="min_item"),
        max_item=pd.Series(data_hi, index=names, name="max_item"),
        loglik=float(out["loglik"]),
        iterations=iterations,
        converged=converged,
        estimator=estimator,
        n_datasets=int(values.shape[0]),
        scale=scale,
        options={"max_em_cycle": max_em_cycle, "converge": converge},
        warnings=tuple(kept),
        provenance={
            "irtbridge_version": __version__,
            "engine": "EstCRM" if estimator == "EstCRM" else "airt:::EstCRMitem2",
            "engine_version": versions["packages"]["EstCRM"],
            "airt_version": versions["packages"].get("airt"),
            "r_version": versions["r"],
            "fit_seconds": elapsed,
        },
    )


def _relay_warnings(caught: list, se: pd.DataFrame) -> list[str]:
    """Re-issue the R warnings caught around the fit (to fit_crm's caller) and return their texts."""
    kept: list[str] = []
    for w in caught:
        text = str(w.message)
        # EstCRM takes square roots of the inverse Hessian's diagonal: "NaNs produced" only means some
        # standard errors are undefined, which the table shows; say that instead of R's bare message.
        if issubclass(w.category, RWarning) and "NaNs produced" in text and se.isna().any().any():
            bad = list(se.index[se.isna().any(axis=1)])
            text = (f"EstCRM could not compute standard errors for algorithm(s) {', '.join(bad)} (its Hessian is "
                    "not positive definite there); the estimates are unaffected")
            warnings.warn(text, DataWarning, stacklevel=find_stack_level())
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        kept.append(text.removeprefix("R: "))
    return kept


def _table(frame: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    arr = frame.to_numpy(dtype=float, copy=True)
    if arr.shape != (len(names), 3):
        raise RuntimeError(f"R returned a {arr.shape} parameter table for {len(names)} algorithms")
    return pd.DataFrame(arr, index=pd.Index(names), columns=["a", "b", "alpha"])


# --------------------------------------------------------------------------------------------------
# Native model functions
# --------------------------------------------------------------------------------------------------


def _prepared(performance: Any, calibration: CRMCalibration) -> tuple[np.ndarray, np.ndarray, np.ndarray, pd.Index | None]:
    """Check ``performance`` against the calibration; return it on the model's scale with the model's bounds."""
    # scoring new datasets: two suffice for the standardized easiness, and any column may be constant
    values, names, index = performance_matrix(performance, min_datasets=2, allow_constant=True)
    if names != calibration.item_names:
        raise ValidationError(
            f"performance columns {names[:5]} do not match the calibration's algorithms {calibration.item_names[:5]}"
        )
    lo, hi = calibration.min_item.to_numpy(), calibration.max_item.to_numpy()
    check_within(values, names, lo, hi, index, "performance")
    values, lo, hi = to_model_scale(values, lo, hi, calibration.scale)
    return values, lo, hi, index


def crm_z(performance: Any, min_item: Any, max_item: Any):
    """EstCRM's transform of performance to the logit scale ``z``.

    Parameters
    ----------
    performance : DataFrame or ndarray
        Datasets x algorithms.
    min_item, max_item : float or array-like
        The performance scale's ends.

    Returns
    -------
    DataFrame or ndarray
        ``z``, shaped like ``performance``.

    Notes
    -----
    ``v = x - min``, ``M = max - min``; values with ``v == M`` become ``M - 0.01`` and values with ``v == 0``
    become ``0.01`` (EstCRM's rule, in the data's own units); then ``z = log(v / (M - v))``.

    Examples
    --------
    >>> import numpy as np
    >>> crm_z(np.array([[0.5, 1.0], [0.0, 0.25]]), 0.0, 1.0).round(4).tolist()
    [[0.0, 4.5951], [-4.5951, -1.0986]]
    """
    arr = np.asarray(performance, dtype=float)
    lo = np.broadcast_to(np.asarray(min_item, dtype=float), arr.shape[-1:])
    hi = np.broadcast_to(np.asarray(max_item, dtype=float), arr.shape[-1:])
    span = hi - lo
    v = arr - lo
    v = np.where(v == span, span - _EDGE, v)
    v = np.where(v == 0.0, _EDGE, v)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.log(v / (span - v))
    if isinstance(performance, pd.DataFrame):
        return pd.DataFrame(z, index=performance.index, columns=performance.columns)
    return z


def crm_abilities(performance: Any, calibration: CRMCalibration) -> pd.DataFrame:
    """Each dataset's latent trait under the CRM: maximum likelihood ``theta`` and standardized easiness.

    Parameters
    ----------
    performance : DataFrame or 2-D array
        Datasets x algorithms in the data's units (the calibration's own rescaling, if any, is applied).
    calibration : CRMCalibration

    Returns
    -------
    DataFrame indexed like ``performance`` with columns ``easiness`` (``theta`` standardized to mean 0 and
    standard deviation 1, EstCRM's ``EstCRMperson`` estimate; airt's latent trait up to its sign), ``theta``
    (the maximum likelihood estimate on the item parameters' scale) and ``se`` (its standard error).

    Notes
    -----
    With ``z`` from :func:`crm_z`, the likelihood is maximized in closed form by
    ``theta_i = sum_j a_j^2 (b_j + z_ij / alpha_j) / sum_j a_j^2``, with ``se = 1 / sqrt(sum_j a_j^2)``.
    R equivalent: ``EstCRM::EstCRMperson(df, ipar, min.item, max.item)$thetas[, 2]`` (standardized).
    airt's ``latent_trait_analysis`` reports ``-theta`` (difficulty); here the latent trait is easiness, so
    a higher value means better performance for every non-anomalous algorithm.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> cal = CRMCalibration(items=pd.DataFrame({"a": [1.0, 2.0], "b": [0.0, 0.5], "alpha": [1.0, 1.0]},
    ...     index=["A", "B"]), standard_errors=None, min_item=pd.Series([0.0, 0.0], index=["A", "B"]),
    ...     max_item=pd.Series([1.0, 1.0], index=["A", "B"]), loglik=0.0, iterations=1, converged=True,
    ...     estimator="airt", n_datasets=0)
    >>> ab = crm_abilities(pd.DataFrame({"A": [0.5, 0.9], "B": [0.5, 0.8]}), cal)
    >>> round(float(ab["theta"][0]), 6)      # (1 * (0 + 0) + 4 * (0.5 + 0)) / 5
    0.4
    """
    values, lo, hi, index = _prepared(performance, calibration)
    z = crm_z(values, lo, hi)
    a, b, alpha = (calibration.items[c].to_numpy() for c in ("a", "b", "alpha"))
    w = a**2
    theta = (w[None, :] * (b[None, :] + z / alpha[None, :])).sum(axis=1) / w.sum()
    easiness = (theta - theta.mean()) / theta.std(ddof=1)
    se = np.full(theta.shape, 1.0 / np.sqrt(w.sum()))
    return pd.DataFrame(
        {"easiness": easiness, "theta": theta, "se": se},
        index=index if index is not None else pd.RangeIndex(values.shape[0]),
    )


def crm_density(theta: Any, z: Any, calibration: CRMCalibration) -> np.ndarray:
    """The CRM density of ``z`` given ``theta`` for every algorithm, on a grid.

    Parameters
    ----------
    theta, z : array-like
        1-D grids.
    calibration : CRMCalibration

    Returns
    -------
    ndarray of shape ``(n_algorithms, len(z), len(theta))``.

    Notes
    -----
    ``f_j(z | theta) = |a_j / alpha_j| phi(a_j (theta - b_j - z / alpha_j))``, the density whose
    log-likelihood EstCRM's EM maximizes. airt's ``heatmaps_crm`` multiplies ``z`` by ``alpha`` instead of
    dividing; the two agree only when ``alpha = 1``.

    Examples
    --------
    >>> import pandas as pd
    >>> cal = CRMCalibration(items=pd.DataFrame({"a": [1.0], "b": [0.0], "alpha": [1.0]}, index=["A"]),
    ...     standard_errors=None, min_item=None, max_item=None, loglik=0.0, iterations=1, converged=True,
    ...     estimator="airt", n_datasets=0)
    >>> round(float(crm_density([0.0], [0.0], cal)[0, 0, 0]), 6)
    0.398942
    """
    th = np.asarray(theta, dtype=float).ravel()
    zz = np.asarray(z, dtype=float).ravel()
    a, b, alpha = (calibration.items[c].to_numpy()[:, None, None] for c in ("a", "b", "alpha"))
    u = a * (th[None, None, :] - b - zz[None, :, None] / alpha)
    return np.abs(a / alpha) * np.exp(-0.5 * u**2) / np.sqrt(2.0 * np.pi)


@constraints(normalized=Flag())
def crm_predict(theta: Any, calibration: CRMCalibration, *, normalized: bool = False):
    """The CRM's predicted (median) performance of every algorithm at each ``theta``.

    Parameters
    ----------
    theta : array-like or Series
        Latent traits on the item parameters' scale (``crm_abilities(...)["theta"]``).
    calibration : CRMCalibration
    normalized : bool
        Return values on [0, 1] (``(x - min) / (max - min)``) instead of the data's units.

    Returns
    -------
    ndarray ``(n_theta, n_algorithms)``, or a DataFrame (index of ``theta``, columns algorithms) for a
    Series.

    Notes
    -----
    The median of ``z`` given ``theta`` is ``alpha_j (theta - b_j)``, so the median performance is
    ``min_j + (max_j - min_j) expit(alpha_j (theta - b_j))``. airt's ``actual_vs_predicted_crm`` uses
    ``(theta - b_j) / alpha_j`` (see :func:`crm_density`).

    Examples
    --------
    >>> import pandas as pd
    >>> cal = CRMCalibration(items=pd.DataFrame({"a": [1.0], "b": [0.0], "alpha": [2.0]}, index=["A"]),
    ...     standard_errors=None, min_item=pd.Series([0.0], index=["A"]), max_item=pd.Series([100.0], index=["A"]),
    ...     loglik=0.0, iterations=1, converged=True, estimator="airt", n_datasets=0)
    >>> crm_predict([0.0], cal).tolist()
    [[50.0]]
    """
    th = theta.to_numpy(dtype=float) if isinstance(theta, pd.Series) else np.asarray(theta, dtype=float).ravel()
    a, b, alpha = (calibration.items[c].to_numpy() for c in ("a", "b", "alpha"))
    del a
    u = expit(alpha[None, :] * (th[:, None] - b[None, :]))
    if not normalized:
        lo, hi = calibration.min_item.to_numpy(), calibration.max_item.to_numpy()
        u = lo[None, :] + (hi - lo)[None, :] * u
    if isinstance(theta, pd.Series):
        return pd.DataFrame(u, index=theta.index, columns=calibration.item_names)
    return u
