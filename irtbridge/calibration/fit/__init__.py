"""The front doors: the functions that fit a model, one module per kind of model.

Each checks its call once, builds the request and hands it to R (or to an engine of
:mod:`irtbridge.calibration.engines`), and returns a result of :mod:`irtbridge.calibration.results`:

* :mod:`~irtbridge.calibration.fit.fitting`: :func:`~irtbridge.calibration.calibrate`, one group, any
  engine (mirt, ltm, native), and :func:`~irtbridge.calibration.parameter_table`;
* :mod:`~irtbridge.calibration.fit.groups`: :func:`~irtbridge.calibration.calibrate_groups` (mirt's
  ``multipleGroup``) and :func:`~irtbridge.calibration.dif` (mirt's ``DIF``);
* :mod:`~irtbridge.calibration.fit.bifactor`: :func:`~irtbridge.calibration.calibrate_bifactor` (mirt's
  ``bfactor``);
* :mod:`~irtbridge.calibration.fit.classes`: :func:`~irtbridge.calibration.calibrate_classes` (latent class
  models, mirt's ``mdirt``) and its result :class:`~irtbridge.calibration.ClassCalibration`;
* :mod:`~irtbridge.calibration.fit.explanatory`: :func:`~irtbridge.calibration.calibrate_fixed` (mirt's
  ``fixedCalib``), :func:`~irtbridge.calibration.calibrate_mixed` (mirt's ``mixedmirt``, the LLTM) and
  its result :class:`~irtbridge.calibration.MixedCalibration`.

Nothing is imported here: the public names come from :mod:`irtbridge.calibration`.
"""
