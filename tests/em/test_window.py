"""The windowed E-step (issue 23, item 3): each respondent summed only at the nodes that hold its posterior.

References, none of them irtbridge's own windowed output: the posterior, counts and log-likelihood computed
densely from the 0/1 matrix at every node (numpy, no sparse layout, no windows), and the plain E-step's fit
(the scipy products, themselves checked against mirt in test_native_em.py) run on the same data.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit, log_expit, logsumexp

from irtbridge.em import core, dense, window
from irtbridge.em.core import estep, fit_em, node_windows, nodes, prepare_responses
from irtbridge.em.window import NodeWindows


def _leaderboard(n=300, j=1500, missing=0.7, seed=5, few=0) -> np.ndarray:
    """A leaderboard-shaped 0/1 matrix; the last ``few`` respondents answer only 6 items each (a posterior
    too wide for a window)."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n)
    theta[:3] = [-3.5, 3.2, 0.0]  # near the grid's edges too
    a, b = rng.lognormal(0.0, 0.3, j), rng.normal(0.0, 1.0, j)
    x = (rng.random((n, j)) < expit(a * (theta[:, None] - b))).astype(float)
    x[rng.random((n, j)) < missing] = np.nan
    for i in range(n - few, n):
        keep = rng.choice(j, 6, replace=False)
        row = np.full(j, np.nan)
        row[keep] = x[i, keep] if not np.isnan(x[i, keep]).any() else 1.0
        x[i] = row
    return x


def _dense_estep(x, a, d, theta, log_prior):
    """The E-step from the dense matrix, every node: the reference."""
    z = a[:, None] * theta[None, :] + d[:, None]
    seen = ~np.isnan(x)
    right = np.where(seen, x, 0.0)
    wrong = np.where(seen, 1.0 - x, 0.0)
    ll = right @ log_expit(z) + wrong @ log_expit(-z) + log_prior[None, :]
    marginal = logsumexp(ll, axis=1)
    post = np.exp(ll - marginal[:, None])
    return right.T @ post, seen.T.astype(float) @ post, post.sum(axis=0), marginal.sum()


@pytest.fixture()
def windowed(monkeypatch):
    """Windows from the smallest data on (the default starts at a million answered cells)."""
    monkeypatch.setattr(window, "MIN_CELLS", 0)


def _assert_same(got, want, rtol=1e-12):
    for g, w in zip(got[:3], want[:3]):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-12 * np.abs(w).max())
    assert got[3] == pytest.approx(want[3], rel=1e-13)


def test_windows_start_whole_then_narrow_and_the_sums_equal_the_dense_ones(windowed):
    x = _leaderboard(few=4)
    data = prepare_responses(x, [f"i{k}" for k in range(x.shape[1])])
    windows = node_windows(data, 61)
    assert isinstance(windows, NodeWindows) and (windows.lo == -1).all()
    theta, weights = nodes(61)
    rng = np.random.default_rng(2)
    a, d = rng.lognormal(0.0, 0.3, x.shape[1]), rng.normal(size=x.shape[1])
    want = _dense_estep(x, a, d, theta, np.log(weights))
    for _ in range(3):
        _assert_same(estep(data, a, d, theta, np.log(weights), windows=windows), want)
    narrow = windows.lo >= 0
    assert windows.width <= window.WIDEST and narrow[:-4].all()  # 450 answers each: a few nodes
    assert not narrow[-4:].any()  # 6 answers: too wide for a window, the whole grid every time
    assert "on" in repr(windows) and windows.widened == 0


def test_a_window_that_no_longer_holds_its_posterior_is_summed_again(windowed):
    x = _leaderboard(200, 1200)
    data = prepare_responses(x, [f"i{k}" for k in range(x.shape[1])])
    windows = node_windows(data, 61)
    theta, weights = nodes(61)
    rng = np.random.default_rng(3)
    a, d = rng.lognormal(0.0, 0.3, x.shape[1]), rng.normal(size=x.shape[1])
    estep(data, a, d, theta, np.log(weights), windows=windows)
    shifted = d + 1.5  # every posterior moves by about 1.5 / a: out of its window
    want = _dense_estep(x, a, shifted, theta, np.log(weights))
    _assert_same(estep(data, a, shifted, theta, np.log(weights), windows=windows), want)
    assert windows.widened > 100


