"""The ``groups`` design of the mirt engine: mirt's ``multipleGroup``, read into a :class:`GroupCalibration`.

:func:`fit` fits the request :func:`~irtbridge.calibrate_groups` built (one R call); :func:`from_r_model`
reads a ``MultipleGroupClass`` model fitted elsewhere (:mod:`irtbridge.mirt`) the same way.
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np
import pandas as pd

from irtbridge import __version__
from irtbridge._catalogue import mirt_itemtype
from irtbridge._r import session
from irtbridge.calibration.engines.rbacked import model_name
from irtbridge.calibration.engines.request import FitRequest
from irtbridge.calibration.inputs.checks import check_before_fit
from irtbridge.calibration.inputs.responses import item_minimums
from irtbridge.calibration.results.group_result import GroupCalibration, item_table
from irtbridge.exceptions import find_stack_level, ConvergenceWarning, RWarning

__all__ = ["fit", "from_r_model"]

_GROUPING = ("group", "invariance")  # the request's structure entries that make it a multiple-group fit


def fit(request: FitRequest) -> GroupCalibration:
    """Check the parameter names against ``multipleGroup``'s table, then fit the groups in R (one call).

    Parameters
    ----------
    request : FitRequest
        The ``groups`` request: ``structure`` holds the ``group`` labels and ``invariance``.

    Returns
    -------
    GroupCalibration
        The fit; standard errors that failed are NaN with one RWarning, and a fit that did not converge
        says so in a ConvergenceWarning.
    """
    session.ensure_packages("mirt")
    names = list(request.names)
    per_item = list(request.per_item) if request.per_item is not None else None
    grouping = {k: request.structure[k] for k in _GROUPING}
    structure = {k: v for k, v in request.structure.items() if k not in _GROUPING}
    check_before_fit(request.data, names, request.model, per_item, structure, request.parameters,
                     list(request.priors), dict(request.options), groups=grouping)
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = session.call("irtb_mirt_groups", data=request.data, item_names=names,
                           itemtype=mirt_itemtype(per_item or request.model), se=bool(request.se),
                           options=dict(request.options), **request.r_arguments)
    r_warnings = [str(w.message).removeprefix("R: ") for w in caught]
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if request.se and out.get("se_problem") is not None:
        message = f"mirt: standard errors unavailable ({str(out['se_problem']).strip()}); estimates kept"
        warnings.warn(message, RWarning, stacklevel=find_stack_level())
        r_warnings.append(message)
    if not bool(out["converged"]):
        warnings.warn(f"mirt's multipleGroup did not converge after {out['iterations']} iterations",
                      ConvergenceWarning, stacklevel=find_stack_level())
    recorded = dict(request.options, se=bool(request.se),
                    **({"priors": [p.to_r() for p in request.priors]} if request.priors else {}),
                    **{k: v for k, v in structure.items() if k in ("dims", "syntax")})
    return _assemble(out, request, list(grouping["group"]), list(grouping["invariance"]), recorded, r_warnings,
                     time.perf_counter() - started)


def from_r_model(model: Any) -> GroupCalibration:
    """A fitted mirt ``multipleGroup`` model (an ``RObject`` of class ``MultipleGroupClass``) as a
    GroupCalibration, read as :func:`fit` reads its own (the models :mod:`irtbridge.mirt` returns).

    Parameters
    ----------
    model : RObject
        The fitted model.

    Returns
    -------
    GroupCalibration
        The fit, holding ``model`` as its live R model.
    """
    out = session.call("irtb_pass_mirt_groups", fit=model)
    names = [str(n) for n in np.atleast_1d(out["item_names"])]
    per_item = [model_name(t, k) for t, k in zip(np.atleast_1d(out["itemtype"]), np.atleast_1d(out["ncat"]))]
    mixed = len(set(per_item)) > 1
    data = out["data"]
    values = np.asarray(data.to_numpy() if isinstance(data, pd.DataFrame) else data, dtype=float)
    request = FitRequest(values, tuple(names), "mixed" if mixed else per_item[0], bool(out["se_done"]),
                         per_item=tuple(per_item) if mixed else None, design="groups")
    if not bool(out["converged"]):
        warnings.warn(f"mirt's multipleGroup did not converge after {out['iterations']} iterations",
                      ConvergenceWarning, stacklevel=find_stack_level())
    invariance = [str(v) for v in np.atleast_1d(out["invariance"]) if v]
    labels = [str(g) for g in np.atleast_1d(out["membership"])]
    return _assemble(out, request, labels, invariance, {"se": bool(out["se_done"])}, [], float(out["seconds"]))


def _assemble(out: dict[str, Any], request: FitRequest, labels: list[str], invariance: list[str],
              options: dict[str, Any], r_warnings: list[str], seconds: float) -> GroupCalibration:
    """The GroupCalibration from R's plain result: per-group tables labelled with the caller's names."""
    names = list(request.names)
    group_names = [str(g) for g in np.atleast_1d(out["groups"])]
    layout = request.model if request.per_item is None else "mixed"
    tables = {g: item_table(t, names, layout) for g, t in zip(group_names, _as_list(out["items"]))}
    ses = ({g: item_table(t, names, layout) for g, t in zip(group_names, _as_list(out["se"]))}
           if out.get("se") is not None else {g: t * np.nan for g, t in tables.items()})
    factors = tuple(str(f) for f in np.atleast_1d(out["factor_names"]))
    means = pd.DataFrame([[float(v) for v in _as_list(m)] for m in _as_list(out["means"])],
                         index=pd.Index(group_names, name="group"), columns=list(factors))
    covs = {}
    for g, c in zip(group_names, _as_list(out["covs"])):
        values = np.atleast_2d(np.asarray(c.to_numpy() if isinstance(c, pd.DataFrame) else c, dtype=float))
        covs[g] = pd.DataFrame(values, index=list(factors), columns=list(factors))
    versions = session.r_versions(["mirt"])
    return GroupCalibration(
        groups=tuple(group_names), items=tables,
        latent_means=pd.Series(means.iloc[:, 0].to_numpy(), index=group_names, name="mean"),
        latent_vars=pd.Series([covs[g].iloc[0, 0] for g in group_names], index=group_names, name="var"),
        loglik=float(out["loglik"]), aic=float(out["aic"]), bic=float(out["bic"]),
        n_parameters=int(out["n_parameters"]), converged=bool(out["converged"]), iterations=int(out["iterations"]),
        model=request.model, invariance=tuple(invariance),
        group_sizes={g: int(v) for g, v in zip(group_names, _per_group(out["sizes"], group_names))},
        options=options, warnings=tuple(r_warnings),
        provenance={"irtbridge_version": __version__, "engine_version": versions["packages"]["mirt"],
                    "r_version": versions["r"], "fit_seconds": seconds},
        standard_errors=ses, means=means, covariances=covs, factors=factors,
        item_types=tuple(request.per_item) if request.per_item is not None else (), dropped_items=request.dropped,
        item_mins=item_minimums(np.asarray(request.data), names), membership=tuple(labels), r_model=out["model"],
    )


def _as_list(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple, np.ndarray)):
        return list(value)
    if isinstance(value, dict):
        return list(value.values())
    return [value]


def _per_group(value: Any, groups: list[str]) -> list[float]:
    if isinstance(value, dict):
        return [float(value[g]) for g in groups]
    return [float(v) for v in np.atleast_1d(value)]
