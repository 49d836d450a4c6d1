"""The result of a latent class model: :class:`ClassCalibration` (mirt's ``mdirt``, by
:func:`~irtbridge.calibration.calibrate_classes`).

It holds the class proportions, the category probabilities per class and item, and mirt's fit
statistics; ``global_fit`` (``M2``) and ``posteriors`` (``fscores``) ask the live model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from irtbridge._summary import Line
from irtbridge._validation import check_choice
from irtbridge.calibration.results._base import FitResult
from irtbridge.calibration.results.result import m2_line
from irtbridge.calibration.shared._stored import remember, stored
from irtbridge.exceptions import ValidationError, r_context

__all__ = ["ClassCalibration"]


@dataclass(frozen=True, eq=False)
class ClassCalibration(FitResult):
    """The result of :func:`~irtbridge.calibration.calibrate_classes`.

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
        As in :class:`~irtbridge.calibration.results.result.Calibration`.
    warnings : tuple of str
        As in :class:`~irtbridge.calibration.results.result.Calibration`.
    provenance : dict
        As in :class:`~irtbridge.calibration.results.result.Calibration`.
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
        from irtbridge._r import session  # the R boundary loads with the first R call, never on import

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
        from irtbridge._r import session  # the R boundary loads with the first R call, never on import

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
        from irtbridge._r import session  # the R boundary loads with the first R call, never on import

        return session.call("irtb_mirt_parameters", fit=self._live("parameters"))

    # -- the summary's parts (the skeleton is FitResult.summary: never calls R) ----------------------
    def _summary_title(self) -> str:
        return (f"irtbridge latent class model by mirt's mdirt ({self.provenance.get('engine_version', '?')}, "
                f"R {self.provenance.get('r_version', '?')})")

    def _summary_size(self) -> str:
        return (f"respondents {self.n_respondents}   items {len(self.item_names)}   classes "
                f"{self.n_classes}   parameters {self.n_parameters}")

    def _summary_lines(self, digits: int, fit: bool) -> list[Line]:
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
