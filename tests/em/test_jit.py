"""The native engine's numba kernels keep their machine code on disk (irtbridge/em/jit.py): a kernel made
again (as in a new process) loads it instead of compiling, and computes the same bits; where it cannot be
stored, the kernel is compiled in the process, with one warning, and still runs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from irtbridge.em import jit, mstep_jit
from irtbridge.exceptions import IrtBridgeWarning


def _problem():
    theta = np.linspace(-6, 6, 61)
    rng = np.random.default_rng(3)
    n = rng.uniform(1, 50, size=(4, 61))
    r = n / (1 + np.exp(-(np.array([0.7, 1.1, 1.6, 2.2])[:, None] * theta - rng.normal(size=(4, 1)))))
    return r, n, theta


def _run(kernel):
    r, n, theta = _problem()
    a, d = np.ones(4), np.zeros(4)
    kernel(r, n, theta, a, d, 0, 4, 50, 2.0, False)  # mstep_jit's kernel: Newton's method in place
    return a, d


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    import numba.core.config

    monkeypatch.setattr(numba.core.config, "CACHE_DIR", str(tmp_path))  # NUMBA_CACHE_DIR, for this test
    monkeypatch.setattr(jit, "_UNSTORED", [])
    return tmp_path


def test_a_kernel_made_again_loads_the_stored_code_and_computes_the_same_bits(cache_dir):
    first = jit.compiled(mstep_jit._kernel, fastmath=False)
    a1, d1 = _run(first)
    assert first._run.stats.cache_misses and not first._run.stats.cache_hits  # compiled, then stored
    assert list(cache_dir.rglob("*.nbi")) and list(cache_dir.rglob("*.nbc"))
    again = jit.compiled(mstep_jit._kernel, fastmath=False)  # a new dispatcher, as in a new process
    a2, d2 = _run(again)
    assert again._run.stats.cache_hits and not again._run.stats.cache_misses  # loaded, not compiled
    assert a1.tobytes() == a2.tobytes() and d1.tobytes() == d2.tobytes()
    # the numbers are the M-step's: each item's slope solves its weighted logistic regression
    r, n, theta = _problem()
    p = 1 / (1 + np.exp(-(a1[:, None] * theta + d1[:, None])))
    np.testing.assert_allclose(((r - n * p) * theta).sum(axis=1), 0, atol=1e-8)


def test_without_a_place_to_store_it_the_kernel_is_compiled_here_with_one_warning(cache_dir, monkeypatch):
    import numba

    plain = numba.njit

    def no_cache(*args, **options):
        if options.get("cache"):
            raise RuntimeError("cannot cache function 'kernel': no locator available for file 'x.py'")
        return plain(*args, **options)

    monkeypatch.setattr(numba, "njit", no_cache)
    with pytest.warns(IrtBridgeWarning, match="numba could not store a compiled kernel") as said:
        kernels = [jit.compiled(mstep_jit._kernel, fastmath=False) for _ in range(2)]
    assert len(said) == 1  # once a process
    monkeypatch.setattr(numba, "njit", plain)
    assert [k.tobytes() for k in _run(kernels[0])] == [k.tobytes() for k in _run(kernels[1])]


def test_a_store_that_fails_at_the_first_call_runs_the_kernel_compiled_here(cache_dir):
    kernel = jit.compiled(mstep_jit._kernel, fastmath=False)
    expected = _run(jit.compiled(mstep_jit._kernel, fastmath=False))

    def full_disk(*args):
        raise OSError(28, "No space left on device")

    kernel._run = full_disk
    with pytest.warns(IrtBridgeWarning, match="No space left on device"):
        got = _run(kernel)
    assert [g.tobytes() for g in got] == [e.tobytes() for e in expected]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _run(kernel)  # from now on, the kernel compiled in this process, without a word
