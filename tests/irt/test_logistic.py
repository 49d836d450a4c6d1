"""The one log P / log Q of the package (irtbridge.irt.logistic.log_pq, issue 41 item 1).

Its plain form must give scipy's ``log_expit(z)`` and ``log_expit(-z)`` bit for bit: the scoring kernel and the
leaderboard's predictors computed with those two calls before the family existed, and ``irtbridge evaluate``'s
tables must stay exactly as they were (``tools/compare-evaluate.py --tol 0``). numpy's vectorized ``exp`` and
``log1p`` differ from the C library's in the last bit, so a numpy formula fails the first test.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit, log_expit

from irtbridge.irt import as_item_bank
from irtbridge.irt.fast import dich_logpq
from irtbridge.irt.logistic import log_pq

EDGES = [0.0, -0.0, 5e-324, -5e-324, 1e-300, 1e-17, -1e-17, 36.0, -36.0, 37.5, 709.0, 745.0, -745.0, 746.0,
         -746.0, 800.0, -800.0, 1e308, -1e308, np.inf, -np.inf]


def _bits(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=np.float64).view(np.int64)


def test_log_pq_is_scipys_log_expit_bit_for_bit():
    rng = np.random.default_rng(41)
    z = np.concatenate([rng.normal(0, 4, 200_000), rng.uniform(-60, 60, 50_000), np.array(EDGES)])
    lp, lq = log_pq(z)
    np.testing.assert_array_equal(_bits(lp), _bits(log_expit(z)))  # the sign of a zero included
    np.testing.assert_array_equal(_bits(lq), _bits(log_expit(-z)))


def test_log_pq_writes_into_out_and_keeps_the_shape():
    z = np.linspace(-30, 30, 24).reshape(4, 6)
    out = (np.empty_like(z), np.empty_like(z))
    lp, lq = log_pq(z, out=out)
    assert lp is out[0] and lq is out[1]
    np.testing.assert_array_equal(lp, log_expit(z))
    np.testing.assert_array_equal(lq, log_expit(-z))


def test_log_pq_nan_stays_nan():
    lp, lq = log_pq(np.array([np.nan, 1.0]))
    assert np.isnan(lp[0]) and np.isnan(lq[0])


def test_log_pq_with_asymptotes_is_the_four_parameter_logistic():
    z = np.linspace(-20, 20, 81)
    g, u = 0.2, 0.9
    lp, lq = log_pq(z, np.log(g), np.log1p(-u), np.log(u - g))
    p = g + (u - g) * expit(z)
    np.testing.assert_allclose(np.exp(lp), p, rtol=1e-14)
    np.testing.assert_allclose(np.exp(lq), 1 - p, rtol=1e-13)
    assert (lp <= 0).all() and (lq <= 0).all()
    again = log_pq(z, np.log(g), np.log1p(-u), np.log(u - g), base=log_pq(z))
    np.testing.assert_array_equal(again[0], lp)
    np.testing.assert_array_equal(again[1], lq)


def test_log_pq_refuses_half_the_asymptotes():
    with pytest.raises(ValueError, match="go together"):
        log_pq(np.zeros(3), np.log(0.2))


def test_the_scoring_kernel_uses_it():
    """irt.fast.dich_logpq (abilities, CAT, evaluate's scoring) is log_pq, for plain and 3PL banks."""
    theta = np.linspace(-5, 5, 11)
    plain = as_item_bank(pd.DataFrame({"a": [1.2, 0.7], "b": [0.3, -1.0]}), model="2PL")
    z = plain.a[None, :] * (theta[:, None] - plain.b[None, :])
    for got, want in zip(dich_logpq(plain, z), (log_expit(z), log_expit(-z))):
        np.testing.assert_array_equal(_bits(got), _bits(want))
    three = as_item_bank(pd.DataFrame({"a": [1.2, 0.7], "b": [0.3, -1.0], "g": [0.2, 0.1]}), model="3PL")
    got = dich_logpq(three, z)
    want = log_pq(z, np.log([0.2, 0.1]), np.full(2, -np.inf), np.log([0.8, 0.9]))
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_allclose(np.exp(got[1]), 1 - (np.array([0.2, 0.1]) + np.array([0.8, 0.9]) * expit(z)),
                               rtol=1e-13)