def test_a_fits_windows_keep_their_arrays_and_the_sums_stay_the_same(windowed):
    """``reuse`` (a fit's windows): r and n come back in the same arrays every call, zeroed where a window
    moved away, bit for bit the sums of windows that allocate afresh; pickled windows leave them behind."""
    import pickle

    x = _leaderboard(200, 1200, few=3)
    data = prepare_responses(x, [f"i{k}" for k in range(x.shape[1])])
    kept, fresh = node_windows(data, 61), node_windows(data, 61)
    kept.reuse = True
    theta, weights = nodes(61)
    rng = np.random.default_rng(4)
    a, d = rng.lognormal(0.0, 0.3, x.shape[1]), rng.normal(size=x.shape[1])
    arrays = None
    for shift in (0.0, 0.0, 1.5, -1.0):  # the posteriors move: nodes written before are zero again
        got = estep(data, a, d + shift, theta, np.log(weights), windows=kept)
        want = estep(data, a, d + shift, theta, np.log(weights), windows=fresh)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
        _assert_same(got, _dense_estep(x, a, d + shift, theta, np.log(weights)))
        assert arrays is None or (got[0] is arrays[0] and got[1] is arrays[1])
        arrays = got
    assert estep(data, a, d, theta, np.log(weights), windows=fresh)[0] is not want[0]
    travelled = pickle.loads(pickle.dumps(kept))
    assert travelled._buffers == {} and set(kept._buffers) == {"log P", "log Q", "r", "n"}
    np.testing.assert_array_equal(travelled.lo, kept.lo)


@pytest.mark.slow
@pytest.mark.parametrize("model", ["2PL", "1PL", "rasch"])
@pytest.mark.parametrize("missing, kernels", [(0.7, window), (0.0, dense), (0.3, dense)])
def test_windowed_fit_equals_the_plain_fit(model, missing, kernels, monkeypatch):
    """Sparse data (70% missing) on the sparse kernels; dense data, fully observed or 30% missing, on the
    byte kernels of em/dense.py (issue 32)."""
    x = _leaderboard(250, 1200, missing, seed=7, few=3)
    x = x[:, np.minimum(np.nansum(x, 0), np.nansum(1 - x, 0)) >= 10]
    data = prepare_responses(x, [f"i{k}" for k in range(x.shape[1])])
    monkeypatch.setattr(window, "MIN_CELLS", 10**12)
    plain = fit_em(data, model)
    monkeypatch.setattr(window, "MIN_CELLS", 0)
    seen = []
    original = kernels.windowed_estep
    monkeypatch.setattr(kernels, "windowed_estep", lambda *args: seen.append(1) or original(*args))
    fast = fit_em(data, model)
    assert len(seen) == fast.iterations + 1  # every cycle and the final log-likelihood, windowed
    assert fast.iterations == plain.iterations and fast.converged
    np.testing.assert_allclose(fast.a, plain.a, rtol=0, atol=1e-10)
    np.testing.assert_allclose(fast.d, plain.d, rtol=0, atol=1e-10)
    assert fast.variance == pytest.approx(plain.variance, abs=1e-10)
    assert fast.loglik == pytest.approx(plain.loglik, rel=1e-13)


