"""Parameter names in priors, constraints and fixed values, checked against mirt's own parameter table.

mirt is lenient about names: ``START``/``FIXED`` on a parameter an item does not have is silently
ignored, and a ``PRIOR`` on a parameter the model fixes (``g`` of a 2PL item) silently moves that fixed
value. So before a fit, every parameter a spec or ``priors=`` names is looked up in the
``pars = "values"`` table of the same call (same data, item types and factor structure; one R call,
the data passed as R objects), and anything the model lacks is a one-line :class:`ValidationError`
naming the parameter, the item and the model.

Rules (mirt's own, made strict): every named parameter must be a row of the table for that item;
priors and equality constraints also need it estimated (``est``), after the spec's own ``FIXED`` and
``FREE`` lines are applied.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd

from irtbridge._catalogue import mirt_itemtype
from irtbridge.calibration.inputs.priors import Prior
from irtbridge.calibration.inputs.spec import Reference, syntax_references
from irtbridge.exceptions import ValidationError

__all__ = ["check_references", "prior_references", "check_before_fit", "group_labels"]

_WHAT = {"PRIOR": "a prior on", "CONSTRAIN": "an equality constraint on", "CONSTRAINB": "a cross-group constraint on",
         "START": "a start or fixed value for", "FIXED": "fixing", "FREE": "freeing", "LBOUND": "a lower bound on",
         "UBOUND": "an upper bound on", "DIF": "a DIF test of"}
_NEEDS_FREE = ("PRIOR", "CONSTRAIN", "CONSTRAINB", "DIF")


def prior_references(priors: Iterable[Prior], item_names: Sequence[str]) -> list[Reference]:
    """The parameters ``calibrate(..., priors=...)`` names: each prior's items (None: every item).

    Parameters
    ----------
    priors : iterable of Prior
        The checked priors.
    item_names : sequence of str
        The fitted items.

    Returns
    -------
    list of Reference
        One per prior and item, keyword ``"PRIOR"``, origin ``"priors"``.
    """
    return [Reference("PRIOR", item, p.param, "priors") for p in priors
            for item in (p.items if p.items is not None else item_names)]


def check_references(table: pd.DataFrame, references: Sequence[Reference], model: str) -> None:
    """Raise a one-line :class:`ValidationError` for the first reference ``table`` does not allow.

    ``table`` is mirt's parameter table (columns ``item``, ``name``, ``est``); ``model`` names the model
    in the message.

    Parameters
    ----------
    table : DataFrame
        mirt's parameter table.
    references : sequence of Reference
        The parameters named by the spec, the priors or the fixed values.
    model : str
        The model's name, for the message.

    Examples
    --------
    >>> table = pd.DataFrame({"item": ["x"] * 4 + ["GROUP"] * 2, "name": ["a1", "d", "g", "u", "MEAN_1", "COV_11"],
    ...                       "est": [True, True, False, False, False, False]})
    >>> check_references(table, [Reference("PRIOR", "x", "a1")], "2PL")
    >>> check_references(table, [Reference("PRIOR", "x", "g", "priors")], "2PL")
    Traceback (most recent call last):
    ...
    irtbridge.exceptions.ValidationError: priors: a prior on 'g' of item 'x', but the 2PL model (1 factor) does not
    estimate it (its estimated parameters: a1, d)
    >>> check_references(table, [Reference("FIXED", "x", "a2")], "2PL")
    Traceback (most recent call last):
    ...
    irtbridge.exceptions.ValidationError: spec: fixing 'a2' of item 'x', but the 2PL model (1 factor) has no such
    parameter (its parameters: a1, d, g, u)
    """
    items = table["item"].astype(str).tolist()
    params = table["name"].astype(str).tolist()
    estimated = dict(zip(zip(items, params), table["est"].astype(bool).tolist()))
    n_factors = sum(1 for i, p in zip(items, params) if i == "GROUP" and re.fullmatch(r"MEAN_\d+", p))
    label = f"{model} model ({n_factors} factor{'s' if n_factors != 1 else ''})"

    def of(item: str, only_estimated: bool = False) -> str:
        return ", ".join(p for (i, p), e in estimated.items() if i == item and (e or not only_estimated)) or "none"

    for ref in references:
        where = "the latent distribution" if ref.item == "GROUP" else f"item {ref.item!r}"
        if (ref.item, ref.param) not in estimated:
            raise ValidationError(f"{ref.origin}: {_WHAT[ref.keyword]} {ref.param!r} of {where}, but the {label} has "
                                  f"no such parameter (its parameters: {of(ref.item)})")
        if ref.keyword in ("FIXED", "FREE"):  # mirt applies these before priors and constraints
            estimated[(ref.item, ref.param)] = ref.keyword == "FREE"
    for ref in references:
        if ref.keyword in _NEEDS_FREE and not estimated[(ref.item, ref.param)]:
            raise ValidationError(f"{ref.origin}: {_WHAT[ref.keyword]} {ref.param!r} of item {ref.item!r}, but the "
                                  f"{label} does not estimate it (its estimated parameters: {of(ref.item, True)})")


def check_before_fit(values: Any, names: list[str], model: str, per_item: list[str] | None, extra: dict[str, Any],
                     parameters: Any, priors: Sequence[Prior], options: dict[str, Any],
                     groups: dict[str, Any] | None = None, references: Sequence[Reference] = ()) -> None:
    """Check the parameter names of a mirt fit's spec and priors before fitting it.

    No R call when nothing names a parameter; a user's parameter table with an ``est`` column is used
    as it is (it is what mirt will fit), otherwise mirt's ``pars = "values"`` for the structure alone.
    ``groups`` (``group`` labels and ``invariance``): a multiple-group fit, whose table is
    ``multipleGroup``'s; a parameter counts as estimated when some group estimates it.

    Parameters
    ----------
    values : ndarray
        The responses, respondents x items.
    names : list of str
        The item names.
    model : str
        The model (or ``"mixed"`` with ``per_item``).
    per_item : list of str or None
        One model per item, or None.
    extra : dict of str to Any
        The structure of the fit: ``syntax`` (mirt.model text) or ``dims``.
    parameters : DataFrame or None
        The user's parameter table, used as it is when it has an ``est`` column.
    priors : sequence of Prior
        The checked priors.
    options : dict of str to Any
        mirt's options of the fit.
    groups : dict of str to Any, optional
        ``group`` labels and ``invariance`` of a multiple-group fit; None for one group.
    references : sequence of Reference, default ()
        Further parameters the caller names (``Reference("DIF", item, "a1", "--which")``), checked with them.
    """
    references = list(references) + prior_references(priors, names)
    structure = None
    if extra.get("syntax") is not None:
        structure, from_spec = syntax_references(extra["syntax"], names)
        references = from_spec + references
    if not references:
        return
    if isinstance(parameters, pd.DataFrame) and {"item", "name", "est"} <= set(parameters.columns):
        table = parameters
    else:
        from irtbridge._r import session  # the R boundary loads with the first R call, never on import

        session.ensure_packages("mirt")
        structural = {"dims": extra.get("dims", 1)} if structure is None else {"syntax": structure}
        if groups is None:
            table = session.call("irtb_mirt_names", data=values, item_names=names,
                                 itemtype=mirt_itemtype(per_item or model),
                                 options=dict(options), **structural)
        else:
            table = _group_table(session, values, names, per_item or model, options, groups, structural)
    if "group" in table.columns:
        table = table.assign(est=table["est"].astype(bool)).groupby(["item", "name"], sort=False,
                                                                    as_index=False)["est"].any()
    check_references(table, references, "per-item" if per_item is not None else model)


_FREES = {"free_means": r"MEAN_\d+", "free_var": r"COV_(\d+)\1", "free_cov": r"COV_(\d+)(?!\1)\d+"}


def _group_table(session: Any, values: Any, names: list[str], model: Any, options: dict[str, Any],
                 groups: dict[str, Any], structural: dict[str, Any]) -> pd.DataFrame:
    """``multipleGroup``'s parameter table for the structure alone. Without the spec's constraints a model
    that frees latent means or variances may not be identified (mirt then refuses to build the table),
    so those keywords are left out and their parameters marked estimated here, as mirt would."""
    invariance = [v for v in groups["invariance"] if v not in _FREES]
    table = session.call("irtb_mirt_group_names", data=values, item_names=names, itemtype=mirt_itemtype(model),
                         options=dict(options), group=list(groups["group"]), invariance=invariance, **structural)
    table = table.assign(est=table["est"].astype(bool))
    for keyword, pattern in _FREES.items():
        if keyword in groups["invariance"]:
            freed = (table["item"] == "GROUP") & table["name"].astype(str).str.fullmatch(pattern)
            table.loc[freed, "est"] = True
    return table


def group_labels(groups: Any, n: int) -> list[str]:
    """One group label (a string) per respondent; at least two groups, none missing.

    Parameters
    ----------
    groups : sequence
        One label per respondent.
    n : int
        The number of respondents.

    Returns
    -------
    list of str
        The labels as strings.
    """
    labels = pd.Series(groups.to_numpy() if isinstance(groups, pd.Series) else np.asarray(groups, dtype=object))
    if labels.ndim != 1 or len(labels) != n:
        raise ValidationError(f"groups: need one label per respondent ({n}), got {len(labels)}")
    if labels.isna().any():
        raise ValidationError(f"groups: {int(labels.isna().sum())} respondent(s) have no group label")
    labels = labels.astype(str)
    if labels.nunique() < 2:
        raise ValidationError(f"groups: need at least two groups, got one level {labels.iloc[0]!r}")
    return labels.tolist()
