"""The native EM core: marginal maximum likelihood (and MAP) item calibration in numpy, checked against mirt.

Modules:

* :mod:`~irtbridge.em.core`: the response layout (:class:`ResponseData`, answered cells only, sparse),
  quadrature, the E-step and :func:`fit_em`, the one EM of every native model;
* :mod:`~irtbridge.em.items`: the item models (:class:`~irtbridge.em.items.ItemModel`): one dichotomous
  logistic class whose free parameters ``(a1, d, g, u)`` are a mask (mirt's ``dich``: the 2PL family, the
  3PL, the 4PL) and the graded one; a catalogue row's model is :func:`~irtbridge.em.items.item_model`;
* :mod:`~irtbridge.em.mstep`: the M-steps of rasch, 1PL and 2PL (no asymptote);
* :mod:`~irtbridge.em.asymptotes`: the M-step of an item with a free asymptote (3PL, 4PL): Newton's method
  on its free parameters with mirt's priors, several starts in the first cycles;
* :mod:`~irtbridge.em.window`: the binary E-step on each respondent's window of nodes (numba; exact,
  most of the work skipped at leaderboard scale);
* :mod:`~irtbridge.em.dense`: the same windowed E-step on dense 0/1 data (most cells answered), one byte
  per cell;
* :mod:`~irtbridge.em.identify`: the direction of the latent scale (the mean slope positive);
* :mod:`~irtbridge.em.accelerate`: SQUAREM, shared by every native fit;
* :mod:`~irtbridge.em.graded`: the graded model's category terms (Samejima);
* :mod:`~irtbridge.em.priors`: mirt's item priors (``norm``, ``lnorm``, ``expbeta``) and the MAP M-step
  of the 2PL and 1PL;
* :mod:`~irtbridge.em.factors`: the D-factor 2PL (:func:`~irtbridge.em.factors.fit_factors`; its E- and
  M-steps in :mod:`~irtbridge.em.factor_steps`, mirt's rotations for reporting in :mod:`~irtbridge.em.rotation`,
  its crossprod standard errors in :mod:`~irtbridge.em.factor_se`);
* :mod:`~irtbridge.em.se`: standard errors as mirt's ``SE.type = "crossprod"``, one routine for every model;
* :mod:`~irtbridge.em.distributed`: the E-step on the workers of a Dask cluster;
* :mod:`~irtbridge.em.memory`: :func:`keep_freed_memory`, an opt-in process-wide malloc setting that
  speeds up the EM at leaderboard scale (or ``IRTBRIDGE_KEEP_FREED_MEMORY=1``).

Users reach it through ``irtbridge.calibrate(..., engine="native")``
(:mod:`irtbridge.calibration.engines.native`), which wraps a fit in a
:class:`~irtbridge.calibration.Calibration`.
"""

from __future__ import annotations

from irtbridge.em.core import EM_MODELS, EMResult, ResponseData, fit_em, prepare_graded, prepare_responses
from irtbridge.em.memory import keep_freed_memory

__all__ = ["EM_MODELS", "EMResult", "ResponseData", "fit_em", "keep_freed_memory", "prepare_graded",
           "prepare_responses"]
