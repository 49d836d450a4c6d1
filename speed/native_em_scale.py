"""The native EM engine at leaderboard scale, side by side with mirt.

1. 2PL on 1,000 respondents x 20,000 items, 50% of cells missing: native (measured) vs mirt. mirt at this size
   takes about an hour, so mirt is timed at a smaller shape with the same respondents and missingness
   (``--mirt-items``, default 2,000) and its time per EM cycle is extrapolated linearly in the number of items,
   times the cycles mirt needed there; the agreement of the parameters (goal 1e-3) is measured at that shape,
   where both engines fit the same data, and by starting mirt's EM at the native TOL 1e-6 estimates (at
   mirt's maximum it stops at once). Printed: which numbers are measured and which extrapolated.
2. The cycle against the essential work, on 2,000 x 50,000 with 90% missing (10 million answered cells): the
   four sparse products of the plain layout (``A @ L``, ``M @ L``, ``A.T @ post``, ``M.T @ post``) timed
   alone, against the whole EM cycle (goal: within 1.3x); the parameters after 10 cycles against the same
   cycles with the plain layout's E-step (goal 1e-10).
3. Cycles with and without SQUAREM (``accelerate="squarem"`` vs ``"none"``) at leaderboard shapes, both to
   TOL 1e-4: cycles, seconds, the largest parameter difference and the log-likelihoods.
4. The whole 100-million-cell fit: 5,000 x 200,000 with 90% missing, 2PL, native, from the answered cells to
   the converged estimates: wall time and peak memory (goals: 3 minutes on 2 cores, 6 GB), on the automatic
   grid (``quadpts=None``: 191 nodes here, :func:`irtbridge.em.window.fine_quadpts`; ``--huge-quadpts 61``
   for mirt's); ``--huge-dask`` fits it again on a local Dask cluster of 2 workers and compares.
5. The same 2PL on a local Dask cluster of 2 workers (respondent chunks' E-step sums on the workers), equal
   to the single-process fit to 1e-10, at ``--dask-items`` items.

    .venv/bin/python speed/native_em_scale.py [--quick] [--skip-huge] [--huge-dask] [--only 2,3]
"""

from __future__ import annotations

import argparse
import os
import resource
import time
import warnings

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.special import log_expit, logsumexp

import irtbridge
from irtbridge.em import keep_freed_memory
from irtbridge.em.core import ResponseData, fit_em, prepare_responses
from irtbridge.em.memory import ENV_VAR


def simulate(n: int, j: int, missing: float, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n)
    a, b = rng.lognormal(0.0, 0.3, j), rng.normal(0.0, 1.0, j)
    x = (rng.random((n, j)) < 1 / (1 + np.exp(-a * (theta[:, None] - b)))).astype(np.float32)
    x[rng.random((n, j)) < missing] = np.nan
    return pd.DataFrame(x, columns=[f"i{k}" for k in range(j)])


def simulate_sparse(n: int, j: int, missing: float, seed: int = 0, block: int = 250) -> ResponseData:
    """A huge, mostly missing 2PL leaderboard built block by block, never as a dense matrix."""
    rng = np.random.default_rng(seed)
    a, b = rng.lognormal(0.0, 0.3, j), rng.normal(0.0, 1.0, j)
    A_parts, M_parts = [], []
    for start in range(0, n, block):
        rows = min(block, n - start)
        theta = rng.normal(size=rows)
        observed = rng.random((rows, j)) >= missing
        r, c = np.nonzero(observed)
        p = 1 / (1 + np.exp(-a[c] * (theta[r] - b[c])))
        right = rng.random(len(r)) < p
        M_parts.append(sparse.csr_matrix((np.ones(len(r)), (r, c)), shape=(rows, j)))
        A_parts.append(sparse.csr_matrix((np.ones(int(right.sum())), (r[right], c[right])), shape=(rows, j)))
    return ResponseData(sparse.vstack(A_parts, format="csr"), sparse.vstack(M_parts, format="csr"),
                        tuple(f"i{k}" for k in range(j)), pd.RangeIndex(n))


def _largest_difference(one, other) -> float:
    """The largest absolute difference in mirt's estimated parameters, slope ``a1`` and intercept ``d = -a b``
    (the metric of mirt's convergence test; ``b`` divides by the slope and magnifies noise on flat items)."""
    def slope_intercept(items: pd.DataFrame) -> np.ndarray:
        return np.column_stack([items["a"], -items["a"] * items["b"]])
    return float(np.abs(slope_intercept(one.items) - slope_intercept(other.items.loc[one.items.index])).max())


