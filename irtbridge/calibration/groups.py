"""Multiple-group calibration and differential item functioning through mirt.

:func:`calibrate_groups` is mirt's ``multipleGroup`` (per-group item tables, latent means and variances,
invariance constraints by mirt's keywords or item names); :func:`dif` is mirt's ``DIF`` (one likelihood
ratio test per item, with information criteria and adjusted p values).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from irtbridge import __version__
from irtbridge._validation import as_response_matrix, check_choice
from irtbridge.calibration.checks import check_references
from irtbridge.calibration.result import DICHOTOMOUS, ENGINES, MODELS
from irtbridge.calibration.spec import Reference
from irtbridge.exceptions import ConvergenceWarning, RWarning, ValidationError

__all__ = ["calibrate_groups", "dif", "GroupCalibration", "INVARIANCE_KEYWORDS"]

# mirt's invariance keywords (item names are also allowed: those items are equal across groups)
INVARIANCE_KEYWORDS = ("free_means", "free_var", "free_cov", "slopes", "intercepts")
P_ADJUST = ("holm", "hochberg", "hommel", "bonferroni", "BH", "BY", "fdr", "none")


@dataclass(frozen=True, eq=False)
class GroupCalibration:
    """The result of :func:`calibrate_groups`.

    Attributes
    ----------
    groups : tuple of str
        Group labels in mirt's order.
    items : dict of str to DataFrame
        Per group, the item table in the layout of :attr:`Calibration.items` (``a, b, g, u``; ``a, b1..``).
    latent_means, latent_vars : Series
        Per group (0 and 1 in a group unless ``invariance`` frees them).
    loglik, aic, bic, n_parameters, converged, iterations, model, invariance, group_sizes, options,
    warnings, provenance
        As in :class:`~irtbridge.calibration.result.Calibration`.
    r_model : RObject or None
        The live ``MultipleGroupClass`` model (needed by :func:`dif`).
    """

    groups: tuple[str, ...]
    items: Mapping[str, pd.DataFrame]
    latent_means: pd.Series
    latent_vars: pd.Series
    loglik: float
    aic: float
    bic: float
    n_parameters: int
    converged: bool
    iterations: int
    model: str
    invariance: tuple[str, ...]
    group_sizes: Mapping[str, int]
    options: Mapping[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    provenance: Mapping[str, Any] = field(default_factory=dict)
    r_model: Any = field(default=None, repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        return {**{k: getattr(self, k) for k in self.__dataclass_fields__}, "r_model": None}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            object.__setattr__(self, k, v)

    def __repr__(self) -> str:
        return (f"GroupCalibration(model={self.model!r}, groups={list(self.groups)}, "
                f"loglik={self.loglik:.4f}, converged={self.converged})")

    def dif(self, which: Sequence[str] = ("a1", "d"), scheme: str = "add", items: Sequence[str] | None = None,
            p_adjust: str = "holm") -> pd.DataFrame:
        """:func:`dif` on this fit."""
        return dif(self, which, scheme, items, p_adjust)


def calibrate_groups(responses: Any, groups: Any, model: str = "2PL", invariance: Sequence[str] = (), *,
                     se: bool = True, **options: Any) -> GroupCalibration:
    """A multiple-group IRT model in mirt (``multipleGroup``).

    Parameters
    ----------
    responses : DataFrame or 2-D array
        Rows are respondents, columns items (as :func:`~irtbridge.calibrate`).
    groups : sequence
        One group label per respondent (at least two distinct labels, none missing).
    model : str
        One of the single-factor models of :func:`~irtbridge.calibrate` that mirt fits.
    invariance : sequence of str
        mirt's ``invariance``: item names (equal across groups) and keywords ``free_means``,
        ``free_var``, ``free_cov``, ``slopes``, ``intercepts``. Empty: the configural model (every
        group's items free, every latent distribution N(0, 1)).
    se : bool
        Standard errors; a singular information matrix keeps the estimates (NaN SEs, one RWarning).
    **options
        mirt's estimation options (``method``, ``quadpts``, ``TOL``, ``technical``...).

    Returns
    -------
    GroupCalibration

    Notes
    -----
    R equivalent: ``multipleGroup(data, 1, group, itemtype, invariance = c(...))`` then
    ``coef(fit, IRTpars = TRUE, simplify = TRUE)`` per group.

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
    model = check_choice(model, "model", MODELS, ignore_case=True)
    if model not in ENGINES["mirt"] or model == "1PL":
        raise ValidationError(f"calibrate_groups: model {model!r} is not available for mirt's multipleGroup")
    values, names, _ = as_response_matrix(responses, "responses", dichotomous=model in DICHOTOMOUS)
    labels = _group_labels(groups, values.shape[0])
    if isinstance(invariance, str):
        invariance = [invariance]
    unknown = [v for v in invariance if v not in INVARIANCE_KEYWORDS and v not in names]
    if unknown:
        raise ValidationError(f"invariance: unknown item(s) or keyword(s) {unknown[:5]}; keywords are "
                              f"{', '.join(INVARIANCE_KEYWORDS)}")
    from irtbridge._r import session

    session.ensure_packages("mirt")
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = session.call("irtb_mirt_groups", data=values, item_names=names, group=labels, model=model,
                           invariance=list(invariance), se=bool(se), options=dict(options))
    r_warnings = [str(w.message).removeprefix("R: ") for w in caught]
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if se and out.get("se_problem") is not None:
        message = f"mirt: standard errors unavailable ({str(out['se_problem']).strip()}); estimates kept"
        warnings.warn(message, RWarning, stacklevel=2)
        r_warnings.append(message)
    return _assemble(out, names, model, tuple(invariance), dict(options, se=bool(se)), tuple(r_warnings),
                     time.perf_counter() - started)


def group_calibration_from_r_model(model: Any) -> GroupCalibration:
    """A fitted mirt ``multipleGroup`` model (an ``RObject`` of class ``MultipleGroupClass``) as a
    GroupCalibration, read as :func:`calibrate_groups` reads its own fit (the models
    :mod:`irtbridge.mirt` returns)."""
    from irtbridge._r import session
    from irtbridge.calibration.engines.rbacked import model_name

    out = session.call("irtb_pass_mirt_groups", fit=model)
    names = [str(n) for n in np.atleast_1d(out["item_names"])]
    types = {model_name(t, k) for t, k in zip(np.atleast_1d(out["itemtype"]), np.atleast_1d(out["ncat"]))}
    invariance = tuple(str(v) for v in np.atleast_1d(out["invariance"]) if v)
    return _assemble(out, names, types.pop() if len(types) == 1 else "mixed", invariance,
                     {"se": bool(out["se_done"])}, (), float(out["seconds"]), stacklevel=5)


def _assemble(out: Mapping[str, Any], names: list[str], model: str, invariance: tuple[str, ...],
              options: dict[str, Any], r_warnings: tuple[str, ...], seconds: float,
              stacklevel: int = 3) -> GroupCalibration:
    """The GroupCalibration from the R helpers' plain result (irtb_mirt_groups_result's layout)."""
    from irtbridge._r import session

    group_names = [str(g) for g in _as_list(out["groups"])]
    tables = {}
    for g, table in zip(group_names, _as_list(out["items"])):
        frame = pd.DataFrame(table.to_numpy(dtype=float, copy=True), index=pd.Index(names), columns=list(table.columns))
        tables[g] = frame[["a", "b", "g", "u"]] if {"a", "b", "g", "u"} <= set(frame.columns) else frame
    converged = bool(out["converged"])
    if not converged:
        warnings.warn(f"mirt's multipleGroup did not converge after {out['iterations']} iterations",
                      ConvergenceWarning, stacklevel=stacklevel)
    versions = session.r_versions(["mirt"])
    return GroupCalibration(
        groups=tuple(group_names), items=tables,
        latent_means=pd.Series(_per_group(out["means"], group_names), index=group_names, name="mean"),
        latent_vars=pd.Series(_per_group(out["vars"], group_names), index=group_names, name="var"),
        loglik=float(out["loglik"]), aic=float(out["aic"]), bic=float(out["bic"]),
        n_parameters=int(out["n_parameters"]), converged=converged, iterations=int(out["iterations"]),
        model=model, invariance=invariance,
        group_sizes={g: int(v) for g, v in zip(group_names, _per_group(out["sizes"], group_names))},
        options=options, warnings=r_warnings,
        provenance={"irtbridge_version": __version__, "engine_version": versions["packages"]["mirt"],
                    "r_version": versions["r"], "fit_seconds": seconds},
        r_model=out["model"],
    )


def dif(group_fit: GroupCalibration, which: Sequence[str] = ("a1", "d"), scheme: str = "add",
        items: Sequence[str] | None = None, p_adjust: str = "holm") -> pd.DataFrame:
    """Differential item functioning by likelihood ratio tests (mirt's ``DIF``).

    Parameters
    ----------
    group_fit : GroupCalibration
        ``scheme="add"``: usually the configural fit (no item invariance; anchors allowed), each item's
        ``which`` parameters are constrained equal in turn. ``scheme="drop"``: usually the fully
        invariant fit with ``free_means``/``free_var``, each item's constraints are dropped in turn.
    which : sequence of str
        mirt's parameter names tested together (``a1``, ``d``, ``g``...).
    scheme : {"add", "drop"}
    items : sequence of str, optional
        Items to test (default: all).
    p_adjust : str
        R's ``p.adjust`` method (mirt's default ``"holm"``).

    Returns
    -------
    DataFrame, one row per item (index = item): ``AIC, SABIC, HQ, BIC, X2, df, p, p_adjusted``.

    Examples
    --------
    Do slopes and intercepts of the first two LSAT7 items differ between alternate rows? (R:
    ``DIF(multipleGroup(...), c("a1", "d"), items2test = c("Item.1", "Item.2"))``; they do not.)

    >>> from irtbridge.datasets import response_dataset
    >>> lsat = response_dataset("LSAT7")                                   # doctest: +R
    >>> configural = calibrate_groups(lsat, ["even", "odd"] * 500, "2PL", se=False)
    >>> dif(configural, which=["a1", "d"], items=["Item.1", "Item.2"])[["X2", "df", "p"]].round(3)
               X2   df      p
    Item.1  0.028  2.0  0.986
    Item.2  0.027  2.0  0.986
    """
    if not isinstance(group_fit, GroupCalibration):
        raise ValidationError(f"dif needs a GroupCalibration from calibrate_groups, got {type(group_fit).__name__}")
    if group_fit.r_model is None:
        raise ValidationError("dif needs the live mirt model: call it in the process that ran calibrate_groups")
    scheme = check_choice(scheme, "scheme", ("add", "drop"))
    p_adjust = check_choice(p_adjust, "p_adjust", P_ADJUST)
    which = [which] if isinstance(which, str) else list(which)
    if not which:
        raise ValidationError("which: name at least one parameter (e.g. ['a1', 'd'])")
    known = list(next(iter(group_fit.items.values())).index)
    if items is not None:
        items = [items] if isinstance(items, str) else list(items)
        unknown = [i for i in items if i not in known]
        if unknown:
            raise ValidationError(f"items: unknown item(s) {unknown[:5]}")
    from irtbridge._r import session

    # mirt stops on a parameter the model lacks or fixes only inside DIF(); say it here, in one line
    table = session.call("irtb_mirt_parameters", fit=group_fit.r_model)
    first = table[table["group"] == table["group"].iloc[0]]
    check_references(first, [Reference("DIF", i, w, "which") for i in (items or known) for w in which],
                     f"{group_fit.model} multiple-group")
    out = session.call("irtb_mirt_dif", fit=group_fit.r_model, which=which, scheme=scheme, items=items,
                       p_adjust=p_adjust)
    frame = out.set_index("item")
    frame.index.name = None
    frame = frame.rename(columns={"adj_p": "p_adjusted", "p.adjust": "p_adjusted", "adj_pvals": "p_adjusted"})
    if "p_adjusted" not in frame.columns:
        frame["p_adjusted"] = frame["p"] if p_adjust == "none" else np.nan
    cols = [c for c in ("converged", "AIC", "SABIC", "HQ", "BIC", "X2", "df", "p", "p_adjusted") if c in frame.columns]
    return frame[cols]


def _group_labels(groups: Any, n: int) -> list[str]:
    labels = pd.Series(groups.to_numpy() if isinstance(groups, pd.Series) else np.asarray(groups, dtype=object))
    if labels.ndim != 1 or len(labels) != n:
        raise ValidationError(f"groups: need one label per respondent ({n}), got {len(labels)}")
    if labels.isna().any():
        raise ValidationError(f"groups: {int(labels.isna().sum())} respondent(s) have no group label")
    labels = labels.astype(str)
    if labels.nunique() < 2:
        raise ValidationError(f"groups: need at least two groups, got one level {labels.iloc[0]!r}")
    return labels.tolist()


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
