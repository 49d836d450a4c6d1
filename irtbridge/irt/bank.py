"""Native IRT kernel: response functions, information, ability estimation and True-Scores.

Everything here is vectorized numpy/scipy over a grid of abilities and a bank of items, so it can run
inside CAT loops and benchmark sweeps without a round trip to R. The parameterization is mirt's IRT one
(``coef(mod, IRTpars = TRUE, simplify = TRUE)$items``), logistic without the 1.702 scaling:

* dichotomous (``"rasch"``, ``"1PL"``, ``"2PL"``, ``"3PL"``, ``"4PL"``), columns ``a, b, g, u``:
  ``P(X = 1 | theta) = g + (u - g) / (1 + exp(-a (theta - b)))``;
* ``"graded"`` (Samejima), columns ``a, b1..bk``: ``P(X >= k | theta) = 1 / (1 + exp(-a (theta - b_k)))``;
* ``"gpcm"`` (generalized partial credit), columns ``a, b1..bk``:
  ``P(X = k | theta) ∝ exp(sum_{v <= k} a (theta - b_v))`` with the empty sum for ``k = 0``.

Every function takes either a calibration (anything with ``.items`` and ``.model``, such as
:class:`irtbridge.Calibration`), an :class:`ItemBank`, or an item table plus ``model``. Build an
:class:`ItemBank` once with :func:`as_item_bank` when calling in a loop: it skips re-validation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from irtbridge._summary import Line, Summary
from irtbridge._catalogue import CATALOGUE, DICHOTOMOUS, KERNEL_MODELS, KERNEL_SCORING, POLYTOMOUS
from irtbridge._constraints import Choice, constraints
from irtbridge._validation import check_choice, require_columns
from irtbridge.exceptions import ValidationError

__all__ = ["MODELS", "DICHOTOMOUS_MODELS", "POLYTOMOUS_MODELS", "METHODS", "ItemBank", "as_item_bank"]

# the kernel's models and scoring methods are rows of the model catalogue (irtbridge._catalogue)
DICHOTOMOUS_MODELS = DICHOTOMOUS
POLYTOMOUS_MODELS = POLYTOMOUS
MODELS = KERNEL_MODELS
METHODS = KERNEL_SCORING
#: the ``model`` of every function that reads an item bank: one of MODELS in any case, or None (the
#: calibration's own, or the bank's)
MODEL = Choice(MODELS, ignore_case=True, allow_none=True)


def _readonly(arr: np.ndarray) -> np.ndarray:
    arr = np.ascontiguousarray(arr)
    arr.setflags(write=False)
    return arr


# --------------------------------------------------------------------------------------------------
# Item bank
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ItemBank:
    """Validated item parameters in array form, ready for the vectorized kernels.

    Build it with :func:`as_item_bank`. It has ``.items`` and ``.model`` like a calibration, so it can
    be passed wherever a calibration is accepted.

    Attributes
    ----------
    model : str
        One of :data:`MODELS`.
    items : pandas.DataFrame
        The parameter table (a copy), indexed by item name: ``a, b, g, u`` for dichotomous models,
        ``a, b1..bk`` for ``"graded"`` and ``"gpcm"`` (NaN past an item's last threshold).
    names : tuple of str
        Item names, in table order.
    a : numpy.ndarray
        Discriminations, shape ``(n_items,)``.
    b : numpy.ndarray
        Difficulties, shape ``(n_items,)`` (dichotomous) or thresholds ``(n_items, k_max)`` (polytomous,
        NaN-padded).
    g, u : numpy.ndarray
        Lower and upper asymptotes (0 and 1 for polytomous models).
    n_categories : numpy.ndarray
        Number of response categories of each item (2 for dichotomous items).
    """

    model: str
    items: pd.DataFrame = field(repr=False)
    names: tuple
    a: np.ndarray = field(repr=False)
    b: np.ndarray = field(repr=False)
    g: np.ndarray = field(repr=False)
    u: np.ndarray = field(repr=False)
    n_categories: np.ndarray = field(repr=False)
    # Model-specific precomputations (see _finish_bank).
    _plain: bool = field(default=True, repr=False)
    _log_g: np.ndarray | None = field(default=None, repr=False)
    _log_1mu: np.ndarray | None = field(default=None, repr=False)
    _log_span: np.ndarray | None = field(default=None, repr=False)
    _intercepts: np.ndarray | None = field(default=None, repr=False)
    _log_gaps: np.ndarray | None = field(default=None, repr=False)

    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self.names)

    @property
    def dichotomous(self) -> bool:
        """True for the 1PL-4PL family."""
        return self.model in DICHOTOMOUS_MODELS

    @property
    def max_categories(self) -> int:
        """Largest number of categories over the items."""
        return int(self.n_categories.max())

    def take(self, positions: Any) -> "ItemBank":
        """A bank with only the items at ``positions`` (integer positions or a boolean mask).

        Parameters
        ----------
        positions : array-like of int or bool
            The items kept.

        Returns
        -------
        ItemBank
            The smaller bank.
        """
        pos = np.arange(self.n_items)[np.asarray(positions)]
        if pos.size == 0:
            raise ValidationError("the item selection is empty; select at least one item")
        return _bank_from_arrays(
            self.model,
            self.items.iloc[pos],
            tuple(self.names[i] for i in pos),
            self.a[pos],
            self.b[pos],
            self.g[pos],
            self.u[pos],
            self.n_categories[pos],
        )

    def summary(self) -> Summary:
        """The model, the number of items and the parameter table.

        Returns
        -------
        Summary
            The bank's summary.
        """
        lines = (Line.of("size", f"{self.n_items} items, model {self.model}, up to {self.max_categories} categories"),)
        return Summary("irtbridge item bank", lines, (("items", self.items),),
                       data={"model": self.model, "n_items": self.n_items})

    def _repr_html_(self) -> str:
        return self.summary().as_html()


def _bank_from_arrays(model, items, names, a, b, g, u, ncat) -> ItemBank:
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    g = np.asarray(g, dtype=float)
    u = np.asarray(u, dtype=float)
    ncat = np.asarray(ncat, dtype=np.int64)
    extra: dict[str, Any] = {}
    if model in DICHOTOMOUS_MODELS:
        plain = bool(np.all(g == 0.0) and np.all(u == 1.0))
        extra["_plain"] = plain
        if not plain:
            with np.errstate(divide="ignore"):
                extra["_log_g"] = _readonly(np.log(g))
                extra["_log_1mu"] = _readonly(np.log1p(-u))
            extra["_log_span"] = _readonly(np.log(u - g))
    else:
        # b is trimmed to the widest item so padding never exceeds what some item uses.
        kmax = int(ncat.max())
        b = b[:, : kmax - 1]
        k = np.arange(1, kmax)
        valid = k[None, :] <= (ncat[:, None] - 1)
        if model == "graded":
            # Slope-intercept form: P(X >= k) = expit(a*theta + d_k), d_k = -a*b_k. The extended table
            # has d_0 = +inf (P(X >= 0) = 1) and d_k = -inf for k >= K_j (P(X >= K_j) = 0), so the
            # category formula below needs no special cases for the end categories or padded items.
            d = np.full((len(a), kmax + 1), -np.inf)
            d[:, 0] = np.inf
            d[:, 1:kmax][valid] = (-a[:, None] * np.where(valid, b, 0.0))[valid]
            # log(1 - exp(d_{k+1} - d_k)) is the theta-free part of log P(X = k); see _graded_logp.
            with np.errstate(invalid="ignore"):
                gaps = np.log(-np.expm1(d[:, 1:] - d[:, :-1]))
            gaps[np.arange(kmax)[None, :] >= ncat[:, None]] = -np.inf
            extra["_intercepts"] = _readonly(d)
            extra["_log_gaps"] = _readonly(gaps)
        else:
            # gpcm: eta_k = a*k*theta + c_k with c_k = -a * sum_{v<=k} b_v (mirt's d_k), c_0 = 0;
            # categories an item does not have get c = -inf, i.e. probability 0.
            c = np.full((len(a), kmax), -np.inf)
            c[:, 0] = 0.0
            steps = np.where(valid, -a[:, None] * np.nan_to_num(b), 0.0)
            cum = np.cumsum(steps, axis=1)
            c[:, 1:][valid] = cum[valid]
            extra["_intercepts"] = _readonly(c)
    return ItemBank(
        model=model,
        items=items.copy(),
        names=tuple(names),
        a=_readonly(a),
        b=_readonly(b),
        g=_readonly(g),
        u=_readonly(u),
        n_categories=_readonly(ncat),
        **extra,
    )


def _numeric_column(table: pd.DataFrame, column: str, source: str, names: list[str]) -> np.ndarray:
    try:
        values = pd.to_numeric(table[column], errors="raise").to_numpy(dtype=float)
    except (TypeError, ValueError):
        raise ValidationError(f"{source}: column {column!r} must hold numbers") from None
    bad = ~np.isfinite(values)
    if bad.any():
        which = [names[i] for i in np.flatnonzero(bad)[:5]]
        raise ValidationError(
            f"{source}: column {column!r} has missing or infinite values for item(s) {', '.join(map(repr, which))}; "
            "every item needs a finite value"
        )
    return values


def _items_of(items: Any, model: Any) -> tuple[pd.DataFrame, str, str]:
    """Return (table, canonical model, source name) from a calibration-like object or a table."""
    if hasattr(items, "items") and hasattr(items, "model") and not isinstance(items, (pd.DataFrame, dict)):
        own = check_choice(items.model, "items.model", MODELS, ignore_case=True)
        if model is not None:
            given = check_choice(model, "model", MODELS, ignore_case=True)
            if given != own:
                raise ValidationError(
                    f"model={model!r} contradicts the calibration's model {own!r}; leave model=None to use {own!r}"
                )
        table = items.items
        if not isinstance(table, pd.DataFrame):
            raise ValidationError(f"items.items must be a pandas DataFrame of item parameters, got {type(table).__name__}")
        return table, own, "items.items"
    if isinstance(items, pd.DataFrame):
        if model is None:
            raise ValidationError(
                "model is required when items is a DataFrame; pass one of " + ", ".join(map(repr, MODELS))
            )
        return items, check_choice(model, "model", MODELS, ignore_case=True), "items"
    raise ValidationError(
        "items must be a calibration (with .items and .model), an ItemBank, or a pandas DataFrame of item "
        f"parameters indexed by item name; got {type(items).__name__}"
    )


@constraints(model=MODEL)
def as_item_bank(items: Any, model: str | None = None) -> ItemBank:
    """Validate item parameters once and return an :class:`ItemBank`.

    Parameters
    ----------
    items : Calibration, ItemBank or pandas.DataFrame
        A calibration (anything with ``.items`` and ``.model``), an existing bank (returned as is), or a
        table indexed by item name with columns ``a, b`` and optionally ``g`` (default 0) and ``u``
        (default 1) for dichotomous models (``a`` defaults to 1 for ``"rasch"`` and ``"1PL"``), or
        ``a, b1..bk`` for ``"graded"`` and ``"gpcm"`` (an item with fewer categories has NaN in its last
        thresholds). Other columns are ignored.
    model : str, optional
        One of ``"rasch", "1PL", "2PL", "3PL", "4PL", "graded", "gpcm"``. Required with a DataFrame;
        with a calibration it must agree with ``items.model`` or be None.

    Returns
    -------
    ItemBank

    Notes
    -----
    The parameters are mirt's ``coef(mod, IRTpars = TRUE, simplify = TRUE)$items``. For dichotomous
    models ``0 <= g < u <= 1``; ``"rasch"``, ``"1PL"`` and ``"2PL"`` need ``g = 0, u = 1`` and ``"3PL"``
    needs ``u = 1``. Graded thresholds must be strictly ordered in the direction of ``a`` (mirt's
    intercepts ``d_k = -a b_k`` strictly decreasing); gpcm step difficulties may be in any order.

    Examples
    --------
    >>> import pandas as pd
    >>> items = pd.DataFrame({"a": [1.2, 0.8], "b": [-0.5, 1.0]}, index=["q1", "q2"])
    >>> bank = as_item_bank(items, model="2PL")
    >>> bank.n_items, bank.model
    (2, '2PL')
    """
    if isinstance(items, ItemBank):
        if model is not None:
            given = check_choice(model, "model", MODELS, ignore_case=True)
            if given != items.model:
                raise ValidationError(
                    f"model={model!r} contradicts the item bank's model {items.model!r}; leave model=None"
                )
        return items
    table, model, source = _items_of(items, model)
    if table.shape[0] == 0:
        raise ValidationError(f"{source} has no items (no rows)")
    names = [str(i) for i in table.index]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise ValidationError(f"{source} has duplicate item names: {', '.join(map(repr, dup[:10]))}")
    n = len(names)
    if model in DICHOTOMOUS_MODELS:
        return _dichotomous_bank(table, model, source, names, n)
    return _polytomous_bank(table, model, source, names, n)


def _dichotomous_bank(table, model, source, names, n) -> ItemBank:
    row = CATALOGUE[model]
    require_columns(table, ["b"] if row.slopes != "free" else ["a", "b"], source)
    cols = {}
    for col, default in (("a", 1.0), ("b", None), ("g", 0.0), ("u", 1.0)):
        cols[col] = _numeric_column(table, col, source, names) if col in table.columns else np.full(n, default)
    a, b, g, u = cols["a"], cols["b"], cols["g"], cols["u"]

    def fail(mask: np.ndarray, what: str) -> None:
        which = [names[i] for i in np.flatnonzero(mask)[:5]]
        raise ValidationError(f"{source}: {what} for item(s) {', '.join(map(repr, which))}")

    if ((g < 0) | (g >= 1)).any():
        fail((g < 0) | (g >= 1), f"column 'g' must lie in [0, 1), found {g[(g < 0) | (g >= 1)][0]:g}")
    if ((u <= 0) | (u > 1)).any():
        fail((u <= 0) | (u > 1), f"column 'u' must lie in (0, 1], found {u[(u <= 0) | (u > 1)][0]:g}")
    if (g >= u).any():
        fail(g >= u, "the lower asymptote g must be below the upper asymptote u")
    if "g" not in row.parameters and (g != 0).any():
        fail(g != 0, f"model {model!r} has no guessing parameter but column 'g' is not 0 (use model='3PL')")
    if "u" not in row.parameters and (u != 1).any():
        fail(u != 1, f"model {model!r} has no upper asymptote but column 'u' is not 1 (use model='4PL')")
    out = pd.DataFrame({"a": a, "b": b, "g": g, "u": u}, index=table.index)
    return _bank_from_arrays(model, out, names, a, b, g, u, np.full(n, 2))


def _polytomous_bank(table, model, source, names, n) -> ItemBank:
    require_columns(table, ["a", "b1"], source)
    numbered = {}
    for col in table.columns:
        m = re.fullmatch(r"b(\d+)", str(col))
        if m:
            numbered[int(m.group(1))] = col
    ks = sorted(numbered)
    if ks != list(range(1, len(ks) + 1)):
        raise ValidationError(
            f"{source}: threshold columns must be b1..bk without gaps, found {', '.join(str(numbered[k]) for k in ks)}"
        )
    a = _numeric_column(table, "a", source, names)
    try:
        b = np.column_stack([pd.to_numeric(table[numbered[k]], errors="raise").to_numpy(dtype=float) for k in ks])
    except (TypeError, ValueError):
        raise ValidationError(
            f"{source}: threshold columns b1..b{len(ks)} must hold numbers (NaN past an item's last threshold)"
        ) from None
    if np.isinf(b).any():
        bad = np.flatnonzero(np.isinf(b).any(axis=1))
        raise ValidationError(f"{source}: item(s) {', '.join(repr(names[i]) for i in bad[:5])} have infinite thresholds")
    present = ~np.isnan(b)
    count = present.sum(axis=1)
    prefix = present == (np.arange(len(ks))[None, :] < count[:, None])
    bad = (~prefix.all(axis=1)) | (count == 0)
    if bad.any():
        which = [names[i] for i in np.flatnonzero(bad)[:5]]
        raise ValidationError(
            f"{source}: item(s) {', '.join(map(repr, which))} need thresholds b1..b(K-1) filled in order, with NaN "
            "only after the last one"
        )
    if model == "graded":
        with np.errstate(invalid="ignore"):
            rising = a[:, None] * np.diff(b, axis=1)
        broken = (present[:, 1:] & ~(rising > 0)).any(axis=1)
        if broken.any():
            which = [names[i] for i in np.flatnonzero(broken)[:5]]
            raise ValidationError(
                f"{source}: graded thresholds must be strictly increasing for a > 0 (decreasing for a < 0); "
                f"item(s) {', '.join(map(repr, which))} are not"
            )
    out = pd.DataFrame(b, index=table.index, columns=[f"b{k}" for k in ks])
    out.insert(0, "a", a)
    return _bank_from_arrays(model, out, names, a, b, np.zeros(n), np.ones(n), count + 1)
