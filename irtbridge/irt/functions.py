"""Checked response functions of the native kernel: probabilities, expected scores, information, True-Scores.

Each function validates its inputs, builds an :class:`~irtbridge.irt.bank.ItemBank` (or takes one) and
calls the unchecked fast paths of :mod:`irtbridge.irt.fast`; pandas in, pandas out.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from irtbridge._validation import show_value
from irtbridge.exceptions import ValidationError
from irtbridge.irt import fast
from irtbridge._constraints import constraints
from irtbridge.irt.bank import MODEL, ItemBank, as_item_bank

__all__ = [
    "response_probability",
    "category_probabilities",
    "expected_score",
    "item_information",
    "test_information",
    "sem",
    "true_score",
]
# --------------------------------------------------------------------------------------------------
# Public response functions
# --------------------------------------------------------------------------------------------------


def _as_theta(theta: Any) -> tuple[np.ndarray, str, pd.Index | None]:
    """(values, kind, index): kind is 'scalar', 'array' or 'series'."""
    if isinstance(theta, pd.DataFrame):
        if "theta" not in theta.columns:
            raise ValidationError(
                "theta given as a DataFrame needs a 'theta' column (as returned by estimate_abilities); "
                f"its columns are {', '.join(map(repr, map(str, theta.columns[:10])))}"
            )
        theta = theta["theta"]
    if isinstance(theta, pd.Series):
        kind, index, raw = "series", theta.index, theta.to_numpy()
    elif np.ndim(theta) == 0:
        kind, index, raw = "scalar", None, np.reshape(theta, 1)
    else:
        kind, index, raw = "array", None, theta
    try:
        values = np.array(raw, dtype=float).reshape(-1) if kind != "array" else np.array(raw, dtype=float)
    except (TypeError, ValueError):
        raise ValidationError(f"theta must be numeric, got {show_value(theta)}") from None
    if isinstance(raw, (bool, np.bool_)) or (values.dtype == bool):
        raise ValidationError(f"theta must be numeric, got {show_value(theta)}")
    if values.ndim != 1:
        raise ValidationError(f"theta must be a number or one-dimensional, got shape {values.shape}")
    if values.size == 0:
        raise ValidationError("theta is empty")
    if not np.isfinite(values).all():
        bad = values[~np.isfinite(values)][0]
        raise ValidationError(f"theta must be finite, found {bad}; drop or clip those abilities first")
    return values, kind, index


# docstring sections shared by the response functions (filled in by _shared_doc)
_DOC = {
    "{parameters}": """Parameters
    ----------
    theta : float, array-like or pandas.Series
        Abilities.
    items : Calibration, ItemBank or pandas.DataFrame
        Item parameters (see :func:`as_item_bank`).
    model : str, optional
        Required when ``items`` is a DataFrame.""",
    "{per_item_returns}": """Returns
    -------
    numpy.ndarray or pandas.DataFrame
        Shape ``(n_theta, n_items)`` (``(n_items,)`` for a scalar theta), or a DataFrame for a Series theta.""",
    "{per_theta_returns}": """Returns
    -------
    float, numpy.ndarray or pandas.Series
        One value per theta.""",
}


def _shared_doc(fn):
    """Put the shared sections of :data:`_DOC` into ``fn``'s docstring (one wording for all of them)."""
    for key, text in _DOC.items() if fn.__doc__ else ():  # no docstrings under python -OO
        fn.__doc__ = fn.__doc__.replace(key, text)
    return fn


def _inputs(theta: Any, items: Any, model: str | None) -> tuple[ItemBank, np.ndarray, str, pd.Index | None]:
    """The checked item bank and abilities of a response function: (bank, values, kind, index)."""
    bank = as_item_bank(items, model)
    return (bank, *_as_theta(theta))


def _per_item(values: np.ndarray, kind: str, index, bank: ItemBank):
    if kind == "series":
        return pd.DataFrame(values, index=index, columns=list(bank.names))
    if kind == "scalar":
        return values[0]
    return values


def _per_theta(values: np.ndarray, kind: str, index, name: str):
    if kind == "series":
        return pd.Series(values, index=index, name=name)
    if kind == "scalar":
        return float(values[0])
    return values


