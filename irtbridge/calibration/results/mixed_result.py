"""The result of a mixed-effects (explanatory) IRT model: :class:`MixedCalibration` (mirt's ``mixedmirt``
and the LLTM, :func:`~irtbridge.calibration.calibrate_mixed`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import pandas as pd

from irtbridge._summary import Line
from irtbridge._validation import R_SEED_MAX, check_seed
from irtbridge.calibration.results._base import FitResult
from irtbridge.exceptions import ValidationError

__all__ = ["MixedCalibration"]


@dataclass(frozen=True, eq=False)
class MixedCalibration(FitResult):
    """The result of :func:`~irtbridge.calibration.calibrate_mixed`: a mixed-effects (explanatory) IRT model.

    Attributes
    ----------
    fixef : DataFrame
        The fixed effects, one row per term (R's names, e.g. ``groupG2``, ``difficultyhard``), columns
        ``Estimate, Std.Error, z.value`` as ``summary(mod)`` prints them (NaN errors without SEs). The
        ``items`` term of ``fixed`` gives each item its own intercept: those are the items' ``d`` rows
        of :attr:`parameters`, not rows here.
    random_covariances : dict of str to DataFrame
        The latent trait's covariance (``"Theta"``) and each random effect's (named by its grouping
        variable, rows and columns ``COV_<name>``); correlations above the diagonal.
    parameters : DataFrame
        mirt's ``mod2values`` table: every parameter with its number, value, bounds and ``est``.
    loglik, aic, bic : float
    n_parameters : int
    converged : bool
    iterations : int
    options : dict
        The effective arguments (formulas as text, covariate names, item types, estimation options).
    warnings : tuple of str
        R's warnings during the fit (also raised as :class:`~irtbridge.exceptions.RWarning`).
    provenance : dict
        As in :class:`~irtbridge.calibration.results.result.Calibration`.
    r_model : RObject or None
        The live mirt model (``MixedClass``, or ``SingleGroupClass`` for the ``item_formula`` LLTM).
    """

    fixef: pd.DataFrame
    random_covariances: Mapping[str, pd.DataFrame]
    parameters: pd.DataFrame

    _kind = "a mixed-effects model (mirt's M2, marginal_rxx and plots take single- and multiple-group models)"

    def __repr__(self) -> str:
        return (f"MixedCalibration(fixed={self.options.get('fixed')!r}, terms={len(self.fixef)}, "
                f"loglik={self.loglik:.4f}, converged={self.converged})")

    # -- the summary's parts (the skeleton is FitResult.summary: never calls R) ----------------------
    def _summary_title(self) -> str:
        return "irtbridge explanatory IRT model by mirt"

    def _summary_size(self) -> str:
        return (f"parameters {self.n_parameters}   fixed-effect terms {len(self.fixef)}   "
                f"random effects {len(self.random_covariances)}")

    def _summary_lines(self, digits: int, fit: bool) -> list[Line]:
        def text(value: Any) -> str:
            return value if isinstance(value, str) else ", ".join(map(str, value))

        formulas = "   ".join(f"{k} {text(self.options[k])}" for k in ("fixed", "random", "item_formula")
                              if self.options.get(k) not in (None, "", [], ()))
        return [Line.of("formulas", formulas)] if formulas else []

    def _summary_tables(self) -> tuple[tuple[str, pd.DataFrame], ...]:
        return (("fixed effects", self.fixef),
                *((f"covariance: {name}", frame) for name, frame in self.random_covariances.items()))

    def _summary_data(self) -> dict[str, Any]:
        return {"fixef": self.fixef.reset_index().rename(columns={"index": "term"})}

    def randef(self, ndraws: int = 1000, thin: int = 10, seed: int | None = None) -> dict[str, pd.DataFrame]:
        """The random effects' values (and each respondent's trait), by MCMC draws from the fit.

        Parameters
        ----------
        ndraws : int, default 1000
            Metropolis-Hastings draws (mirt's ``ndraws``).
        thin : int, default 10
            Keep every ``thin``-th draw (mirt's ``thin``).
        seed : int, optional
            ``set.seed(seed)`` first, for reproducible draws; default: R's current stream.

        Returns
        -------
        dict of str to DataFrame
            ``"Theta"``: one row per respondent; one more entry per random effect, one row per level.

        Notes
        -----
        R equivalent: ``set.seed(seed); randef(mod, ndraws = ndraws, thin = thin)``.
        """
        from irtbridge._r import session  # the R boundary loads with the first R call, never on import

        if self.r_model is None:
            raise ValidationError("randef needs the live model of a fit made in this process (this one was pickled)")
        for name, value in (("ndraws", ndraws), ("thin", thin)):
            if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)) or value < 1:
                raise ValidationError(f"{name} must be a positive integer, got {value!r}")
        if thin > ndraws:
            raise ValidationError(f"thin must not exceed ndraws ({ndraws}), got {thin!r}")
        seed = check_seed(seed, "seed", allow_none=True, high=R_SEED_MAX)
        out = session.call("irtb_mirt_randef", fit=self.r_model, ndraws=int(ndraws), thin=int(thin),
                           seed=None if seed is None else int(seed))
        return {str(k): v if isinstance(v, pd.DataFrame) else pd.DataFrame(v) for k, v in out.items()}
