"""``engine="mirt"``: R's mirt, the reference engine (every model structure and every front door).

R equivalent of :func:`~irtbridge.calibrate`: ``mirt(data, 1, itemtype = "2PL", SE = TRUE)`` (or
``dims``/``mirt.model`` text, a ``pars`` table, priors written into it), then ``coef(fit, IRTpars = TRUE,
simplify = TRUE)``. Before the fit, every parameter a spec or a prior names is looked up in mirt's
``pars = "values"`` table (:mod:`irtbridge.calibration.inputs.checks`): mirt would silently ignore or move it.

The other front doors' requests (a request's ``design``) are fitted by mirt's own functions, one module
each: :data:`DESIGNS` says which.
"""

from __future__ import annotations

import importlib
from typing import Any

from irtbridge.calibration.engines.rbacked import fit_in_r
from irtbridge.calibration.engines.request import FitRequest
from irtbridge.calibration.inputs.checks import check_before_fit

__all__ = ["fit", "DESIGNS"]

#: design -> the module whose ``fit(request)`` calls mirt for it (None: this module, one R helper)
DESIGNS: dict[str, str | None] = {
    "calibrate": None,                                                  # mirt()
    "bifactor": None,                                                   # bfactor()
    "groups": "irtbridge.calibration.engines.mirt_groups",              # multipleGroup()
    "classes": "irtbridge.calibration.engines.mirt_classes",            # mdirt()
    "fixed": "irtbridge.calibration.engines.mirt_explanatory",          # fixedCalib()
    "mixed": "irtbridge.calibration.engines.mirt_explanatory",          # mixedmirt(), mirt(item.formula)
}


def fit(request: FitRequest) -> Any:
    """Fit the request with mirt's function for its design.

    For ``calibrate``, the parameter names the request mentions are first checked against mirt's table.

    Parameters
    ----------
    request : FitRequest
        The checked request.

    Returns
    -------
    FitResult
        The design's result: a :class:`~irtbridge.Calibration` for ``calibrate`` and ``bifactor``.
    """
    module = DESIGNS[request.design]
    if module is not None:
        return importlib.import_module(module).fit(request)
    if request.design == "bifactor":
        return fit_in_r("mirt", request, helper="irtb_mirt_bfactor_fit")
    per_item = list(request.per_item) if request.per_item is not None else None
    check_before_fit(request.data, list(request.names), request.model, per_item, request.r_arguments,
                     request.parameters, list(request.priors), dict(request.options))
    return fit_in_r("mirt", request)
