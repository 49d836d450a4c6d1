"""Unchecked fast paths of the native kernel: response functions and information on a validated bank.

Internal: every function takes an :class:`~irtbridge.irt.bank.ItemBank` (already validated) and a 1-D float
array of abilities, and does no input checks, so CAT loops and EM sweeps can call them millions of times.
The checked public functions in :mod:`irtbridge.irt.functions` and the CAT components in
:mod:`irtbridge.cat` both go through here.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, log_expit

from irtbridge.irt.bank import ItemBank
from irtbridge.irt.logistic import log_pq


def dich_logpq(bank: ItemBank, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log P(X=1) and log P(X=0) from logits z = a (theta - b) (:func:`irtbridge.irt.logistic.log_pq`).

    Parameters
    ----------
    bank : ItemBank
        Dichotomous items.
    z : ndarray
        Logits ``a (theta - b)``, (n_theta, n_items).

    Returns
    -------
    log_p, log_q : ndarray
        Like ``z``.
    """
    if bank._plain:
        return log_pq(z)
    assert bank._log_g is not None and bank._log_1mu is not None  # set on every bank that is not plain
    return log_pq(z, bank._log_g, bank._log_1mu, bank._log_span)


def graded_logp(bank: ItemBank, theta: np.ndarray) -> np.ndarray:
    # P(X = k) = expit(z_k) - expit(z_{k+1}) = expit(z_k) expit(-z_{k+1}) (1 - exp(z_{k+1} - z_k)),
    # a product of terms that never cancel, so the log is exact even at theta = +-1000 or a = 1e3.
    """log P(X = k | theta) of graded items, shape (n_theta, n_items, max_categories).

    Parameters
    ----------
    bank : ItemBank
        Graded items.
    theta : ndarray
        Abilities.

    Returns
    -------
    ndarray
        -inf for absent categories.
    """
    d, gaps = bank._intercepts, bank._log_gaps
    assert d is not None and gaps is not None  # set on every graded bank
    z = bank.a[None, :, None] * theta[:, None, None] + d[None, :, :]
    return log_expit(z[..., :-1]) + log_expit(-z[..., 1:]) + gaps[None, :, :]


def gpcm_logp(bank: ItemBank, theta: np.ndarray) -> np.ndarray:
    """log P(X = k | theta) of generalized partial credit items, shape (n_theta, n_items, max_categories).

    Parameters
    ----------
    bank : ItemBank
        Partial credit items.
    theta : ndarray
        Abilities.

    Returns
    -------
    ndarray
        -inf for absent categories.
    """
    c = bank._intercepts
    assert c is not None  # set on every polytomous bank
    k = np.arange(c.shape[1], dtype=float)
    eta = (bank.a[:, None] * k[None, :])[None, :, :] * theta[:, None, None] + c[None, :, :]
    top = eta.max(axis=-1, keepdims=True)
    return eta - (top + np.log(np.exp(eta - top).sum(axis=-1, keepdims=True)))


def log_category_probs(bank: ItemBank, theta: np.ndarray) -> np.ndarray:
    """log P(X = k | theta), shape (n_theta, n_items, max_categories); -inf for absent categories.

    Parameters
    ----------
    bank : ItemBank
        The items.
    theta : ndarray
        Abilities.

    Returns
    -------
    ndarray
        See above.
    """
    if bank.dichotomous:
        lp, lq = dich_logpq(bank, bank.a[None, :] * (theta[:, None] - bank.b[None, :]))
        return np.stack([lq, lp], axis=-1)
    if bank.model == "graded":
        return graded_logp(bank, theta)
    return gpcm_logp(bank, theta)


def prob_correct(bank: ItemBank, theta: np.ndarray) -> np.ndarray:
    """P(X = 1 | theta) of dichotomous items, shape (n_theta, n_items).

    Parameters
    ----------
    bank : ItemBank
        Dichotomous items.
    theta : ndarray
        Abilities.

    Returns
    -------
    ndarray
        ``g + (u - g) expit(a (theta - b))``.
    """
    z = bank.a[None, :] * (theta[:, None] - bank.b[None, :])
    return bank.g + (bank.u - bank.g) * expit(z)


