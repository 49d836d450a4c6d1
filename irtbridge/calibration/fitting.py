"""Item calibration delegated to R's ``mirt`` and ``ltm``.

:func:`calibrate` sends the response matrix to R once (numpy2ri, one copy), fits the model there and
brings back plain numbers in one layout for both engines. The live R model stays available as an
optional handle (``Calibration.r_model``) for the engine's own scoring and for experts; it never travels
when a result is pickled or written to JSON.
"""

from __future__ import annotations

import time
import warnings

from typing import Any

import numpy as np
import pandas as pd

from irtbridge import __version__
from irtbridge._validation import as_response_matrix, check_choice, constant_items
from irtbridge.calibration.priors import parse_priors
from irtbridge.calibration.result import DICHOTOMOUS, ENGINES, MODELS, Calibration
from irtbridge.exceptions import ConvergenceWarning, DataWarning, RWarning, ValidationError

__all__ = ["calibrate"]

def calibrate(
    responses: Any,
    model: str = "2PL",
    engine: str = "mirt",
    *,
    se: bool = True,
    drop_constant: bool = False,
    priors: Any = None,
    **options: Any,
) -> Calibration:
    """Calibrate an IRT model in R (mirt or ltm) and return a :class:`Calibration`.

    Parameters
    ----------
    responses : DataFrame or 2-D array
        Rows are respondents, columns are items; NaN is a missing response (kept missing). Dichotomous
        models need 0/1; graded/gpcm need integer categories.
    model : {"rasch", "1PL", "2PL", "3PL", "4PL", "graded", "gpcm"}
        ``rasch`` fixes every discrimination at 1; ``1PL`` estimates one discrimination shared by all
        items. ``4PL`` is mirt only.
    engine : {"mirt", "ltm", "native"}
        ``"native"``: the R-free EM of :mod:`irtbridge.irt.em` (rasch, 1PL, 2PL), checked against mirt;
        it takes mirt's ``quadpts``, ``TOL`` and ``technical={"NCYCLES": ...}``, and ``client=`` for Dask.
    se : bool
        Compute standard errors (mirt ``SE = TRUE``; ltm from its Hessian, delta method to the IRT
        parameterization).
    drop_constant : bool
        Items answered identically by everyone carry no information and break estimation. By default they
        are an error naming them; with ``drop_constant=True`` they are dropped with a
        :class:`DataWarning` and listed in ``Calibration.dropped_items``.
    priors : mapping or list of Prior, optional
        mirt only: priors on item parameters, e.g. ``{"a1": ("lnorm", 0, 0.5), "g": ("expbeta", 5, 17)}``
        (see :mod:`irtbridge.calibration.priors`); with priors the fit is a MAP estimate.
    **options
        Passed to the engine unchanged, with the engine's own argument names (e.g. ``TOL=1e-5``,
        ``technical={"NCYCLES": 2000}``, ``quadpts=41`` for mirt; ``control={"GHk": 21}`` for ltm).

    Returns
    -------
    Calibration

    Notes
    -----
    R equivalents: ``mirt(data, 1, itemtype = "2PL", SE = TRUE)`` then
    ``coef(fit, IRTpars = TRUE, simplify = TRUE)``; ``ltm(data ~ z1)``, ``rasch``, ``tpm``, ``grm``,
    ``gpcm``. Numbers are read from R objects, never from printed output (ltm's ``coef`` rounds).

    Examples
    --------
    >>> import irtbridge
    >>> fit = irtbridge.calibrate(data, model="2PL")            # doctest: +SKIP
    >>> fit.items[["a", "b"]]                                  # doctest: +SKIP
    """
    engine = check_choice(engine, "engine", ENGINES, ignore_case=True)
    model = check_choice(model, "model", MODELS, ignore_case=True)
    if model not in ENGINES[engine]:
        other = [e for e in ENGINES if model in ENGINES[e]]
        raise ValidationError(f"engine {engine!r} does not fit model {model!r}; use engine={other[0]!r}")
    values, names, index = as_response_matrix(responses, "responses", dichotomous=model in DICHOTOMOUS)
    dropped: tuple[str, ...] = ()
    const = constant_items(values, names)
    if const:
        if not drop_constant:
            raise ValidationError(
                f"responses: item(s) {', '.join(map(repr, const[:10]))}{' …' if len(const) > 10 else ''} are "
                "answered the same way by every respondent and carry no information; drop them, or pass "
                "drop_constant=True to drop them with a warning"
            )
        keep = [j for j, n in enumerate(names) if n not in set(const)]
        if len(keep) < 2:
            raise ValidationError(f"responses: only {len(keep)} item(s) remain after dropping constant items")
        warnings.warn(f"dropped {len(const)} constant item(s): {', '.join(const[:10])}", DataWarning, stacklevel=2)
        values = np.ascontiguousarray(values[:, keep])
        names = [names[j] for j in keep]
        dropped = tuple(const)
        all_missing = np.isnan(values).all(axis=1)
        if all_missing.any():
            raise ValidationError(
                f"responses: {int(all_missing.sum())} respondent(s) have no responses left after dropping constant items"
            )
    prior_list = parse_priors(priors, model, names)
    if prior_list and engine != "mirt":
        raise ValidationError("priors: only engine='mirt' takes priors on item parameters")
    extra = {"priors": [p.to_r() for p in prior_list]} if prior_list else {}
    if engine == "native":
        from irtbridge.calibration.native import calibrate_native

        return calibrate_native(values, names, model, bool(se), options, dropped)
    from irtbridge._r import session

    session.ensure_packages(engine)
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = session.call(
            f"irtb_{engine}_fit", data=values, item_names=names, model=model, se=bool(se), options=dict(options),
            **extra,
        )
    elapsed = time.perf_counter() - started
    r_warnings = tuple(str(w.message).removeprefix("R: ") for w in caught)
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    items = _item_table(out["items"], names, model)
    se_table = _item_table(out["se"], names, model) if out.get("se") is not None else items * np.nan
    se_problem = out.get("se_problem")
    if se and se_problem is not None:
        # the estimates exist; only the information matrix failed: keep them, say why SEs are NaN
        se_problem = str(se_problem).strip()
        message = f"{engine}: standard errors unavailable ({se_problem}); estimates kept, standard errors set to NaN"
        warnings.warn(message, RWarning, stacklevel=2)
        r_warnings = (*r_warnings, message)
    versions = session.r_versions([engine])
    converged = bool(out["converged"])
    if not converged:
        warnings.warn(
            f"{engine} did not converge for the {model} model after {out['iterations']} iterations; "
            "raise the iteration limit or simplify the model",
            ConvergenceWarning,
            stacklevel=2,
        )
    return Calibration(
        items=items,
        standard_errors=se_table,
        loglik=float(out["loglik"]),
        aic=float(out["aic"]),
        bic=float(out["bic"]),
        n_parameters=int(out["n_parameters"]),
        converged=converged,
        iterations=int(out["iterations"]) if out["iterations"] is not None and not pd.isna(out["iterations"]) else -1,
        model=model,
        engine=engine,
        n_respondents=int(values.shape[0]),
        latent_mean=float(out["latent_mean"]),
        latent_var=float(out["latent_var"]),
        options=dict(options, se=bool(se), **({"se_unavailable": se_problem} if se and se_problem else {}),
                     **({"priors": [p.to_r() for p in prior_list]} if prior_list else {})),
        warnings=r_warnings,
        provenance={
            "irtbridge_version": __version__,
            "engine_version": versions["packages"][engine],
            "r_version": versions["r"],
            "fit_seconds": elapsed,
        },
        dropped_items=dropped,
        r_model=out["model"],
    )

def _item_table(table: pd.DataFrame, names: list[str], model: str) -> pd.DataFrame:
    """Label the item table with the caller's names (numpy2ri drops them; R may mangle them)."""
    if table.shape[0] != len(names):
        raise RuntimeError(f"R returned {table.shape[0]} item rows for {len(names)} items")
    frame = pd.DataFrame(table.to_numpy(dtype=float, copy=True), index=pd.Index(names), columns=list(table.columns))
    if model in DICHOTOMOUS:
        frame = frame[["a", "b", "g", "u"]]
    return frame