@constraints(model=MODEL)
def response_probability(theta: Any, items: Any, model: str | None = None):
    """Probability of a correct (1) response to each dichotomous item.

    Parameters
    ----------
    theta : float, array-like or pandas.Series
        Abilities.
    items : Calibration, ItemBank or pandas.DataFrame
        Dichotomous item parameters (see :func:`as_item_bank`).
    model : str, optional
        Required when ``items`` is a DataFrame.

    Returns
    -------
    numpy.ndarray or pandas.DataFrame
        Shape ``(n_theta, n_items)``; ``(n_items,)`` for a scalar theta; a DataFrame indexed like a Series
        theta with one column per item.

    Notes
    -----
    ``P(X = 1 | theta) = g + (u - g) / (1 + exp(-a (theta - b)))``, mirt's ``probtrace(item, Theta)[, 2]``.
    Polytomous models: use :func:`category_probabilities` or :func:`expected_score`.

    Examples
    --------
    >>> import pandas as pd
    >>> items = pd.DataFrame({"a": [1.0], "b": [0.0], "g": [0.2]}, index=["q1"])
    >>> round(float(response_probability(0.0, items, model="3PL")[0]), 12)
    0.6
    """
    bank = as_item_bank(items, model)
    if not bank.dichotomous:
        raise ValidationError(
            f"response_probability is for dichotomous models; model {bank.model!r} has several categories, "
            "use category_probabilities or expected_score"
        )
    values, kind, index = _as_theta(theta)
    return _per_item(fast.prob_correct(bank, values), kind, index, bank)


@constraints(model=MODEL)
@_shared_doc
def category_probabilities(theta: Any, items: Any, model: str | None = None):
    """Probability of each response category of each item.

    {parameters}

    Returns
    -------
    numpy.ndarray or pandas.DataFrame
        Array of shape ``(n_theta, n_items, max_categories)`` (``(n_items, max_categories)`` for a scalar
        theta), 0 for categories an item does not have; for a Series theta, a DataFrame indexed like it
        with columns ``(item, category)``. Categories are numbered from 0 (for dichotomous items 0 is
        the incorrect response).

    Notes
    -----
    Graded: ``P(X = k) = P*(k) - P*(k+1)`` with ``P*(k) = 1 / (1 + exp(-a (theta - b_k)))``, ``P*(0) = 1``
    and ``P*(K) = 0``, computed as ``expit(z_k) expit(-z_{k+1}) (1 - exp(z_{k+1} - z_k))`` so nothing
    cancels. GPCM: ``P(X = k) = exp(eta_k) / sum_h exp(eta_h)``, ``eta_k = sum_{v <= k} a (theta - b_v)``.
    Equal to mirt's ``probtrace(extract.item(mod, j), Theta)``.

    Examples
    --------
    >>> import pandas as pd
    >>> items = pd.DataFrame({"a": [1.0], "b1": [-1.0], "b2": [1.0]}, index=["q1"])
    >>> p = category_probabilities([0.0], items, model="gpcm")
    >>> p.shape, round(float(p.sum()), 12)
    ((1, 1, 3), 1.0)
    """
    bank, values, kind, index = _inputs(theta, items, model)
    probs = np.exp(fast.log_category_probs(bank, values))
    if kind == "series":
        cols = [(name, k) for j, name in enumerate(bank.names) for k in range(int(bank.n_categories[j]))]
        flat = np.concatenate([probs[:, j, : int(bank.n_categories[j])] for j in range(bank.n_items)], axis=1)
        return pd.DataFrame(flat, index=index, columns=pd.MultiIndex.from_tuples(cols, names=["item", "category"]))
    if kind == "scalar":
        return probs[0]
    return probs


@constraints(model=MODEL)
@_shared_doc
def expected_score(theta: Any, items: Any, model: str | None = None):
    """Expected score on each item: ``sum_k k P(X = k | theta)`` (P(X = 1) for dichotomous items).

    {parameters}

    {per_item_returns}

    Notes
    -----
    Categories are scored 0..K-1, as mirt's ``expected.item``.

    Examples
    --------
    >>> import pandas as pd
    >>> items = pd.DataFrame({"a": [1.0], "b1": [0.0], "b2": [0.0]}, index=["q1"])
    >>> float(expected_score(0.0, items, model="gpcm")[0])
    1.0
    """
    bank, values, kind, index = _inputs(theta, items, model)
    return _per_item(fast.expected(bank, values), kind, index, bank)


