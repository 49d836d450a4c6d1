"""Multiple-group calibration and differential item functioning through mirt.

:func:`calibrate_groups` is mirt's ``multipleGroup`` (per-group item tables, latent means and variances,
invariance constraints by mirt's keywords or item names); :func:`dif` is mirt's ``DIF`` (one likelihood
ratio test per item, with information criteria and adjusted p values).
"""

from __future__ import annotations

from typing import Any, Sequence, cast

import pandas as pd

from irtbridge._catalogue import GROUP_DOMAINS
from irtbridge._constraints import Flag, constraints
from irtbridge.calibration.engines.request import FitRequest
from irtbridge.calibration.fit.fitting import DIMS
from irtbridge.calibration.inputs.engine_table import ENGINE_TABLE
from irtbridge.calibration.inputs.checks import check_before_fit, group_labels
from irtbridge.calibration.inputs.itemtypes import estimation_options, item_type_options, resolve_model
from irtbridge.calibration.inputs.options import GROUP_OPTIONS, check_options
from irtbridge.calibration.inputs.priors import parse_priors
from irtbridge.calibration.inputs.responses import calibration_data
from irtbridge.calibration.inputs.spec import Reference, structure_arguments, syntax_groups
from irtbridge.calibration.results.group_result import GroupCalibration, dif
from irtbridge.exceptions import ValidationError, r_context

__all__ = ["calibrate_groups", "check_dif_which", "dif", "GroupCalibration", "INVARIANCE_KEYWORDS"]

# mirt's invariance keywords (item names are also allowed: those items are equal across groups)
INVARIANCE_KEYWORDS = ("free_means", "free_var", "free_cov", "slopes", "intercepts")


# TOL, quadpts, technical ... are **options, checked against the catalogue's domains (TOL = NaN taken, as mirt does)
@constraints(se=Flag(), drop_constant=Flag(), dims=DIMS)
def calibrate_groups(responses: Any, groups: Any, model: Any = "2PL", invariance: Sequence[str] = (), *,
                     se: bool = True, drop_constant: bool = False, priors: Any = None, dims: int = 1,
                     spec: Any = None, parameters: Any = None, **options: Any) -> GroupCalibration:
    """A multiple-group IRT model in mirt (``multipleGroup``).

    Parameters
    ----------
    responses : DataFrame or 2-D array
        Rows are respondents, columns items (as :func:`~irtbridge.calibrate`).
    groups : sequence
        One group label per respondent (at least two distinct labels, none missing).
    model : str, or one per item (list, or mapping item -> name)
        The models of :func:`~irtbridge.calibrate` that mirt fits, except the ``1PL`` (its one shared
        slope has no multiple-group meaning: use ``rasch`` or ``invariance=["slopes"]``).
    invariance : sequence of str
        mirt's ``invariance``: item names (equal across groups) and keywords ``free_means``,
        ``free_var``, ``free_cov``, ``slopes``, ``intercepts``. Empty: the configural model (every
        group's items free, every latent distribution N(0, 1)).
    se : bool
        Standard errors (per group, in ``standard_errors``); a singular information matrix keeps the
        estimates (NaN SEs, one RWarning).
    drop_constant : bool, default False
    priors : mapping or list of Prior, optional
    dims : int, default 1
    spec : ModelSpec or str, optional
    parameters : DataFrame, optional
        As in :func:`~irtbridge.calibrate`. ``spec`` (a :class:`~irtbridge.calibration.inputs.spec.ModelSpec` or
        mirt.model text) may use mirt's group syntax: ``CONSTRAINB`` (equal across groups), and a
        ``[group]`` after a keyword (``FIXED [ref] = ...``). ``parameters``: a table from
        :meth:`GroupCalibration.parameters` of a fit of the same data and model (one row per group and
        parameter). Names a spec or prior mentions are checked against ``multipleGroup``'s parameter
        table first (estimated in some group, for priors and constraints).
    **options
        mirt's estimation options (``method``, ``quadpts``, ``TOL``, ``technical``, ``SE_type``...; see
        :data:`irtbridge.calibration.inputs.options.GROUP_OPTIONS`); any other name is a one-line
        :class:`ValidationError` (mirt would ignore it without a word).

    Returns
    -------
    GroupCalibration

    Notes
    -----
    R equivalent: ``multipleGroup(data, model, group, itemtype, invariance = c(...), SE = se, ...)`` with
    ``model`` the number of factors or ``mirt.model(spec)``, then ``coef(fit, IRTpars = TRUE, simplify = TRUE)``
    per group (slope-intercept with several factors).

    Examples
    --------
    Two groups of LSAT7 respondents (alternate rows), the first three items as anchors, the second
    group's latent mean and variance free (R: ``multipleGroup(expand.table(LSAT7), 1, rep(c("even",
    "odd"), 500), invariance = c("Item.1", "Item.2", "Item.3", "free_means", "free_var"))``):

    >>> from irtbridge.example_data import response_dataset
    >>> lsat = response_dataset("LSAT7")                                   # doctest: +R
    >>> groups = ["even", "odd"] * 500
    >>> fit = calibrate_groups(lsat, groups, "2PL", invariance=[*lsat.columns[:3], "free_means", "free_var"],
    ...                        se=False)
    >>> fit.latent_means.round(3)
    even    0.000
    odd    -0.003
    Name: mean, dtype: float64
    >>> fit.latent_vars.round(3)
    even    1.000
    odd     0.959
    Name: var, dtype: float64
    """
    request = _request(responses, groups, model, invariance, se, drop_constant, priors, dims, spec, parameters,
                       options)
    with r_context("calibrate_groups: mirt's multipleGroup"):
        return cast(GroupCalibration, ENGINE_TABLE["mirt"].fit(request))  # the groups design's result


