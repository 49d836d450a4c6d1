"""``calibrate(..., engine="mirt")``: R's mirt, the reference engine (every model structure irtbridge offers).

R equivalent: ``mirt(data, 1, itemtype = "2PL", SE = TRUE)`` (or ``dims``/``mirt.model`` text, a
``pars`` table, priors written into it), then ``coef(fit, IRTpars = TRUE, simplify = TRUE)``. Before the
fit, every parameter a spec or a prior names is looked up in mirt's ``pars = "values"`` table
(:mod:`irtbridge.calibration.checks`): mirt would silently ignore or move it.
"""

from __future__ import annotations

from irtbridge.calibration.checks import check_before_fit
from irtbridge.calibration.engines.rbacked import fit_in_r
from irtbridge.calibration.engines.request import FitRequest
from irtbridge.calibration.result import Calibration

__all__ = ["fit"]


def fit(request: FitRequest) -> Calibration:
    """Check the parameter names the request mentions against mirt's table, then fit in R.

    Parameters
    ----------
    request : FitRequest
        The checked request.

    Returns
    -------
    Calibration
        The fit.
    """
    per_item = list(request.per_item) if request.per_item is not None else None
    check_before_fit(request.data, list(request.names), request.model, per_item, request.r_arguments,
                     request.parameters, list(request.priors), dict(request.options))
    return fit_in_r("mirt", request)