@constraints(model=MODEL)
@_shared_doc
def item_information(theta: Any, items: Any, model: str | None = None):
    """Fisher information of each item at each ability.

    {parameters}

    {per_item_returns}

    Notes
    -----
    ``I_j(theta) = sum_k P_k'(theta)^2 / P_k(theta)``, mirt's ``iteminfo``. Closed forms: 2PL
    ``a^2 P (1 - P)``; 3PL ``a^2 (Q / P) ((P - g) / (1 - g))^2``; 4PL ``a^2 (P - g)^2 (u - P)^2 /
    ((u - g)^2 P Q)``; graded ``a^2 sum_k P_k (1 - P*_k - P*_{k+1})^2``; GPCM ``a^2 Var(X | theta)``.

    Examples
    --------
    >>> import pandas as pd
    >>> items = pd.DataFrame({"a": [2.0], "b": [0.0]}, index=["q1"])
    >>> float(item_information(0.0, items, model="2PL")[0])
    1.0
    """
    bank, values, kind, index = _inputs(theta, items, model)
    return _per_item(fast.information(bank, values), kind, index, bank)


@constraints(model=MODEL)
@_shared_doc
def test_information(theta: Any, items: Any, model: str | None = None):
    """Test information: the sum of the item informations.

    {parameters}

    {per_theta_returns}

    Notes
    -----
    ``I(theta) = sum_j I_j(theta)``, mirt's ``testinfo`` (no prior term).

    Examples
    --------
    >>> import pandas as pd
    >>> items = pd.DataFrame({"a": [2.0, 2.0], "b": [0.0, 0.0]}, index=["q1", "q2"])
    >>> test_information(0.0, items, model="2PL")
    2.0
    """
    bank, values, kind, index = _inputs(theta, items, model)
    return _per_theta(fast.information(bank, values).sum(axis=1), kind, index, "information")


test_information.__test__ = False  # a public API name, not a pytest test


@constraints(model=MODEL)
@_shared_doc
def sem(theta: Any, items: Any, model: str | None = None):
    """Standard error of measurement: ``1 / sqrt(I(theta))``.

    {parameters}

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        One value per theta; ``inf`` where the test carries no information.

    Notes
    -----
    The asymptotic standard error of the ML ability estimate at ``theta``, from the test information
    (:func:`test_information`); in mirt ``1 / sqrt(testinfo(mod, Theta))``.

    Examples
    --------
    >>> import pandas as pd
    >>> items = pd.DataFrame({"a": [2.0] * 4, "b": [0.0] * 4}, index=list("wxyz"))
    >>> sem(0.0, items, model="2PL")
    0.5
    """
    bank, values, kind, index = _inputs(theta, items, model)
    info = fast.information(bank, values).sum(axis=1)
    with np.errstate(divide="ignore"):
        out = 1.0 / np.sqrt(info)
    return _per_theta(out, kind, index, "sem")


def _select_items(bank: ItemBank, subset: Any) -> ItemBank:
    if subset is None:
        return bank
    if isinstance(subset, str):
        if subset != "positive":
            raise ValidationError(f"subset={subset!r} is not supported; use 'positive', a boolean mask or a list of item names")
        keep = bank.a > 0
        if not keep.any():
            raise ValidationError("subset='positive' selects no item: no item has a positive discrimination")
        return bank.take(keep)
    if isinstance(subset, pd.Series) and subset.dtype == bool:
        labels = [str(i) for i in subset.index]
        unknown = sorted(set(labels) - set(bank.names))
        if unknown:
            raise ValidationError(f"subset names item(s) not in the bank: {', '.join(map(repr, unknown[:10]))}")
        chosen = {lab for lab, flag in zip(labels, subset.to_numpy()) if flag}
        return bank.take(np.array([n in chosen for n in bank.names]))
    arr = np.asarray(subset)
    if arr.dtype == bool:
        if arr.shape != (bank.n_items,):
            raise ValidationError(f"subset as a boolean mask needs one flag per item ({bank.n_items}), got shape {arr.shape}")
        return bank.take(arr)
    if arr.ndim == 1 and arr.size and all(isinstance(v, str) for v in arr.tolist()):
        pos = {n: i for i, n in enumerate(bank.names)}
        unknown = [v for v in arr.tolist() if v not in pos]
        if unknown:
            raise ValidationError(f"subset names item(s) not in the bank: {', '.join(map(repr, unknown[:10]))}")
        return bank.take(np.array([pos[v] for v in arr.tolist()]))
    raise ValidationError(f"subset must be None, 'positive', a boolean mask or a list of item names, got {show_value(subset)}")


