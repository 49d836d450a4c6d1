"""What a calibration takes, checked before any fit: the model, its options and the scored answers.

* :mod:`~irtbridge.calibration.inputs.spec`: :class:`~irtbridge.calibration.ModelSpec`, confirmatory and
  bifactor structures (Python structures or mirt's model syntax);
* :mod:`~irtbridge.calibration.inputs.priors`: :class:`~irtbridge.calibration.Prior`, priors on item
  parameters as mirt puts them in its parameter table;
* :mod:`~irtbridge.calibration.inputs.itemtypes`: mirt's item types by name, and the estimation options
  some of them bring;
* :mod:`~irtbridge.calibration.inputs.options`: the estimation options each R engine takes (none
  ignored without a word);
* :mod:`~irtbridge.calibration.inputs.latent`: the latent density (``dentype``) and a latent regression;
* :mod:`~irtbridge.calibration.inputs.checks`: parameter names in priors, constraints and fixed values,
  checked against mirt's own parameter table before the fit;
* :mod:`~irtbridge.calibration.inputs.keys`: :func:`~irtbridge.calibration.score_key`, multiple-choice
  answers scored against a key (mirt's ``key2binary``).

Nothing is imported here: the public names come from :mod:`irtbridge.calibration`.
"""
