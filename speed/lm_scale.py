"""The native 2PL at the scale of language-model leaderboards (issue 32, item 5), fully observed 0/1 data.

1. An open-LLM-leaderboard-shaped matrix: 5,000 models x 28,632 items, every cell answered (143 million
   cells), simulated from a 2PL with leaderboard-like parameters (below). Native 2PL from the answered
   cells to the estimates at the engine's default tolerance (TOL 1e-4; PX-EM start, SQUAREM): wall time, EM cycles,
   time per cycle, peak memory (VmHWM, as ``speed/native_em_scale.py`` reads it). Goals: 3 minutes on 2
   cores, 8 GB.
2. The shape tinyBenchmarks (Maia Polo et al. 2024) fits with py-irt, 395 models x 28,659 items, timed the
   same way and printed beside their published figure (209 s on a GPU; py-irt is not run here).
3. The dense windowed E-step (``irtbridge/em/dense.py``, used for dense 0/1 data of a million cells or more
   with numba) against the plain dense products it replaces: the whole fit at a shape where the plain path
   runs to convergence in a minute, and the first cycles at the full shape of part 1 (the plain path takes
   about half a minute per cycle there).

The simulation: abilities N(0, 1); items 40% easy (b ~ N(-3, 1): most models right, many items above 95%),
45% middle (b ~ N(0, 1)), 15% hard (b ~ N(2.2, 0.8)); slopes lognormal(0, 0.5) clipped to [0.05, 4], 8% of
items nearly flat (a ~ U(0.02, 0.3)). Items answered the minority way by fewer than 0.2% of the models (at
least 5: 10 of 5,000) are replaced by further draws (their maximum-likelihood slope has no finite value: the fit would run its 500 cycles on
them); every model answers every kept item.

    .venv/bin/python speed/lm_scale.py [--quick] [--only 1,2,3]

Part 2 runs first (its peak memory is then its own; part 1's data is kept for part 3). Timings on the
project's machine are taken while other jobs share its 2 cores: upper bounds; the CPU time of all threads
is printed beside the wall time.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.special import expit

from irtbridge.em import window
from irtbridge.em.core import ResponseData, fit_em, prepare_responses
from native_em_scale import peak_mb, reset_peak  # speed/native_em_scale.py: VmHWM, read the same way

PYIRT_SECONDS = 209.0  # tinyBenchmarks (Maia Polo et al. 2024): py-irt on 395 x 28,659, on a GPU (published)


def simulate_llm(n: int, j: int, seed: int = 0, block: int = 250) -> np.ndarray:
    """``n`` models x ``j`` items, 0/1 as bytes, every cell answered (the module docstring's parameters)."""
    rng = np.random.default_rng(seed)
    minority = max(5, round(0.002 * n))
    theta = rng.normal(size=n)
    m = int(j * 1.5) + 100
    kind = rng.random(m)
    b = np.where(kind < 0.40, rng.normal(-3.0, 1.0, m), np.where(kind < 0.85, rng.normal(0.0, 1.0, m),
                                                                   rng.normal(2.2, 0.8, m)))
    a = np.clip(rng.lognormal(0.0, 0.5, m), 0.05, 4.0)
    flat = rng.random(m) < 0.08
    a[flat] = rng.uniform(0.02, 0.3, int(flat.sum()))
    x = np.empty((n, m), dtype=np.uint8)
    for start in range(0, n, block):
        t = theta[start:start + block]
        x[start:start + block] = rng.random((len(t), m)) < expit(a * (t[:, None] - b))
    right = x.sum(axis=0, dtype=np.int64)
    keep = np.flatnonzero(np.minimum(right, n - right) >= minority)
    if len(keep) < j:
        raise RuntimeError(f"only {len(keep)} items answered both ways by {minority}+ models")
    return np.ascontiguousarray(x[:, keep[:j]])


def prepare(x: np.ndarray) -> ResponseData:
    """The engine's own layout of a 0/1 matrix (dense: at least half of the cells answered)."""
    return prepare_responses(x.astype(np.float64), [f"i{k}" for k in range(x.shape[1])])


def fit_shape(n: int, j: int, label: str) -> tuple[ResponseData, object, float]:
    """Simulate, lay out and fit one shape, printing what it cost; the data, the fit and the wall seconds."""
    t = time.perf_counter()
    x = simulate_llm(n, j)
    simulated = time.perf_counter() - t
    fresh = reset_peak()
    t, cpu = time.perf_counter(), time.process_time()
    data = prepare(x)
    data.bits  # the byte layout of the dense E-step, part of the fit's cost
    del x
    built = time.perf_counter() - t
    t = time.perf_counter()
    res = fit_em(data, "2PL", progress=lambda cycle, change: cycle % 10 or print(
        f"           cycle {cycle} after {time.perf_counter() - t:.0f} s (CPU {time.process_time() - cpu:.0f} s): "
        f"largest change {change:.1e}", flush=True))
    fitted = time.perf_counter() - t
    total, cpu = built + fitted, time.process_time() - cpu
    path = "dense windowed (numba)" if data.bits is not None and window.available() \
        and data.bits.cells >= window.MIN_CELLS else "plain products"
    print(f"[measured] {label}: {n:,} x {j:,} = {n * j:,} cells, fully observed (simulated in {simulated:.0f} s)")
    print(f"           E-step: {path}; layout built in {built:.1f} s; fit {fitted:.1f} s, {res.iterations} EM cycles "
          f"(converged: {res.converged}, {fitted / max(res.iterations, 1):.2f} s per cycle incl. the first, at every node); "
          f"total {total:.1f} s = {total / 60:.2f} min wall; CPU time of all its threads {cpu:.1f} s")
    print(f"           peak memory {peak_mb() / 1024:.2f} GB ({'from the layout on' if fresh else 'whole process'}); "
          f"log-likelihood {res.loglik:.2f}; slopes {res.a.min():.2f}..{res.a.max():.2f} (mean {res.a.mean():.2f})", flush=True)
    return data, res, total


def compare(data: ResponseData, cycles: int | None, label: str) -> None:
    """The dense windowed fit against the plain dense products on the same data."""
    saved = window.MIN_CELLS
    options = {} if cycles is None else {"NCYCLES": cycles, "accelerate": "none"}
    t = time.perf_counter()
    fast = fit_em(data, "2PL", **options)
    fast_s = time.perf_counter() - t
    window.MIN_CELLS = 10**15  # no windows: the plain products at every node
    try:
        t = time.perf_counter()
        plain = fit_em(data, "2PL", **options)
        plain_s = time.perf_counter() - t
    finally:
        window.MIN_CELLS = saved
    diff = max(np.abs(fast.a - plain.a).max(), np.abs(fast.d - plain.d).max())
    what = f"{fast.iterations} and {plain.iterations} cycles to TOL 1e-4" if cycles is None else f"{cycles} plain EM cycles"
    print(f"[measured] {label}: dense windowed {fast_s:.1f} s vs plain products {plain_s:.1f} s ({what}); "
          f"largest |difference| of a, d {diff:.1e}; log-likelihood difference {fast.loglik - plain.loglik:+.1e}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small shapes: a smoke run in about a minute")
    ap.add_argument("--only", default="1,2,3", help="the parts to run, e.g. 1,2")
    args = ap.parse_args()
    parts = {int(p) for p in args.only.split(",")}
    big, tiny, small = ((500, 4000), (100, 4000), (300, 4000)) if args.quick else \
        ((5000, 28632), (395, 28659), (600, 4000))
    print("Timings are taken while other jobs share this machine's 2 cores: upper bounds.")
    kept = None
    if 2 in parts:  # first, so that its peak memory is its own (part 1's data stays for part 3)
        _, _, total = fit_shape(*tiny, "tinyBenchmarks shape, native 2PL")
        print(f"           tinyBenchmarks (Maia Polo et al. 2024), py-irt 2PL on this shape: {PYIRT_SECONDS:.0f} s on a GPU "
              f"(published; not run here) vs irtbridge {total:.1f} s on 2 shared CPU cores: py-irt / irtbridge = "
              f"{PYIRT_SECONDS / total:.1f}x", flush=True)
    if 1 in parts:
        kept, _, _ = fit_shape(*big, "open-LLM-leaderboard shape, native 2PL")
    if 3 in parts:
        compare(prepare(simulate_llm(*small, seed=1)), None, f"{small[0]:,} x {small[1]:,}, both to convergence")
        if kept is not None:
            compare(kept, 2, f"{big[0]:,} x {big[1]:,}, first cycles")


if __name__ == "__main__":
    main()
