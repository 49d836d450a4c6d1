"""The front doors: the functions that fit a model, one module per kind of model.

Each goes check -> request -> engine: it checks its call once (with :mod:`irtbridge.calibration.inputs`),
builds one :class:`~irtbridge.calibration.engines.request.FitRequest` whose ``design`` names the front
door, and hands it to an engine's row of :data:`~irtbridge.calibration.inputs.engine_table.ENGINE_TABLE`
(mirt for every door but :func:`~irtbridge.calibrate`, which takes any engine). The engine returns a result
of :mod:`irtbridge.calibration.results`:

* :mod:`~irtbridge.calibration.fit.fitting`: :func:`~irtbridge.calibration.calibrate`, one group, any
  engine (mirt, ltm, native), and :func:`~irtbridge.calibration.parameter_table`;
* :mod:`~irtbridge.calibration.fit.groups`: :func:`~irtbridge.calibration.calibrate_groups` (mirt's
  ``multipleGroup``) and :func:`~irtbridge.calibration.dif` (mirt's ``DIF``);
* :mod:`~irtbridge.calibration.fit.bifactor`: :func:`~irtbridge.calibration.calibrate_bifactor` (mirt's
  ``bfactor``);
* :mod:`~irtbridge.calibration.fit.classes`: :func:`~irtbridge.calibration.calibrate_classes` (latent class
  models, mirt's ``mdirt``) and :func:`~irtbridge.calibration.class_parameter_table`;
* :mod:`~irtbridge.calibration.fit.explanatory`: :func:`~irtbridge.calibration.calibrate_fixed` (mirt's
  ``fixedCalib``) and :func:`~irtbridge.calibration.calibrate_mixed` (mirt's ``mixedmirt``, the LLTM).

Nothing is imported here: the public names come from :mod:`irtbridge.calibration`.
"""
