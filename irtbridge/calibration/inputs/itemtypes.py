"""mirt's item types by name, and the estimation options some of them bring.

:func:`irtbridge.calibrate` fits, besides irtbridge's own model names (``rasch``, ``1PL``, ``2PL``,
``3PL``, ``4PL``, ``graded``, ``gpcm``, ``nominal``, ``grsm``, ``rsm``, ``pcm``), every item type of
mirt 1.48 that needs no R code, by mirt's own name (:data:`ITEMTYPES`), alone or per item. Two are
refused in one line (:data:`REFUSED`): ``lca`` (latent classes are mirt's ``mdirt``) and
``experimental`` (the slot for items made with ``createItem`` from R functions).

Some item types need an option, and some options only mean something for some item types; mirt ignores
an option no item uses without a word, so here each is checked against the item types of the call
(:func:`item_type_options`):

- ``key`` (nested logit items ``2PLNRM``, ``3PLNRM``, ``3PLuNRM``, ``4PLNRM``): each such item's correct
  answer, one of the answers the item received;
- ``gpcm_mats`` (``gpcm`` and polytomous Rasch/``pcm`` items): scoring matrices, one row per category,
  one column per factor;
- ``monopoly_k`` (``monopoly`` items) and ``spline_args`` (``spline``/``monospline`` items).

The estimation method (:data:`METHODS`) and the seed of mirt's random draws are checked by
:func:`estimation_options`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from irtbridge._catalogue import CATALOGUE, MIRT_METHODS, MODELS, evaluates_only, item_type_readers, models_where
from irtbridge._validation import R_SEED_MAX, check_choice, check_seed
from irtbridge.calibration.inputs.engine_table import ENGINE_TABLE
from irtbridge.exceptions import ValidationError

__all__ = ["ITEMTYPES", "NESTED_LOGIT", "REFUSED", "METHODS", "check_itemtype", "resolve_model",
           "estimation_options", "item_type_options"]

# mirt 1.48's item types fitted under mirt's own name (mirt:::Valid_iteminputs(), less irtbridge's
# named models and the two refused below): rows of the model catalogue; the text is what each one is
ITEMTYPES: dict[str, str] = {name: CATALOGUE[name].description for name in models_where(named_by="mirt")}
NESTED_LOGIT = item_type_readers("key")
REFUSED: dict[str, str] = {
    "lca": "latent class models are mirt's mdirt(), not an item type of mirt(); use irtbridge.mirt.mdirt(data, nclass)",
    "experimental": "it is mirt's slot for custom items built from R functions with createItem(), which "
                    "irtbridge does not carry; fit those in R",
    "fivePL": "it is mirt's internal class name; use '5PL'",
}
METHODS = MIRT_METHODS  # mirt's `method`
_SPLINE = item_type_readers("spline_args")


def check_itemtype(name: Any) -> None:
    """A one-line :class:`ValidationError` for an item type irtbridge refuses (``lca``, ``experimental``).

    Parameters
    ----------
    name : str
        An item type's name.

    Examples
    --------
    >>> check_itemtype("ideal")
    >>> check_itemtype("lca")
    Traceback (most recent call last):
    ...
    irtbridge.exceptions.ValidationError: model='lca' is not fitted by calibrate: latent class models are mirt's
    mdirt(), not an item type of mirt(); use irtbridge.mirt.mdirt(data, nclass)
    """
    refused = {k.lower(): k for k in REFUSED}
    if isinstance(name, str) and name.lower() in refused:
        raise ValidationError(f"model={name!r} is not fitted by calibrate: {REFUSED[refused[name.lower()]]}")


def resolve_model(model: Any, columns: Sequence[str] | None, engine: str = "mirt", *,
                  where: str = "") -> tuple[str, list[str] | None]:
    """The model of a call, resolved once: one catalogue name, or ``"mixed"`` with mirt's itemtype vector.

    Each name is checked (refused item types, then the catalogue's names in any case) and must be one
    the engine fits; a list or a mapping item -> name whose names are all one model is that model.

    Parameters
    ----------
    model : str, sequence of str, or mapping
        One name, one per item in column order, or a mapping item -> name over ``columns``.
    columns : sequence of str or None
        The item names of a DataFrame of responses (None for an array: no mapping then).
    engine : str, default "mirt"
        The engine that fits it (a key of :data:`irtbridge.calibration.inputs.engine_table.ENGINE_TABLE`).
    where : str, default ""
        What the caller calls the model, put before the one message that names no parameter (a model the
        engine does not fit), e.g. ``"option 'model': "`` for a batch manifest.

    Returns
    -------
    tuple of (str, list of str or None)
        The model name (``"mixed"`` for several) and the per-item names (None for one model).

    Examples
    --------
    >>> resolve_model("2pl", None)
    ('2PL', None)
    >>> resolve_model({"q2": "graded", "q1": "2PL"}, ["q1", "q2"])
    ('mixed', ['2PL', 'graded'])
    >>> resolve_model("gpcm", None, engine="native")
    Traceback (most recent call last):
    ...
    irtbridge.exceptions.ValidationError: engine 'native' does not fit model 'gpcm'; use engine='mirt'
    """
    if isinstance(model, Mapping):
        if columns is None:
            raise ValidationError("model: a per-item mapping needs responses as a DataFrame (item names)")
        given = {str(k): v for k, v in model.items()}
        unknown = [k for k in given if k not in columns]
        missing = [c for c in columns if c not in given]
        if unknown or missing:
            raise ValidationError(f"model: mapping has unknown item(s) {unknown[:5]} / lacks item(s) {missing[:5]}")
        model = [given[c] for c in columns]
    one = isinstance(model, str)
    if not one and (not isinstance(model, (list, tuple)) or not model):
        raise ValidationError(f"model must be a name, a list of names or a mapping item → name, got {model!r}")
    for name in [model] if one else model:
        check_itemtype(name)
    names = [check_choice(str(m), "model", MODELS, ignore_case=True) for m in ([model] if one else model)]
    unfitted = [n for n in names if n not in ENGINE_TABLE[engine].models]
    if unfitted:
        others = [e for e, row in ENGINE_TABLE.items() if unfitted[0] in row.models]
        raise ValidationError(f"{where}engine {engine!r} does not fit model {unfitted[0]!r}; use engine={others[0]!r}")
    return (names[0], None) if len(set(names)) == 1 else ("mixed", names)


def estimation_options(engine: str, options: dict[str, Any], *, method: Any = None, seed: Any = None,
                       key: Any = None, gpcm_mats: Any = None) -> dict[str, Any]:
    """``options`` (R's names) with calibrate's named estimation options added, each checked.

    ``method`` becomes mirt's ``method`` (one of :data:`METHODS`, any case), ``seed`` mirt's
    ``technical$set.seed``; ``key`` and ``gpcm_mats`` are kept as given for :func:`item_type_options`.
    All four are mirt's: another engine refuses them (the native engine takes ``method="EM"``, what it
    does).

    Parameters
    ----------
    engine : str
        The engine that fits.
    options : dict of str to Any
        The caller's options, R's names.
    method : str, optional
        mirt's estimation method.
    seed : int, optional
        mirt's ``technical$set.seed``.
    key : sequence or mapping, optional
        Nested-logit keys, kept for :func:`item_type_options`.
    gpcm_mats : sequence or mapping of 2-D arrays, optional
        gpcm scoring matrices, kept for :func:`item_type_options`.

    Returns
    -------
    dict of str to Any
        ``options`` with the named options added (R's names).

    Examples
    --------
    >>> estimation_options("mirt", {"TOL": 1e-5}, method="mhrm", seed=3)
    {'TOL': 1e-05, 'method': 'MHRM', 'technical': {'set.seed': 3}}
    >>> estimation_options("ltm", {}, method="MHRM")
    Traceback (most recent call last):
    ...
    irtbridge.exceptions.ValidationError: method: engine='ltm' takes no estimation method (it is mirt's); use engine='mirt'
    """
    out = dict(options)
    row = ENGINE_TABLE[engine]
    if method is not None:
        method = check_choice(method, "method", METHODS, ignore_case=True)
        if not row.methods:
            raise ValidationError(f"method: engine={engine!r} takes no estimation method (it is mirt's); use "
                                  f"engine={row.who_else('method_option')}")
        if method not in row.methods:
            raise ValidationError(f"engine={engine!r} does not take option method={method!r} (it estimates by "
                                  f"{' or '.join(row.methods)} only); use engine={row.who_else('method_option')}")
        if row.method_option:
            out["method"] = method
    if evaluates_only(out.get("TOL")) and (out.get("method") == "MHRM" or out.get("SE.type") == "SEM"):
        what = "method='MHRM'" if out.get("method") == "MHRM" else "SE_type='SEM'"
        raise ValidationError(f"TOL={out['TOL']!r} evaluates the starting or given values without estimating, which "
                              f"mirt's {what} cannot do (it stops); use a positive TOL, or leave out {what}")
    named = {"seed": seed, "key": key, "gpcm_mats": gpcm_mats}
    for name, value in named.items():
        if value is not None and name not in row.takes:
            takers = " or ".join(repr(e.name) for e in ENGINE_TABLE.values() if name in e.takes)
            raise ValidationError(f"{name}: engine={engine!r} takes no {name} (it is mirt's); use engine={takers}")
    if seed is not None:
        seed = check_seed(seed, "seed", high=R_SEED_MAX)
        technical = out.get("technical")
        if technical is not None and not isinstance(technical, Mapping):
            raise ValidationError(f"technical must be a mapping of mirt's technical options, got {technical!r}")
        technical = dict(technical or {})
        if "set.seed" in technical:
            raise ValidationError("seed: given twice (also as technical={'set.seed': ...}); keep one")
        out["technical"] = {**technical, "set.seed": int(seed)}
    if key is not None:
        out["key"] = key
    if gpcm_mats is not None:
        out["gpcm_mats"] = gpcm_mats
    return out


def item_type_options(options: dict[str, Any], model: str, per_item: Sequence[str] | None, values: np.ndarray,
                      names: Sequence[str], all_names: Sequence[str] | None = None) -> dict[str, Any]:
    """Check ``key``, ``gpcm_mats``, ``monopoly.k`` and ``spline_args`` against the item types; R-ready.

    ``values``/``names`` are the fitted items (after constant items are dropped), ``all_names`` the
    items as given (a key or a list of matrices in column order counts those). A nested-logit item
    without a key, or an option no item type reads, is a one-line :class:`ValidationError`.

    Parameters
    ----------
    options : dict of str to Any
        The options, R's names.
    model : str
        The model (``"mixed"`` with ``per_item``).
    per_item : sequence of str or None
        One item type per fitted item, or None.
    values : ndarray
        The fitted items' responses.
    names : sequence of str
        The fitted items' names.
    all_names : sequence of str, optional
        The items as given (default ``names``).

    Returns
    -------
    dict of str to Any
        ``options`` with ``key``, ``gpcm_mats``, ``monopoly.k`` and ``spline_args`` in R's form.

    Examples
    --------
    >>> x = np.array([[1, 0], [2, 1], [3, 1], [1, 0]], dtype=float)
    >>> item_type_options({"key": [3, None]}, "mixed", ["2PLNRM", "2PL"], x, ["q1", "q2"])
    {'key': [3.0, nan]}
    >>> item_type_options({}, "mixed", ["2PLNRM", "2PL"], x, ["q1", "q2"])
    Traceback (most recent call last):
    ...
    irtbridge.exceptions.ValidationError: key: nested logit item(s) 'q1' (2PLNRM) need key= (each item's correct answer)
    """
    names = list(names)
    types = list(per_item) if per_item is not None else [model] * len(names)
    all_names = list(all_names) if all_names is not None else list(names)
    out = dict(options)
    nested = [n for n, t in zip(names, types) if t in NESTED_LOGIT]
    if "key" in out and out["key"] is not None:
        out["key"] = _key(out["key"], types, values, names, all_names, nested)
    elif nested:
        raise ValidationError(f"key: nested logit item(s) {', '.join(map(repr, nested[:5]))} ({types[names.index(nested[0])]}) "
                              "need key= (each item's correct answer)")
    if out.get("gpcm_mats") is not None:
        out["gpcm_mats"] = _scoring_matrices(out["gpcm_mats"], types, values, names, all_names)
    if out.get("monopoly.k") is not None:
        _uses("monopoly_k", types, item_type_readers("monopoly.k"))
        k = np.atleast_1d(np.asarray(out["monopoly.k"], dtype=object))
        if k.size not in (1, len(names)) or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                                    and v >= 1 for v in k):
            raise ValidationError(f"monopoly_k must be a positive integer or one per item, got {out['monopoly.k']!r}")
        out["monopoly.k"] = [int(v) for v in k] if k.size > 1 else int(k[0])
    if out.get("spline_args") is not None:
        _uses("spline_args", types, _SPLINE)
        spline_items = {n for n, t in zip(names, types) if t in _SPLINE}
        args = out["spline_args"]
        if not isinstance(args, Mapping) or not all(isinstance(v, Mapping) for v in args.values()):
            raise ValidationError("spline_args must map spline item names to their bs()/ns()/iSpline() arguments")
        other = [str(k) for k in args if str(k) not in spline_items]
        if other:
            raise ValidationError(f"spline_args: {other[0]!r} is not a spline or monospline item")
    return out


def _uses(option: str, types: list[str], readers: tuple[str, ...]) -> None:
    if not any(t in readers for t in types):
        raise ValidationError(f"{option}: no item is {' or '.join(map(repr, readers))} (mirt would ignore it "
                              "without a word)")


def _per_item(value: Any, option: str, names: list[str], all_names: list[str]) -> dict[str, Any]:
    """A sequence in column order (over the items as given) or a mapping item → entry, as a mapping over
    the fitted items (items dropped as constant drop out)."""
    if isinstance(value, Mapping):
        unknown = [str(k) for k in value if str(k) not in all_names]
        if unknown:
            raise ValidationError(f"{option}: {unknown[0]!r} is not an item (items: {', '.join(all_names[:5])}"
                                  f"{' ...' if len(all_names) > 5 else ''})")
        given = {str(k): v for k, v in value.items()}
    elif isinstance(value, (Sequence, np.ndarray)) and not isinstance(value, str):
        entries = list(value)
        if len(entries) != len(all_names):
            raise ValidationError(f"{option}: {len(entries)} entries for {len(all_names)} items (one per item "
                                  "in column order, or a mapping item → entry)")
        given = dict(zip(all_names, entries))
    else:
        raise ValidationError(f"{option} must be one entry per item or a mapping item → entry, got "
                              f"{type(value).__name__}")
    return {n: given.get(n) for n in names}


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, (float, np.floating)) and np.isnan(v))


def _key(value: Any, types: list[str], values: np.ndarray, names: list[str], all_names: list[str],
         nested: list[str]) -> list[float]:
    """mirt's ``key``: one number per item (NaN where none); every nested-logit item's key is an answer
    the item received (mirt matches it against the observed answers and would otherwise lose it)."""
    if not nested:
        raise ValidationError(f"key: no item is a nested logit item ({', '.join(NESTED_LOGIT)}), the only ones "
                              "mirt reads a key for; to score answers against a key use "
                              "irtbridge.calibration.score_key")
    keys = _per_item(value, "key", names, all_names)
    out = []
    for j, name in enumerate(names):
        k = keys[name]
        if _missing(k):
            if types[j] in NESTED_LOGIT:
                raise ValidationError(f"key: nested logit item {name!r} ({types[j]}) has no key")
            out.append(float("nan"))
            continue
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, float, np.integer, np.floating)):
            raise ValidationError(f"key: item {name!r} has key {k!r}; keys are the numeric answer codes of the data")
        if types[j] in NESTED_LOGIT:
            seen = np.unique(values[:, j][~np.isnan(values[:, j])])
            if float(k) not in seen:
                raise ValidationError(f"key: item {name!r} has key {k!r}, which is not one of its answers "
                                      f"({', '.join(f'{v:g}' for v in seen[:10])})")
        out.append(float(k))
    return out


def _scoring_matrices(value: Any, types: list[str], values: np.ndarray, names: list[str],
                      all_names: list[str]) -> list[np.ndarray]:
    """mirt's ``gpcm_mats``: one matrix per item (mirt needs every item's). Items given none get the
    standard gpcm scoring ``0..K-1`` in each column (for items that are not gpcm mirt reads nothing)."""
    mats = _per_item(value, "gpcm_mats", names, all_names)
    n_cats = {n: int(np.unique(values[:, j][~np.isnan(values[:, j])]).size) for j, n in enumerate(names)}
    given: dict[str, np.ndarray] = {}
    for j, name in enumerate(names):
        m = mats[name]
        if m is None:
            continue
        if not (types[j] in ("gpcm", "pcm") or (types[j] == "rasch" and n_cats[name] > 2)):
            raise ValidationError(f"gpcm_mats: item {name!r} is a {types[j]} item; scoring matrices apply to gpcm "
                                  "and polytomous Rasch (pcm) items")
        try:
            arr = np.asarray(m, dtype=float)
        except (TypeError, ValueError):
            raise ValidationError(f"gpcm_mats: item {name!r}'s scoring matrix is not numeric") from None
        arr = arr[:, None] if arr.ndim == 1 else arr
        if arr.ndim != 2 or not np.isfinite(arr).all():
            raise ValidationError(f"gpcm_mats: item {name!r}'s scoring matrix must be a finite 2-D array "
                                  "(categories x factors)")
        if arr.shape[0] != n_cats[name]:
            raise ValidationError(f"gpcm_mats: item {name!r} has {n_cats[name]} categories; its scoring matrix has "
                                  f"{arr.shape[0]} rows")
        given[name] = arr
    if not given:
        raise ValidationError("gpcm_mats: no item has a scoring matrix")
    widths = {a.shape[1] for a in given.values()}
    if len(widths) > 1:
        raise ValidationError(f"gpcm_mats: the scoring matrices have {sorted(widths)} columns; give every one a "
                              "column per factor")
    width = widths.pop()
    return [given[n] if n in given else np.repeat(np.arange(n_cats[n], dtype=float)[:, None], width, axis=1)
            for n in names]