def test_no_windows_for_graded_or_small_data_or_without_numba(monkeypatch):
    x = _leaderboard(100, 300, 0.7)
    data = prepare_responses(x, [f"i{k}" for k in range(x.shape[1])])
    assert node_windows(data, 61) is None  # below MIN_CELLS
    monkeypatch.setattr(window, "MIN_CELLS", 0)
    assert node_windows(data, 61) is not None
    dense = prepare_responses(np.nan_to_num(x), data.item_names)
    assert dense.cells is None and node_windows(dense, 61) is not None  # dense: em/dense.py's kernels (issue 32)
    graded, _ = core.prepare_graded(np.where(np.isnan(x), np.nan, x * 2), data.item_names, dense_below=0.0)
    assert node_windows(graded, 61) is None
    monkeypatch.setattr(window, "numba", False)  # as when it does not import
    assert not window.available() and node_windows(data, 61) is None


@pytest.mark.slow
@pytest.mark.xdist_group("dask")
@pytest.mark.parametrize("missing", [0.7, 0.2])  # sparse; dense (em/dense.py's kernels on the workers)
def test_dask_fit_with_windows_equals_the_single_process(windowed, missing, dask_client):
    from irtbridge.em.distributed import fit_em_dask

    x = _leaderboard(240, 900, missing, seed=11, few=2)
    x = x[:, np.minimum(np.nansum(x, 0), np.nansum(1 - x, 0)) >= 10]
    data = prepare_responses(x, [f"i{k}" for k in range(x.shape[1])])
    assert (data.cells is None) == (missing < 0.5) and node_windows(data, 61) is not None
    single = fit_em(data, "2PL")
    spread = fit_em_dask(data, "2PL", dask_client)
    assert spread.iterations == single.iterations
    np.testing.assert_allclose(spread.a, single.a, rtol=0, atol=1e-10)
    np.testing.assert_allclose(spread.d, single.d, rtol=0, atol=1e-10)


@pytest.mark.parametrize("env, kept", [({}, True), ({"MALLOC_TRIM_THRESHOLD_": "1000000"}, False)])
def test_freed_memory_is_kept_unless_the_user_set_glibc_thresholds(env, kept):
    import os
    import subprocess
    import sys

    code = "from irtbridge.em.memory import keep_freed_memory as k; print(k(), k())"
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    out = subprocess.run([sys.executable, "-c", code], env={**clean, **env}, capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(kept)] * 2


# a stand-in for glibc that records the mallopt calls, so the test sees whether the process-wide setting was
# made (glibc has no call that reads its thresholds back)
_RECORD_MALLOPT = """
import ctypes, json, sys
calls = []
class _Libc:
    def __init__(self, *args, **kwargs):
        pass
    def mallopt(self, param, value):
        calls.append([param, value])
        return 1
try:  # numba (llvmlite) loads its own libraries through ctypes: load it before the C library is stubbed
    import numba  # noqa: F401
except ImportError:
    pass
ctypes.CDLL = _Libc
import numpy as np
from irtbridge.em.core import fit_em, prepare_responses
rng = np.random.default_rng(3)
theta = rng.normal(size=300)
x = (rng.random((300, 5)) < 1 / (1 + np.exp(-(theta[:, None] - np.linspace(-1, 1, 5))))).astype(float)
fit_em(prepare_responses(x, [f"i{k}" for k in range(5)]), "2PL")
if sys.argv[1:] == ["explicit"]:
    from irtbridge.em import keep_freed_memory
    keep_freed_memory()
print(json.dumps(calls))
"""