def _request(responses: Any, groups: Any, model: Any, invariance: Sequence[str], se: bool, drop_constant: bool,
             priors: Any, dims: int, spec: Any, parameters: Any, options: dict[str, Any]) -> FitRequest:
    """:func:`calibrate_groups`'s checks and the request they give (no R call)."""
    columns = [str(c) for c in responses.columns] if isinstance(responses, pd.DataFrame) else None
    model, per_item = resolve_model(model, columns)
    if "1PL" in (per_item or [model]):
        raise ValidationError("model: the 1PL's one shared slope has no multiple-group form; use 'rasch', or "
                              "'2PL' with invariance=['slopes']")
    method = options.pop("method", None)  # checked below against the methods mirt knows
    options = check_options(options, GROUP_OPTIONS, "calibrate_groups", GROUP_DOMAINS)
    prep = calibration_data(responses, columns, model, per_item, drop_constant)
    options = estimation_options("mirt", options, method=method)
    options = item_type_options(options, prep.model, prep.per_item, prep.values, prep.names, prep.all_names)
    names = prep.names
    labels = group_labels(groups, prep.values.shape[0])
    invariance = [invariance] if isinstance(invariance, str) else [str(v) for v in invariance]
    unknown = [v for v in invariance if v not in INVARIANCE_KEYWORDS and v not in names]
    if unknown:
        raise ValidationError(f"invariance: unknown item(s) or keyword(s) {unknown[:5]}; keywords are "
                              f"{', '.join(INVARIANCE_KEYWORDS)}")
    if priors is not None and per_item is not None:
        raise ValidationError("priors: with per-item models put priors in a ModelSpec or the parameters table")
    structure = structure_arguments(dims, spec, parameters, names)
    unknown = [g for g in syntax_groups(structure.get("syntax", "")) if g not in set(labels)]
    if unknown:
        raise ValidationError(f"spec: [{unknown[0]}] is not a group of these responses; the groups are "
                              f"{sorted(set(labels))[:10]}")
    return FitRequest(prep.values, tuple(names), model, bool(se), options,
                      per_item=tuple(prep.per_item) if prep.per_item is not None else None, dropped=prep.dropped,
                      priors=tuple(parse_priors(priors, names)) if priors is not None else (),
                      structure={**structure, "group": labels, "invariance": invariance}, parameters=parameters,
                      design="groups")


def check_dif_which(responses: Any, groups: Any, model: Any = "2PL", which: Sequence[str] = ("a1", "d"),
                    items: Sequence[str] | None = None, invariance: Sequence[str] = (), *, name: str = "which") -> None:
    """Check, before the multiple-group fit, that :func:`dif` can test ``which`` on ``items``.

    :func:`dif` checks its ``which`` against the fitted model; a job that fits only to test DIF (``irtbridge
    dif``) asks first: the same checks as :func:`calibrate_groups` on the same arguments, then each named
    parameter looked up in mirt's parameter table of the model (``pars = "values"``, no fit), where it must
    exist and be estimated, as mirt's ``DIF`` needs.

    Parameters
    ----------
    responses : DataFrame or 2-D array
        As :func:`calibrate_groups`.
    groups : sequence
        As :func:`calibrate_groups`.
    model : str, or one per item, default "2PL"
        As :func:`calibrate_groups`.
    which : sequence of str, default ("a1", "d")
        mirt's parameter names to test, as :func:`dif`.
    items : sequence of str, optional
        The items to test (default: every item).
    invariance : sequence of str, default ()
        As :func:`calibrate_groups`.
    name : str, default "which"
        The argument named in the message (``"--which"`` on the command line).

    Raises
    ------
    ValidationError
        One line naming ``name``, the parameter, the item and the model's parameters.

    Notes
    -----
    R equivalent: ``mirt(data, 1, itemtype, pars = "values")``; the names of a configural or invariant
    multiple-group model are the same, and one group's table does not need every category in every group.
    """
    which = [which] if isinstance(which, str) else [str(w) for w in which]
    if not which:
        raise ValidationError(f"{name}: name at least one parameter (e.g. a1,d)")
    request = _request(responses, groups, model, invariance, False, False, None, 1, None, None, {})
    tested = list(request.names) if items is None else [str(i) for i in items]
    references = [Reference("DIF", item, param, name) for item in tested for param in which]
    check_before_fit(request.data, list(request.names), request.model,
                     list(request.per_item) if request.per_item is not None else None, {"dims": 1}, None, [],
                     dict(request.options), references=references)
