"""Fit diagnostics of a mirt calibration: item and person fit, global fit, local dependence,
reliability and model comparison, each computed by mirt's own function on the live model.

R equivalents: ``itemfit(mod, fit_stats = ...)``, ``personfit(mod)``, ``M2(mod, type = "M2*" | "M2" | "C2")``,
``residuals(mod, type = "LD" | "LDG2" | "Q3")``, ``marginal_rxx(mod)``, ``empirical_rxx(fscores(mod,
full.scores.SE = TRUE))`` and ``anova(mod1, mod2)``. They need the live R model of a mirt fit in this
process: an ltm fit, or a calibration restored from pickle/JSON, is a clear error (refit with
``engine="mirt"``).
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np
import pandas as pd

from irtbridge._catalogue import CATALOGUE, DICHOTOMOUS
from irtbridge._validation import R_SEED_MAX, check_choice, check_int, check_seed
from irtbridge.calibration.shared._columns import with_adjusted
from irtbridge.calibration.shared._live import live_model
from irtbridge.calibration.shared._stored import remember
from irtbridge.exceptions import RError, ValidationError, r_context
from irtbridge.irt import test_information

__all__ = [
    "ITEM_FIT_STATS",
    "item_fit",
    "person_fit",
    "global_fit",
    "residuals",
    "reliability",
    "conditional_reliability",
    "compare",
    "adjust_pvalues",
]

# mirt's fit_stats; infit/outfit are defined for Rasch-family models only
ITEM_FIT_STATS = ("S_X2", "Zh", "X2", "G2", "infit")
_RASCH_ONLY = ("infit",)
RASCH_FAMILY = tuple(m for m in DICHOTOMOUS if CATALOGUE[m].slopes != "free")  # slopes fixed or equal
GLOBAL_FIT = ("M2", "df", "p", "RMSEA", "RMSEA_5", "RMSEA_95", "SRMSR", "TLI", "CFI")


def adjust_pvalues(p: Iterable[float], method: str = "BH") -> np.ndarray:
    """Benjamini-Hochberg (``"BH"``), Holm or Bonferroni adjusted p-values, as R's ``p.adjust``.

    NaN p-values are kept as NaN and not counted.

    Parameters
    ----------
    p : iterable of float
        The p-values.
    method : {"BH", "holm", "bonferroni", "none"}, default "BH"
        The adjustment.

    Returns
    -------
    ndarray
        The adjusted p-values, in the order given.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03, 0.2]).round(4).tolist()
    [0.04, 0.0533, 0.0533, 0.2]
    """
    method = check_choice(method, "p_adjust", ("BH", "holm", "bonferroni", "none"))
    p = np.asarray(list(p), dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    m = len(ok)
    if m == 0 or method == "none":
        out[ok] = p[ok]
        return out
    q = p[ok]
    if method == "bonferroni":
        out[ok] = np.minimum(1.0, q * m)
    elif method == "holm":
        order = np.argsort(q, kind="stable")
        adj = np.maximum.accumulate((m - np.arange(m)) * q[order])
        res = np.empty(m)
        res[order] = np.minimum(1.0, adj)
        out[ok] = res
    else:
        order = np.argsort(q, kind="stable")[::-1]
        adj = np.minimum.accumulate(q[order] * m / np.arange(m, 0, -1))
        res = np.empty(m)
        res[order] = np.minimum(1.0, adj)
        out[ok] = res
    return out


def item_fit(fit: Any, stats: Iterable[str] = ("S_X2",), p_adjust: str = "BH", *, na_rm: bool = False,
             impute: int = 0, seed: int = 0) -> pd.DataFrame:
    """Item fit statistics, one row per item, as mirt's ``itemfit`` reports them.

    Parameters
    ----------
    fit : Calibration
        A mirt fit in this process.
    stats : iterable of {"S_X2", "Zh", "X2", "G2", "infit"}, default ("S_X2",)
        ``S_X2`` (Orlando and Thissen's S-X2, with ``df.S_X2``, ``RMSEA.S_X2``, ``p.S_X2``), ``Zh``,
        ``X2``/``G2`` (Bock's and McKinley-Mills' grouped statistics with df, RMSEA and p), and ``infit``
        (``outfit, z.outfit, infit, z.infit``; Rasch-family models only).
    p_adjust : {"BH", "holm", "bonferroni", "none"}, default "BH"
        Adds ``p_adjusted_<stat>`` for every p-value column ``p.<stat>``, adjusted over the items
        (``p.<stat>.adjusted`` before 0.5: that name still reads, deprecated).
    na_rm : bool, default False
        ``S_X2`` and ``Zh`` need complete response rows. True: leave out the respondents with a missing
        answer (mirt's ``na.rm = TRUE``; the number kept is ``attrs["n_respondents"]``).
    impute : int, default 0
        Instead of ``na_rm``: complete the missing answers ``impute`` times (plausible values of each
        respondent's ability, then mirt's ``imputeMissing``), compute the statistics on each completed data
        set at the fit's own parameters and average them; their standard deviations over the
        imputations are ``attrs["sd"]``. With missing answers and neither, ``S_X2``/``Zh`` are a one-line
        :class:`ValidationError` saying which to use.
    seed : int, default 0
        R's ``set.seed`` before the imputations (only with ``impute``).

    Returns
    -------
    DataFrame
        Indexed by item, mirt's column names, then ``p_adjusted_<stat>``.

    Notes
    -----
    R equivalent: ``itemfit(fit, fit_stats = stats, na.rm = na_rm)``; with ``impute = m``:
    ``set.seed(seed); pv <- fscores(fit, plausible.draws = m)``, then for each draw ``itemfit`` of the fit
    with its data replaced by ``imputeMissing(fit, pv[[i]])``, averaged over the draws.

    Examples
    --------
    >>> import irtbridge
    >>> from irtbridge.example_data import response_dataset
    >>> fit = irtbridge.calibrate(response_dataset("LSAT7"), "2PL")          # doctest: +R
    >>> fit.item_fit(["S_X2", "Zh"])[["S_X2", "df.S_X2"]].round(3)
              S_X2  df.S_X2
    item
    Item.1   4.749      2.0
    Item.2  14.453      2.0
    Item.3   1.270      2.0
    Item.4   5.238      2.0
    Item.5   0.941      2.0
    """
    if isinstance(stats, str):
        stats = [stats]
    stats = [check_choice(s, "stats", ITEM_FIT_STATS) for s in stats]
    if not stats:
        raise ValidationError("stats is empty; name at least one of " + ", ".join(ITEM_FIT_STATS))
    for s in stats:
        if s in _RASCH_ONLY and fit.model not in RASCH_FAMILY:
            raise ValidationError(f"stats: {s!r} is defined for Rasch-family models (rasch, 1PL), not {fit.model!r}")
    na_rm, impute, seed = missing_options(na_rm, impute, seed)
    model = live_model(fit, "item_fit")
    out = fetch_item_fit(model, stats, na_rm, impute, seed)
    out = out.set_index("item")
    out.index = pd.Index(fit.item_names, name="item") if len(out) == len(fit.item_names) else out.index
    return with_adjusted(out, lambda p: adjust_pvalues(p, p_adjust))


def missing_options(na_rm: Any, impute: Any, seed: Any) -> tuple[bool, int, int]:
    """``na_rm``, ``impute`` and ``seed`` of :func:`item_fit`, checked (one of the first two at most)."""
    if not isinstance(na_rm, (bool, np.bool_)):
        raise ValidationError(f"na_rm must be True or False, got {na_rm!r}")
    impute = check_int(impute, "impute", low=0)
    if na_rm and impute:
        raise ValidationError("pass na_rm=True (drop incomplete respondents) or impute=N (impute their missing "
                              "answers), not both")
    return bool(na_rm), impute, int(check_seed(seed, "seed", high=R_SEED_MAX))  # type: ignore[arg-type]


def fetch_item_fit(model: Any, stats: list[str], na_rm: bool, impute: int, seed: int) -> pd.DataFrame:
    """mirt's itemfit table (irtb_itemfit), or the one-line error for missing answers handled neither way."""
    from irtbridge._r import session  # the R boundary loads with the first R call, never on import

    with r_context("item_fit: mirt's itemfit"):
        out = session.call("irtb_itemfit", fit=model, stats=list(stats), na_rm=na_rm, impute=impute, seed=seed)
    if isinstance(out, dict) and "incomplete" in out:
        needs = [s for s in stats if s in ("S_X2", "Zh")]
        raise ValidationError(
            f"item_fit: {', '.join(needs)} need complete response rows and {int(out['incomplete'])} of "
            f"{int(out['respondents'])} respondents have missing answers; pass na_rm=True to leave them out "
            "(mirt's na.rm = TRUE) or impute=N to impute their answers N times (CLI: --na-rm or --impute N)"
        )
    if isinstance(out, dict):  # imputed: the averages, their standard deviations over the imputations
        table, sd = out["table"], out["sd"]
        table.attrs["sd"] = sd.set_index("item") if "item" in sd.columns else sd
        table.attrs["impute"] = int(out["impute"])
        return table
    return out


def person_fit(fit: Any) -> pd.DataFrame:
    """Person fit per respondent (mirt's ``personfit``): ``outfit, z.outfit, infit, z.infit, Zh``.

    Large negative ``Zh`` marks an aberrant response pattern (a classifier that fails easy instances and
    gets hard ones right). Rows are in the order of the fitted responses.

    Parameters
    ----------
    fit : Calibration
        A mirt calibration.

    Returns
    -------
    DataFrame
        One row per respondent, mirt's columns.
    """
    from irtbridge._r import session  # the R boundary loads with the first R call, never on import

    with r_context("person_fit: mirt's personfit"):
        out = session.call("irtb_personfit", fit=live_model(fit, "person_fit"))
    out.index = pd.RangeIndex(len(out), name="respondent")
    return out


def global_fit(fit: Any, type: str = "M2*") -> pd.Series:
    """Limited-information goodness of fit (mirt's ``M2``): M2, df, p, RMSEA with its 90% interval
    (``RMSEA_5``, ``RMSEA_95``), SRMSR, TLI and CFI.

    ``type`` is mirt's: ``"M2*"`` (the default; M2 itself for dichotomous items, the reduced M2* of
    Maydeu-Olivares and Joe for polytomous ones), ``"M2"`` (dichotomous items only) or ``"C2"`` (Cai and
    Monroe's C2, collapsed over categories: for polytomous items with few degrees of freedom), each
    reported under the names above; mirt's ``M2(fit, type = type)``.

    M2 needs more univariate and bivariate margins than parameters: with too few degrees of freedom
    (e.g. a 3PL on three items) it is not defined and this is an error saying so.

    Parameters
    ----------
    fit : Calibration
        A mirt calibration.
    type : {"M2*", "M2", "C2"}, default "M2*"
        The statistic (see above).

    Returns
    -------
    Series
        ``M2``, ``df``, ``p``, ``RMSEA``, ``RMSEA_5``, ``RMSEA_95``, ``SRMSR``, ``TLI``, ``CFI``.
    """
    from irtbridge._r import session  # the R boundary loads with the first R call, never on import

    type = check_choice(type, "type", ("M2*", "M2", "C2"))
    model = live_model(fit, "global_fit")
    try:
        out = session.call("irtb_m2", fit=model, type=type)
    except RError as exc:
        if "degrees of freedom" in str(exc).lower() or "df" in str(exc):
            raise ValidationError(
                f"M2 is not defined for this model: too few degrees of freedom ({len(fit.item_names)} items, "
                f"{fit.n_parameters} parameters); R said: {exc}"
            ) from None
        raise
    row = out.iloc[0]
    # a multiple-group fit has one SRMSR per group (SRMSR.<group>) in place of SRMSR
    keys = [*GLOBAL_FIT[:6], *(c for c in row.index if str(c).startswith("SRMSR")), *GLOBAL_FIT[7:]]
    series = pd.Series({k: float(row[k]) for k in keys if k in row.index}, name="global_fit")
    remember(fit, f"global_fit:{type}", series.copy())  # summary() shows it from now on
    return series


def residuals(fit: Any, kind: str = "LD") -> pd.DataFrame:
    """Item x item residuals (mirt's ``residuals``): ``"LD"`` (Chen and Thissen's local dependence X2
    below the diagonal, signed Cramer's V above), ``"LDG2"`` (the same with the likelihood-ratio G2 in
    place of X2) or ``"Q3"`` (Yen's Q3 correlations).

    Parameters
    ----------
    fit : Calibration
        A mirt calibration.
    kind : {"LD", "LDG2", "Q3"}, default "LD"
        The residual statistic.

    Returns
    -------
    DataFrame
        Items x items.
    """
    from irtbridge._r import session  # the R boundary loads with the first R call, never on import

    kind = check_choice(kind, "kind", ("LD", "LDG2", "Q3"))
    with r_context(f"residuals: mirt's residuals(type = {kind!r})"):
        out = session.call("irtb_residuals", fit=live_model(fit, "residuals"), type=kind)
    out.index = pd.Index(fit.item_names, name="item")
    out.columns = pd.Index(fit.item_names, name="item")
    return out


def reliability(fit: Any) -> dict[str, float]:
    """Marginal and empirical reliability (mirt's ``marginal_rxx``, ``empirical_rxx`` of the EAP scores).

    Parameters
    ----------
    fit : Calibration
        A mirt calibration.

    Returns
    -------
    dict of str to float
        ``marginal`` and ``empirical``.
    """
    from irtbridge._r import session  # the R boundary loads with the first R call, never on import

    with r_context("reliability: mirt's marginal_rxx/empirical_rxx"):
        out = session.call("irtb_reliability", fit=live_model(fit, "reliability"))
    values = {"marginal": float(out["marginal"]), "empirical": float(out["empirical"])}
    remember(fit, "reliability", dict(values))
    return values


def conditional_reliability(fit: Any, theta: Any = None) -> pd.DataFrame:
    """The conditional reliability over ``theta`` (default 81 points on [-4, 4]): ``I(theta) / (I(theta) +
    1 / var)``, with ``I`` the test information and ``var`` the latent variance.

    Parameters
    ----------
    fit : Calibration or ItemBank
        The calibration (or item bank) whose test information is used.
    theta : array-like, optional
        Abilities; default 81 points on [-4, 4].

    Returns
    -------
    DataFrame
        Indexed by ``theta``; columns ``information`` and ``reliability``.

    Examples
    --------
    >>> import pandas as pd
    >>> from irtbridge.irt import as_item_bank
    >>> bank = as_item_bank(pd.DataFrame({"a": [1.0], "b": [0.0]}, index=["i"]), "2PL")
    >>> conditional_reliability(bank, [0.0]).round(3)      # I(0) = 1 * 0.5 * 0.5 = 0.25; 0.25 / 1.25
           information  reliability
    theta
    0.0           0.25          0.2
    """
    grid = np.linspace(-4, 4, 81) if theta is None else np.asarray(theta, dtype=float).ravel()
    info = np.asarray(test_information(grid, fit), dtype=float)
    var = float(getattr(fit, "latent_var", 1.0) or 1.0)
    return pd.DataFrame({"information": info, "reliability": info / (info + 1.0 / var)},
                        index=pd.Index(grid, name="theta"))


def compare(*fits: Any) -> pd.DataFrame:
    """Compare nested mirt fits of the same responses (mirt's ``anova``), each against the one before.

    Parameters
    ----------
    *fits : Calibration
        Two or more mirt fits of the same responses, from the simplest model on.

    Returns
    -------
    DataFrame
        One row per fit (labelled ``model``, ``engine``-independent: ``"1: 2PL"``, ...): AIC, SABIC, HQ,
        BIC, logLik and, from the second row on, the likelihood-ratio X2, df and p against the row above.

    Examples
    --------
    >>> import irtbridge
    >>> from irtbridge.example_data import response_dataset
    >>> data = response_dataset("LSAT7")
    >>> table = irtbridge.compare(irtbridge.calibrate(data, "rasch"), irtbridge.calibrate(data, "2PL"))  # doctest: +R
    >>> table[["logLik", "df"]].round(3)
                logLik   df
    model
    1: rasch -2664.901  NaN
    2: 2PL   -2658.805  4.0
    """
    from irtbridge._r import session  # the R boundary loads with the first R call, never on import

    if len(fits) == 1 and isinstance(fits[0], (list, tuple)):
        fits = tuple(fits[0])
    if len(fits) < 2:
        raise ValidationError(f"compare needs at least two fits, got {len(fits)}")
    models = [live_model(f, f"compare (fit {i + 1})") for i, f in enumerate(fits)]
    for i, f in enumerate(fits[1:], 2):
        if list(f.item_names) != list(fits[0].item_names) or f.n_respondents != fits[0].n_respondents:
            raise ValidationError(
                f"compare: fit {i} was calibrated on different data than fit 1 (items or respondents differ); "
                "models can only be compared on the same responses"
            )
    out = session.call("irtb_anova", fits=models)
    out.index = pd.Index([f"{i + 1}: {f.model}" for i, f in enumerate(fits)], name="model")
    for col in ("X2", "df", "p"):
        if col in out:
            out[col] = pd.to_numeric(out[col], errors="coerce")
    return out
