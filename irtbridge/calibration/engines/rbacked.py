"""The R side shared by the mirt and ltm engines: one R call per fit, and the Calibration it becomes.

The response matrix goes to R once (numpy2ri, one copy); the helper ``irtb_<engine>_fit`` (``r/``) fits
there and returns plain numbers in one layout for both engines. The live R model stays available as an
optional handle (``Calibration.r_model``) for the engine's own scoring and for experts; it never travels
when a result is pickled or written to JSON.
"""

from __future__ import annotations

import time
import warnings
from typing import Any, Mapping

import numpy as np
import pandas as pd

from irtbridge import __version__
from irtbridge._catalogue import CATALOGUE, equal_slope_items, from_mirt_itemtype, mirt_itemtype
from irtbridge._r import session
from irtbridge.calibration.engines.request import FitRequest
from irtbridge.calibration.results._se import PendingStandardErrors, SEOutcome
from irtbridge.calibration.results.result import DICHOTOMOUS, Calibration
from irtbridge.exceptions import find_stack_level, ConvergenceWarning, RWarning

__all__ = ["fit_in_r", "from_r_model", "model_arguments"]


def fit_in_r(engine: str, request: FitRequest, helper: str | None = None, stacklevel: int | None = None) -> Calibration:
    """Fit in R (one call), pass R's warnings on, keep estimates whose standard errors failed.

    ``helper``: the R function that fits (default ``irtb_<engine>_fit``; e.g. ``irtb_mirt_bfactor_fit``);
    ``stacklevel``: where warnings point (the caller of the public function).

    Parameters
    ----------
    engine : {"mirt", "ltm"}
        The R engine.
    request : FitRequest
        The checked request.
    helper : str, optional
        The R helper that fits (see above).
    stacklevel : int, optional
        Where warnings point.

    Returns
    -------
    Calibration
        The fit.
    """
    session.ensure_packages(engine)
    names = list(request.names)
    started = time.perf_counter()
    stacklevel = stacklevel or find_stack_level()
    eager = request.se is True
    later: dict[str, Any] = {"later": True} if request.se is None and engine == "mirt" else {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = session.call(
            helper or f"irtb_{engine}_fit", data=request.data, item_names=names, se=eager,
            options=dict(request.options), **model_arguments(engine, request), **request.r_arguments, **later,
        )
    elapsed = time.perf_counter() - started
    r_warnings = tuple(str(w.message).removeprefix("R: ") for w in caught)
    for w in caught:  # at the line that called calibrate(), as session.call would have put them
        warnings.warn(w.message, w.category, stacklevel=stacklevel)
    se_problem = out.get("se_problem")
    if eager and se_problem is not None:
        # the estimates exist; only the information matrix failed: keep them, say why SEs are NaN
        se_problem = str(se_problem).strip()
        message = _unavailable(engine, se_problem)
        warnings.warn(message, RWarning, stacklevel=stacklevel)
        r_warnings = (*r_warnings, message)
    if not bool(out["converged"]):
        warnings.warn(
            f"{engine} did not converge for the {request.model} model after {out['iterations']} iterations; "
            "raise the iteration limit or simplify the model",
            ConvergenceWarning,
            stacklevel=stacklevel,
        )
    effective = dict(request.options, se=request.se,
                     **({"se_unavailable": se_problem} if eager and se_problem else {}),
                     **({"SE.type": _se_type(engine, request.options)} if request.se is not False else {}),
                     **({"priors": [p.to_r() for p in request.priors]} if request.priors else {}),
                     **({k: v for k, v in request.structure.items()
                         if k in ("dims", "syntax", "specific", "general")}))
    return _assemble(out, engine, request, effective, r_warnings, elapsed)


def model_arguments(engine: str, request: FitRequest) -> dict[str, Any]:
    """The model as the R helper receives it, read from the catalogue: mirt's ``itemtype`` (one, or one per
    item) and the items that share one slope; ltm's fitting function and whether its slopes are fixed at 1.

    Parameters
    ----------
    engine : {"mirt", "ltm"}
        The R engine.
    request : FitRequest
        The checked request.

    Returns
    -------
    dict of str to Any
        mirt: ``itemtype`` and ``equal_slopes``; ltm: ``fun`` and ``unit_slopes``.

    Examples
    --------
    >>> import numpy as np
    >>> request = FitRequest(np.zeros((2, 2)), ("q1", "q2"), "mixed", False, per_item=("3PL", "1PL"))
    >>> model_arguments("mirt", request)
    {'itemtype': ['3PL', '2PL'], 'equal_slopes': ['q2']}
    """
    if engine == "ltm":
        row = CATALOGUE[request.model]
        return {"fun": row.ltm, "unit_slopes": row.slopes == "unit"}
    model = list(request.per_item) if request.per_item is not None else request.model
    return {"itemtype": mirt_itemtype(model), "equal_slopes": equal_slope_items(model, request.names)}


def from_r_model(model: Any) -> Calibration:
    """A fitted single-group mirt model (an ``RObject`` of class ``SingleGroupClass``) as a Calibration.

    What :func:`fit_in_r` reads after a fit, read from the model itself: items in the IRT
    parameterization where mirt has one (``coef(fit, IRTpars = TRUE, simplify = TRUE)``), standard
    errors when the model has them, the response data and item types from ``extract.mirt``. Used for the
    models :mod:`irtbridge.mirt` returns (e.g. ``irtbridge.mirt.mirt(data, 1, itemtype="2PL")``).

    Parameters
    ----------
    model : RObject
        The fitted mirt model.

    Returns
    -------
    Calibration
        The fit, holding ``model`` as its live R model.
    """
    out = session.call("irtb_pass_mirt_model", fit=model)
    names = [str(n) for n in np.atleast_1d(out["item_names"])]
    types = [model_name(t, k) for t, k in zip(np.atleast_1d(out["itemtype"]), np.atleast_1d(out["ncat"]))]
    one = len(set(types)) == 1
    request = FitRequest(data=np.asarray(out["data"], dtype=float), names=tuple(names),
                         model=types[0] if one else "mixed", se=bool(out["se_done"]),
                         per_item=None if one else tuple(types))
    if not bool(out["converged"]):
        warnings.warn(f"mirt did not converge after {out['iterations']} iterations", ConvergenceWarning,
                      stacklevel=find_stack_level())
    return _assemble(out, "mirt", request, {"se": bool(out["se_done"])}, (), float(out["seconds"]))


def model_name(itemtype: str, ncat: Any) -> str:
    """irtbridge's model name for one mirt itemtype (``"Rasch"`` with more than 2 categories is ``"pcm"``)."""
    return from_mirt_itemtype(itemtype, ncat)


def _assemble(out: Mapping[str, Any], engine: str, request: FitRequest, options: dict[str, Any],
              r_warnings: tuple[str, ...], elapsed: float) -> Calibration:
    """The Calibration from R's plain result: labelled tables, provenance, the live model handle."""
    names = list(request.names)
    layout = request.model if request.per_item is None and out.get("cov") is None else "mixed"
    items = _item_table(out["items"], names, layout)
    if request.se is None:  # on first access of fit.standard_errors, from the live fit
        later = out.get("se_later")
        se_table: Any = PendingStandardErrors(
            lambda: _later_standard_errors(engine, out["model"], later, request, names, layout, items),
            needs_r=True)
    else:
        se_table = _item_table(out["se"], names, layout) if out.get("se") is not None else items * np.nan
    versions = _versions(engine)
    iterations = out["iterations"]
    return Calibration(
        items=items,
        standard_errors=se_table,
        loglik=float(out["loglik"]),
        aic=float(out["aic"]),
        bic=float(out["bic"]),
        n_parameters=int(out["n_parameters"]),
        converged=bool(out["converged"]),
        iterations=int(iterations) if iterations is not None and not pd.isna(iterations) else -1,
        model=request.model,
        engine=engine,
        n_respondents=int(request.data.shape[0]),
        latent_mean=float(out["latent_mean"]),
        latent_var=float(out["latent_var"]),
        options=options,
        warnings=r_warnings,
        provenance={
            "irtbridge_version": __version__,
            "engine_version": versions["packages"][engine],
            "r_version": versions["r"],
            "fit_seconds": elapsed,
        },
        dropped_items=request.dropped,
        factors=tuple(str(f) for f in np.atleast_1d(out["factor_names"])) if out.get("factor_names") is not None else ("F1",),
        item_types=tuple(request.per_item) if request.per_item is not None else (),
        r_model=out["model"],
    )


def _unavailable(engine: str, problem: str) -> str:
    return f"{engine}: standard errors unavailable ({problem}); estimates kept, standard errors set to NaN"


def _se_type(engine: str, options: Mapping[str, Any]) -> str:
    """The information matrix the SEs come from: mirt's ``SE.type`` (its default ``"Oakes"``, mirt's
    ``"MHRM"`` for stochastic methods), ltm's Hessian."""
    if engine == "ltm":
        return "Hessian"
    if "SE.type" in options:
        return str(options["SE.type"])
    return "MHRM" if str(options.get("method", "EM")).upper() in ("MHRM", "SEM") else "Oakes"


def _later_standard_errors(engine: str, fit: Any, later: Any, request: FitRequest, names: list[str],
                           layout: str, items: pd.DataFrame) -> SEOutcome:
    """The SEs of a live fit made without them: mirt's SE = TRUE numbers (``irtb_mirt_ses``), ltm's from
    the Hessian it kept (``irtb_ltm_ses``); NaN with one warning when the information matrix fails."""
    with warnings.catch_warnings(record=True) as caught:  # R warnings: re-raised at the access
        warnings.simplefilter("always")
        if engine == "mirt":
            out = session.call("irtb_mirt_ses", fit=fit, later=later)
        else:
            out = session.call("irtb_ltm_ses", fit=fit, item_names=names, **model_arguments(engine, request))
    for w in caught:
        warnings.warn(w.message, w.category, stacklevel=find_stack_level())
    problem = out.get("se_problem")
    if problem is not None:
        problem = str(problem).strip()
        return SEOutcome(items * np.nan, _unavailable(engine, problem), RWarning, {"se_unavailable": problem},
                         {"se_computed_by": out.get("how") or "the kept Hessian"})
    table = _item_table(out["se"], names, layout) if out.get("se") is not None else items * np.nan
    return SEOutcome(table, provenance={"se_computed_by": out.get("how") or "the kept Hessian"}, model=out.get("model"))


_VERSIONS: dict[str, dict[str, Any]] = {}


def _versions(engine: str) -> dict[str, Any]:
    """R's and the engine's versions, asked once per process (one R round trip fewer per fit)."""
    if engine not in _VERSIONS:
        _VERSIONS[engine] = session.r_versions([engine])
    return _VERSIONS[engine]


def _item_table(table: pd.DataFrame, names: list[str], model: str) -> pd.DataFrame:
    """Label the item table with the caller's names (numpy2ri drops them; R may mangle them)."""
    if table.shape[0] != len(names):
        raise RuntimeError(f"R returned {table.shape[0]} item rows for {len(names)} items")
    frame = pd.DataFrame(table.to_numpy(dtype=float, copy=True), index=pd.Index(names), columns=list(table.columns))
    if model in DICHOTOMOUS and {"a", "b", "g", "u"} <= set(frame.columns):
        frame = frame[["a", "b", "g", "u"]]
    return frame
