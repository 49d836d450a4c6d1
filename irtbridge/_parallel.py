"""Parallel units of work: spawned worker processes (one R each), their environment and progress bars.

``evaluate``, ``run_benchmark`` and ``batch`` all run independent units (a dataset, an MLC, a manifest
entry) in worker processes. The rules they share live here:

* **spawn, never fork**: R cannot survive a fork, so every worker is a fresh interpreter that starts
  its own R on first use (:func:`run_units`; :func:`irtbridge.batch.local_cluster` gives Dask workers
  the same environment);
* **one thread per worker** (:data:`WORKER_ENV`): BLAS/OpenMP pools inside a worker would fight the
  other workers for the same cores, and figures are drawn off-screen;
* **Ctrl-C belongs to the parent**: workers ignore SIGINT (a terminal sends it to the whole process
  group, and R inside a worker would only print it and go on); on KeyboardInterrupt the parent ends its
  workers, and their R with them, and re-raises;
* **progress** on stderr with tqdm, or a no-op bar with the same methods (:func:`progress_bar`).

Results never depend on the number of workers: units are seeded by their callers and collected by
key, so the order in which they finish does not matter.
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from typing import Any, Callable, Hashable, Iterator, Mapping, Sequence, TypeVar

__all__ = ["WORKER_ENV", "worker_env", "sigint_ignored", "NoBar", "progress_bar", "run_units"]

#: environment of every worker process: single-threaded numerics, off-screen figures
WORKER_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
K = TypeVar("K", bound=Hashable)  # a unit's key


@contextmanager
def worker_env() -> Iterator[None]:
    """Set :data:`WORKER_ENV` in this process while workers are spawned (they inherit it); restore after."""
    saved = {k: os.environ.get(k) for k in WORKER_ENV}
    os.environ.update(WORKER_ENV)
    try:
        yield
    finally:
        for k, val in saved.items():
            if val is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = val


class NoBar:
    """A progress bar that shows nothing (the methods of tqdm that the runners call)."""

    def set_postfix_str(self, *a: Any, **k: Any) -> None:
        pass

    def update(self, *a: Any) -> None:
        pass

    def close(self) -> None:
        pass


def progress_bar(enabled: bool, total: int, *, desc: str, unit: str = "unit", initial: int = 0) -> Any:
    """A tqdm bar on stderr, or a :class:`NoBar` when ``enabled`` is false.

    Examples
    --------
    >>> bar = progress_bar(False, 3, desc="units")
    >>> bar.update(1); bar.close()
    """
    if not enabled:
        return NoBar()
    from tqdm import tqdm  # tqdm loads when a progress bar is shown

    return tqdm(total=total, initial=initial, desc=desc, unit=unit, file=sys.stderr, dynamic_ncols=True)


def run_units(
    units: Mapping[K, tuple[Callable[..., Any], tuple]],
    *,
    jobs: int,
    bar: Any = None,
    label: Callable[[K], str] = str,
    cost: Callable[[K], float] | None = None,
    lost: Callable[[K, str], Any] | None = None,
) -> dict[K, Any]:
    """Run ``fn(*args)`` for every ``key: (fn, args)`` and return ``{key: result}`` in the input order.

    Parameters
    ----------
    units : mapping of key -> (function, args)
        Functions must be importable module-level functions (spawned workers import them).
    jobs : int
        Worker processes; 1 (or a single unit) runs everything in this process.
    bar : progress bar, optional
        Advanced once per finished unit; its postfix names the units still running.
    label : callable, optional
        Display name of a key.
    cost : callable, optional
        Relative cost of a key: the most expensive units start first, so the run ends sooner.
    lost : callable, optional
        ``lost(key, reason)`` is the result of a unit whose worker process died under it (killed, out of
        memory); the units that were only stopped with it run again in fresh workers. Without ``lost``,
        a dead worker ends the run with :class:`concurrent.futures.process.BrokenProcessPool`.

    Notes
    -----
    An exception in a unit cancels the units not yet started and propagates; callers that must go on
    catch failures inside the unit function and return them as data.

    Examples
    --------
    >>> run_units({"a": (abs, (-2,)), "b": (abs, (3,))}, jobs=1)
    {'a': 2, 'b': 3}
    """
    bar = bar if bar is not None else NoBar()
    keys = list(units)
    done: dict[K, Any] = {}
    if jobs <= 1 or len(keys) <= 1:
        for key in keys:
            fn, args = units[key]
            bar.set_postfix_str("running: " + label(key))
            done[key] = fn(*args)
            bar.update(1)
        return {k: done[k] for k in keys}
    ordered = keys
    if cost is not None:
        unit_cost = cost  # bound for the lambda (the None check does not reach inside it)
        ordered = sorted(keys, key=lambda k: -unit_cost(k))
    remaining, blameless = list(ordered), 0
    while remaining:
        victims = _run_spawned(units, remaining, min(jobs, len(remaining)), bar, label, done, lost is not None)
        if victims is None:
            break
        assert lost is not None  # _run_spawned returns lost units only when told to survive (lost given)
        # a worker that died before taking a unit costs a retry; a second such death must not loop
        blameless += not victims
        if not victims and blameless > 1:
            victims = [k for k in remaining if k not in done]
        for key in victims:
            done[key] = lost(key, "its worker process died (killed, or out of memory)")
            bar.update(1)
        remaining = [k for k in remaining if k not in done]
    return {k: done[k] for k in keys}


def _tagged(slots: str, index: int, fn: Callable[..., Any], args: tuple) -> Any:
    """Run one unit in a worker after noting which process runs it (to name it if the process dies)."""
    with open(os.path.join(slots, str(index)), "w", encoding="utf-8") as fh:
        fh.write(str(os.getpid()))
    return fn(*args)


def _victims(slots: str, ordered: Sequence[K], done: Mapping[K, Any], exitcodes: Mapping[int, Any]) -> list[K]:
    """The unfinished units whose worker died by itself (not terminated by the pool after the death)."""
    out = []
    for i, key in enumerate(ordered):
        try:
            with open(os.path.join(slots, str(i)), encoding="utf-8") as fh:
                pid = int(fh.read())
        except (OSError, ValueError):
            continue
        if key not in done and exitcodes.get(pid) not in (None, -signal.SIGTERM):
            out.append(key)
    return out


def _ignore_sigint() -> None:
    """Worker initializer: Ctrl-C is the parent's to handle (it ends the workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def sigint_ignored() -> Iterator[None]:
    """Ignore SIGINT while workers are started: they inherit the disposition from their first instruction,
    before any initializer could run (a Ctrl-C then would print a traceback from the worker's bootstrap)."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        yield
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)


def _end_workers(pool: Any, grace: float = 1.0) -> None:
    """Terminate the pool's worker processes (SIGTERM, then SIGKILL after ``grace`` seconds)."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
    deadline = time.monotonic() + grace
    for proc in procs:
        proc.join(max(0.0, deadline - time.monotonic()))
        if proc.is_alive():
            proc.kill()
            proc.join(1.0)


