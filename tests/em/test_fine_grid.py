"""The native 2PL on a grid finer than mirt's (issue 42, item 4): ``quadpts=None`` and quadpts above 61.

References, none of them irtbridge's own fine-grid output: the E-step computed densely at every node
(test_window's ``_dense_estep``), the numpy Newton steps of em/mstep.py, the plain 61-node fit and the
plain every-node fit on the same data, and mirt's EM called in R with the same ``quadpts``
(tests/r/reference_fine_grid.R).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from irtbridge.em import mstep, mstep_jit, window
from irtbridge.em.core import fit_em, node_windows, nodes, prepare_responses
from tests._rrefs import run_r
from tests.em.test_window import _assert_same, _dense_estep, _leaderboard

HERE = Path(__file__).resolve().parents[1]  # tests/


@pytest.fixture()
def windowed(monkeypatch):
    """Windows and the compiled M-step from the smallest data on."""
    monkeypatch.setattr(window, "MIN_CELLS", 0)
    monkeypatch.setattr(mstep_jit, "MIN_ITEMS", 0)


def test_the_rule_engages_only_where_posteriors_are_far_narrower_than_mirts_spacing():
    assert [window.fine_quadpts(m) for m in (0, 100, 1999, 2000, 5000, 20000)] == [61, 61, 61, 61, 97, 191]
    assert window.fine_quadpts(float("nan")) == 61


@pytest.mark.parametrize("quadpts", [121, 191, 401])
def test_fine_windows_sum_what_the_dense_estep_sums(windowed, quadpts):
    """The first E-step (windows predicted from about 16 coarse nodes), a small move (a few windows fail and
    are predicted again from their own values), a move of every posterior (all fail), respondents at the
    ends of the grid (all right, all wrong) and with 6 answers (the whole grid): the dense sums each time."""
    x = _leaderboard(150, 4000, 0.6, few=4)
    x[0], x[1] = 0.0, 1.0
    data = prepare_responses(x, [f"i{k}" for k in range(x.shape[1])])
    theta, weights = nodes(quadpts)
    rng = np.random.default_rng(4)
    a, d = rng.lognormal(0.0, 0.3, x.shape[1]), rng.normal(size=x.shape[1])
    windows = node_windows(data, quadpts)
    widths = []
    original = window._loglik

    def loglik(cells, lp, lq, lo, width):
        widths.append((width, int((lo >= 0).sum())))
        return original(cells, lp, lq, lo, width)

    for step, shifted in enumerate((d, d + 0.01, d * 1.1 + 0.05, d + 1.5)):
        widths.clear()
        want = _dense_estep(x, a, shifted, theta, np.log(weights))
        got = window.windowed_estep(data.cells, a, shifted, theta, np.log(weights), windows, loglik=loglik)
        _assert_same((*got[:3], got[3].sum()), want)
        whole = [rows for width, rows in widths if width == quadpts]
        assert whole and whole[0] <= 6  # the 4 wide posteriors and, at most, the 2 at the ends: the whole grid
        if step == 0:
            assert widths[0][0] <= 17 and widths[0][1] == 150  # the coarse pass first, never every node
    assert (windows.lo[2:-4] >= 0).all() and windows.width < quadpts / 3


def test_the_grid_kernel_of_the_compiled_mstep_equals_the_numpy_steps():
    """Over more than 61 equally spaced nodes ``exp(-z)`` runs as a product along the nodes."""
    rng = np.random.default_rng(1)
    theta = np.linspace(-6, 6, 301)[60:241]
    j = 500
    n = np.exp(-0.5 * theta**2)[None, :] * rng.uniform(5, 50, (j, 1))
    a, d = rng.lognormal(0, 0.4, j), rng.normal(0, 1.5, j)
    r = rng.binomial(np.rint(n * 50).astype(int), expit(a[:, None] * theta + d[:, None])) / 50.0
    a0, d0 = np.ones(j), np.zeros(j)
    want = mstep._newton_2pl(r, n, theta, a0, d0)
    got = mstep_jit.newton_2pl(r, n, theta, a0, d0)
    np.testing.assert_allclose(got[0], want[0], rtol=0, atol=1e-10)
    np.testing.assert_allclose(got[1], want[1], rtol=0, atol=1e-10)


def _sparse_case(n=300, j=500, missing=0.8, seed=3) -> np.ndarray:
    """100 answers per respondent: posteriors of SD about 0.2, mirt's spacing."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n)
    a, b = rng.lognormal(0.0, 0.3, j), rng.normal(0.0, 1.0, j)
    x = (rng.random((n, j)) < expit(a * (theta[:, None] - b))).astype(float)
    x[rng.random((n, j)) < missing] = np.nan
    return x[:, np.minimum(np.nansum(x, 0), np.nansum(1 - x, 0)) >= 5]