@constraints(model=MODEL)
def true_score(theta: Any, items: Any, model: str | None = None, subset: Any = None, mins: Any = True):
    """True-Score: the expected total score at each ability (Cardoso et al., decodIRT, Eq. 2).

    Parameters
    ----------
    theta : float, array-like, pandas.Series or pandas.DataFrame
        Abilities; a DataFrame must have a ``theta`` column (the output of :func:`estimate_abilities`).
    items : Calibration, ItemBank or pandas.DataFrame
        Item parameters (see :func:`as_item_bank`).
    model : str, optional
        Required when ``items`` is a DataFrame.
    subset : None, "positive", boolean mask or list of item names, optional
        Items to sum over. ``"positive"`` keeps items with ``a > 0`` (decodIRT, Cardoso et al., drops negatively
        discriminating instances); a mask has one flag per item (a boolean Series is matched by item
        name).
    mins : bool or mapping of str to float, default True
        Score each item from its lowest observed response, as mirt's ``expected.test(mod, Theta, mins =
        TRUE)``: a calibration records them (``Calibration.item_mins``; 0 for 0/1 items, 1 for items coded
        1..K). ``False`` scores every item's categories ``0..K-1`` (``mins = FALSE``). A mapping item → lowest
        response gives them for an item table or :class:`ItemBank`, which know no data (without one, and for a
        calibration made before item minimums were recorded, items count from 0).

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        One True-Score per theta.

    Notes
    -----
    ``TS(theta) = sum_{j in subset} (m_j + E[X_j | theta])`` with categories scored ``0..K-1`` and ``m_j`` the
    item's lowest response (``mins``); for 0/1 items ``sum_j P(X_j = 1 | theta)`` (Cardoso et al., decodIRT,
    Eq. 2). R equivalent: ``expected.test(mod, Theta)`` (``mins = TRUE``, its default) or
    ``expected.test(mod, Theta, mins = FALSE)``.

    Examples
    --------
    >>> import pandas as pd
    >>> items = pd.DataFrame({"a": [1.0, -1.0], "b": [0.0, 0.0]}, index=["q1", "q2"])
    >>> true_score(0.0, items, model="2PL")
    1.0
    >>> true_score(0.0, items, model="2PL", subset="positive")
    0.5
    """
    full = as_item_bank(items, model)
    bank = _select_items(full, subset)
    values, kind, index = _as_theta(theta)
    lowest = _item_mins(items, mins, full, bank)
    return _per_theta(fast.expected(bank, values).sum(axis=1) + lowest, kind, index, "true_score")


def _item_mins(items: Any, mins: Any, full: ItemBank, bank: ItemBank) -> float:
    """The sum of the selected items' lowest responses (0 when ``mins`` is False or nothing is known)."""
    known = item_offsets(items, mins, full)
    return float(sum(known.get(n, 0.0) for n in bank.names))


def item_offsets(items: Any, mins: Any, full: ItemBank) -> dict[str, float]:
    """Each item's lowest response under ``mins`` (True: the calibration's ``item_mins``; False: none;
    a mapping item -> lowest response); items not named count from 0."""
    if isinstance(mins, (bool, np.bool_)):
        known = (getattr(items, "item_mins", None) or {}) if mins else {}
    elif isinstance(mins, Mapping):
        known = {str(k): v for k, v in mins.items()}
        unknown = sorted(set(known) - set(full.names))
        if unknown:
            raise ValidationError(f"mins names item(s) not in the items: {', '.join(map(repr, unknown[:10]))}")
    else:
        raise ValidationError(f"mins must be True, False or a mapping item -> lowest response, got {show_value(mins)}")
    try:
        out = {str(n): float(v) for n, v in known.items()}
    except (TypeError, ValueError):
        raise ValidationError(f"mins: lowest responses must be numbers, got {show_value(dict(known))}") from None
    bad = [n for n, v in out.items() if not np.isfinite(v) or v != round(v)]
    if bad:
        raise ValidationError(f"mins: item {bad[0]!r} has lowest response {out[bad[0]]!r}; it must be a whole number")
    return out
