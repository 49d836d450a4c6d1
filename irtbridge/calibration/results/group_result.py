"""The result of a multiple-group calibration: :class:`GroupCalibration`.

It offers what a :class:`~irtbridge.calibration.results.result.Calibration` does where mirt supports it for a
``MultipleGroupClass`` model: per-group item tables with standard errors, abilities (``fscores``), item
and person fit (``itemfit``, ``personfit``), ``M2``, reliability per group, plots per group, DIF (:func:`dif`, by
likelihood ratio or Wald tests), differential response and test functioning and effect sizes (``DRF``, ``DTF``,
``empirical_ES``: :mod:`irtbridge.calibration.analysis.functioning`), and one group taken out as a :class:`Calibration`
(``extract.group``). Every statistic is mirt's, computed on
the live model; the diagnostics share the R helpers of :mod:`irtbridge.calibration.analysis.diagnostics`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from irtbridge._constraints import Choice, constraints
from irtbridge._summary import Line
from irtbridge._validation import check_choice
from irtbridge.calibration.analysis import diagnostics
from irtbridge.calibration.analysis.functioning import drf, dtf, empirical_es
from irtbridge.calibration.analysis.plots import plot_groups
from irtbridge.calibration.results._base import GROUP_TABLE, FitResult, Reliability, deprecated_theta
from irtbridge.calibration.inputs.checks import check_references
from irtbridge.calibration.results.result import DICHOTOMOUS, Calibration, m2_line
from irtbridge.calibration.inputs.spec import Reference
from irtbridge.exceptions import ValidationError, r_context
from irtbridge.calibration.results._se import GROUP_PARENT
from irtbridge.calibration.shared._columns import with_adjusted
from irtbridge.calibration.shared._stored import remember, stored

__all__ = ["GroupCalibration", "dif"]

#: R's p.adjust methods, for :func:`dif`
P_ADJUST = ("holm", "hochberg", "hommel", "bonferroni", "BH", "BY", "fdr", "none")


@dataclass(frozen=True, eq=False)
class GroupCalibration(FitResult):
    """The result of :func:`~irtbridge.calibrate_groups`.

    Attributes
    ----------
    groups : tuple of str
        Group labels in mirt's order.
    items : dict of str to DataFrame
        Per group, the item table in the layout of :attr:`Calibration.items` (``a, b, g, u``; ``a, b1..``;
        with several factors mirt's slope-intercept table ``a1..ak, d, g, u``).
    standard_errors : dict of str to DataFrame
        Per group, the same shape as ``items``; NaN where a parameter is fixed or SEs were not requested.
    latent_means, latent_vars : Series
        Per group, the first factor's mean and variance (0 and 1 in a group unless ``invariance`` frees them).
    means : DataFrame
        Groups x factors: every latent mean.
    covariances : dict of str to DataFrame
        Per group, the latent covariance matrix (factors x factors).
    model : str
        As in :class:`~irtbridge.calibration.results.result.Calibration`.
    invariance : tuple of str
        mirt's invariance keywords and the items constrained equal across groups.
    group_sizes : dict of str to int
        Respondents per group.
    loglik, aic, bic : float
        As in :class:`~irtbridge.calibration.results.result.Calibration`.
    n_parameters, iterations : int
        As in :class:`~irtbridge.calibration.results.result.Calibration`.
    converged : bool
        As in :class:`~irtbridge.calibration.results.result.Calibration`.
    options, provenance : dict
        As in :class:`~irtbridge.calibration.results.result.Calibration`.
    warnings, factors, item_types, dropped_items : tuple of str
        As in :class:`~irtbridge.calibration.results.result.Calibration`.
    item_mins : dict of str to float
        As in :class:`~irtbridge.calibration.results.result.Calibration`.
    membership : tuple of str
        Each respondent's group, in the order of the responses.
    r_model : RObject or None
        The live ``MultipleGroupClass`` model (what the methods below ask).
    """

    groups: tuple[str, ...]
    items: Mapping[str, pd.DataFrame]
    latent_means: pd.Series
    latent_vars: pd.Series
    model: str
    invariance: tuple[str, ...]
    group_sizes: Mapping[str, int]
    standard_errors: Mapping[str, pd.DataFrame] = field(default_factory=dict)
    means: pd.DataFrame = field(default_factory=pd.DataFrame)
    covariances: Mapping[str, pd.DataFrame] = field(default_factory=dict)
    factors: tuple[str, ...] = ("F1",)
    item_types: tuple[str, ...] = ()
    dropped_items: tuple[str, ...] = ()
    item_mins: Mapping[str, float] = field(default_factory=dict)
    membership: tuple[str, ...] = field(default=(), repr=False)

    def __repr__(self) -> str:
        return (f"GroupCalibration(model={self.model!r}, groups={list(self.groups)}, "
                f"loglik={self.loglik:.4f}, converged={self.converged})")

    # -- what the shared diagnostics read (irtbridge.calibration.analysis.diagnostics) ---------------------
    engine = "mirt"

    @property
    def item_names(self) -> list[str]:
        """The item names, in the column order of the responses."""
        return list(next(iter(self.items.values())).index)

    @property
    def n_respondents(self) -> int:
        """The number of respondents, all groups together."""
        return int(sum(self.group_sizes.values()))

    def _live(self, what: str) -> Any:
        if self.r_model is None:
            raise ValidationError(f"{what} needs the live mirt model, which does not travel through pickle: "
                                  "call it in the process that ran calibrate_groups")
        return self.r_model

    def _group_name(self, name: Any) -> str:
        if str(name) not in self.groups:
            raise ValidationError(f"group: {name!r} is not a group of this fit; its groups are {list(self.groups)}")
        return str(name)

    # -- one group taken out ------------------------------------------------------------------------
    def group(self, name: str) -> Calibration:
        """One group as a :class:`Calibration` (mirt's ``extract.group``).

        Its items, standard errors and latent distribution are this fit's for that group, and its
        ``r_model`` is mirt's single-group model of them, so everything a Calibration offers works on it
        (``abilities(responses=...)`` for new respondents, ``residuals``, ``loadings``...). The
        log-likelihood, AIC and BIC belong to the multiple-group model as a whole: they are NaN here;
        ``n_parameters``, ``converged`` and ``iterations`` are the whole fit's.

        Parameters
        ----------
        name : str
            One of :attr:`groups`.

        Returns
        -------
        Calibration
            The group's calibration.

        Examples
        --------
        >>> from irtbridge import calibrate_groups
        >>> from irtbridge.example_data import response_dataset
        >>> lsat = response_dataset("LSAT7")                                   # doctest: +R
        >>> fit = calibrate_groups(lsat, ["even", "odd"] * 500, "2PL", se=False)
        >>> odd = fit.group("odd")
        >>> odd.n_respondents, round(odd.items.loc["Item.1", "a"], 3)  # R: coef(fit, IRTpars = TRUE, simplify = TRUE)$odd
        (500, 1.018)
        """
        from irtbridge._r import session  # the R boundary loads with the first R call, never on import

        name = self._group_name(name)
        model = session.call("irtb_mirt_extract_group", fit=self._live("group"), group=name)
        one = Calibration(
            items=self.items[name], standard_errors=self.standard_errors[name], loglik=math.nan, aic=math.nan,
            bic=math.nan, n_parameters=self.n_parameters, converged=self.converged, iterations=self.iterations,
            model=self.model, engine="mirt", n_respondents=int(self.group_sizes[name]),
            latent_mean=float(self.latent_means[name]), latent_var=float(self.latent_vars[name]),
            options={**self.options, "group": name, "invariance": list(self.invariance)}, warnings=self.warnings,
            provenance=self.provenance, dropped_items=self.dropped_items, factors=self.factors,
            item_types=self.item_types, item_mins=dict(self.item_mins), r_model=model,
        )
        # its coefficients() are this fit's for the group, with the SEs mirt computed for the whole fit
        one.__dict__[GROUP_PARENT] = (self.r_model, name)
        return one

    # -- scoring and fit ----------------------------------------------------------------------------
    def abilities(self, method: str = "EAP") -> pd.DataFrame:
        """Ability estimates of the calibration's respondents, each under its group's parameters and
        latent distribution (mirt's ``fscores(mod, method, full.scores.SE = TRUE)``).

        Parameters
        ----------
        method : str, default "EAP"
            mirt's scoring method.

        Returns
        -------
        DataFrame, one row per respondent in the order of the responses: ``group``, then ``theta`` and
        ``se`` (several factors: one column per factor, then ``se_<factor>``). Score new respondents with
        ``fit.group(name).abilities(responses=...)``.
        """
        from irtbridge._r import session  # the R boundary loads with the first R call, never on import

        method = check_choice(method, "method", ("EAP", "MAP", "ML", "WLE"), ignore_case=True)
        out = session.call("irtb_mirt_scores", fit=self._live("abilities"), method=method, responses=None,
                           item_names=self.item_names)
        frame = pd.DataFrame({(f"se_{c[3:]}" if c.startswith("SE_") else c): out[c].to_numpy(copy=True)
                              for c in out.columns})
        frame.insert(0, "group", list(self.membership))
        return frame

    def item_fit(self, stats: Any = ("S_X2",), p_adjust: str = "BH", *, na_rm: bool = False) -> pd.DataFrame:
        """Item fit per group (mirt's ``itemfit`` on the multiple-group model): one row per (group, item),
        mirt's columns, and ``p_adjusted_<stat>`` adjusted over the items of each group. ``stats``,
        ``p_adjust`` and ``na_rm`` (missing answers) as :func:`~irtbridge.calibration.analysis.diagnostics.item_fit`.

        Parameters
        ----------
        stats : str or sequence of str, default ("S_X2",)
            mirt's item-fit statistics.
        p_adjust : str, default "BH"
            R's ``p.adjust`` method.
        na_rm : bool, default False
            Leave respondents with missing answers out.

        Returns
        -------
        DataFrame
            Indexed by (``group``, ``item``).
        """
        if isinstance(stats, str):
            stats = [stats]
        stats = [check_choice(s, "stats", diagnostics.ITEM_FIT_STATS) for s in stats]
        if not stats:
            raise ValidationError("stats is empty; name at least one of " + ", ".join(diagnostics.ITEM_FIT_STATS))
        bad = [s for s in stats if s in ("infit",) and self.model not in diagnostics.RASCH_FAMILY]
        if bad:
            raise ValidationError(f"stats: 'infit' is defined for Rasch-family models (rasch, 1PL), not {self.model!r}")
        na_rm, _, _ = diagnostics.missing_options(na_rm, 0, 0)
        out = diagnostics.fetch_item_fit(self._live("item_fit"), stats, na_rm, 0, 0)
        out = out.set_index(["group", "item"])
        return with_adjusted(out, lambda col: col.groupby(level="group", sort=False).transform(
            lambda p: diagnostics.adjust_pvalues(p, p_adjust)))

    def person_fit(self) -> pd.DataFrame:
        """Zh and infit/outfit per respondent (mirt's ``personfit``), in the order of the responses, with
        each respondent's ``group`` first.

        Returns
        -------
        DataFrame
            One row per respondent.
        """
        self._live("person_fit")
        frame = diagnostics.person_fit(self)
        frame.insert(0, "group", list(self.membership))
        return frame

    def global_fit(self, type: str = "M2*") -> pd.Series:
        """M2 (``type`` ``"M2*"``, ``"M2"`` or ``"C2"``), df, p, RMSEA with its interval, one SRMSR per group
        (``SRMSR.<group>``), TLI, CFI (mirt's ``M2(mod, type = type)`` of the multiple-group model).

        Parameters
        ----------
        type : {"M2*", "M2", "C2"}, default "M2*"
            mirt's statistic.

        Returns
        -------
        Series
            The statistics by name.
        """
        self._live("global_fit")
        return diagnostics.global_fit(self, type=type)

    def reliability(self, theta: Any = None) -> Reliability:
        """Reliability per group, a dict of floats ``marginal.<group>`` (mirt's ``marginal_rxx`` of the group
        taken out, i.e. under its own latent distribution) and ``empirical.<group>`` (``empirical_rxx`` of
        its respondents' EAP scores from the multiple-group ``fscores``), group by group. One factor only.
        The table of earlier versions is :meth:`reliability_table` (``theta`` is deprecated and unused).

        Parameters
        ----------
        theta : array-like, optional
            Deprecated and unused (a DeprecationWarning when given).

        Returns
        -------
        Reliability
            A dict of floats (see above).
        """
        deprecated_theta(theta)
        table = self.reliability_table()
        values = {f"{col}.{g}": table.loc[g, col] for g in table.index for col in ("marginal", "empirical")}
        return Reliability(values, old=table, form=GROUP_TABLE)

    def reliability_table(self) -> pd.DataFrame:
        """Reliability per group as a table: index ``group``, columns ``marginal`` and ``empirical`` (the
        numbers of :meth:`reliability`).

        Returns
        -------
        DataFrame
            See above.
        """
        from irtbridge._r import session  # the R boundary loads with the first R call, never on import

        if len(self.factors) != 1:
            raise ValidationError(f"reliability: defined here for one factor; this fit has {len(self.factors)}")
        out = session.call("irtb_group_reliability", fit=self._live("reliability"))
        groups = [str(g) for g in np.atleast_1d(out["groups"])]
        frame = pd.DataFrame({"marginal": [float(v) for v in _values(out["marginal"], groups)],
                              "empirical": [float(v) for v in _values(out["empirical"], groups)]},
                             index=pd.Index(groups, name="group"))
        remember(self, "reliability", frame.copy())
        return frame

    def parameters(self) -> pd.DataFrame:
        """mirt's parameter table of this fit (``mod2values``), one row per group and parameter; edit
        ``value``/``est`` and pass it back as ``calibrate_groups(..., parameters=table)``.

        Returns
        -------
        DataFrame
            mirt's ``mod2values`` table.
        """
        from irtbridge._r import session  # the R boundary loads with the first R call, never on import

        return session.call("irtb_mirt_parameters", fit=self._live("parameters"))

    def plot(self, kind: str = "score", **kwargs: Any):
        """One curve per group (mirt's ``plot(mod, type = "score" | "info")`` and ``itemplot(mod, item)``):
        ``"score"`` (expected test score), ``"info"`` (test information) or ``"trace"`` (one ``item=``'s
        trace lines); returns the Axes. Other plots: ``fit.group(name).plot(...)``.

        Parameters
        ----------
        kind : {"score", "info", "trace"}, default "score"
            The plot.
        **kwargs
            Passed to :func:`~irtbridge.calibration.analysis.plots.plot_groups` (``item``, ``theta``, ``ax``, ``legend``).

        Returns
        -------
        matplotlib.axes.Axes
            The Axes drawn on.
        """
        return plot_groups(self, kind, **kwargs)

    def dif(self, which: Sequence[str] = ("a1", "d"), scheme: str = "add", items: Sequence[str] | None = None,
            p_adjust: str = "holm", *, method: str = "lr") -> pd.DataFrame:
        """:func:`~irtbridge.dif` on this fit (``method="wald"``: Wald tests).

        Parameters
        ----------
        which : sequence of str, default ("a1", "d")
            As :func:`~irtbridge.dif`.
        scheme : str, default "add"
            As :func:`~irtbridge.dif`.
        items : sequence of str, optional
            As :func:`~irtbridge.dif`.
        p_adjust : str, default "holm"
            As :func:`~irtbridge.dif`.
        method : {"lr", "wald"}, default "lr"
            As :func:`~irtbridge.dif`.

        Returns
        -------
        DataFrame
            As :func:`~irtbridge.dif`.
        """
        return dif(self, which, scheme, items, p_adjust, method=method)

    def drf(self, items: Sequence[str] | None = None, **kwargs: Any) -> pd.DataFrame:
        """Differential response functioning (mirt's ``DRF``): :func:`irtbridge.calibration.analysis.functioning.drf`.

        Parameters
        ----------
        items : sequence of str, optional
            As :func:`~irtbridge.calibration.analysis.functioning.drf`.
        **kwargs
            As :func:`~irtbridge.calibration.analysis.functioning.drf`.

        Returns
        -------
        DataFrame
            As :func:`~irtbridge.calibration.analysis.functioning.drf`.
        """
        return drf(self, items, **kwargs)

    def dtf(self, **kwargs: Any) -> pd.DataFrame:
        """Differential test functioning (mirt's ``DTF``): :func:`irtbridge.calibration.analysis.functioning.dtf`.

        Parameters
        ----------
        **kwargs
            As :func:`~irtbridge.calibration.analysis.functioning.dtf`.

        Returns
        -------
        DataFrame
            As :func:`~irtbridge.calibration.analysis.functioning.dtf`.
        """
        return dtf(self, **kwargs)

    def empirical_es(self, items: Sequence[str] | None = None, **kwargs: Any) -> pd.DataFrame:
        """Empirical DIF effect sizes (mirt's ``empirical_ES``):
        :func:`irtbridge.calibration.analysis.functioning.empirical_es`.

        Parameters
        ----------
        items : sequence of str, optional
            As :func:`~irtbridge.calibration.analysis.functioning.empirical_es`.
        **kwargs
            As :func:`~irtbridge.calibration.analysis.functioning.empirical_es`.

        Returns
        -------
        DataFrame
            As :func:`~irtbridge.calibration.analysis.functioning.empirical_es`.
        """
        return empirical_es(self, items, **kwargs)

    # -- the summary's parts (the skeleton is FitResult.summary: never calls R) ----------------------
    def _summary_title(self) -> str:
        return (f"irtbridge multiple-group calibration: {self.model} by mirt "
                f"({self.provenance.get('engine_version', '?')}, R {self.provenance.get('r_version', '?')})")

    def _summary_size(self) -> str:
        sizes = "   ".join(f"{g} {self.group_sizes[g]}" for g in self.groups)
        return (f"respondents {self.n_respondents} ({sizes})   items {len(self.item_names)}   "
                f"parameters {self.n_parameters}")

    def _summary_lines(self, digits: int, fit: bool) -> list[Line]:
        """Invariance, the latent distributions, and M2 / reliability once computed (``fit=True``)."""
        latent = "   ".join(f"{g} N({self.latent_means[g]:.{digits}f}, {self.latent_vars[g]:.{digits}f})"
                            for g in self.groups)
        lines = [Line.of("invariance", f"invariance: {', '.join(self.invariance) if self.invariance else 'none (configural)'}"),
                 Line.of("latent", f"latent {self.factors[0]}: {latent}")]
        if fit:
            lines += [Line.of(f"fit_{i}", text) for i, text in enumerate(self._fit_lines(digits))]
            table = stored(self).get("reliability")
            if table is not None:
                lines.append(Line.of("reliability", "reliability: " + "   ".join(
                    f"{g} marginal {table.loc[g, 'marginal']:.{digits}f} empirical {table.loc[g, 'empirical']:.{digits}f}"
                    for g in table.index)))
        return lines

    def _summary_notes(self) -> list[str]:
        return [f"dropped constant items: {', '.join(self.dropped_items)}"] if self.dropped_items else []

    def _summary_tables(self) -> tuple[tuple[str, pd.DataFrame], ...]:
        return tuple((f"items: {g}", self.items[g]) for g in self.groups)

    def _summary_data(self) -> dict[str, Any]:
        return {"model": self.model, "groups": list(self.groups), "group_sizes": dict(self.group_sizes),
                "invariance": list(self.invariance), "latent_means": self.latent_means.to_dict(),
                "latent_vars": self.latent_vars.to_dict(),
                "items": {g: self.items[g].reset_index().rename(columns={"index": "item"}) for g in self.groups}}

    def _fit_lines(self, digits: int) -> list[str]:
        """M2 once :meth:`global_fit` has computed it (never computed here)."""
        done = [m2_line(g, k.split(":", 1)[1], digits) for k, g in stored(self).items() if k.startswith("global_fit:")]
        return done or ["fit statistics: not computed yet (fit.global_fit(); shown here once computed)"]


def _values(value: Any, groups: list[str]) -> list[Any]:
    """Per-group values from R (a named vector arrives as a dict, an array or a scalar)."""
    if isinstance(value, dict):
        return [value[g] for g in groups]
    if isinstance(value, pd.Series):
        return value.tolist()
    try:
        return list(value)
    except TypeError:
        return [value]


def item_table(table: pd.DataFrame, names: list[str], model: str) -> pd.DataFrame:
    """One group's item table labelled with the caller's item names (as a Calibration's)."""
    frame = pd.DataFrame(table.to_numpy(dtype=float, copy=True), index=pd.Index(names), columns=list(table.columns))
    if model in DICHOTOMOUS and {"a", "b", "g", "u"} <= set(frame.columns):
        frame = frame[["a", "b", "g", "u"]]
    return frame


@constraints(scheme=Choice(("add", "drop")), p_adjust=Choice(P_ADJUST), method=Choice(("lr", "wald"), ignore_case=True))
def dif(group_fit: GroupCalibration, which: Sequence[str] = ("a1", "d"), scheme: str = "add",
        items: Sequence[str] | None = None, p_adjust: str = "holm", *, method: str = "lr") -> pd.DataFrame:
    """Differential item functioning by likelihood ratio or Wald tests (mirt's ``DIF``).

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
    method : {"lr", "wald"}
        ``"lr"``: each item's likelihood ratio test (a refit per item). ``"wald"``: a Wald test that the
        item's ``which`` parameters are equal across groups, from the fit's own estimates and their
        covariance (no refit; mirt's ``Wald = TRUE``): needs ``scheme="add"`` and a fit with standard
        errors (``calibrate_groups(..., se=True)``, the default).

    Returns
    -------
    DataFrame, one row per item (index = item): ``AIC, SABIC, HQ, BIC, X2, df, p, p_adjusted``;
    ``method="wald"``: ``W, df, p, p_adjusted``.

    Examples
    --------
    Do slopes and intercepts of the first two LSAT7 items differ between alternate rows? (R:
    ``DIF(multipleGroup(...), c("a1", "d"), items2test = c("Item.1", "Item.2"))``; they do not.)

    >>> from irtbridge import calibrate_groups
    >>> from irtbridge.example_data import response_dataset
    >>> lsat = response_dataset("LSAT7")                                   # doctest: +R
    >>> configural = calibrate_groups(lsat, ["even", "odd"] * 500, "2PL", se=False)
    >>> dif(configural, which=["a1", "d"], items=["Item.1", "Item.2"])[["X2", "df", "p"]].round(3)
               X2   df      p
    Item.1  0.028  2.0  0.986
    Item.2  0.027  2.0  0.986

    The same hypotheses by Wald tests (R: ``DIF(mod, c("a1", "d"), items2test = c("Item.1", "Item.2"),
    Wald = TRUE)`` on the fit with ``SE = TRUE``):

    >>> with_se = calibrate_groups(lsat, ["even", "odd"] * 500, "2PL")
    >>> dif(with_se, which=["a1", "d"], items=["Item.1", "Item.2"], method="wald")[["W", "df", "p"]].round(3)
                W  df      p
    Item.1  0.028   2  0.986
    Item.2  0.027   2  0.986
    """
    if not isinstance(group_fit, GroupCalibration):
        raise ValidationError(f"dif needs a GroupCalibration from calibrate_groups, got {type(group_fit).__name__}")
    if group_fit.r_model is None:
        raise ValidationError("dif needs the live mirt model: call it in the process that ran calibrate_groups")
    wald = method.lower() == "wald"  # scheme, p_adjust and method: declared above
    if wald and scheme != "add":
        raise ValidationError("scheme: Wald tests compare the free estimates, so they need scheme='add'")
    if wald and not group_fit.options.get("se"):
        raise ValidationError("method: Wald tests need the fit's standard errors; fit with calibrate_groups(..., se=True)")
    which = [which] if isinstance(which, str) else list(which)
    if not which:
        raise ValidationError("which: name at least one parameter (e.g. ['a1', 'd'])")
    known = list(next(iter(group_fit.items.values())).index)
    if items is not None:
        items = [items] if isinstance(items, str) else list(items)
        unknown = [i for i in items if i not in known]
        if unknown:
            raise ValidationError(f"items: unknown item(s) {unknown[:5]}")
    from irtbridge._r import session  # the R boundary loads with the first R call, never on import

    # mirt stops on a parameter the model lacks or fixes only inside DIF(); say it here, in one line
    table = session.call("irtb_mirt_parameters", fit=group_fit.r_model)
    first = table[table["group"] == table["group"].iloc[0]]
    check_references(first, [Reference("DIF", i, w, "which") for i in (items or known) for w in which],
                     f"{group_fit.model} multiple-group")
    with r_context("dif: mirt's DIF"):
        if wald:
            out = session.call("irtb_mirt_dif_wald", fit=group_fit.r_model, which=which, items=items,
                               p_adjust=p_adjust)
        else:
            out = session.call("irtb_mirt_dif", fit=group_fit.r_model, which=which, scheme=scheme, items=items,
                               p_adjust=p_adjust)
    frame = out.set_index("item")
    frame.index.name = None
    frame = frame.rename(columns={"adj_p": "p_adjusted", "p.adjust": "p_adjusted", "adj_pvals": "p_adjusted"})
    if "p_adjusted" not in frame.columns:
        frame["p_adjusted"] = frame["p"] if p_adjust == "none" else np.nan
    cols = [c for c in ("converged", "AIC", "SABIC", "HQ", "BIC", "X2", "W", "df", "p", "p_adjusted")
            if c in frame.columns]
    return frame[cols]
