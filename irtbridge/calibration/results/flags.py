"""Item estimates the data do not identify: the ``flag`` vocabulary every calibration and table shares.

With few respondents, many missing answers or items nearly everyone answers alike, a marginal maximum
likelihood estimate need not exist: the likelihood keeps rising as a slope runs to infinity (an item
response function that becomes a step) or as an intercept does (an item placed beyond every respondent).
EM then stops because the parameters move little per cycle, not because they reached a maximum, and an
engine may report convergence (mirt warns and stops near 16; the native engine stopped near 525 on 60
respondents x 200 items with 30% missing). An item is flagged, with the reasons in words, when

* ``|a| > 10`` (any slope column ``a``, ``a1..ak``): the response function rises from 0.1 to 0.9 within
  0.44 units of ability, less than two of the 61 quadrature nodes apart; the data cannot tell such a
  slope from 20 or 500;
* ``|b| > 6`` (``b`` and graded thresholds ``b1..bk``; for the 2PL the intercept bound ``|d| > 6 |a|``):
  outside ``[-6, 6]``, the ability grid of every scorer and of mirt's quadrature, so no respondent's
  posterior places it;
* the guessing parameter sits at its bound (``g >= 0.95``), or the upper asymptote at its own (``u <= 0.05``,
  the 4PL), or a parameter is not finite;
* where standard errors were computed (benchmark tables only), the item has no finite one.

The limits are :data:`FLAG_LIMITS`. ``irtbridge evaluate`` writes the reasons to the ``flag`` column of
``instances.csv``; a :class:`~irtbridge.calibration.results.result.Calibration` has them as ``fit.item_flags`` (the
same column) and ``fit.flagged_items``, warns once (:class:`IdentificationWarning`) when a fit has any, and
:func:`irtbridge.select_anchors` never chooses a flagged item. Priors (``priors=`` on mirt, the native
1PL to 4PL) keep the estimates finite.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Mapping

import numpy as np
import pandas as pd

from irtbridge.exceptions import IrtBridgeWarning, find_stack_level

__all__ = ["FLAG_LIMITS", "IdentificationWarning", "flag_items", "flag_factor_items", "warn_flagged"]

#: beyond these an item parameter is not identified: ``|a| > 10`` is a step function, ``|b| > 6`` lies
#: outside the ability grid every scorer uses, ``g >= 0.95`` is the guessing parameter at its bound, ``u <= 0.05``
#: the upper asymptote at its own
FLAG_LIMITS = {"a": 10.0, "b": 6.0, "g": 0.95, "u": 0.05}
_SLOPE = re.compile(r"a\d*")
_DIFFICULTY = re.compile(r"b\d*")


class IdentificationWarning(IrtBridgeWarning):
    """A calibration has item estimates the data do not identify (see ``fit.item_flags``)."""


def flag_items(items: pd.DataFrame, standard_errors: pd.DataFrame | None = None,
               limits: Mapping[str, float] | None = None) -> pd.Series:
    """Why each item's estimate is not identified ("" when it is): the ``flag`` column of the tables.

    An item is flagged when a slope (``a``, ``a1..ak``) or a difficulty (``b``, graded ``b1..bk``) exceeds
    its limit (:data:`FLAG_LIMITS`: 10 and 6), when the guessing parameter sits at its upper bound
    (``g >= 0.95``) or the upper asymptote at its lower one (``u <= 0.05``), when a parameter is not finite,
    or when standard errors were computed and the item has none that is finite. A graded item's thresholds
    past its last category (NaN) are not parameters.

    Parameters
    ----------
    items : DataFrame
        An item table (``fit.items``).
    standard_errors : DataFrame, optional
        The standard errors, if computed.
    limits : mapping, optional
        Other limits for ``a``, ``b``, ``g`` or ``u``.

    Returns
    -------
    Series
        Named ``flag``, one string per item, the reasons joined by ``"; "``.

    Examples
    --------
    >>> items = pd.DataFrame({"a": [1.2, 300.0], "b": [0.1, -40.0], "g": [0.1, 0.0]}, index=["x", "y"])
    >>> flag_items(items).tolist()
    ['', '|a| > 10; |b| > 6']
    """
    lim = {**FLAG_LIMITS, **dict(limits or {})}
    reasons: list[list[str]] = [[] for _ in range(len(items))]
    graded = any(re.fullmatch(r"b\d+", str(c)) for c in items.columns)
    for kind, pattern in (("a", _SLOPE), ("b", _DIFFICULTY)):
        cols = [c for c in items.columns if pattern.fullmatch(str(c))]
        if not cols:
            continue
        v = items[cols].to_numpy(dtype=float)
        # a graded item with fewer categories has NaN thresholds past its last one: not a parameter
        absent = np.isnan(v) if kind == "b" and graded else np.zeros(v.shape, dtype=bool)
        for i in np.flatnonzero((~np.isfinite(v) & ~absent).any(axis=1)):
            reasons[i].append(f"{kind} not finite")
        with np.errstate(invalid="ignore"):
            past = (np.isfinite(v) & (np.abs(v) > lim[kind])).any(axis=1)
        for i in np.flatnonzero(past):
            reasons[i].append(f"|{kind}| > {lim[kind]:g}")
    if "g" in items:
        for i in np.flatnonzero(items["g"].to_numpy(dtype=float) >= lim["g"]):
            reasons[i].append(f"g at its bound (>= {lim['g']:g})")
    if "u" in items:
        for i in np.flatnonzero(items["u"].to_numpy(dtype=float) <= lim["u"]):
            reasons[i].append(f"u at its bound (<= {lim['u']:g})")
    if standard_errors is not None and len(standard_errors):
        cols = [c for c in ("a", "b", "g") if c in standard_errors]
        ses = standard_errors.reindex(items.index)[cols].to_numpy(dtype=float)
        for i in np.flatnonzero(~np.isfinite(ses).any(axis=1)):
            reasons[i].append("no finite SE")
    return pd.Series(["; ".join(r) for r in reasons], index=items.index, name="flag", dtype=object)


def flag_factor_items(fit: Any, standard_errors: pd.DataFrame | None = None) -> pd.Series:
    """The flags of a native D-factor 2PL fit (:func:`irtbridge.em.factors.fit_factors`): :func:`flag_items`
    on its slopes ``a1..aD`` and on mirt's multidimensional difficulty ``MDIFF = -d / MDISC``,
    ``MDISC = sqrt(sum_k a_k^2)`` (Reckase's; ``b`` when D = 1), plus "no finite SE" where standard errors
    were computed and none of the item's is finite.

    Parameters
    ----------
    fit : FactorResult
        The fit.
    standard_errors : DataFrame, optional
        :func:`irtbridge.em.factor_se.factor_standard_errors`, if computed.

    Returns
    -------
    Series
        Named ``flag``, one string per item.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> fit = SimpleNamespace(a=np.array([[1.0, 0.5], [40.0, 0.0]]), d=np.array([0.2, 1.0]), n_factors=2,
    ...                       item_names=("x", "y"))
    >>> flag_factor_items(fit).tolist()
    ['', '|a| > 10']
    """
    a = np.asarray(fit.a, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        mdiff = -np.asarray(fit.d, dtype=float) / np.sqrt((a**2).sum(axis=1))
    table = pd.DataFrame(a, index=pd.Index(fit.item_names), columns=[f"a{k + 1}" for k in range(fit.n_factors)])
    table["b"] = mdiff
    flags = flag_items(table)
    if standard_errors is not None and len(standard_errors):
        none = ~np.isfinite(standard_errors.reindex(table.index).to_numpy(dtype=float)).any(axis=1)
        flags = flags.where(~none, (flags + "; no finite SE").str.lstrip("; "))
    return flags


def warn_flagged(fit: Any, stacklevel: int | None = None) -> None:
    """One :class:`IdentificationWarning` naming the flagged items of ``fit`` (nothing when there are none).

    Parameters
    ----------
    fit : Calibration
        The fit whose flagged items are named.
    stacklevel : int, optional
        Where the warning points (default: the first line outside irtbridge, :func:`find_stack_level`).
    """
    flags = fit.item_flags
    flagged = flags[flags != ""]
    if flagged.empty:
        return
    counts: dict[str, int] = {}
    for text in flagged:
        for reason in text.split("; "):
            counts[reason] = counts.get(reason, 0) + 1
    names = ", ".join(repr(str(n)) for n in flagged.index[:5]) + (" …" if len(flagged) > 5 else "")
    state = "converged" if fit.converged else "did not converge"
    warnings.warn(f"{fit.engine} {fit.model} fit ({state}): {len(flagged)} item(s) have estimates the data do not "
                  f"identify ({'; '.join(f'{r}: {k}' for r, k in counts.items())}): {names}; they are marked in "
                  "fit.item_flags and never chosen as anchors; priors= keep slopes finite",
                  IdentificationWarning, stacklevel=stacklevel or find_stack_level())
