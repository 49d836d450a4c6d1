"""What is computed on a fit, each by mirt's own function on the live model (the results' methods call these).

A fit comes in as an argument: nothing here imports a result class (:mod:`irtbridge.calibration.results`
stands above this room); what both read is in :mod:`irtbridge.calibration.shared`. The inference methods
(vcov, Wald and Lagrange tests, confidence intervals) are the result's own
(:mod:`irtbridge.calibration.results._inference`).

* :mod:`~irtbridge.calibration.analysis.diagnostics`: item, person and global fit, local dependence,
  reliability, model comparison (:func:`~irtbridge.calibration.compare`);
* :mod:`~irtbridge.calibration.analysis.fscores`: mirt's ``fscores`` options on a fit (latent priors,
  multiple imputation, QMC, EAPsum, ...);
* :mod:`~irtbridge.calibration.analysis.functioning`: differential response, test and bundle functioning
  (``DRF``, ``DTF``, ``empirical_ES``; :func:`~irtbridge.calibration.sibtest`);
* :mod:`~irtbridge.calibration.analysis.plots`: mirt's plot types (``plot(mod, type=)``, ``itemplot``);
* :mod:`~irtbridge.calibration.analysis.fitreport`: the fit report of ``irtbridge fit`` and batch units;
* :mod:`~irtbridge.calibration.analysis.simulation`: :func:`~irtbridge.calibration.simulate`, responses
  drawn from known item parameters (mirt's ``simdata``).

Nothing is imported here: the public names come from :mod:`irtbridge.calibration`.
"""