@pytest.mark.parametrize("env, args, calls", [
    ({}, [], []),                                               # the default: a native fit changes nothing
    ({"IRTBRIDGE_KEEP_FREED_MEMORY": "0"}, [], []),
    ({"IRTBRIDGE_KEEP_FREED_MEMORY": "1"}, [], [[-3, 256 << 20], [-1, 512 << 20]]),  # M_MMAP, M_TRIM
    ({}, ["explicit"], [[-3, 256 << 20], [-1, 512 << 20]]),     # the explicit call
])
def test_a_native_fit_changes_malloc_only_when_asked(env, args, calls):
    import json
    import os
    import subprocess
    import sys

    clean = {k: v for k, v in os.environ.items() if not k.startswith(("MALLOC_", "IRTBRIDGE_KEEP"))}
    out = subprocess.run([sys.executable, "-c", _RECORD_MALLOPT, *args], env={**clean, **env},
                         capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == calls


def test_the_first_windows_come_from_every_fourth_node_and_the_sums_equal_the_dense_ones(windowed):
    """The first E-step of a fit (issue 42, item 4) seeds the windows from the log-posterior at every
    ``SEED``-th node: respondents with many answers are summed on a window from the first call (none widened),
    those with 6 answers on the whole grid; the sums are the dense reference's."""
    x = _leaderboard(150, 4000, 0.6, few=4)  # 1,600 answers each: the log-posterior falls by 100 or more in 0.8
    data = prepare_responses(x, [f"i{k}" for k in range(x.shape[1])])
    windows = node_windows(data, 61)
    theta, weights = nodes(61)
    rng = np.random.default_rng(4)
    a, d = rng.lognormal(0.0, 0.3, x.shape[1]), rng.normal(size=x.shape[1])
    widths = []
    original = window._loglik

    def loglik(cells, lp, lq, lo, width):
        widths.append(width)
        return original(cells, lp, lq, lo, width)

    want = _dense_estep(x, a, d, theta, np.log(weights))
    got = window.windowed_estep(data.cells, a, d, theta, np.log(weights), windows, loglik=loglik)
    _assert_same((*got[:3], got[3].sum()), want)
    # the coarse pass, the seeded windows, the whole grid for the 4 wide posteriors: never 61 nodes for all
    assert widths == [16, 2 * window.SEED + 2, 61] and windows.widened == 0
    assert (windows.lo[:-4] >= 0).all() and (windows.lo[-4:] == -1).all()


@pytest.mark.parametrize("quadpts", [41, 50, 61])
def test_seeded_windows_hold_at_the_ends_of_the_grid(windowed, quadpts):
    """Respondents far out (abilities -5 and 5: the best node at or next to an end) and a grid whose last node
    is not a coarse one (50 nodes)."""
    x = _leaderboard(120, 1500, 0.3, seed=9)
    x[0], x[1] = 0.0, 1.0  # all wrong, all right: posteriors at the ends of the grid
    data = prepare_responses(x, [f"i{k}" for k in range(x.shape[1])])
    theta, weights = nodes(quadpts)
    a, d = np.full(x.shape[1], 1.2), np.linspace(-1, 1, x.shape[1])
    want = _dense_estep(x, a, d, theta, np.log(weights))
    windows = node_windows(data, quadpts)
    _assert_same(estep(data, a, d, theta, np.log(weights), windows=windows), want)
    assert windows.widened == 0


def test_windows_that_all_fail_are_seeded_again_from_every_fourth_node(windowed):
    """A cycle that moves every posterior (as a PX-EM cycle that rescales the items does): the failed windows
    are seeded again from the coarse nodes, not summed at all 61; the sums are the dense reference's."""
    x = _leaderboard(150, 4000, 0.6)
    data = prepare_responses(x, [f"i{k}" for k in range(x.shape[1])])
    windows = node_windows(data, 61)
    theta, weights = nodes(61)
    rng = np.random.default_rng(6)
    a, d = rng.lognormal(0.0, 0.3, x.shape[1]), rng.normal(size=x.shape[1])
    estep(data, a, d, theta, np.log(weights), windows=windows)
    widths = []
    original = window._loglik

    def loglik(cells, lp, lq, lo, width):
        widths.append((width, int((lo >= 0).sum())))
        return original(cells, lp, lq, lo, width)

    shifted = d + 1.5
    want = _dense_estep(x, a, shifted, theta, np.log(weights))
    got = window.windowed_estep(data.cells, a, shifted, theta, np.log(weights), windows, loglik=loglik)
    _assert_same((*got[:3], got[3].sum()), want)
    assert windows.widened == 150 and widths[1][0] == 16 and widths[2][0] == 2 * window.SEED + 2
    assert widths[2][1] >= 50 and (len(widths) == 3 or widths[3][1] <= 150 - widths[2][1])  # the rest: whole grid