def test_fine_windowed_fit_equals_the_every_node_fit_and_stays_near_mirts_grid(windowed, monkeypatch):
    """On one fine grid (241 nodes, spacing 0.05) the windowed fit is the every-node fit (to 1e-9). Where
    posteriors are about as wide as mirt's spacing, the fine grid changes little: its estimates are within
    5e-3 of the 61-node fit's (measured: 1.4e-3 for slopes, 1.2e-3 for intercepts) and its log-likelihood
    within 1e-7 relative (measured: 2e-9)."""
    x = _sparse_case()
    data = prepare_responses(x, [f"i{k}" for k in range(x.shape[1])])
    fine = fit_em(data, "2PL", quadpts=241, TOL=1e-6, NCYCLES=3000)
    monkeypatch.setattr(window, "MIN_CELLS", 10**15)
    every = fit_em(data, "2PL", quadpts=241, TOL=1e-6, NCYCLES=3000)
    coarse = fit_em(data, "2PL", quadpts=61, TOL=1e-6, NCYCLES=3000)
    assert fine.converged and every.converged and coarse.converged and fine.quadpts == 241
    np.testing.assert_allclose(fine.a, every.a, rtol=0, atol=1e-9)
    np.testing.assert_allclose(fine.d, every.d, rtol=0, atol=1e-9)
    assert fine.loglik == pytest.approx(every.loglik, rel=1e-12)
    np.testing.assert_allclose(fine.a, coarse.a, rtol=0, atol=5e-3)
    np.testing.assert_allclose(fine.d, coarse.d, rtol=0, atol=5e-3)
    assert fine.loglik == pytest.approx(coarse.loglik, rel=1e-7)


@pytest.fixture(scope="module")
def mirt_ref(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fine")
    pd.DataFrame(_mirt_case()).to_csv(tmp / "x.csv", index=False, na_rep="NA")
    run_r(["Rscript", str(HERE / "r" / "reference_fine_grid.R"), str(tmp / "x.csv"), str(tmp / "ref.json")],
          check=True)
    return json.loads((tmp / "ref.json").read_text())


def _mirt_case() -> np.ndarray:
    """250 x 240, 60% missing (sparse): about 96 answers each."""
    return _sparse_case(250, 240, 0.6, seed=8)


@pytest.mark.r
def test_a_fine_grid_fit_equals_mirt_on_the_same_grid(windowed, mirt_ref):
    """mirt's EM with ``quadpts = 121`` (spacing 0.1) and TOL 1e-6 against the native fit on the same grid,
    through the fine windows and the grid kernel of the compiled M-step."""
    x = _mirt_case()
    data = prepare_responses(x, [f"q{k}" for k in range(x.shape[1])])
    fit = fit_em(data, "2PL", quadpts=121, TOL=1e-6, NCYCLES=5000)
    assert fit.converged and fit.quadpts == 121
    # both EMs stop at TOL 1e-6, each within about 1e-4 of the maximum on its flattest item (measured: one
    # slope of 240 differs by 2.0e-4, the others by less than 1e-4)
    np.testing.assert_allclose(fit.a, mirt_ref["a"], rtol=0, atol=5e-4)
    np.testing.assert_allclose(fit.d, mirt_ref["d"], rtol=0, atol=5e-4)
    assert (np.abs(fit.a - mirt_ref["a"]) > 1e-4).sum() <= 1
    assert fit.loglik == pytest.approx(mirt_ref["loglik"], abs=1e-6)
