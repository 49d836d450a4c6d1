"""The ``fixed`` and ``mixed`` designs of the mirt engine: mirt's ``fixedCalib`` (read into a
:class:`~irtbridge.Calibration`) and ``mixedmirt`` or ``mirt(item.formula = ...)`` (read into a
:class:`~irtbridge.calibration.results.mixed_result.MixedCalibration`)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from irtbridge._r import session
from irtbridge.calibration.engines.rbacked import from_r_model
from irtbridge.calibration.engines.request import FitRequest
from irtbridge.calibration.results.mixed_result import MixedCalibration
from irtbridge.calibration.results.result import Calibration
from irtbridge.exceptions import find_stack_level

__all__ = ["fit"]


def fit(request: FitRequest) -> Calibration | MixedCalibration:
    """Fit a ``fixed`` or ``mixed`` request in R (one call) and read it.

    Parameters
    ----------
    request : FitRequest
        ``fixed``: ``structure`` holds the ``old`` model, ``PAU``, ``NEMC`` and the ``anchors``; ``mixed``:
        the formulas (``fixed``, ``random``, ``item_formula``), ``covdata``, ``itemdesign`` and ``itemtype``.

    Returns
    -------
    Calibration or MixedCalibration
        Every item of a fixed-item calibration; the mixed-effects model.
    """
    return _fixed(request) if request.design == "fixed" else _mixed(request)


def _fixed(request: FitRequest) -> Calibration:
    """mirt's ``fixedCalib``, read as any single-group mirt model; the options record the linking."""
    arguments = {k: request.structure[k] for k in ("old", "PAU", "NEMC")}
    model = session.call("irtb_mirt_fixed_calib", data=np.ascontiguousarray(request.data),
                         item_names=list(request.names), options=dict(request.options), **arguments)
    fit = from_r_model(model)
    return fit._replace(options={**fit.options, **request.options, "PAU": arguments["PAU"], "NEMC": arguments["NEMC"],
                                 "anchors": list(request.structure["anchors"]), "dentype": "EH"})


def _mixed(request: FitRequest) -> MixedCalibration:
    """mirt's ``mixedmirt`` (or ``mirt`` with ``item.formula``: the LLTM); R's warnings pass on."""
    s = request.structure
    values, names = np.ascontiguousarray(request.data), list(request.names)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if s["item_formula"] is not None:
            out = session.call("irtb_mirt_lltm", data=values, item_names=names, itemdesign=s["itemdesign"],
                               item_formula=s["item_formula"], itemtype=s["itemtype"], se=bool(request.se),
                               options=dict(request.options))
        else:
            out = session.call("irtb_mirt_mixed", data=values, item_names=names, covdata=s["covdata"],
                               itemdesign=s["itemdesign"], fixed=s["fixed"], random=s["random"] or None,
                               itemtype=s["itemtype"], se=bool(request.se), options=dict(request.options))
    for w in caught:
        warnings.warn(w.message, w.category, stacklevel=find_stack_level())
    effective = {**request.options, "se": bool(request.se), "itemtype": s["itemtype"],
                 **({"item_formula": s["item_formula"]} if s["item_formula"] is not None else {"fixed": s["fixed"]}),
                 **({"random": s["random"]} if s["random"] else {}),
                 **({"covariates": list(s["covdata"])} if s["covdata"] else {}),
                 **({"item_covariates": list(s["itemdesign"])} if s["itemdesign"] else {})}
    columns = ("Estimate", "Std.Error", "z.value")
    terms = out.get("fixed")
    fixef = (pd.DataFrame({c: np.atleast_1d(np.asarray(terms[c], dtype=float)) for c in columns},
                          index=[str(t) for t in np.atleast_1d(terms["terms"])])
             if terms is not None else pd.DataFrame({c: pd.Series(dtype=float) for c in columns}))
    return MixedCalibration(
        fixef=fixef.astype(float), random_covariances={str(k): v for k, v in out["random"].items()},
        parameters=out["values"], loglik=float(out["loglik"]), aic=float(out["aic"]), bic=float(out["bic"]),
        n_parameters=int(out["n_parameters"]), converged=bool(out["converged"]),
        iterations=int(out["iterations"]), options=effective,
        warnings=tuple(str(w.message).removeprefix("R: ") for w in caught), r_model=out["model"])
