"""Bifactor models with mirt's dimension reduction: :func:`calibrate_bifactor` (mirt's ``bfactor``).

A bifactor model has one general factor over every item and one specific factor per item. Written as
a :class:`~irtbridge.calibration.inputs.spec.ModelSpec` and fitted by :func:`~irtbridge.calibrate`, it is a
full-dimensional model: quadrature over 1 + k factors, infeasible beyond two or three specific factors.
``bfactor`` fits the same model by Gibbons and Hedeker's dimension reduction: the specific factors are
orthogonal, so the likelihood needs only two-dimensional quadrature (general x one specific) whatever
k is. This module is the one way to ask for that; ``calibrate(spec=...)`` stays the general route for
structures that are not bifactor (or bifactor with correlated factors).
"""

from __future__ import annotations

import numbers
from typing import Any, Sequence, cast

import numpy as np
import pandas as pd

from irtbridge._constraints import Flag, constraints
from irtbridge._catalogue import CATALOGUE
from irtbridge.calibration.engines.request import FitRequest
from irtbridge.calibration.inputs.engine_table import ENGINE_TABLE
from irtbridge.calibration.inputs.itemtypes import resolve_model
from irtbridge.calibration.inputs.options import MIRT_OPTIONS, check_options
from irtbridge.calibration.inputs.responses import calibration_data, item_minimums
from irtbridge.calibration.inputs.spec import ModelSpec
from irtbridge.calibration.results.result import Calibration
from irtbridge.exceptions import ValidationError, r_context

__all__ = ["calibrate_bifactor", "BFACTOR_OPTIONS"]

#: the estimation options calibrate_bifactor passes to mirt's bfactor (mirt's ``mirt`` options without
#: those bfactor refuses or sets itself: ``method``, ``dentype``, latent regression, ``BFACTOR``)
BFACTOR_OPTIONS = tuple(o for o in MIRT_OPTIONS if o not in ("method", "dentype", "covdata", "formula",
                                                             "latent.regression", "BFACTOR", "itemdesign",
                                                             "item.formula"))


