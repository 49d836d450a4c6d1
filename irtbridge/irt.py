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
import warnings
from dataclasses import dataclass, field
from typing import Any, Iterator

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.special import expit, log_expit

from irtbridge._validation import _show, check_choice, check_int, check_number, require_columns
from irtbridge.exceptions import ConvergenceWarning, ValidationError

__all__ = [
    "MODELS",
    "DICHOTOMOUS_MODELS",
    "POLYTOMOUS_MODELS",
    "METHODS",
    "ItemBank",
    "as_item_bank",
    "response_probability",
    "category_probabilities",
    "expected_score",
    "item_information",
    "test_information",
    "sem",
    "estimate_abilities",
    "true_score",
]

DICHOTOMOUS_MODELS = ("rasch", "1PL", "2PL", "3PL", "4PL")
POLYTOMOUS_MODELS = ("graded", "gpcm")
MODELS = DICHOTOMOUS_MODELS + POLYTOMOUS_MODELS
METHODS = ("EAP", "MAP", "ML")

# Cells processed at once in (respondents x items x categories) temporaries: bounds memory at a few
# tens of MB whatever the data size, while keeping numpy calls large enough to amortize overhead.
_CHUNK_CELLS = 1 << 21
_MAX_ITER = 100
_MAX_HALVINGS = 40
_MAX_STEP = 1.0
_STEP_TOL = 1e-10



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
        """A bank with only the items at ``positions`` (integer positions or a boolean mask)."""
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
    require_columns(table, ["b"] if model in ("rasch", "1PL") else ["a", "b"], source)
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
    if model in ("rasch", "1PL", "2PL") and (g != 0).any():
        fail(g != 0, f"model {model!r} has no guessing parameter but column 'g' is not 0 (use model='3PL')")
    if model in ("rasch", "1PL", "2PL", "3PL") and (u != 1).any():
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
        raise ValidationError(f"{source}: threshold columns b1..b{len(ks)} must hold numbers (NaN past an item's last threshold)") from None
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


# --------------------------------------------------------------------------------------------------
# Response functions (on a vector of abilities)
# --------------------------------------------------------------------------------------------------


