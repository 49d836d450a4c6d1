"""Multiple-group calibration and differential item functioning through mirt.

:func:`calibrate_groups` is mirt's ``multipleGroup`` (per-group item tables, latent means and variances,
invariance constraints by mirt's keywords or item names); :func:`dif` is mirt's ``DIF`` (one likelihood
ratio test per item, with information criteria and adjusted p values).
"""

from __future__ import annotations

import time
import warnings
from typing import Any, Sequence

import numpy as np
import pandas as pd

from irtbridge import __version__
from irtbridge._catalogue import mirt_itemtype
from irtbridge.calibration.checks import check_before_fit, group_labels
from irtbridge.calibration.fitting import _prepare, _resolve_model, _structure_args, item_minimums
from irtbridge.calibration.group_result import GroupCalibration, dif, item_table
from irtbridge.calibration.itemtypes import estimation_options, item_type_options
from irtbridge.calibration.options import GROUP_OPTIONS, check_options
from irtbridge.calibration.priors import parse_priors
from irtbridge.calibration.spec import syntax_groups
from irtbridge.exceptions import ConvergenceWarning, RWarning, ValidationError, r_context

__all__ = ["calibrate_groups", "dif", "GroupCalibration", "INVARIANCE_KEYWORDS"]

# mirt's invariance keywords (item names are also allowed: those items are equal across groups)
INVARIANCE_KEYWORDS = ("free_means", "free_var", "free_cov", "slopes", "intercepts")


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
        As in :func:`~irtbridge.calibrate`. ``spec`` (a :class:`~irtbridge.calibration.spec.ModelSpec` or
        mirt.model text) may use mirt's group syntax: ``CONSTRAINB`` (equal across groups), and a
        ``[group]`` after a keyword (``FIXED [ref] = ...``). ``parameters``: a table from
        :meth:`GroupCalibration.parameters` of a fit of the same data and model (one row per group and
        parameter). Names a spec or prior mentions are checked against ``multipleGroup``'s parameter
        table first (estimated in some group, for priors and constraints).
    **options
        mirt's estimation options (``method``, ``quadpts``, ``TOL``, ``technical``, ``SE_type``...; see
        :data:`irtbridge.calibration.options.GROUP_OPTIONS`); any other name is a one-line
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

    >>> from irtbridge.datasets import response_dataset
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
    columns = [str(c) for c in responses.columns] if isinstance(responses, pd.DataFrame) else None
    model, per_item = _resolve_model(model, "mirt", columns)
    if "1PL" in (per_item or [model]):
        raise ValidationError("model: the 1PL's one shared slope has no multiple-group form; use 'rasch', or "
                              "'2PL' with invariance=['slopes']")
    if not isinstance(dims, (int, np.integer)) or isinstance(dims, bool) or dims < 1:
        raise ValidationError(f"dims must be a positive integer, got {dims!r}")
    method = options.pop("method", None)  # checked below against the methods mirt knows
    options = check_options(options, GROUP_OPTIONS, "calibrate_groups")
    prep = _prepare(responses, columns, model, per_item, drop_constant)
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
    prior_list = parse_priors(priors, names) if priors is not None else []
    structure = _structure_args(prep.per_item, dims, spec, parameters, names)
    unknown = [g for g in syntax_groups(structure.get("syntax", "")) if g not in set(labels)]
    if unknown:
        raise ValidationError(f"spec: [{unknown[0]}] is not a group of these responses; the groups are "
                              f"{sorted(set(labels))[:10]}")
    from irtbridge._r import session

    session.ensure_packages("mirt")
    r_model = list(prep.per_item) if prep.per_item is not None else model
    check_before_fit(prep.values, names, model, prep.per_item, structure, parameters, prior_list, options,
                     groups={"group": labels, "invariance": invariance})
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with r_context("calibrate_groups: mirt's multipleGroup"):
            out = session.call("irtb_mirt_groups", data=prep.values, item_names=names, group=labels,
                               itemtype=mirt_itemtype(r_model), invariance=invariance, se=bool(se), options=dict(options),
                               **({"priors": [p.to_r() for p in prior_list]} if prior_list else {}), **structure)
    r_warnings = [str(w.message).removeprefix("R: ") for w in caught]
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if se and out.get("se_problem") is not None:
        message = f"mirt: standard errors unavailable ({str(out['se_problem']).strip()}); estimates kept"
        warnings.warn(message, RWarning, stacklevel=2)
        r_warnings.append(message)
    converged = bool(out["converged"])
    if not converged:
        warnings.warn(f"mirt's multipleGroup did not converge after {out['iterations']} iterations",
                      ConvergenceWarning, stacklevel=2)
    recorded = dict(options, se=bool(se), **_recorded_options(structure, prior_list))
    return _assemble(out, names, model, prep, labels, invariance, recorded, r_warnings,
                     time.perf_counter() - started)


