"""The windowed E-step on dense 0/1 data (irtbridge.em.dense; issue 32, item 5), its dispatch, and mirt.

References, none of them irtbridge's windowed output: the posterior, counts and log-likelihood computed
densely at every node with numpy from the 0/1 matrix; the plain dense products' fit (every node, BLAS) on
the same data (the fit itself: test_window.py's ``test_windowed_fit_equals_the_plain_fit``); mirt's EM
called directly in R (tests/r/reference_native_em.R, as in test_native_em.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

import irtbridge
from irtbridge.example_data import response_dataset
from irtbridge.em import dense, window
from irtbridge.em.core import estep, node_windows, nodes, prepare_graded, prepare_responses
from irtbridge.em.dense import DenseBits, dense_bits
from tests.em.test_native_em import _simulated, ref  # noqa: F401 - mirt's fits, called directly in R (a fixture)
from tests.em.test_window import _dense_estep


def _llm(n=300, j=1200, missing=0.0, seed=3) -> np.ndarray:
    """A leaderboard-like 0/1 matrix: many easy items, a spread of abilities; ``missing`` of cells NaN."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n)
    theta[:2] = [-3.4, 3.1]
    a = np.clip(rng.lognormal(0.0, 0.4, j), 0.1, 3.0)
    b = np.where(rng.random(j) < 0.4, rng.normal(-2.5, 0.8, j), rng.normal(0.0, 1.0, j))
    x = (rng.random((n, j)) < expit(a * (theta[:, None] - b))).astype(float)
    x[rng.random((n, j)) < missing] = np.nan
    return x


@pytest.fixture()
def windowed(monkeypatch):
    monkeypatch.setattr(window, "MIN_CELLS", 0)


@pytest.mark.slow
@pytest.mark.parametrize("missing", [0.0, 0.3])
def test_dense_windowed_sums_equal_the_every_node_reference(windowed, missing):
    x = _llm(missing=missing)
    data = prepare_responses(x, [f"i{k}" for k in range(x.shape[1])])
    assert not hasattr(data.A, "tocsr") and (data.bits.seen is None) == (missing == 0.0)
    windows = node_windows(data, 61)
    theta, weights = nodes(61)
    rng = np.random.default_rng(4)
    a, d = rng.lognormal(0.0, 0.3, x.shape[1]), rng.normal(size=x.shape[1])
    want = _dense_estep(x, a, d, theta, np.log(weights))
    for step in range(3):  # every node first, then each respondent's window
        got = estep(data, a, d + 0.02 * step, theta, np.log(weights), windows=windows)
        want = _dense_estep(x, a, d + 0.02 * step, theta, np.log(weights))
        for g, w in zip(got[:3], want[:3]):
            np.testing.assert_allclose(g, w, rtol=1e-11, atol=1e-12 * np.abs(w).max())
        assert got[3] == pytest.approx(want[3], rel=1e-13)
    assert (windows.lo >= 0).all() and windows.width <= window.WIDEST  # 840-1200 answers each: a window


def test_a_dense_window_that_lost_its_posterior_is_summed_again(windowed):
    x = _llm(200, 900)
    data = prepare_responses(x, [f"i{k}" for k in range(x.shape[1])])
    windows = node_windows(data, 61)
    theta, weights = nodes(61)
    a, d = np.ones(x.shape[1]), np.zeros(x.shape[1])
    estep(data, a, d, theta, np.log(weights), windows=windows)
    got = estep(data, a, d + 2.0, theta, np.log(weights), windows=windows)  # every posterior moves by ~2
    want = _dense_estep(x, a, d + 2.0, theta, np.log(weights))
    np.testing.assert_allclose(got[0], want[0], rtol=1e-11, atol=1e-12 * np.abs(want[0]).max())
    assert got[3] == pytest.approx(want[3], rel=1e-13) and windows.widened > 100


