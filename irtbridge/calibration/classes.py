"""Latent class analysis through mirt's ``mdirt``: :func:`calibrate_classes` and :class:`ClassCalibration`.

Respondents belong to one of ``n_classes`` unobserved classes; within a class the items are independent,
each with its own category probabilities (mirt's ``"lca"`` item type). The result holds the class
proportions, the category probabilities per class and item, and mirt's fit statistics; ``global_fit``
(``M2``) and ``posteriors`` (``fscores``) ask the live model.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from irtbridge import __version__
from irtbridge._summary import Line
from irtbridge._validation import as_response_matrix, check_choice, check_int
from irtbridge.calibration._base import FitResult
from irtbridge.calibration._stored import remember, stored
from irtbridge.calibration.options import check_options
from irtbridge.exceptions import ConvergenceWarning, RWarning, ValidationError, r_context

__all__ = ["calibrate_classes", "class_parameter_table", "ClassCalibration", "CLASS_OPTIONS"]

#: mirt's estimation options :func:`calibrate_classes` passes to ``mdirt``
CLASS_OPTIONS = ("GenRandomPars", "method", "nruns", "optimizer", "technical", "TOL", "SE.type")


@dataclass(frozen=True, eq=False)
class ClassCalibration(FitResult):
    """The result of :func:`calibrate_classes`.

    Attributes
    ----------
    n_classes : int
    class_proportions : Series
        The estimated share of each class (index ``Class_1``...; mirt's ``summary(mod)$Class.Probability``).
    item_probabilities : DataFrame
        Index ``(item, class)``, columns ``category_1``... (mirt's ``summary(mod)``; NaN past an item's
        last category): the probability of each response category within each class.
    loglik, aic, bic : float
        mirt's (``extract.mirt``).
    n_parameters, iterations : int
        mirt's (``extract.mirt``).
    converged : bool
        mirt's (``extract.mirt``).
    item_names : tuple of str
    n_respondents : int
    options : dict
        As in :class:`~irtbridge.calibration.result.Calibration`.
    warnings : tuple of str
        As in :class:`~irtbridge.calibration.result.Calibration`.
    provenance : dict
        As in :class:`~irtbridge.calibration.result.Calibration`.
    standard_errors : DataFrame or None
        With ``se=True``: every parameter of mirt's ``coef(mod, printSE = TRUE)``, indexed by (``item``,
        ``parameter``) (the class proportions under item ``GroupPars``), columns ``value`` and ``se``
        (NaN where fixed, or all NaN with one warning when the information matrix is unavailable).
        ``None`` without SEs.
    r_model : RObject or None
        The live ``DiscreteClass`` model (what the methods ask); it does not travel through pickle.
    """

    n_classes: int
    class_proportions: pd.Series
    item_probabilities: pd.DataFrame
    item_names: tuple[str, ...]
    n_respondents: int
    standard_errors: pd.DataFrame | None = field(default=None, repr=False, compare=False)

    _kind = "a latent class model (no continuous trait)"

    def __repr__(self) -> str:
        return (f"ClassCalibration(n_classes={self.n_classes}, loglik={self.loglik:.4f}, "
                f"converged={self.converged})")

    def _live(self, what: str) -> Any:
        if self.r_model is None:
            raise ValidationError(f"{what} needs the live mirt model, which does not travel through pickle: "
                                  "call it in the process that ran calibrate_classes")
        return self.r_model

    def posteriors(self, patterns: bool = False) -> pd.DataFrame:
        """Each respondent's posterior class probabilities (mirt's ``fscores``).

        Parameters
        ----------
        patterns : bool
            One row per distinct response pattern instead (mirt's ``full.scores = FALSE``): the item
            columns, then the class columns.

        Returns
        -------
        DataFrame with columns ``Class_1``... (rows in the order of the responses, or of mirt's patterns).
        """
        from irtbridge._r import session

        if not isinstance(patterns, (bool, np.bool_)):
            raise ValidationError(f"patterns must be True or False, got {patterns!r}")
        out = session.call("irtb_mdirt_posteriors", fit=self._live("posteriors"), patterns=bool(patterns))
        if patterns:
            out.columns = [*self.item_names, *out.columns[len(self.item_names):]]
        return out

    def global_fit(self, type: str = "M2*") -> pd.Series:
        """M2 (``type`` ``"M2*"``, ``"M2"`` or ``"C2"``), df, p, RMSEA with its interval, SRMSR, TLI, CFI
        (mirt's ``M2(mod, type = type)`` of the model).

        Parameters
        ----------
        type : {"M2*", "M2", "C2"}, default "M2*"
            mirt's statistic.

        Returns
        -------
        Series
            The statistics by name.
        """
        from irtbridge._r import session

        type = check_choice(type, "type", ("M2*", "M2", "C2"))
        with r_context(f"global_fit: mirt's M2(type = {type!r})"):
            row = session.call("irtb_mdirt_m2", fit=self._live("global_fit"), type=type).iloc[0]
        series = pd.Series({k: float(v) for k, v in row.items()}, name="global_fit")
        remember(self, f"global_fit:{type}", series.copy())  # summary() shows it from now on
        return series

    def parameters(self) -> pd.DataFrame:
        """mirt's parameter table of this fit (``mod2values``): edit ``value``/``est`` and pass it back
        as ``calibrate_classes(..., parameters=table)``.

        Returns
        -------
        DataFrame
            mirt's ``mod2values`` table.
        """
        from irtbridge._r import session

        return session.call("irtb_mirt_parameters", fit=self._live("parameters"))

    # -- the summary's parts (the skeleton is FitResult.summary: never calls R) ----------------------
    def _summary_title(self) -> str:
        return (f"irtbridge latent class model by mirt's mdirt ({self.provenance.get('engine_version', '?')}, "
                f"R {self.provenance.get('r_version', '?')})")

    def _summary_size(self) -> str:
        return (f"respondents {self.n_respondents}   items {len(self.item_names)}   classes "
                f"{self.n_classes}   parameters {self.n_parameters}")

    def _summary_lines(self, digits: int, fit: bool) -> list[Line]:
        from irtbridge.calibration.result import m2_line

        shares = "   ".join(f"{c} {p:.{digits}f}" for c, p in self.class_proportions.items())
        lines = [Line.of("classes", f"class proportions: {shares}")]
        if fit:
            lines += [Line.of(f"fit_{i}", m2_line(g, k.split(":", 1)[1], digits))
                      for i, (k, g) in enumerate(stored(self).items()) if k.startswith("global_fit:")]
        return lines

    def _summary_tables(self) -> tuple[tuple[str, pd.DataFrame], ...]:
        return (("item probabilities", self.item_probabilities),
                *((("parameters with standard errors", self.standard_errors),)
                  if self.standard_errors is not None else ()))

    def _summary_data(self) -> dict[str, Any]:
        return {"n_classes": self.n_classes, "class_proportions": self.class_proportions.to_dict()}


def calibrate_classes(responses: Any, n_classes: int, *, parameters: pd.DataFrame | None = None,
                      seed: int | None = None, se: bool = False, **options: Any) -> ClassCalibration:
    """A latent class model (mirt's ``mdirt`` with ``"lca"`` items).

    Parameters
    ----------
    responses : DataFrame or 2-D array
        Integer-scored responses (dichotomous or polytomous), NaN for missing.
    n_classes : int
        Number of latent classes (at least 2).
    parameters : DataFrame, optional
        A parameter table (:func:`class_parameter_table` or :meth:`ClassCalibration.parameters` for the
        same data and number of classes) whose ``value``, ``est`` and bounds start or fix parameters
        (mirt's ``pars = table``).
    seed : int, optional
        R's ``set.seed`` before the fit: for random starts (``nruns`` > 1 or ``GenRandomPars=True``).
    se : bool, default False
        Standard errors of every parameter (mirt's ``SE = TRUE``; ``SE_type=`` chooses the information
        matrix, mirt's ``SE.type``, default ``"Oakes"``): :attr:`ClassCalibration.standard_errors`.
        Where the information matrix fails the estimates are kept, the SEs are NaN and one warning says why.
    **options
        ``nruns`` (fits from random starts; the best is kept), ``GenRandomPars``, ``method``
        (``"EM"``, ``"BL"``), ``optimizer``, ``TOL``, ``technical``, ``SE_type``... (:data:`CLASS_OPTIONS`);
        any other name is a one-line :class:`ValidationError`.

    Returns
    -------
    ClassCalibration

    Notes
    -----
    R equivalent: ``mdirt(data, n_classes, pars = table, SE = se, SE.type = SE_type, ...)``; then
    ``summary(mod)`` (class and item probabilities), ``coef(mod, printSE = TRUE)``, ``M2(mod)``,
    ``fscores(mod)``.

    Examples
    --------
    Two classes in the LSAT data (ltm's ``LSAT``, mirt's ``expand.table(LSAT6)``; R:
    ``mdirt(expand.table(LSAT6), 2)``):

    >>> from irtbridge.calibration import calibrate_classes
    >>> from irtbridge.datasets import response_dataset
    >>> lca = calibrate_classes(response_dataset("LSAT"), 2)             # doctest: +R
    >>> round(lca.loglik, 3)
    -2467.408
    >>> lca.class_proportions.round(3).tolist()
    [0.329, 0.671]
    """
    values, names, _ = as_response_matrix(responses, "responses")
    n_classes = check_int(n_classes, "n_classes", low=2)
    options = check_options(options, CLASS_OPTIONS, "calibrate_classes")
    if not isinstance(se, (bool, np.bool_)):
        raise ValidationError(f"se must be True or False, got {se!r}")
    if "SE.type" in options and not se:
        raise ValidationError("SE_type chooses how the standard errors are computed; pass se=True with it")
    if seed is not None:
        seed = check_int(seed, "seed", low=0)
    table = _parameter_columns(parameters) if parameters is not None else None
    from irtbridge._r import session

    session.ensure_packages("mirt")
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with r_context(f"calibrate_classes: mirt's mdirt with {n_classes} classes"):
            out = session.call("irtb_mdirt_fit", data=values, item_names=names, n_classes=n_classes,
                               options=dict(options), table=table, seed=seed, se=bool(se))
    r_warnings = tuple(str(w.message).removeprefix("R: ") for w in caught)
    for w in caught:
        warnings.warn(w.message, w.category, stacklevel=2)
    ses = None
    if se:
        problem = out.get("se_problem")
        if problem is not None:
            message = f"mirt: standard errors unavailable ({str(problem).strip()}); estimates kept, SEs NaN"
            warnings.warn(message, RWarning, stacklevel=2)
            r_warnings = (*r_warnings, message)
        ses = _standard_errors(out.get("ses"), out["model"] if problem is not None else None)
    if not bool(out["converged"]):
        warnings.warn(f"mirt's mdirt did not converge after {out['iterations']} iterations", ConvergenceWarning,
                      stacklevel=2)
    versions = session.r_versions(["mirt"])
    return ClassCalibration(
        n_classes=n_classes, class_proportions=_proportions(out["proportions"], n_classes),
        item_probabilities=_probabilities(out["probabilities"], names, n_classes),
        loglik=float(out["loglik"]), aic=float(out["aic"]), bic=float(out["bic"]),
        n_parameters=int(out["n_parameters"]), converged=bool(out["converged"]), iterations=int(out["iterations"]),
        item_names=tuple(names), n_respondents=int(values.shape[0]),
        standard_errors=ses,
        options={**options, **({"se": True} if se else {}), **({"seed": seed} if seed is not None else {}),
                 **({"parameters": "given"} if table is not None else {})},
        warnings=r_warnings,
        provenance={"irtbridge_version": __version__, "engine_version": versions["packages"]["mirt"],
                    "r_version": versions["r"], "fit_seconds": time.perf_counter() - started},
        r_model=out["model"],
    )


def class_parameter_table(responses: Any, n_classes: int, **options: Any) -> pd.DataFrame:
    """mirt's starting parameter table for ``calibrate_classes(responses, n_classes)``, without fitting.

    R equivalent: ``mdirt(data, n_classes, pars = "values")``. Edit ``value`` (start values) or ``est``
    and pass it as ``calibrate_classes(..., parameters=table)``.

    Parameters
    ----------
    responses : DataFrame or 2-D array
        The responses, as :func:`calibrate_classes` takes them.
    n_classes : int
        The number of latent classes.
    **options
        mirt's options of ``mdirt``, as :func:`calibrate_classes` takes them.

    Returns
    -------
    DataFrame
        mirt's ``pars = "values"`` table.
    """
    from irtbridge._r import session

    values, names, _ = as_response_matrix(responses, "responses")
    n_classes = check_int(n_classes, "n_classes", low=2)
    options = check_options(options, CLASS_OPTIONS, "class_parameter_table")
    session.ensure_packages("mirt")
    return session.call("irtb_mdirt_values", data=values, item_names=names, n_classes=n_classes,
                        options=dict(options))


def _parameter_columns(parameters: Any) -> dict[str, Any]:
    """A parameter table as the columns R writes onto mirt's own (irtb_apply_table)."""
    if not isinstance(parameters, pd.DataFrame) or not {"item", "name", "value"} <= set(parameters.columns):
        raise ValidationError("parameters must be a DataFrame with mirt's columns (item, name, value, est, ...)")
    cols = [c for c in ("item", "name", "value", "lbound", "ubound", "est") if c in parameters.columns]
    return {c: (parameters[c].astype(str).tolist() if c in ("item", "name")
                else parameters[c].astype(bool).tolist() if c == "est"
                else parameters[c].astype(float).to_numpy()) for c in cols}


def _standard_errors(table: Any, model: Any) -> pd.DataFrame:
    """The (item, parameter) table of values and SEs; all SEs NaN when the SE step failed (``model``: the
    fit, whose coefficients are then read without SEs)."""
    if table is None:
        from irtbridge._r import session

        table = session.call("irtb_mdirt_ses_missing", fit=model)
    frame = table.set_index(["item", "parameter"])
    return frame[["value", "se"]].astype(float)


def _proportions(values: Any, n_classes: int) -> pd.Series:
    shares = np.atleast_1d(np.asarray(values, dtype=float))
    return pd.Series(shares, index=[f"Class_{k + 1}" for k in range(n_classes)], name="proportion")


def _probabilities(per_item: Any, names: list[str], n_classes: int) -> pd.DataFrame:
    """One (class x category) matrix per item, stacked into rows (item, class), NaN-padded."""
    tables = list(per_item.values()) if isinstance(per_item, dict) else list(per_item)
    matrices = [np.atleast_2d(np.asarray(t.to_numpy() if isinstance(t, pd.DataFrame) else t, dtype=float))
                for t in tables]
    width = max(m.shape[1] for m in matrices)
    rows = [np.pad(m, ((0, 0), (0, width - m.shape[1])), constant_values=np.nan) for m in matrices]
    index = pd.MultiIndex.from_product([names, [f"Class_{k + 1}" for k in range(n_classes)]], names=["item", "class"])
    return pd.DataFrame(np.vstack(rows), index=index, columns=[f"category_{j + 1}" for j in range(width)])
