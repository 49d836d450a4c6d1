"""Item calibration delegated to R's ``mirt`` and ``ltm``: fitting, and the results it returns.

The public names are re-exported here and at the top level (``irtbridge.calibrate``); the modules hold
the parts: :mod:`~irtbridge.calibration.fitting` (:func:`calibrate`: checks, then dispatches to one module
per engine, :mod:`~irtbridge.calibration.engines`: mirt, ltm, native) and :mod:`~irtbridge.calibration.results.result`
(:class:`Calibration`; every result stands on :class:`~irtbridge.calibration.results._base.FitResult`: the shared
statistics, pickling, ``summary()``, ``global_fit``/``reliability``/``plot`` and the naming rule of the
columns), :mod:`~irtbridge.calibration.inputs.priors`, :mod:`~irtbridge.calibration.analysis.diagnostics`
(item/person/global fit, residuals, reliability, model comparison),
:mod:`~irtbridge.calibration.analysis.plots` (mirt's plot types), :mod:`~irtbridge.calibration.analysis.fscores` and
:mod:`~irtbridge.calibration.analysis.inference` (mirt's scoring options; vcov, Wald tests, CIs, Lagrange tests),
:mod:`~irtbridge.calibration.inputs.keys`
(:func:`score_key`: multiple-choice answers scored against a key, mirt's ``key2binary``) and
:mod:`~irtbridge.calibration.analysis.simulation` (:func:`simulate`: responses drawn by mirt's ``simdata``),
:mod:`~irtbridge.calibration.analysis.functioning`
(``DRF``, ``DTF``, ``empirical_ES`` on group fits, :func:`sibtest`), :mod:`~irtbridge.calibration.bifactor`
(:func:`calibrate_bifactor`: mirt's ``bfactor``) and :mod:`~irtbridge.calibration.classes`
(:func:`calibrate_classes`: latent class models, mirt's ``mdirt``), :mod:`~irtbridge.calibration.explanatory`
(:func:`calibrate_fixed`: fixed-item calibration, mirt's ``fixedCalib``; :func:`calibrate_mixed`:
explanatory IRT, mirt's ``mixedmirt`` and the LLTM).
"""

from __future__ import annotations

from irtbridge.calibration.bifactor import calibrate_bifactor
from irtbridge.calibration.classes import ClassCalibration, calibrate_classes, class_parameter_table
from irtbridge.calibration.analysis.diagnostics import compare
from irtbridge.calibration.explanatory import MixedCalibration, calibrate_fixed, calibrate_mixed
from irtbridge.calibration.analysis.functioning import sibtest
from irtbridge.calibration.fitting import calibrate, parameter_table
from irtbridge.calibration.groups import GroupCalibration, calibrate_groups, dif
from irtbridge.calibration.inputs.keys import score_key
from irtbridge.calibration.analysis.simulation import simulate
from irtbridge.calibration.inputs.priors import Prior
from irtbridge.calibration.results.result import ENGINES, MODELS, Calibration
from irtbridge.calibration.inputs.spec import ModelSpec

__all__ = ["calibrate", "Calibration", "MODELS", "ENGINES", "compare", "Prior", "ModelSpec", "parameter_table",
           "calibrate_groups", "dif", "GroupCalibration", "score_key",
           "simulate", "sibtest", "calibrate_bifactor", "calibrate_classes", "class_parameter_table",
           "ClassCalibration", "calibrate_fixed", "calibrate_mixed", "MixedCalibration"]
