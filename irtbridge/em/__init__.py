"""The native EM core: marginal maximum likelihood (and MAP) item calibration in numpy, checked against mirt.

Modules:

* :mod:`~irtbridge.em.core`: the response layout (:class:`ResponseData`, answered cells only, sparse),
  quadrature, the E-step and :func:`fit_em`;
* :mod:`~irtbridge.em.mstep`: the M-steps of rasch, 1PL, 2PL and graded;
* :mod:`~irtbridge.em.window`: the binary E-step on each respondent's window of nodes (numba; exact,
  most of the work skipped at leaderboard scale);
* :mod:`~irtbridge.em.dense`: the same windowed E-step on dense 0/1 data (most cells answered), one byte
  per cell;
* :mod:`~irtbridge.em.identify`: the direction of the latent scale (the mean slope positive);
* :mod:`~irtbridge.em.accelerate`: SQUAREM, shared by every native fit;
* :mod:`~irtbridge.em.graded`: the graded model's category terms (Samejima);
* :mod:`~irtbridge.em.threepl`: the 3PL, maximum likelihood or mirt's MAP with priors, with a monotone
  SQUAREM accelerator;
* :mod:`~irtbridge.em.priors`: mirt's item priors (``norm``, ``lnorm``, ``expbeta``) and the MAP M-step
  of the 2PL and 1PL;
* :mod:`~irtbridge.em.se`: standard errors as mirt's ``SE.type = "crossprod"``;
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