def group_calibration_from_r_model(model: Any) -> GroupCalibration:
    """A fitted mirt ``multipleGroup`` model (an ``RObject`` of class ``MultipleGroupClass``) as a
    GroupCalibration, read as :func:`calibrate_groups` reads its own fit (the models
    :mod:`irtbridge.mirt` returns)."""
    from types import SimpleNamespace

    from irtbridge._r import session
    from irtbridge.calibration.engines.rbacked import model_name

    out = session.call("irtb_pass_mirt_groups", fit=model)
    names = [str(n) for n in np.atleast_1d(out["item_names"])]
    per_item = [model_name(t, k) for t, k in zip(np.atleast_1d(out["itemtype"]), np.atleast_1d(out["ncat"]))]
    mixed = len(set(per_item)) > 1
    data = out["data"]
    values = np.asarray(data.to_numpy() if isinstance(data, pd.DataFrame) else data, dtype=float)
    prep = SimpleNamespace(values=values, per_item=per_item if mixed else None, dropped=())
    if not bool(out["converged"]):
        warnings.warn(f"mirt's multipleGroup did not converge after {out['iterations']} iterations",
                      ConvergenceWarning, stacklevel=4)
    invariance = [str(v) for v in np.atleast_1d(out["invariance"]) if v]
    labels = [str(g) for g in np.atleast_1d(out["membership"])]
    return _assemble(out, names, "mixed" if mixed else per_item[0], prep, labels, invariance,
                     {"se": bool(out["se_done"])}, [], float(out["seconds"]))


def _recorded_options(structure: dict[str, Any], priors: list) -> dict[str, Any]:
    """The effective options a fit records for its structure and priors (as :func:`calibrate`)."""
    return {**({"priors": [p.to_r() for p in priors]} if priors else {}),
            **{k: v for k, v in structure.items() if k in ("dims", "syntax")}}


def _assemble(out: dict[str, Any], names: list[str], model: str, prep: Any, labels: list[str],
              invariance: list[str], options: dict[str, Any], r_warnings: list[str], seconds: float) -> GroupCalibration:
    """The GroupCalibration from R's plain result: per-group tables labelled with the caller's names."""
    from irtbridge._r import session

    group_names = [str(g) for g in np.atleast_1d(out["groups"])]
    layout = model if prep.per_item is None else "mixed"
    tables = {g: item_table(t, names, layout) for g, t in zip(group_names, _as_list(out["items"]))}
    ses = ({g: item_table(t, names, layout) for g, t in zip(group_names, _as_list(out["se"]))}
           if out.get("se") is not None else {g: t * np.nan for g, t in tables.items()})
    factors = tuple(str(f) for f in np.atleast_1d(out["factor_names"]))
    means = pd.DataFrame([[float(v) for v in _as_list(m)] for m in _as_list(out["means"])],
                         index=pd.Index(group_names, name="group"), columns=list(factors))
    covs = {}
    for g, c in zip(group_names, _as_list(out["covs"])):
        values = np.atleast_2d(np.asarray(c.to_numpy() if isinstance(c, pd.DataFrame) else c, dtype=float))
        covs[g] = pd.DataFrame(values, index=list(factors), columns=list(factors))
    versions = session.r_versions(["mirt"])
    return GroupCalibration(
        groups=tuple(group_names), items=tables,
        latent_means=pd.Series(means.iloc[:, 0].to_numpy(), index=group_names, name="mean"),
        latent_vars=pd.Series([covs[g].iloc[0, 0] for g in group_names], index=group_names, name="var"),
        loglik=float(out["loglik"]), aic=float(out["aic"]), bic=float(out["bic"]),
        n_parameters=int(out["n_parameters"]), converged=bool(out["converged"]), iterations=int(out["iterations"]),
        model=model, invariance=tuple(invariance),
        group_sizes={g: int(v) for g, v in zip(group_names, _per_group(out["sizes"], group_names))},
        options=options, warnings=tuple(r_warnings),
        provenance={"irtbridge_version": __version__, "engine_version": versions["packages"]["mirt"],
                    "r_version": versions["r"], "fit_seconds": seconds},
        standard_errors=ses, means=means, covariances=covs, factors=factors,
        item_types=tuple(prep.per_item) if prep.per_item is not None else (), dropped_items=prep.dropped,
        item_mins=item_minimums(prep.values, names), membership=tuple(labels), r_model=out["model"],
    )


def _as_list(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple, np.ndarray)):
        return list(value)
    if isinstance(value, dict):
        return list(value.values())
    return [value]


def _per_group(value: Any, groups: list[str]) -> list[float]:
    if isinstance(value, dict):
        return [float(value[g]) for g in groups]
    return [float(v) for v in np.atleast_1d(value)]