def test_dispatch_rule(monkeypatch):
    """Windows for 0/1 data of MIN_CELLS answered cells or more when numba imports; the layout picks the
    kernels: sparse (most cells missing) the sparse ones, dense the byte ones."""
    x = _llm(100, 300, 0.0)
    names = [f"i{k}" for k in range(300)]
    full = prepare_responses(x, names)
    holey = x.copy()
    holey[np.random.default_rng(0).random(holey.shape) < 0.7] = np.nan
    sparse_data = prepare_responses(holey, names)
    assert node_windows(full, 61) is None  # 30,000 cells < MIN_CELLS (a million)
    monkeypatch.setattr(window, "MIN_CELLS", 30_000)
    assert node_windows(full, 61) is not None and full.cells is None and isinstance(full.bits, DenseBits)
    monkeypatch.setattr(window, "MIN_CELLS", 30_001)
    assert node_windows(full, 61) is None
    monkeypatch.setattr(window, "MIN_CELLS", 0)
    assert sparse_data.bits is None and sparse_data.cells is not None
    calls = []
    for module in (dense, window):
        original = module.windowed_estep
        monkeypatch.setattr(module, "windowed_estep",
                            lambda *args, _m=module.__name__, _f=original, **kw: calls.append(_m) or _f(*args, **kw))
    theta, weights = nodes(61)
    a, d = np.ones(300), np.zeros(300)
    estep(full, a, d, theta, np.log(weights), windows=node_windows(full, 61))
    estep(sparse_data, a, d, theta, np.log(weights), windows=node_windows(sparse_data, 61))
    assert calls[0] == "irtbridge.em.dense" and calls[-1] == "irtbridge.em.window"
    graded, _ = prepare_graded(x * 2, names, dense_below=0.5)
    assert graded.bits is None and node_windows(graded, 61) is None
    monkeypatch.setattr(window, "numba", False)  # as when numba does not import
    assert node_windows(full, 61) is None


def test_dense_bits_by_hand():
    bits = dense_bits(np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]), np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0]]))
    assert bits.right.dtype == np.uint8 and bits.right.tolist() == [[1, 0, 0], [0, 1, 0]]
    assert bits.seen.tolist() == [[1, 1, 0], [1, 1, 1]] and bits.cells == 5
    assert dense_bits(np.eye(2), np.ones((2, 2))).seen is None and dense_bits(np.eye(2), np.ones((2, 2))).cells == 4
    data = prepare_responses(np.eye(3), ["a", "b", "c"])
    assert data.bits is data.bits and data.bits.right.nbytes == 9  # built once, one byte per cell


@pytest.mark.r
@pytest.mark.parametrize("case, name, model", [("lsat7_2PL", "LSAT7", "2PL"), ("lsat7_1PL", "LSAT7", "1PL"),
                                               ("lsat7_rasch", "LSAT7", "rasch"), ("sat12_2PL", "sat12", "2PL"),
                                               ("missing_2PL", "missing", "2PL")])
def test_dense_windowed_fit_equals_mirt(ref, case, name, model, windowed, monkeypatch):
    """The same cases and tolerances as test_native_em.py (mirt at TOL 1e-6: 1e-4 on a and b, 1e-6 on the
    log-likelihood), all through the dense windowed E-step."""
    data = {"LSAT7": response_dataset("LSAT7"), "sat12": ref["sat12"], "missing": _simulated()}[name]
    seen = []
    original = dense.windowed_estep
    monkeypatch.setattr(dense, "windowed_estep", lambda *args: seen.append(1) or original(*args))
    fit = irtbridge.calibrate(data, model, engine="native", TOL=1e-6, quadpts=61, technical={"NCYCLES": 5000})
    r = ref[case]
    assert fit.converged and len(seen) > fit.iterations
    np.testing.assert_allclose(fit.items["a"], r["a"], rtol=0, atol=1e-4)
    np.testing.assert_allclose(fit.items["b"], r["b"], rtol=0, atol=1e-4)
    assert fit.latent_var == pytest.approx(r["var"], abs=1e-4)
    assert fit.loglik == pytest.approx(r["loglik"], abs=1e-6)