@constraints(se=Flag(allow_none=True, none_means="None (on first access)"))
def calibrate_bifactor(responses: Any, specific: Sequence[Any], model: Any = "2PL", *, general: Any = None,
                       se: bool | None = None, **options: Any) -> Calibration:
    """Calibrate a bifactor model with mirt's ``bfactor`` (dimension reduction).

    Parameters
    ----------
    responses : DataFrame or 2-D array
        Rows are respondents, columns items (as :func:`~irtbridge.calibrate`; constant items are an error).
    specific : sequence
        One entry per item: the specific factor it loads on, as a positive integer (mirt's ``model``
        vector; the factors are named ``S1``, ``S2``... in increasing order of these numbers), or
        ``None``/NaN for an item with no specific factor.
    model : str, or one per item (list, or mapping item -> name)
        The item types of :func:`~irtbridge.calibrate` that mirt fits (``2PL``, ``3PL``, ``graded``...).
    general : ModelSpec or str, optional
        The general part (mirt's ``model2``): default one factor ``G`` over all items; mirt.model text or
        a :class:`~irtbridge.calibration.inputs.spec.ModelSpec` (e.g. two correlated general factors, or
        constraints), handed to ``mirt.model()`` as data.
    se : {None, True, False}
        Standard errors as in :func:`~irtbridge.calibrate` (``None``: on first access of
        ``fit.standard_errors``, the numbers of ``bfactor(..., SE = TRUE)``).
    **options
        mirt's estimation options that ``bfactor`` passes on (``quadpts``, ``TOL``, ``technical``,
        ``SE_type``, ...: :data:`BFACTOR_OPTIONS`); anything else is a one-line :class:`ValidationError`.

    Returns
    -------
    Calibration
        Several factors: slope-intercept items (``a1`` the general factor, ``a2``... the specific ones
        in order, then ``d`` or ``d1..``, ``g``, ``u``); ``factors`` is ``("G", "S1", ...)``;
        ``options`` records ``specific`` (and ``general``). Everything a Calibration offers works on it
        (``abilities``, ``global_fit``, ``parameters``...).

    Notes
    -----
    R equivalent: ``bfactor(data, specific, model2 = mirt.model(general), itemtype = model, SE = se,
    ...)``, then ``coef(fit, simplify = TRUE)``.

    Examples
    --------
    Two specific factors over the four Science items (R: ``bfactor(Science, c(1, 1, 2, 2))``):

    >>> from irtbridge.calibration import calibrate_bifactor
    >>> from irtbridge.example_data import response_dataset
    >>> science = response_dataset("Science")                              # doctest: +R
    >>> fit = calibrate_bifactor(science, [1, 1, 2, 2], "graded", se=False)
    >>> fit.factors, round(fit.loglik, 3)
    (('G', 'S1', 'S2'), -1607.861)
    """
    columns = [str(c) for c in responses.columns] if isinstance(responses, pd.DataFrame) else None
    model, per_item = resolve_model(model, columns)
    if any(CATALOGUE[m].slopes == "equal" for m in (per_item or [model])):
        raise ValidationError("model: calibrate_bifactor does not fit the 1PL (bfactor() would drop its one "
                              "shared slope); use 'rasch' or '2PL'")
    if se is not None and not isinstance(se, (bool, np.bool_)):
        raise ValidationError(f"se must be None (on first access), True or False, got {se!r}")
    se = None if se is None else bool(se)
    options = check_options(options, BFACTOR_OPTIONS, "calibrate_bifactor")
    mirt = ENGINE_TABLE["mirt"]
    se = mirt.se_request(se, options)
    prep = calibration_data(responses, columns, model, per_item, drop_constant=False)
    structure: dict[str, Any] = {"specific": _specific(specific, prep.names)}
    if general is not None:
        structure["general"] = _general(general, prep.names)
    request = FitRequest(prep.values, tuple(prep.names), model, se, options,
                         per_item=tuple(prep.per_item) if prep.per_item is not None else None, structure=structure,
                         design="bifactor")
    with r_context(f"calibrate_bifactor: mirt's bfactor fitting the {model} model"):
        fit = cast(Calibration, mirt.fit(request))  # the bifactor design's result is a Calibration
    return fit._replace(item_mins=item_minimums(prep.values, prep.names))


def _specific(specific: Any, names: list[str]) -> list[float]:
    """One positive integer (or NaN: none) per item, as mirt's numeric ``model`` vector."""
    if isinstance(specific, (str, bytes)) or not hasattr(specific, "__len__"):
        raise ValidationError(f"specific must hold one factor number per item ({len(names)}), got {specific!r}")
    values = list(specific.to_numpy() if isinstance(specific, pd.Series) else specific)
    if len(values) != len(names):
        raise ValidationError(f"specific: {len(values)} entries for {len(names)} items; give one per item "
                              "(None for an item with no specific factor)")
    out: list[float] = []
    for name, v in zip(names, values):
        if v is None or (isinstance(v, numbers.Real) and not isinstance(v, bool) and np.isnan(float(v))):
            out.append(float("nan"))
        elif isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) and float(v).is_integer() and float(v) >= 1:
            out.append(float(v))
        else:
            raise ValidationError(f"specific: item {name!r} has {v!r}; use a positive integer factor number or None")
    if all(np.isnan(out)):
        raise ValidationError("specific: no item has a specific factor; that is calibrate(), not a bifactor model")
    return out


def _general(general: Any, names: list[str]) -> str:
    if isinstance(general, str):
        general = ModelSpec.from_syntax(general)
    if not isinstance(general, ModelSpec):
        raise ValidationError(f"general must be a ModelSpec or mirt.model text, got {type(general).__name__}")
    return general.to_syntax(names)