def peak_mb() -> float:
    """This process's peak resident memory in MB (Linux: VmHWM, which :func:`reset_peak` can reset; a
    spawned Dask worker's getrusage figure would include the client's peak, kept across fork and exec)."""
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) / 1024
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def reset_peak() -> bool:
    """Start this process's peak memory afresh (Linux only); False where it cannot."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


def _em_difference(one, other, keep=slice(None)) -> float:
    """The largest absolute difference in slope ``a`` and intercept ``d`` between two native EM results
    (over the items ``keep`` selects)."""
    return float(max(np.abs(one.a - other.a)[keep].max(), np.abs(one.d - other.d)[keep].max()))


def part1(n: int, items: int, mirt_items: int, tol: float = 1e-4) -> None:
    small = simulate(n, mirt_items, 0.5, seed=1)
    same = {"TOL": tol, "technical": {"NCYCLES": 10000}} if tol != 1e-4 else {}  # mirt's defaults otherwise
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.perf_counter()
        mirt = irtbridge.calibrate(small, "2PL", engine="mirt", se=False, drop_constant=True, **same)
        mirt_s = time.perf_counter() - t
        t = time.perf_counter()
        native_small = irtbridge.calibrate(small, "2PL", engine="native", se=False, drop_constant=True, **same)
        native_small_s = time.perf_counter() - t
        # where the two stop at TOL 1e-4 differs more than either's distance to the maximum: the same data
        # fitted to TOL 1e-6 (native) is the reference both are measured against, with the log-likelihoods
        tight = irtbridge.calibrate(small, "2PL", engine="native", se=False, drop_constant=True, TOL=1e-6,
                                    technical={"NCYCLES": 5000})
        # mirt's own EM started at the tight native estimates: if they are mirt's maximum, it stops at once
        table = mirt.parameters()
        est = {"a1": tight.items["a"], "d": -tight.items["a"] * tight.items["b"]}
        for name, values in est.items():
            rows = table["name"] == name
            table.loc[rows, "value"] = values.reindex(table.loc[rows, "item"].astype(str)).to_numpy()
        t = time.perf_counter()
        warm = irtbridge.calibrate(small, "2PL", engine="mirt", se=False, drop_constant=True, parameters=table,
                                   TOL=1e-6, technical={"NCYCLES": 2000})
        warm_s = time.perf_counter() - t
    diff = _largest_difference(native_small, mirt)
    each = np.abs(np.column_stack([native_small.items["a"] - mirt.items["a"],
                                   mirt.items["a"] * mirt.items["b"] - native_small.items["a"] * native_small.items["b"]]))
    beyond = int((each.max(axis=1) > 1e-3).sum())
    print(f"[measured]     mirt   2PL {n} x {mirt_items}, 50% missing: {mirt_s:8.1f} s, {mirt.iterations} EM cycles"
          f" (converged: {mirt.converged}), log-likelihood {mirt.loglik:.4f}")
    print(f"[measured]     native 2PL {n} x {mirt_items}, 50% missing: {native_small_s:8.1f} s, {native_small.iterations} EM cycles"
          f" (converged: {native_small.converged}), log-likelihood {native_small.loglik:.4f}")
    print(f"               largest |difference| of a1, d, native vs mirt: {diff:.2e} (goal 1e-3, TOL {tol:g} on both; {beyond} item(s) beyond 1e-3);"
          f" to the TOL 1e-6 fit (log-likelihood {tight.loglik:.4f}): mirt {_largest_difference(mirt, tight):.2e},"
          f" native {_largest_difference(native_small, tight):.2e}")
    print(f"[measured]     mirt started at the native TOL 1e-6 estimates, run to TOL 1e-6: {warm_s:.1f} s, "
          f"{warm.iterations} EM cycle(s), log-likelihood {warm.loglik:.4f}; it moved them by at most "
          f"{_largest_difference(warm, tight):.2e} (goal 1e-3)")
    big = simulate(n, items, 0.5, seed=2)
    t = time.perf_counter()
    native = irtbridge.calibrate(big, "2PL", engine="native", se=False, drop_constant=True)
    native_s = time.perf_counter() - t
    per_cycle = mirt_s / max(mirt.iterations, 1) * items / mirt_items
    mirt_big = per_cycle * native.iterations
    print(f"[measured]     native 2PL {n} x {items}, 50% missing: {native_s:8.1f} s, {native.iterations} EM cycles, "
          f"peak memory {peak_mb():.0f} MB")
    print(f"[extrapolated] mirt   2PL {n} x {items}, 50% missing: {mirt_big:8.1f} s (its time per cycle at {mirt_items} "
          f"items x {items / mirt_items:.0f}, for the {native.iterations} cycles the native fit needed)")
    print(f"ratio mirt / native: {mirt_big / native_s:.1f}x (goal >= 10x)")


def _plain_layout_estep(data: ResponseData, a, d, theta, log_prior):
    """The E-step as the four products of the plain layout (``A`` and ``M``): the reference of part 2."""
    z = a[:, None] * theta[None, :] + d[:, None]
    lp, lq = log_expit(z), log_expit(-z)
    ll = np.asarray(data.A @ (lp - lq) + data.M @ lq) + log_prior[None, :]
    marginal = logsumexp(ll, axis=1)
    post = np.exp(ll - marginal[:, None])
    return np.asarray(data.A.T @ post), np.asarray(data.M.T @ post), post.sum(axis=0), float(marginal.sum())


def _best(f, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def part2(n: int, items: int) -> None:
    data = simulate_sparse(n, items, 0.9, seed=3)
    rng = np.random.default_rng(0)
    L, post = rng.random((items, 61)), rng.random((n, 61))
    essential = (_best(lambda: data.A @ L) + _best(lambda: data.M @ L) + _best(lambda: data.A.T @ post)
                 + _best(lambda: data.M.T @ post))
    from irtbridge.em import window

    fit_em(data, "2PL", NCYCLES=2)  # builds the layout once (a fit does it once) and compiles the kernels
    cycles = 10
    cycle = min(fit_em(data, "2PL", NCYCLES=cycles, accelerate="none").seconds for _ in range(2)) / (cycles + 1)
    windowed = window.available()
    window.MIN_CELLS, saved = 10**15, window.MIN_CELLS
    try:
        whole = min(fit_em(data, "2PL", NCYCLES=cycles, accelerate="none").seconds for _ in range(2)) / (cycles + 1)
    finally:
        window.MIN_CELLS = saved
    print(f"[measured]     2PL {n} x {items}, 90% missing ({data.M.nnz:,} answered cells): the four essential sparse "
          f"products {essential:.2f} s; one EM cycle {cycle:.2f} s with the {'windowed' if windowed else 'plain (no numba)'} "
          f"E-step ({cycle / essential:.2f}x the products; goal <= 1.3x), {whole:.2f} s summing every node "
          f"({whole / essential:.2f}x); first cycle at every node, included")
    mine = fit_em(data, "2PL", NCYCLES=10, accelerate="none")
    plain = fit_em(data, "2PL", NCYCLES=10, accelerate="none", estep_fn=_plain_layout_estep)
    # an item answered all one way, or whose slope runs away (almost all one way by few respondents), has no
    # finite maximum: rounding differences move it anywhere, so it is left out of the comparison
    right, answered = np.asarray(data.A.sum(axis=0)).ravel(), np.asarray(data.M.sum(axis=0)).ravel()
    ok = (right > 0) & (right < answered) & (np.abs(plain.a) < 5) & (np.abs(mine.a) < 5)
    diff = _em_difference(mine, plain, ok)
    print(f"               after 10 cycles, largest |difference| to the plain layout's E-step: {diff:.1e} (goal 1e-10; "
          f"the {ok.sum():,} of {items:,} items answered both ways whose slope stays below 5; the rest differ by up to {_em_difference(mine, plain):.1e}); "
          f"plain layout {plain.seconds / 11:.2f} s per cycle")


def part3(shapes) -> None:
    for n, items, missing in shapes:
        x = simulate(n, items, missing, seed=5)
        x = x.loc[:, x.nunique() > 1]
        data = prepare_responses(x.to_numpy(), x.columns)
        fits = {acc: fit_em(data, "2PL", accelerate=acc) for acc in ("none", "squarem")}
        plain, fast = fits["none"], fits["squarem"]
        diff = _em_difference(fast, plain)
        print(f"[measured]     2PL {n} x {items}, {missing:.0%} missing, TOL 1e-4: plain EM {plain.iterations} cycles "
              f"{plain.seconds:.1f} s, SQUAREM {fast.iterations} cycles {fast.seconds:.1f} s "
              f"({plain.iterations / fast.iterations:.1f}x fewer cycles; goal >= 2x); log-likelihood SQUAREM - plain "
              f"{fast.loglik - plain.loglik:+.2e}; largest |difference| {diff:.1e}")


def part4(n: int, items: int, dask: bool, quadpts: int | None = None) -> None:
    from irtbridge.em import window

    t = time.perf_counter()
    data = simulate_sparse(n, items, 0.9, seed=3)
    built = time.perf_counter() - t
    t = time.perf_counter()

    def report(cycle: int, change: float) -> None:
        if cycle % 10 == 0:
            print(f"               cycle {cycle}: {time.perf_counter() - t:.0f} s, largest change {change:.1e}", flush=True)

    res = fit_em(data, "2PL", progress=report, quadpts=quadpts)
    spent = time.perf_counter() - t
    estep = "windowed (numba)" if window.available() else "plain (no numba)"
    grid = f"{res.quadpts} nodes" + (" (quadpts=None: the automatic grid)" if quadpts is None else "")
    print(f"[measured]     native 2PL {n} x {items}, 90% missing ({data.M.nnz:,} answered cells, simulated in {built:.0f} s), "
          f"{estep} E-step, {grid}: whole fit {spent / 60:.1f} min ({res.iterations} EM cycles, converged: {res.converged}, "
          f"{spent / res.iterations:.1f} s per cycle), log-likelihood {res.loglik:.2f}; peak memory {peak_mb() / 1024:.2f} GB "
          f"(goals: 3 min, 6 GB)", flush=True)
    if dask:
        from distributed import Client, LocalCluster

        from irtbridge.em.distributed import fit_em_dask

        data.__dict__.pop("cells", None)  # the client needs only A and M; the workers build their blocks' cells
        fresh = reset_peak()  # the client's peak of the Dask fit alone, not of the single-process fit before it
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                          memory_limit=0) as cluster, Client(cluster) as client:
            t = time.perf_counter()
            spread = fit_em_dask(data, "2PL", client, quadpts=res.quadpts)
            spread_s = time.perf_counter() - t
            workers = client.run(peak_mb)
        diff = _em_difference(spread, res)
        print(f"[measured]     the same fit on a local Dask cluster of 2 workers: {spread_s / 60:.1f} min "
              f"({spread.iterations} cycles); largest |difference| to the single process {diff:.1e} (goal 1e-10); "
              f"peak memory of the workers {', '.join(f'{m / 1024:.2f}' for m in workers.values())} GB, "
              f"of the client {peak_mb() / 1024:.2f} GB "
              f"({'during the Dask fit' if fresh else 'including the single-process fit before it'})", flush=True)


def part5(n: int, items: int) -> None:
    from distributed import Client, LocalCluster

    x = simulate(n, items, 0.5, seed=4)
    t = time.perf_counter()
    single = irtbridge.calibrate(x, "2PL", engine="native", se=False, drop_constant=True)
    single_s = time.perf_counter() - t
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        t = time.perf_counter()
        spread = irtbridge.calibrate(x, "2PL", engine="native", se=False, client=client, drop_constant=True)
        spread_s = time.perf_counter() - t
    diff = _largest_difference(spread, single)
    print(f"[measured]     Dask (2 workers) vs single process, 2PL {n} x {items}: {spread_s:.1f} s vs {single_s:.1f} s; "
          f"largest |difference| {diff:.1e} (goal 1e-10)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small shapes: a smoke run in about a minute")
    ap.add_argument("--respondents", type=int, default=1000)
    ap.add_argument("--items", type=int, default=20000)
    ap.add_argument("--mirt-items", type=int, default=2000)
    ap.add_argument("--tol", type=float, default=1e-4,
                    help="TOL of both engines at the mirt shape (mirt's default 1e-4; 1e-5 took mirt 5,106 cycles, 35 min)")
    ap.add_argument("--skip-huge", action="store_true", help="leave out part 4 (the 100-million-cell fit)")
    ap.add_argument("--huge-dask", action="store_true", help="part 4 also on a local Dask cluster of 2 workers")
    ap.add_argument("--huge-quadpts", type=int, default=None,
                    help="part 4's quadrature nodes (default: quadpts=None, the automatic grid; 61: mirt's)")
    ap.add_argument("--only", default="1,2,3,4,5", help="the parts to run, e.g. 2,3")
    ap.add_argument("--dask-items", type=int, default=2000)
    args = ap.parse_args()
    if args.quick:
        args.respondents, args.items, args.mirt_items, args.dask_items = 300, 2000, 200, 300
    parts = {int(p) for p in args.only.split(",")}
    # freed memory kept for reuse (a process-wide malloc setting, opt-in: irtbridge.em.memory); the variable
    # carries it to the Dask workers of parts 4 and 5
    os.environ[ENV_VAR] = "1"
    print(f"freed memory kept for reuse: {keep_freed_memory()}", flush=True)
    if 1 in parts:
        part1(args.respondents, args.items, args.mirt_items, args.tol)
    if 2 in parts:
        part2(*((300, 5000) if args.quick else (2000, 50000)))
    if 3 in parts:
        part3([(300, 1000, 0.5)] if args.quick else [(1000, 5000, 0.5), (2000, 5000, 0.9)])
    if 4 in parts and not args.skip_huge and not args.quick:
        part4(5000, 200000, args.huge_dask, args.huge_quadpts)
    if 5 in parts:
        part5(args.respondents, args.dask_items)


if __name__ == "__main__":
    main()
