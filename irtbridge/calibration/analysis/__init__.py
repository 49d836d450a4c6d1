"""What is computed on a fit, each by mirt's own function on the live model (the results' methods call these).

* :mod:`~irtbridge.calibration.analysis.diagnostics`: item, person and global fit, local dependence,
  reliability, model comparison (:func:`~irtbridge.calibration.compare`);
* :mod:`~irtbridge.calibration.analysis.fscores`: mirt's ``fscores`` options on a fit (latent priors,
  multiple imputation, QMC, EAPsum, ...);
* :mod:`~irtbridge.calibration.analysis.inference`: the parameters' covariance matrix, Wald and Lagrange
  tests, confidence intervals;
* :mod:`~irtbridge.calibration.analysis.functioning`: differential response, test and bundle functioning
  (``DRF``, ``DTF``, ``empirical_ES``; :func:`~irtbridge.calibration.sibtest`);
* :mod:`~irtbridge.calibration.analysis.plots`: mirt's plot types (``plot(mod, type=)``, ``itemplot``);
* :mod:`~irtbridge.calibration.analysis.fitreport`: the fit report of ``irtbridge fit`` and batch units;
* :mod:`~irtbridge.calibration.analysis.simulation`: :func:`~irtbridge.calibration.simulate`, responses
  drawn from known item parameters (mirt's ``simdata``).

Nothing is imported here: the public names come from :mod:`irtbridge.calibration`.
"""
