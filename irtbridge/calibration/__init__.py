"""Item calibration delegated to R's ``mirt`` and ``ltm`` (and the native EM), grouped by role.

The public names are re-exported here and at the top level (``irtbridge.calibrate``); the folders hold the
parts, each by its role:

* :mod:`~irtbridge.calibration.fit`: the front doors, one module per kind of model, each going check ->
  request -> engine: :func:`calibrate` (any engine), :func:`calibrate_groups` and :func:`dif`,
  :func:`calibrate_bifactor`, :func:`calibrate_classes`, :func:`calibrate_fixed` and :func:`calibrate_mixed`;
* :mod:`~irtbridge.calibration.engines`: one module per engine: mirt (with a module per design of its own:
  groups, classes, explanatory), ltm, native;
* :mod:`~irtbridge.calibration.results`: what a fit returns: :class:`Calibration`, :class:`GroupCalibration`,
  :class:`ClassCalibration`, :class:`MixedCalibration`, all standing on
  :class:`~irtbridge.calibration.results._base.FitResult` (the shared statistics, pickling, ``summary()``,
  ``global_fit``/``reliability``/``plot`` and the naming rule of the columns), the methods mixed into
  :class:`Calibration` (vcov, Wald tests, CIs and Lagrange tests; the abilities' covariances), and the flags
  of estimates the data do not identify;
* :mod:`~irtbridge.calibration.inputs`: what a fit takes, checked before it runs: :class:`ModelSpec`,
  :class:`Prior`, mirt's item types, the options each engine takes, the engine table
  (:data:`~irtbridge.calibration.inputs.engine_table.ENGINE_TABLE`: what each engine takes and what its fits
  can do, as data), the latent density, and :func:`score_key` (answers scored against a key);
* :mod:`~irtbridge.calibration.analysis`: what is computed on a fit: item/person/global fit, reliability and
  :func:`compare`; mirt's ``fscores`` options; ``DRF``/``DTF`` and :func:`sibtest`; mirt's plot types; the
  fit report; :func:`simulate` (mirt's ``simdata``).

* :mod:`~irtbridge.calibration.shared`: what the results and the analyses both read (values kept on a
  result, renamed columns, the live R model).

The rooms lean one way (``tests/test_floors.py``): ``fit`` -> ``engines`` -> ``results`` -> ``analysis`` ->
``inputs`` -> ``shared``, each importing only the rooms after it.
"""

from __future__ import annotations

import importlib

from irtbridge import _moved
from irtbridge.calibration.analysis.diagnostics import compare
from irtbridge.calibration.analysis.functioning import sibtest
from irtbridge.calibration.analysis.simulation import simulate
from irtbridge.calibration.fit.bifactor import calibrate_bifactor
from irtbridge.calibration.fit.classes import calibrate_classes, class_parameter_table
from irtbridge.calibration.fit.explanatory import calibrate_fixed, calibrate_mixed
from irtbridge.calibration.fit.fitting import calibrate, parameter_table
from irtbridge.calibration.fit.groups import calibrate_groups, dif
from irtbridge.calibration.inputs.engine_table import ENGINES
from irtbridge.calibration.inputs.keys import score_key
from irtbridge.calibration.inputs.priors import Prior
from irtbridge.calibration.inputs.spec import ModelSpec
from irtbridge.calibration.results.class_result import ClassCalibration
from irtbridge.calibration.results.group_result import GroupCalibration
from irtbridge.calibration.results.mixed_result import MixedCalibration
from irtbridge.calibration.results.result import MODELS, Calibration

__all__ = ["calibrate", "Calibration", "MODELS", "ENGINES", "compare", "Prior", "ModelSpec", "parameter_table",
           "calibrate_groups", "dif", "GroupCalibration", "score_key",
           "simulate", "sibtest", "calibrate_bifactor", "calibrate_classes", "class_parameter_table",
           "ClassCalibration", "calibrate_fixed", "calibrate_mixed", "MixedCalibration"]


def __getattr__(name: str) -> object:
    # an old module path read as an attribute (``irtbridge.calibration.fitting.calibrate`` after ``import
    # irtbridge``): imported through its old path, so irtbridge._moved's finder warns and names the new one
    if f"{__name__}.{name}" in _moved.MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