def expected(bank: ItemBank, theta: np.ndarray) -> np.ndarray:
    """Expected item score E(X | theta), shape (n_theta, n_items).

    Parameters
    ----------
    bank : ItemBank
        The items.
    theta : ndarray
        Abilities.

    Returns
    -------
    ndarray
        P(X = 1) for dichotomous items, the expected category (0..K-1) otherwise.
    """
    if bank.dichotomous:
        return prob_correct(bank, theta)
    probs = np.exp(log_category_probs(bank, theta))
    return probs @ np.arange(probs.shape[-1], dtype=float)


def information(bank: ItemBank, theta: np.ndarray) -> np.ndarray:
    """Fisher information of each item, shape (n_theta, n_items).

    Parameters
    ----------
    bank : ItemBank
        The items.
    theta : ndarray
        Abilities.

    Returns
    -------
    ndarray
        See above.
    """
    if bank.dichotomous:
        z = bank.a[None, :] * (theta[:, None] - bank.b[None, :])
        return dich_terms(bank, z, None)[3]
    if bank.model == "graded":
        d = bank._intercepts
        assert d is not None  # set on every polytomous bank
        z = bank.a[None, :, None] * theta[:, None, None] + d[None, :, :]
        # d log P(X = k) / d theta, divided by a: (1 - P*_k) - P*_{k+1}, each term exact
        score = expit(-z[..., :-1]) - expit(z[..., 1:])
        probs = np.exp(graded_logp(bank, theta))
        return bank.a[None, :] ** 2 * (probs * score**2).sum(axis=-1)
    probs = np.exp(gpcm_logp(bank, theta))
    k = np.arange(probs.shape[-1], dtype=float)
    mean = probs @ k
    var = (probs * (k[None, None, :] - mean[..., None]) ** 2).sum(axis=-1)
    return bank.a[None, :] ** 2 * var


def dich_terms(bank: ItemBank, z: np.ndarray, x: np.ndarray | None):
    """(log-likelihood, first and second derivative in theta, Fisher information) of dichotomous items.

    ``x`` is the 0/1 response (None: only the information is wanted). With ``sz = z`` for x = 1 and
    ``-z`` for x = 0, the probability of the observed response is ``base + (u - g) expit(sz)`` (``base``
    is g for x = 1 and 1 - u for x = 0), and everything is written with ``r = expit(sz) / P(x)`` and
    ``expit(-sz)``, which stay exact where P(x) or 1 - P(x) underflow, instead of P'/P.

    Parameters
    ----------
    bank : ItemBank
        Dichotomous items.
    z : ndarray
        Logits ``a (theta - b)``.
    x : ndarray or None
        See above.

    Returns
    -------
    tuple of ndarray
        ``(ll, d1, d2, info)``; the first three None when ``x`` is None.
    """
    a = bank.a
    if x is None:
        s, sb = expit(z), expit(-z)
        if bank._plain:
            return None, None, None, a**2 * s * sb
        return None, None, None, dich_info(bank, s, sb)
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
    r = ratio(base, hit, span)  # expit(sz) / P(x)
    r_other = ratio(other, miss, span)  # expit(-sz) / P(not x)
    d1 = a * sign * span * miss * r
    d2 = a**2 * span * miss * r * ((miss - hit) - span * miss * r)
    info = a**2 * span**2 * hit * miss * r * r_other
    return ll, d1, d2, info


def ratio(base: np.ndarray, e: np.ndarray, span: np.ndarray) -> np.ndarray:
    """e / (base + span e) = 1 / (span + base / e), finite when e underflows to 0.

    Parameters
    ----------
    base, e, span : ndarray
        The terms, broadcast together.

    Returns
    -------
    ndarray
        The ratio.
    """
    base = np.broadcast_to(base, e.shape)
    quotient = np.zeros(e.shape)
    with np.errstate(divide="ignore", over="ignore"):
        np.divide(base, e, out=quotient, where=base > 0)
    return 1.0 / (span + quotient)


def dich_info(bank: ItemBank, s: np.ndarray, sb: np.ndarray) -> np.ndarray:
    """Fisher information of dichotomous items from ``s = expit(z)`` and ``sb = expit(-z)``.

    Parameters
    ----------
    bank : ItemBank
        Dichotomous items.
    s, sb : ndarray
        ``expit(z)`` and ``expit(-z)``.

    Returns
    -------
    ndarray
        Like ``s``.
    """
    span = bank.u - bank.g
    return bank.a**2 * span**2 * s * sb * ratio(bank.g, s, span) * ratio(1.0 - bank.u, sb, span)
