"""Latent class analysis through mirt's ``mdirt``: the front door :func:`calibrate_classes`.

Respondents belong to one of ``n_classes`` unobserved classes; within a class the items are independent,
each with its own category probabilities (mirt's ``"lca"`` item type). The call is checked here and fitted
by the mirt engine's ``classes`` design (:mod:`irtbridge.calibration.engines.mirt_classes`); the result is a
:class:`~irtbridge.calibration.results.class_result.ClassCalibration`.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import pandas as pd

from irtbridge._constraints import Flag, Int, Seed, constraints
from irtbridge._catalogue import GROUP_DOMAINS
from irtbridge._validation import R_SEED_MAX, as_response_matrix, check_int, check_seed
from irtbridge.calibration.engines.request import FitRequest
from irtbridge.calibration.inputs.engine_table import ENGINE_TABLE
from irtbridge.calibration.inputs.options import check_options
from irtbridge.calibration.inputs.spec import parameter_columns
from irtbridge.calibration.results.class_result import ClassCalibration
from irtbridge.exceptions import ValidationError, r_context

__all__ = ["calibrate_classes", "class_parameter_table", "ClassCalibration", "CLASS_OPTIONS"]

#: mirt's estimation options :func:`calibrate_classes` passes to ``mdirt``
CLASS_OPTIONS = ("GenRandomPars", "method", "nruns", "optimizer", "technical", "TOL", "SE.type")


@constraints(n_classes=Int(low=2), seed=Seed(allow_none=True, high=R_SEED_MAX, say_none=False), se=Flag())
def calibrate_classes(responses: Any, n_classes: int, *, parameters: pd.DataFrame | None = None,
                      seed: int | None = None, se: bool = False, **options: Any) -> ClassCalibration:
    """A latent class model (mirt's ``mdirt`` with ``"lca"`` items).

    Parameters
    ----------
    responses : DataFrame or 2-D array
        Integer-scored responses (dichotomous or polytomous), NaN for missing.
    n_classes : int
        Number of latent classes (at least 2).
    parameters : DataFrame, optional
        A parameter table (:func:`class_parameter_table` or :meth:`ClassCalibration.parameters` for the
        same data and number of classes) whose ``value``, ``est`` and bounds start or fix parameters
        (mirt's ``pars = table``).
    seed : int, optional
        R's ``set.seed`` before the fit: for random starts (``nruns`` > 1 or ``GenRandomPars=True``).
    se : bool, default False
        Standard errors of every parameter (mirt's ``SE = TRUE``; ``SE_type=`` chooses the information
        matrix, mirt's ``SE.type``, default ``"Oakes"``): :attr:`ClassCalibration.standard_errors`.
        Where the information matrix fails the estimates are kept, the SEs are NaN and one warning says why.
    **options
        ``nruns`` (fits from random starts; the best is kept), ``GenRandomPars``, ``method``
        (``"EM"``, ``"BL"``), ``optimizer``, ``TOL``, ``technical``, ``SE_type``... (:data:`CLASS_OPTIONS`);
        any other name is a one-line :class:`ValidationError`.

    Returns
    -------
    ClassCalibration

    Notes
    -----
    R equivalent: ``mdirt(data, n_classes, pars = table, SE = se, SE.type = SE_type, ...)``; then
    ``summary(mod)`` (class and item probabilities), ``coef(mod, printSE = TRUE)``, ``M2(mod)``,
    ``fscores(mod)``.

    Examples
    --------
    Two classes in the LSAT data (ltm's ``LSAT``, mirt's ``expand.table(LSAT6)``; R:
    ``mdirt(expand.table(LSAT6), 2)``):

    >>> from irtbridge.calibration import calibrate_classes
    >>> from irtbridge.example_data import response_dataset
    >>> lca = calibrate_classes(response_dataset("LSAT"), 2)             # doctest: +R
    >>> round(lca.loglik, 3)
    -2467.408
    >>> lca.class_proportions.round(3).tolist()
    [0.329, 0.671]
    """
    values, names, _ = as_response_matrix(responses, "responses")
    n_classes = check_int(n_classes, "n_classes", low=2)
    options = check_options(options, CLASS_OPTIONS, "calibrate_classes", GROUP_DOMAINS)
    if not isinstance(se, (bool, np.bool_)):
        raise ValidationError(f"se must be True or False, got {se!r}")
    if "SE.type" in options and not se:
        raise ValidationError("SE_type chooses how the standard errors are computed; pass se=True with it")
    if seed is not None:
        seed = check_seed(seed, "seed", high=R_SEED_MAX)
    request = FitRequest(values, tuple(names), "lca", bool(se), options, design="classes",
                         structure={"n_classes": n_classes, "seed": seed,
                                    "table": parameter_columns(parameters, priors=False) if parameters is not None
                                    else None})
    with r_context(f"calibrate_classes: mirt's mdirt with {n_classes} classes"):
        return cast(ClassCalibration, ENGINE_TABLE["mirt"].fit(request))  # the classes design's result


@constraints(n_classes=Int(low=2))
def class_parameter_table(responses: Any, n_classes: int, **options: Any) -> pd.DataFrame:
    """mirt's starting parameter table for ``calibrate_classes(responses, n_classes)``, without fitting.

    R equivalent: ``mdirt(data, n_classes, pars = "values")``. Edit ``value`` (start values) or ``est``
    and pass it as ``calibrate_classes(..., parameters=table)``.

    Parameters
    ----------
    responses : DataFrame or 2-D array
        The responses, as :func:`calibrate_classes` takes them.
    n_classes : int
        The number of latent classes.
    **options
        mirt's options of ``mdirt``, as :func:`calibrate_classes` takes them.

    Returns
    -------
    DataFrame
        mirt's ``pars = "values"`` table.
    """
    from irtbridge._r import session  # the R boundary loads with the first R call, never on import

    values, names, _ = as_response_matrix(responses, "responses")
    n_classes = check_int(n_classes, "n_classes", low=2)
    options = check_options(options, CLASS_OPTIONS, "class_parameter_table", GROUP_DOMAINS)
    session.ensure_packages("mirt")
    return session.call("irtb_mdirt_values", data=values, item_names=names, n_classes=n_classes,
                        options=dict(options))