def _dich_logpq(bank: ItemBank, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log P(X=1) and log P(X=0) from logits z = a (theta - b); exact for any finite z."""
    lp, lq = log_expit(z), log_expit(-z)
    if bank._plain:
        return lp, lq
    # g + (u - g) expit(z) in log space keeps full relative precision near both asymptotes.
    return np.logaddexp(bank._log_g, bank._log_span + lp), np.logaddexp(bank._log_1mu, bank._log_span + lq)


def _graded_logp(bank: ItemBank, theta: np.ndarray) -> np.ndarray:
    # P(X = k) = expit(z_k) - expit(z_{k+1}) = expit(z_k) expit(-z_{k+1}) (1 - exp(z_{k+1} - z_k)),
    # a product of terms that never cancel, so the log is exact even at theta = +-1000 or a = 1e3.
    z = bank.a[None, :, None] * theta[:, None, None] + bank._intercepts[None, :, :]
    return log_expit(z[..., :-1]) + log_expit(-z[..., 1:]) + bank._log_gaps[None, :, :]


def _gpcm_logp(bank: ItemBank, theta: np.ndarray) -> np.ndarray:
    k = np.arange(bank._intercepts.shape[1], dtype=float)
    eta = (bank.a[:, None] * k[None, :])[None, :, :] * theta[:, None, None] + bank._intercepts[None, :, :]
    top = eta.max(axis=-1, keepdims=True)
    return eta - (top + np.log(np.exp(eta - top).sum(axis=-1, keepdims=True)))


def _log_category_probs(bank: ItemBank, theta: np.ndarray) -> np.ndarray:
    """log P(X = k | theta), shape (n_theta, n_items, max_categories); -inf for absent categories."""
    if bank.dichotomous:
        lp, lq = _dich_logpq(bank, bank.a[None, :] * (theta[:, None] - bank.b[None, :]))
        return np.stack([lq, lp], axis=-1)
    if bank.model == "graded":
        return _graded_logp(bank, theta)
    return _gpcm_logp(bank, theta)


def _prob_correct(bank: ItemBank, theta: np.ndarray) -> np.ndarray:
    z = bank.a[None, :] * (theta[:, None] - bank.b[None, :])
    return bank.g + (bank.u - bank.g) * expit(z)


def _expected(bank: ItemBank, theta: np.ndarray) -> np.ndarray:
    if bank.dichotomous:
        return _prob_correct(bank, theta)
    probs = np.exp(_log_category_probs(bank, theta))
    return probs @ np.arange(probs.shape[-1], dtype=float)


def _information(bank: ItemBank, theta: np.ndarray) -> np.ndarray:
    """Fisher information of each item, shape (n_theta, n_items)."""
    if bank.dichotomous:
        z = bank.a[None, :] * (theta[:, None] - bank.b[None, :])
        return _dich_terms(bank, z, None)[3]
    if bank.model == "graded":
        z = bank.a[None, :, None] * theta[:, None, None] + bank._intercepts[None, :, :]
        # d log P(X = k) / d theta, divided by a: (1 - P*_k) - P*_{k+1}, each term exact
        score = expit(-z[..., :-1]) - expit(z[..., 1:])
        probs = np.exp(_graded_logp(bank, theta))
        return bank.a[None, :] ** 2 * (probs * score**2).sum(axis=-1)
    probs = np.exp(_gpcm_logp(bank, theta))
    k = np.arange(probs.shape[-1], dtype=float)
    mean = probs @ k
    var = (probs * (k[None, None, :] - mean[..., None]) ** 2).sum(axis=-1)
    return bank.a[None, :] ** 2 * var


def _dich_terms(bank: ItemBank, z: np.ndarray, x: np.ndarray | None):
    """(log-likelihood, first and second derivative in theta, Fisher information) of dichotomous items.

    ``x`` is the 0/1 response (None: only the information is wanted). With ``sz = z`` for x = 1 and
    ``-z`` for x = 0, the probability of the observed response is ``base + (u - g) expit(sz)`` (``base``
    is g for x = 1 and 1 - u for x = 0), and everything is written with ``r = expit(sz) / P(x)`` and
    ``expit(-sz)``, which stay exact where P(x) or 1 - P(x) underflow, instead of P'/P.
    """
    a = bank.a
    if x is None:
        s, sb = expit(z), expit(-z)
        if bank._plain:
            return None, None, None, a**2 * s * sb
        return None, None, None, _dich_info(bank, s, sb)
    sign = 2.0 * x - 1.0
    sz = z * sign
    hit, miss = expit(sz), expit(-sz)  # expit(sz) and its complement, each to full precision
    if bank._plain:
        # log L = log expit(sz), d/dtheta = a sign expit(-sz) and d2 = -a^2 expit(sz) expit(-sz)
        d2 = -(a**2) * hit * miss
        return log_expit(sz), a * sign * miss, d2, -d2
    one = x == 1
    span = bank.u - bank.g
    base = np.where(one, bank.g, 1.0 - bank.u)
    other = np.where(one, 1.0 - bank.u, bank.g)
    prob = base + span * hit
    with np.errstate(divide="ignore"):
        ll = np.log(prob)
    tiny = prob < 1e-250
    if tiny.any():
        # base = 0 and expit(sz) underflowing: log P = log(u - g) + log expit(sz), exactly
        ll[tiny] = (np.log(np.broadcast_to(span, sz.shape)) + log_expit(sz))[tiny]
    r = _ratio(base, hit, span)  # expit(sz) / P(x)
    r_other = _ratio(other, miss, span)  # expit(-sz) / P(not x)
    d1 = a * sign * span * miss * r
    d2 = a**2 * span * miss * r * ((miss - hit) - span * miss * r)
    info = a**2 * span**2 * hit * miss * r * r_other
    return ll, d1, d2, info


def _ratio(base: np.ndarray, e: np.ndarray, span: np.ndarray) -> np.ndarray:
    """e / (base + span e) = 1 / (span + base / e), finite when e underflows to 0."""
    base = np.broadcast_to(base, e.shape)
    quotient = np.zeros(e.shape)
    with np.errstate(divide="ignore", over="ignore"):
        np.divide(base, e, out=quotient, where=base > 0)
    return 1.0 / (span + quotient)


def _dich_info(bank: ItemBank, s: np.ndarray, sb: np.ndarray) -> np.ndarray:
    span = bank.u - bank.g
    return bank.a**2 * span**2 * s * sb * _ratio(bank.g, s, span) * _ratio(1.0 - bank.u, sb, span)


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
        raise ValidationError(f"theta must be numeric, got {_show(theta)}") from None
    if isinstance(raw, (bool, np.bool_)) or (values.dtype == bool):
        raise ValidationError(f"theta must be numeric, got {_show(theta)}")
    if values.ndim != 1:
        raise ValidationError(f"theta must be a number or one-dimensional, got shape {values.shape}")
    if values.size == 0:
        raise ValidationError("theta is empty")
    if not np.isfinite(values).all():
        bad = values[~np.isfinite(values)][0]
        raise ValidationError(f"theta must be finite, found {bad}; drop or clip those abilities first")
    return values, kind, index


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
    return _per_item(_prob_correct(bank, values), kind, index, bank)


def category_probabilities(theta: Any, items: Any, model: str | None = None):
    """Probability of each response category of each item.

    Parameters
    ----------
    theta : float, array-like or pandas.Series
        Abilities.
    items : Calibration, ItemBank or pandas.DataFrame
        Item parameters (see :func:`as_item_bank`).
    model : str, optional
        Required when ``items`` is a DataFrame.

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
    bank = as_item_bank(items, model)
    values, kind, index = _as_theta(theta)
    probs = np.exp(_log_category_probs(bank, values))
    if kind == "series":
        cols = [(name, k) for j, name in enumerate(bank.names) for k in range(int(bank.n_categories[j]))]
        flat = np.concatenate([probs[:, j, : int(bank.n_categories[j])] for j in range(bank.n_items)], axis=1)
        return pd.DataFrame(flat, index=index, columns=pd.MultiIndex.from_tuples(cols, names=["item", "category"]))
    if kind == "scalar":
        return probs[0]
    return probs


def expected_score(theta: Any, items: Any, model: str | None = None):
    """Expected score on each item: ``sum_k k P(X = k | theta)`` (P(X = 1) for dichotomous items).

    Parameters
    ----------
    theta : float, array-like or pandas.Series
        Abilities.
    items : Calibration, ItemBank or pandas.DataFrame
        Item parameters (see :func:`as_item_bank`).
    model : str, optional
        Required when ``items`` is a DataFrame.

    Returns
    -------
    numpy.ndarray or pandas.DataFrame
        Shape ``(n_theta, n_items)`` (``(n_items,)`` for a scalar theta), or a DataFrame for a Series theta.

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
    bank = as_item_bank(items, model)
    values, kind, index = _as_theta(theta)
    return _per_item(_expected(bank, values), kind, index, bank)


def item_information(theta: Any, items: Any, model: str | None = None):
    """Fisher information of each item at each ability.

    Parameters
    ----------
    theta : float, array-like or pandas.Series
        Abilities.
    items : Calibration, ItemBank or pandas.DataFrame
        Item parameters (see :func:`as_item_bank`).
    model : str, optional
        Required when ``items`` is a DataFrame.

    Returns
    -------
    numpy.ndarray or pandas.DataFrame
        Shape ``(n_theta, n_items)`` (``(n_items,)`` for a scalar theta), or a DataFrame for a Series theta.

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
    bank = as_item_bank(items, model)
    values, kind, index = _as_theta(theta)
    return _per_item(_information(bank, values), kind, index, bank)


def test_information(theta: Any, items: Any, model: str | None = None):
    """Test information: the sum of the item informations.

    Parameters
    ----------
    theta : float, array-like or pandas.Series
        Abilities.
    items : Calibration, ItemBank or pandas.DataFrame
        Item parameters (see :func:`as_item_bank`).
    model : str, optional
        Required when ``items`` is a DataFrame.

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        One value per theta.

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
    bank = as_item_bank(items, model)
    values, kind, index = _as_theta(theta)
    return _per_theta(_information(bank, values).sum(axis=1), kind, index, "information")


test_information.__test__ = False  # a public API name, not a pytest test


def sem(theta: Any, items: Any, model: str | None = None):
    """Standard error of measurement: ``1 / sqrt(I(theta))``.

    Parameters
    ----------
    theta : float, array-like or pandas.Series
        Abilities.
    items : Calibration, ItemBank or pandas.DataFrame
        Item parameters (see :func:`as_item_bank`).
    model : str, optional
        Required when ``items`` is a DataFrame.

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
    bank = as_item_bank(items, model)
    values, kind, index = _as_theta(theta)
    info = _information(bank, values).sum(axis=1)
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
    raise ValidationError(f"subset must be None, 'positive', a boolean mask or a list of item names, got {_show(subset)}")


def true_score(theta: Any, items: Any, model: str | None = None, subset: Any = None):
    """True-Score: the expected total score at each ability (seed 002, Eq. 2).

    Parameters
    ----------
    theta : float, array-like, pandas.Series or pandas.DataFrame
        Abilities; a DataFrame must have a ``theta`` column (the output of :func:`estimate_abilities`).
    items : Calibration, ItemBank or pandas.DataFrame
        Item parameters (see :func:`as_item_bank`).
    model : str, optional
        Required when ``items`` is a DataFrame.
    subset : None, "positive", boolean mask or list of item names, optional
        Items to sum over. ``"positive"`` keeps items with ``a > 0`` (seed 002 drops negatively
        discriminating instances); a mask has one flag per item (a boolean Series is matched by item
        name).

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        One True-Score per theta.

    Notes
    -----
    ``TS(theta) = sum_{j in subset} E[X_j | theta]``, which for dichotomous items is
    ``sum_j P(X_j = 1 | theta)`` (seed 002, Eq. 2); polytomous categories are scored 0..K-1. This is
    mirt's ``expected.test(mod, Theta)``.

    Examples
    --------
    >>> import pandas as pd
    >>> items = pd.DataFrame({"a": [1.0, -1.0], "b": [0.0, 0.0]}, index=["q1", "q2"])
    >>> true_score(0.0, items, model="2PL")
    1.0
    >>> true_score(0.0, items, model="2PL", subset="positive")
    0.5
    """
    bank = _select_items(as_item_bank(items, model), subset)
    values, kind, index = _as_theta(theta)
    return _per_theta(_expected(bank, values).sum(axis=1), kind, index, "true_score")


# --------------------------------------------------------------------------------------------------
# Ability estimation
# --------------------------------------------------------------------------------------------------


def _responses(responses: Any, bank: ItemBank) -> tuple[np.ndarray, np.ndarray, ItemBank, pd.Index]:
    """Validate responses against the bank: (categories as int, observed mask, matching bank, row index)."""
    if isinstance(responses, pd.Series):
        responses = responses.to_frame().T
        responses.index = pd.RangeIndex(1)
    if isinstance(responses, pd.DataFrame):
        cols = [str(c) for c in responses.columns]
        if len(set(cols)) != len(cols):
            dup = sorted({c for c in cols if cols.count(c) > 1})
            raise ValidationError(f"responses has duplicate item columns: {', '.join(map(repr, dup[:10]))}")
        pos = {n: i for i, n in enumerate(bank.names)}
        unknown = [c for c in cols if c not in pos]
        if unknown:
            raise ValidationError(
                f"responses has column(s) {', '.join(map(repr, unknown[:10]))} that are not items of the bank; "
                "columns must be item names (a subset of them is fine)"
            )
        non_numeric = [str(c) for c, dt in responses.dtypes.items() if not (pd.api.types.is_numeric_dtype(dt) or pd.api.types.is_bool_dtype(dt))]
        if non_numeric:
            raise ValidationError(
                f"responses has non-numeric column(s) {', '.join(map(repr, non_numeric[:5]))}; every item must hold numbers (NaN for missing)"
            )
        values = responses.to_numpy(dtype=float, na_value=np.nan)
        index = responses.index
        if cols != list(bank.names):
            bank = bank.take(np.array([pos[c] for c in cols], dtype=np.int64))
    else:
        try:
            values = np.array(responses, dtype=float)
        except (TypeError, ValueError):
            raise ValidationError("responses holds non-numeric cells; every item must hold numbers (NaN for missing)") from None
        if values.ndim == 1:
            values = values[None, :]
        if values.ndim != 2:
            raise ValidationError(f"responses must be two-dimensional (respondents x items), got shape {values.shape}")
        if values.shape[1] != bank.n_items:
            raise ValidationError(
                f"responses has {values.shape[1]} column(s) but the bank has {bank.n_items} item(s); pass a "
                "DataFrame with item names as columns to score a subset of items"
            )
        index = pd.RangeIndex(values.shape[0])
    if values.shape[0] == 0:
        raise ValidationError("responses has no respondents (no rows)")
    if np.isinf(values).any():
        raise ValidationError("responses has infinite values; use NaN for missing responses")
    observed = ~np.isnan(values)
    empty = np.flatnonzero(~observed.any(axis=1))
    if empty.size:
        raise ValidationError(
            f"responses: respondent(s) {list(index[empty[:10]])} answered no item (all missing); drop those rows"
        )
    top = (bank.n_categories - 1)[None, :]
    if bank.dichotomous:
        bad = observed & (values != 0) & (values != 1)
    else:
        bad = observed & ((values != np.round(values)) | (values < 0) | (values > top))
    if bad.any():
        r, c = np.argwhere(bad)[0]
        allowed = "0 or 1" if bank.dichotomous else f"an integer category from 0 to {int(top[0, c])}"
        raise ValidationError(
            f"responses: item {bank.names[c]!r} holds {values[r, c]:g} for respondent {index[r]!r}; it must be "
            f"{allowed} (NaN for missing)"
        )
    cats = np.where(observed, values, 0.0).astype(np.int64)
    return cats, observed, bank, index


def _chunks(n_rows: int, cells_per_row: int) -> Iterator[slice]:
    step = max(1, _CHUNK_CELLS // max(1, cells_per_row))
    for start in range(0, n_rows, step):
        yield slice(start, min(n_rows, start + step))


def _grid_loglik(bank: ItemBank, cats: np.ndarray, observed: np.ndarray, grid: np.ndarray, fast: bool = False) -> np.ndarray:
    """Log-likelihood of every response pattern at every grid point, shape (n_respondents, n_grid).

    A matrix product over the grid instead of a loop over respondents: for dichotomous items
    ``x @ log P + (1 - x) @ log Q`` (missing cells contribute nothing), for polytomous items a sparse
    one-hot of the observed categories times the log category probabilities.
    """
    logp = _log_category_probs(bank, grid)  # (Q, J, K)
    n, j = cats.shape
    if bank.dichotomous:
        x = cats.astype(float)
        if fast and observed.all():
            # One product instead of two: x @ logit(P) + sum log Q. It cancels to ~1e-16 * sum|log Q|,
            # harmless for EAP weights but not for locating the maximum of a nearly flat likelihood.
            logit = (logp[:, :, 1] - logp[:, :, 0]).T  # (J, Q)
            return x @ logit + logp[:, :, 0].sum(axis=1)[None, :]
        return x @ logp[:, :, 1].T + (observed - x) @ logp[:, :, 0].T
    kmax = logp.shape[2]
    flat = np.where(np.isfinite(logp), logp, 0.0).reshape(len(grid), j * kmax).T  # (J*K, Q)
    rows, cols = np.nonzero(observed)
    onehot = sparse.csr_matrix(
        (np.ones(rows.size), (rows, cols * kmax + cats[rows, cols])), shape=(n, j * kmax)
    )
    return np.asarray(onehot @ flat)


def _pattern_terms(bank: ItemBank, theta: np.ndarray, cats: np.ndarray, observed: np.ndarray):
    """Per-respondent log-likelihood, its first and second derivatives, and a positive curvature.

    Each row is evaluated at its own theta. The curvature is the Fisher information of the answered
    items, used when the observed curvature is not negative (the 3PL/4PL log-likelihood is not concave).
    """
    n, j = cats.shape
    out = np.zeros((4, n))
    kmax = bank.max_categories
    complete = bool(observed.all())
    for sl in _chunks(n, j * kmax):
        th, x, m = theta[sl], cats[sl], observed[sl]
        if bank.dichotomous:
            z = bank.a[None, :] * (th[:, None] - bank.b[None, :])
            ll, d1, d2, info = _dich_terms(bank, z, x)
        elif bank.model == "graded":
            # Only the two cumulative curves around the observed category matter:
            # log P(X = x) = log expit(z_x) + log expit(-z_{x+1}) + const.
            d = bank._intercepts
            rows = np.arange(j)[None, :]
            zx = bank.a[None, :] * th[:, None] + d[rows, x]
            zx1 = bank.a[None, :] * th[:, None] + d[rows, x + 1]
            sx, sx1 = expit(zx), expit(zx1)
            ll = log_expit(zx) + log_expit(-zx1) + bank._log_gaps[rows, x]
            # a (1 - P*_x - P*_{x+1}) with 1 - P*_x taken as expit(-z_x): exact where both are tiny
            d1 = bank.a[None, :] * (expit(-zx) - sx1)
            d2 = -(bank.a[None, :] ** 2) * (sx * expit(-zx) + sx1 * expit(-zx1))
            info = -d2
        else:
            logp = _gpcm_logp(bank, th)  # (n, J, K)
            probs = np.exp(logp)
            k = np.arange(kmax, dtype=float)
            mean = probs @ k
            var = (probs * (k[None, None, :] - mean[..., None]) ** 2).sum(axis=-1)
            ll = np.take_along_axis(logp, x[..., None], axis=-1)[..., 0]
            # a (x - E[X]) as -a sum_k (k - x) p_k, which does not cancel when E[X] is close to x
            d1 = -bank.a[None, :] * (probs * (k[None, None, :] - x[..., None])).sum(axis=-1)
            d2 = -(bank.a[None, :] ** 2) * var
            info = -d2
        for row, value in enumerate((ll, d1, d2, info)):
            out[row, sl] = value.sum(axis=1) if complete else np.where(m, value, 0.0).sum(axis=1)
    return out


def _maximize(bank, cats, observed, start, lo, hi, prior):
    """Maximize each row's log-likelihood (plus log prior for MAP) over [lo, hi], vectorized.

    A safeguarded Newton ascent on the rows not yet converged. Every accepted step must not decrease
    the objective (else it is halved), so the iteration climbs from the best grid point towards the
    maximum in its basin. The step is Newton's where the curvature is negative and Fisher scoring's
    elsewhere (the 3PL/4PL log-likelihood is not concave). Two safeguards handle the flat,
    exponentially small tails of very steep items, where plain Newton crawls at 1/a per step: each row
    keeps a bracket [left, right] around its current ability from points where the gradient was
    positive / negative, and once both ends are known, a step that leaves the bracket or does not halve
    the step before last is replaced by bisection (Numerical Recipes' ``rtsafe`` rule); without a
    bracket, a step that is not shrinking is at least doubled.
    """
    n = start.size
    everyone = np.arange(n)
    theta = start.copy()

    def terms(idx, th):
        t = _pattern_terms(bank, th, cats[idx], observed[idx])
        if prior is not None:
            mu, sd = prior
            t[0] -= 0.5 * ((th - mu) / sd) ** 2
            t[1] -= (th - mu) / sd**2
            t[2] -= 1.0 / sd**2
            t[3] += 1.0 / sd**2
        return t

    def newton_step(idx):
        # No floor on the curvature: on the flat tails of steep items both the gradient and the
        # curvature are tiny and only their ratio is meaningful. Zero curvature: a capped step uphill.
        curv = np.where(-hess[idx] > 0, -hess[idx], fisher[idx])
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            step = np.where(curv > 0, grad[idx] / curv, np.sign(grad[idx]) * _MAX_STEP)
        return np.clip(step, -_MAX_STEP, _MAX_STEP)

    left, right = np.full(n, -np.inf), np.full(n, np.inf)

    def see(idx, points, g):
        # Only points on the matching side of the current ability tighten the bracket.
        here = theta[idx]
        left[idx] = np.where((g > 0) & (points <= here), np.maximum(left[idx], points), left[idx])
        right[idx] = np.where((g < 0) & (points >= here), np.minimum(right[idx], points), right[idx])

    f, grad, hess, fisher = terms(everyone, theta)
    see(everyone, theta, grad)

    last, before_last, proposed = np.full(n, np.inf), np.full(n, np.inf), np.full(n, np.inf)
    active = everyone
    converged = np.zeros(n, dtype=bool)
    for _ in range(_MAX_ITER):
        if active.size == 0:
            break
        step = newton_step(active)
        old = theta[active].copy()
        lft, rgt = left[active], right[active]
        bracketed = np.isfinite(lft) & np.isfinite(rgt)
        # "Not shrinking" compares Newton's own proposals: they stay ~1/a on a tail and fall
        # quadratically near a regular maximum.
        crawl = ~bracketed & np.isfinite(last[active]) & (np.abs(step) > 0.5 * proposed[active])
        proposed[active] = np.abs(step)
        step = np.where(crawl, np.sign(step) * np.minimum(np.maximum(np.abs(step), 2 * last[active]), _MAX_STEP), step)
        cand = np.clip(old + step, lo, hi)
        bisect = bracketed & ((cand <= lft) | (cand >= rgt) | (np.abs(step) > 0.5 * before_last[active]))
        cand[bisect] = 0.5 * (lft[bisect] + rgt[bisect])

        sub, cand_sub = active, cand
        for _ in range(_MAX_HALVINGS):
            fc, gc, hc, ic = terms(sub, cand_sub)
            ok = fc >= f[sub] - 1e-12 * (1.0 + np.abs(f[sub]))
            acc = sub[ok]
            theta[acc], f[acc], grad[acc], hess[acc], fisher[acc] = cand_sub[ok], fc[ok], gc[ok], hc[ok], ic[ok]
            sub = sub[~ok]
            if sub.size == 0:
                break
            cand_sub = 0.5 * (theta[sub] + cand_sub[~ok])

        now = theta[active]
        moved = np.abs(now - old)
        before_last[active], last[active] = last[active], moved
        left[active] = np.where(left[active] > now, -np.inf, left[active])
        right[active] = np.where(right[active] < now, np.inf, right[active])
        see(active, now, grad[active])
        narrow = (right[active] - left[active]) < _STEP_TOL
        pinned = ((now >= hi) & (grad[active] > 0)) | ((now <= lo) & (grad[active] < 0))
        done = (np.abs(newton_step(active)) < _STEP_TOL) | pinned | (moved == 0) | narrow
        converged[active[done]] = True
        active = active[~done]
    at_bound = ((theta >= hi) & (grad > 0)) | ((theta <= lo) & (grad < 0))
    return theta, hess, at_bound, converged


def _check_pair(value: Any, name: str) -> tuple[float, float]:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise ValidationError(f"{name} must be a pair of numbers, got {_show(value)}")
    return check_number(value[0], f"{name}[0]"), check_number(value[1], f"{name}[1]")


def estimate_abilities(
    responses: Any,
    items: Any,
    model: str | None = None,
    method: str = "EAP",
    prior: tuple[float, float] = (0.0, 1.0),
    bounds: tuple[float, float] = (-6.0, 6.0),
    quadrature: int = 61,
) -> pd.DataFrame:
    """Estimate each respondent's ability from their responses and known item parameters.

    Parameters
    ----------
    responses : pandas.DataFrame, pandas.Series or array-like
        Respondents x items: 0/1 for dichotomous models, categories 0..K-1 for ``"graded"``/``"gpcm"``,
        NaN for missing (skipped). DataFrame columns are matched to item names and may be a subset of the
        items; an array needs one column per item, in bank order; a 1-D input is one respondent.
    items : Calibration, ItemBank or pandas.DataFrame
        Item parameters (see :func:`as_item_bank`).
    model : str, optional
        Required when ``items`` is a DataFrame.
    method : {"EAP", "MAP", "ML"}
        Posterior mean, posterior mode, or maximum likelihood (mirt's ``fscores(method = ...)``).
    prior : (float, float)
        Mean and standard deviation of the normal prior (EAP and MAP). For a calibration that frees the
        latent variance (mirt's Rasch), ``(cal.latent_mean, cal.latent_var ** 0.5)`` reproduces mirt's
        own ``fscores`` on that fit.
    bounds : (float, float)
        Ability range: the quadrature range for EAP (mirt's ``theta_lim``), and the search interval for
        MAP and ML.
    quadrature : int
        Number of equally spaced grid points over ``bounds`` (mirt's ``quadpts``); MAP and ML start from
        the best grid point.

    Returns
    -------
    pandas.DataFrame
        Indexed like ``responses`` (0..n-1 for arrays), with columns ``theta``, ``se`` and ``at_bound``
        (True where a MAP/ML estimate is a bound because the maximum lies on or beyond it, e.g. all-correct
        or all-wrong patterns under ML; ``theta`` is then the bound and ``se`` is NaN).

    Raises
    ------
    ValidationError
        Unknown method, bad prior/bounds/quadrature, responses that do not fit the items, or a respondent
        with no answered item.

    Warns
    -----
    ConvergenceWarning
        When a MAP/ML estimate did not converge in 100 Newton iterations.

    Notes
    -----
    EAP uses the grid ``theta_q = linspace(bounds[0], bounds[1], quadrature)`` with weights
    ``w_q ∝ phi((theta_q - mu) / sigma)`` normalized to sum 1, exactly as mirt:
    ``theta = sum_q theta_q L(theta_q) w_q / sum_q L(theta_q) w_q`` and ``se`` the posterior standard
    deviation. MAP maximizes ``log L(theta) + log phi((theta - mu) / sigma)`` and ML maximizes
    ``log L(theta)`` within ``bounds``; their ``se`` is ``1 / sqrt(-d^2/dtheta^2 objective)`` (the observed
    information, as mirt's ``nlm`` Hessian). mirt equivalent::

        fscores(mod, method = "EAP", quadpts = 61, theta_lim = c(-6, 6), mean = mu, cov = sigma^2,
                response.pattern = X, full.scores.SE = TRUE)

    mirt returns ``+-Inf`` (SE ``NA``) for ML on all-correct/all-wrong patterns; here ``theta`` is the
    bound and ``at_bound`` is True. MAP and ML climb from the best grid point (mirt's ``nlm`` starts from
    the EAP estimate), so with a multimodal 3PL/4PL likelihood they find the highest mode up to the grid
    resolution; a peak narrower than the grid spacing (items with discriminations in the hundreds) can
    be missed, so raise ``quadrature`` for such items. mirt's own default grid is 121 points; pass ``quadpts = 61`` there
    (or ``quadrature = 121`` here) to compare.

    Examples
    --------
    >>> import pandas as pd
    >>> items = pd.DataFrame({"a": [1.0, 1.5, 0.8], "b": [-1.0, 0.0, 1.0]}, index=["q1", "q2", "q3"])
    >>> x = pd.DataFrame({"q1": [1, 1, 0], "q2": [0, 1, 0], "q3": [0, 1, 0]}, index=["ann", "bob", "cy"])
    >>> est = estimate_abilities(x, items, model="2PL", method="ML")
    >>> est["at_bound"].tolist()
    [False, True, True]
    >>> est.loc["bob", "theta"]
    6.0
    """
    bank = as_item_bank(items, model)
    method = check_choice(method, "method", METHODS, ignore_case=True)
    mu, sd = _check_pair(prior, "prior")
    if sd <= 0:
        raise ValidationError(f"prior[1] is the prior standard deviation and must be > 0, got {sd}")
    lo, hi = _check_pair(bounds, "bounds")
    if not lo < hi:
        raise ValidationError(f"bounds must be (lower, upper) with lower < upper, got {_show(bounds)}")
    quadrature = check_int(quadrature, "quadrature", low=3)
    cats, observed, bank, index = _responses(responses, bank)
    grid = np.linspace(lo, hi, quadrature)

    loglik = np.empty((cats.shape[0], quadrature))
    for sl in _chunks(cats.shape[0], quadrature):
        loglik[sl] = _grid_loglik(bank, cats[sl], observed[sl], grid, fast=method == "EAP")
    n = cats.shape[0]
    if method == "EAP":
        # mirt: W = dnorm(grid, mu, sd) / sum(...); the normalizing constant cancels in the ratio.
        loglik -= 0.5 * ((grid - mu) / sd) ** 2
        loglik -= loglik.max(axis=1, keepdims=True)
        np.exp(loglik, out=loglik)
        moments = loglik @ np.column_stack([np.ones_like(grid), grid, grid**2])
        theta = moments[:, 1] / moments[:, 0]
        var = np.maximum(moments[:, 2] / moments[:, 0] - theta**2, 0.0)
        return pd.DataFrame(
            {"theta": theta, "se": np.sqrt(var), "at_bound": np.zeros(n, dtype=bool)}, index=index
        )
    use_prior = (mu, sd) if method == "MAP" else None
    if use_prior is not None:
        loglik -= 0.5 * ((grid - mu) / sd) ** 2
    start = grid[np.argmax(loglik, axis=1)]
    del loglik
    theta = start.copy()
    hess = np.full(n, np.nan)
    at_bound = np.zeros(n, dtype=bool)
    converged = np.ones(n, dtype=bool)
    free = np.ones(n, dtype=bool)
    if method == "ML":
        # Patterns whose every answered item pulls the same way (top category on a > 0 items, bottom on
        # a < 0) have a likelihood increasing without bound: the estimate is the bound (mirt: +-Inf).
        # Deciding this from the responses, not from the gradient, keeps it right for steep items whose
        # gradient underflows to 0 long before the bound.
        top = (bank.n_categories - 1)[None, :]
        pos, neg = (bank.a > 0)[None, :], (bank.a < 0)[None, :]
        flat = (bank.a == 0)[None, :] | ~observed
        rising = (flat | (pos & (cats == top)) | (neg & (cats == 0))).all(axis=1)
        falling = (flat | (pos & (cats == 0)) | (neg & (cats == top))).all(axis=1)
        theta[rising & ~falling] = hi
        theta[falling & ~rising] = lo
        at_bound = rising != falling
        free = ~at_bound
    if free.any():
        idx = np.flatnonzero(free)
        th, hs, ab, cv = _maximize(bank, cats[idx], observed[idx], start[idx], lo, hi, use_prior)
        theta[idx], hess[idx], at_bound[idx], converged[idx] = th, hs, ab, cv
    if not converged.all():
        warnings.warn(
            f"{int((~converged).sum())} {method} estimate(s) did not converge in {_MAX_ITER} Newton iterations; "
            "their theta is the last iterate",
            ConvergenceWarning,
            stacklevel=2,
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.where((-hess > 0) & ~at_bound, 1.0 / np.sqrt(-hess), np.nan)
    return pd.DataFrame({"theta": theta, "se": se, "at_bound": at_bound}, index=index)
