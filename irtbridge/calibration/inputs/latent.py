"""The latent distribution of a mirt calibration: its density (``dentype``) and a latent regression.

:func:`irtbridge.calibrate` takes ``dentype=`` (mirt's non-normal latent densities: empirical histogram,
Woods' extrapolated histogram, Davidian curves) and ``covariates=`` with ``formula=`` (mirt's ``covdata``
and ``formula``: the latent mean regressed on person covariates). This module checks them, turns them
into mirt's arguments and, after the fit, reads the regression coefficients
(:attr:`Calibration.latent_regression`). Only the mirt engine fits them; the others refuse in one line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from irtbridge.calibration.inputs._covariates import covariate_columns
from irtbridge.calibration.inputs.engine_table import ENGINE_TABLE
from irtbridge.exceptions import RError, ValidationError

__all__ = ["DENTYPES", "LatentArguments", "latent_arguments"]

# mirt's spellings; "Davidian-k" (k >= 2 smoothing parameters) is matched separately
DENTYPES = ("Gaussian", "EH", "EHW", "empiricalhist", "empiricalhist_Woods")
_DAVIDIAN = re.compile(r"davidian-(\d+)", re.IGNORECASE)


@dataclass(frozen=True)
class LatentArguments:
    """The checked latent-distribution arguments of one calibration.

    Attributes
    ----------
    options : dict
        What mirt receives (``dentype``; ``covdata`` as named columns and ``formula`` as text, turned
        into a data.frame and a checked formula in R).
    effective : dict
        What the result records in ``Calibration.options`` (the covariate names, not their values).
    """

    options: dict[str, Any] = field(default_factory=dict)
    effective: dict[str, Any] = field(default_factory=dict)

    @property
    def regression(self) -> bool:
        """Whether the calibration has a latent regression (covariates)."""
        return "covdata" in self.options

    def finish(self, fit: Any) -> Any:
        """The Calibration with the effective options and, for a latent regression, its coefficients.

        Parameters
        ----------
        fit : Calibration
            The fit made with these arguments.

        Returns
        -------
        Calibration
            ``fit`` itself when there were none.
        """
        if not self.options:
            return fit
        options = {k: v for k, v in fit.options.items() if k not in ("covdata", "formula", "dentype")}
        options.update(self.effective)
        extra: dict[str, Any] = {"options": options}
        if self.regression:
            extra["latent_regression"] = _coefficients(fit)
        return fit._replace(**extra)


def latent_arguments(engine: str, dentype: Any, covariates: Any, formula: Any, responses: Any, dims: int,
                     options: dict[str, Any]) -> LatentArguments:
    """Check ``dentype``, ``covariates`` and ``formula`` for ``engine``; one-line errors naming them.

    Parameters
    ----------
    engine : str
        The engine that fits.
    dentype : str or None
        mirt's latent density (``"EH"``, ``"Davidian-k"``, ...).
    covariates : DataFrame or None
        Respondent covariates of a latent regression.
    formula : str or None
        The latent regression (``"~ x1 + x2"``); goes with ``covariates``.
    responses : DataFrame or 2-D array
        The responses (the covariates must match their respondents).
    dims : int
        The number of factors.
    options : dict of str to Any
        mirt's other options (none of them may repeat these).

    Returns
    -------
    LatentArguments
        Empty when none of the three is given.
    """
    if dentype is None and covariates is None and formula is None:
        return LatentArguments()
    given = [n for n, v in (("dentype", dentype), ("covariates", covariates), ("formula", formula)) if v is not None]
    if not ENGINE_TABLE[engine].mirt_model:
        raise ValidationError(f"{given[0]}: engine={engine!r} fits a normal latent distribution without "
                              f"covariates; use engine={ENGINE_TABLE[engine].who_else('mirt_model')}")
    clash = [n for n in ("dentype", "covdata", "formula") if n in options]
    if clash:
        raise ValidationError(f"{clash[0]}: pass it once, as calibrate(..., dentype=, covariates=, formula=), "
                              "not also as a mirt option")
    out: dict[str, Any] = {}
    effective: dict[str, Any] = {}
    if dentype is not None:
        out["dentype"] = effective["dentype"] = _check_dentype(dentype, dims)
    if (covariates is None) != (formula is None):
        raise ValidationError("covariates and formula go together: covariates=DataFrame, formula='~ x1 + x2'"
                              if covariates is None else "formula: give the latent regression, e.g. '~ x1 + x2'")
    if covariates is not None:
        out["covdata"] = covariate_columns(covariates, responses)
        out["formula"] = effective["formula"] = _check_formula(formula, list(out["covdata"]))
        effective["covariates"] = list(out["covdata"])
    return LatentArguments(out, effective)


def _check_dentype(dentype: Any, dims: int) -> str:
    if not isinstance(dentype, str):
        raise ValidationError(f"dentype must be a string such as 'EH' or 'Davidian-4', got {dentype!r}")
    lower = {d.lower(): d for d in DENTYPES}
    match = _DAVIDIAN.fullmatch(dentype.strip())
    if match:
        if int(match.group(1)) < 2:
            raise ValidationError(f"dentype={dentype!r}: a Davidian curve needs at least 2 parameters ('Davidian-2')")
        name = f"Davidian-{int(match.group(1))}"
    elif dentype.strip().lower() in lower:
        name = lower[dentype.strip().lower()]
    else:
        raise ValidationError(f"dentype={dentype!r} is not supported; use one of {', '.join(DENTYPES)} or "
                              "'Davidian-k' (k >= 2)")
    if name != "Gaussian" and dims != 1:
        raise ValidationError(f"dentype={name!r}: mirt estimates a non-normal density for one factor only, "
                              f"not dims={dims}")
    return name


def _check_formula(formula: Any, variables: list[str]) -> str:
    """The formula text, checked in R (parsed, never evaluated) against the covariate names."""
    from irtbridge._r import session  # the R boundary loads with the first R call, never on import

    if not isinstance(formula, str) or not formula.strip().startswith("~"):
        raise ValidationError(f"formula must be one-sided formula text such as '~ x1 + x2', got {formula!r}")
    try:
        session.call("irtb_check_formula", formula=formula.strip(), variables=variables)
    except RError as exc:
        if exc.r_message.startswith("formula:"):
            raise ValidationError(" ".join(exc.r_message.split())) from None
        raise
    return formula.strip()


def _coefficients(fit: Any) -> pd.DataFrame:
    """``coef(fit, printSE = TRUE)$lr.betas``: one row per term; ``beta, se`` (one factor) or
    ``F1.., se_F1..`` (several)."""
    from irtbridge._r import session  # the R boundary loads with the first R call, never on import

    out = session.call("irtb_latent_regression", fit=fit.r_model)
    betas, ses = out["betas"], out["se"]
    factors = [str(c) for c in betas.columns]
    if len(factors) == 1:
        frame = pd.DataFrame({"beta": betas.iloc[:, 0].to_numpy(dtype=float, copy=True),
                              "se": ses.iloc[:, 0].to_numpy(dtype=float, copy=True)}, index=list(betas.index))
    else:
        frame = pd.DataFrame(np.hstack([betas.to_numpy(dtype=float), ses.to_numpy(dtype=float)]),
                             index=list(betas.index), columns=factors + [f"se_{f}" for f in factors])
    return frame
