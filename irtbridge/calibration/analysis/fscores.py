"""mirt's scoring options on a :class:`~irtbridge.calibration.Calibration`: a prior for the abilities
(``mean``, ``cov``), multiple imputation over the parameters' sampling distribution (``MI``),
quasi-Monte Carlo integration (``QMC``), scoring under the estimated latent density, the EAPsum
sum-score table and the covariance matrix of each respondent's abilities (``return.acov``).

R equivalent: ``fscores(fit, method, full.scores, mean = , cov = , MI = , QMC = , use_dentype_estimate = ,
return.acov = , full.scores.SE = TRUE)``. They need the live model of a mirt fit made in this process.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from irtbridge._catalogue import MIRT_SCORING
from irtbridge._validation import R_SEED_MAX, check_bool, check_int, check_seed
from irtbridge.calibration.inputs.engine_table import ENGINE_TABLE
from irtbridge.exceptions import ValidationError, r_context

__all__ = ["MIRT_SCORING", "check_scoring_options", "mirt_scores"]


def check_prior(mean: Any, cov: Any, n_factors: int) -> tuple[list[float] | None, np.ndarray | None]:
    """``mean`` (one number per factor) and ``cov`` (k x k, symmetric positive definite; a number for one
    factor) as R will receive them; ``None`` stays ``None`` (the fitted latent distribution)."""
    m = None
    if mean is not None:
        m = np.atleast_1d(np.asarray(mean, dtype=object))
        try:
            m = m.astype(float)
        except (TypeError, ValueError):
            raise ValidationError(f"mean must be numbers, one per factor, got {mean!r}") from None
        if m.ndim != 1 or m.size != n_factors or not np.isfinite(m).all():
            raise ValidationError(f"mean must be {n_factors} finite number(s), one per factor, got {mean!r}")
        m = [float(x) for x in m]
    c = None
    if cov is not None:
        try:
            c = np.asarray(cov, dtype=float)
        except (TypeError, ValueError):
            raise ValidationError(f"cov must be a {n_factors} x {n_factors} matrix of numbers, got {cov!r}") from None
        if c.ndim == 0 or (c.ndim == 1 and c.size == 1):
            c = c.reshape(1, 1)
        if c.shape != (n_factors, n_factors) or not np.isfinite(c).all():
            raise ValidationError(f"cov must be a finite {n_factors} x {n_factors} matrix, got shape {c.shape}")
        if not np.allclose(c, c.T) or np.linalg.eigvalsh((c + c.T) / 2).min() <= 0:
            raise ValidationError("cov must be symmetric and positive definite")
        c = np.array(c, dtype=float)
    return m, c


def check_scoring_options(fit: Any, *, full_scores: Any = True, mean: Any = None, cov: Any = None, MI: Any = 0,
                          QMC: Any = False, use_dentype_estimate: Any = False, seed: Any = 0) -> dict[str, Any]:
    """The fscores options, checked; any of them on a fit not made by mirt is an error naming it.

    Parameters
    ----------
    fit : Calibration
        The calibration that will score.
    full_scores : bool, default True
        One row per respondent (False: one per response pattern).
    mean, cov : array-like, optional
        The prior's mean and covariance (one entry per factor).
    MI : int, default 0
        Multiple imputations of the item parameters.
    QMC : bool, default False
        Quasi-Monte Carlo integration.
    use_dentype_estimate : bool, default False
        Score under the estimated latent density.
    seed : int, default 0
        Seeds the imputations.

    Returns
    -------
    dict of str to Any
        The checked options by these names.
    """
    options: dict[str, Any]  # flags, ints, and below the prior's mean and covariance
    options = {"full_scores": check_bool(full_scores, "full_scores"), "QMC": check_bool(QMC, "QMC"),
               "use_dentype_estimate": check_bool(use_dentype_estimate, "use_dentype_estimate"),
               "MI": check_int(MI, "MI", low=0), "seed": check_seed(seed, "seed", allow_none=True, high=R_SEED_MAX)}
    options["mean"], options["cov"] = check_prior(mean, cov, len(fit.factors))
    if not ENGINE_TABLE[fit.engine].mirt_model:
        used = [k for k, default in (("full_scores", True), ("QMC", False), ("use_dentype_estimate", False),
                                     ("MI", 0), ("mean", None), ("cov", None)) if options[k] != default]
        if used:
            raise ValidationError(f"{used[0]} is a mirt scoring option; this calibration is from engine "
                                  f"{fit.engine!r}: refit with engine={ENGINE_TABLE[fit.engine].who_else('mirt_model')}")
    return options


def _columns(names: list[str], item_names: list[str], patterns: bool) -> list[str]:
    """R's score columns as irtbridge names them: items by the fit's names (full_scores=False tables),
    ``SE_F2`` as ``se_F2``."""
    out = [(f"se_{c[3:]}" if c.startswith("SE_") else c) for c in names]
    if patterns:
        out[:len(item_names)] = item_names
    return out


def mirt_scores(fit: Any, model: Any, method: str, values: np.ndarray | None, options: dict[str, Any],
                acov: bool = False) -> Any:
    """One ``fscores`` call on ``model``: the score table (with its fit statistics in ``attrs["fit"]``
    for the EAPsum table), or with ``acov`` the covariance matrices as an (n, k, k) array.

    Parameters
    ----------
    fit : Calibration
        The calibration (its item names and factors).
    model : RObject
        The live mirt model.
    method : str
        mirt's scoring method.
    values : ndarray or None
        Responses to score; None scores the fitted data.
    options : dict of str to Any
        The options of :func:`check_scoring_options`.
    acov : bool, default False
        Return the covariance matrices of the estimates instead.

    Returns
    -------
    DataFrame or ndarray
        The score table, or with ``acov`` an (n, k, k) array.
    """
    from irtbridge._r import session  # the R boundary loads with the first R call, never on import

    with r_context(f"abilities: mirt's fscores(method = {method!r})"):
        out = session.call(
            "irtb_mirt_fscores", fit=model, method=method, responses=values, item_names=fit.item_names,
            full_scores=options["full_scores"], mean=options["mean"], cov=options["cov"], MI=options["MI"],
            QMC=options["QMC"], use_dentype_estimate=options["use_dentype_estimate"],
            seed=options["seed"] if options["MI"] > 0 else None, acov=acov,
        )
    if acov:
        k = len(fit.factors)
        flat = np.asarray(out.to_numpy(dtype=float) if isinstance(out, pd.DataFrame) else out, dtype=float)
        return flat.reshape(-1, k, k, order="F").copy()
    table = out["scores"]
    patterns = not options["full_scores"] and method != "EAPsum"
    frame = pd.DataFrame(table.to_numpy(dtype=float, copy=True),
                         columns=_columns(list(table.columns), fit.item_names, patterns))
    if out.get("fit") is not None:
        frame.attrs["fit"] = {str(k): float(v) for k, v in out["fit"].items()}
    return frame
