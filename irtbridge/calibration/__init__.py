"""Item calibration delegated to R's ``mirt`` and ``ltm``: fitting, and the results it returns.

The public names are re-exported here and at the top level (``irtbridge.calibrate``); the modules hold
the parts: :mod:`~irtbridge.calibration.fitting` (the R-backed fit) and :mod:`~irtbridge.calibration.result`
(:class:`Calibration`), :mod:`~irtbridge.calibration.priors`, :mod:`~irtbridge.calibration.diagnostics`
(item/person/global fit, residuals, reliability, model comparison) and
:mod:`~irtbridge.calibration.plots` (mirt's plot types).
"""

from __future__ import annotations

from irtbridge.calibration.diagnostics import compare
from irtbridge.calibration.fitting import calibrate
from irtbridge.calibration.priors import Prior
from irtbridge.calibration.result import ENGINES, MODELS, Calibration

__all__ = ["calibrate", "Calibration", "MODELS", "ENGINES", "compare", "Prior"]