def _run_spawned(units: Mapping[K, tuple[Callable[..., Any], tuple]], ordered: Sequence[K], jobs: int,
                 bar: Any, label: Callable[[K], str], done: dict[K, Any], survive: bool) -> list[K] | None:
    """Run ``ordered`` in one pool; None when all ran, else the units lost with a dead worker (``survive``)."""
    import multiprocessing  # the process pool's modules load when a pool starts
    # the process pool's modules load when a pool starts
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool  # the process pool's modules load when a pool starts

    with worker_env(), tempfile.TemporaryDirectory(prefix="irtbridge-units-") as slots:
        # spawn, never fork: R cannot survive a fork, so each worker starts clean with its own R
        with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                                 initializer=_ignore_sigint) as pool:
            with sigint_ignored():
                futures = {pool.submit(_tagged, slots, i, *units[k]): k for i, k in enumerate(ordered)}
            procs = dict(pool._processes or {})
            pending = set(futures)
            try:
                while pending:
                    # wake up now and then to show which units are running (units take minutes)
                    finished, pending = wait(pending, timeout=2.0, return_when=FIRST_COMPLETED)
                    procs.update(pool._processes or {})
                    for fut in finished:
                        try:
                            done[futures[fut]] = fut.result()
                        except BrokenProcessPool:
                            if not survive:
                                raise
                            for proc in procs.values():
                                proc.join(5.0)
                            return _victims(slots, ordered, done, {pid: p.exitcode for pid, p in procs.items()})
                        bar.update(1)
                    running = [label(futures[f]) for f in futures if f in pending and f.running()]
                    bar.set_postfix_str("running: " + ", ".join(running[:jobs]) if running else "")
            except BaseException as exc:
                if isinstance(exc, Exception):
                    # a failing unit stops the run: do not start the units still queued
                    for fut in futures:
                        fut.cancel()
                else:
                    # Ctrl-C (or SystemExit): the units running now are abandoned too. The pool, broken by the
                    # end of its workers, fails the queued units itself; cancelling them first would make
                    # its management thread print a traceback (it sets an exception on every queued future)
                    _end_workers(pool)
                raise
    return None
