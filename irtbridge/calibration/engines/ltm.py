"""``calibrate(..., engine="ltm")``: R's ltm (``rasch``, ``ltm``, ``tpm``, ``grm``, ``gpcm``), as decodIRT used it.

Options reach ltm with its own names (e.g. ``control={"GHk": 21}``). ltm's ``coef()`` rounds, so the
numbers are read from the fitted object (``irtbridge/_r/R/irtb_calibrate.R``), never from printed output.
"""

from __future__ import annotations

from irtbridge.calibration.engines.rbacked import fit_in_r
from irtbridge.calibration.engines.request import FitRequest
from irtbridge.calibration.result import Calibration

__all__ = ["fit"]


def fit(request: FitRequest) -> Calibration:
    """Fit the request's model with ltm in R.

    Parameters
    ----------
    request : FitRequest
        The checked request.

    Returns
    -------
    Calibration
        The fit.
    """
    return fit_in_r("ltm", request)
