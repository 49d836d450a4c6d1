"""What a calibration returns: the result classes, the base they stand on, and what they keep.

* :mod:`~irtbridge.calibration.results.result`: :class:`~irtbridge.calibration.Calibration` (one group,
  any engine) and the model table it is read against;
* :mod:`~irtbridge.calibration.results.group_result`: :class:`~irtbridge.calibration.GroupCalibration`
  (mirt's ``multipleGroup``);
* :mod:`~irtbridge.calibration.results.class_result`: :class:`~irtbridge.calibration.ClassCalibration`
  (latent classes, mirt's ``mdirt``);
* :mod:`~irtbridge.calibration.results.mixed_result`: :class:`~irtbridge.calibration.MixedCalibration`
  (mixed effects, mirt's ``mixedmirt``, and the LLTM);
* :mod:`~irtbridge.calibration.results._base`: :class:`~irtbridge.calibration.results._base.FitResult`,
  the one base of every result (the shared statistics, ``summary()``, ``global_fit``/``reliability``/``plot``
  and the naming rule of the columns), with :mod:`~irtbridge.calibration.results._pickle` (pickling without
  the live R model), :mod:`~irtbridge.calibration.results._se` (standard errors on demand) and
  :mod:`~irtbridge.calibration.results._serial` (a Calibration's JSON and its copy without the R model);
* the methods mixed into :class:`~irtbridge.calibration.Calibration`:
  :mod:`~irtbridge.calibration.results._inference` (the parameters' covariance matrix, Wald and Lagrange
  tests, confidence intervals, MDISC/MDIFF, test information in a direction) and
  :mod:`~irtbridge.calibration.results._scoring` (the abilities' covariance matrices); they call the
  functions of :mod:`irtbridge.calibration.analysis`, which never imports a result;
* :mod:`~irtbridge.calibration.results.flags`: item estimates the data do not identify, the ``flag``
  vocabulary every result shares.

Nothing is imported here: the public names come from :mod:`irtbridge.calibration`.
"""
