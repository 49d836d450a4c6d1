"""The binary E-step on each respondent's window of quadrature nodes: exact, and most of the work skipped.

A leaderboard respondent answers thousands of items, so its posterior over mirt's 61 nodes (spacing 0.2)
sits on a handful of them: with 20,000 answers its standard deviation is about 0.02. The plain E-step still
sums every answer at every node. This one sums each respondent's answers only at the nodes of its *window*,
``[lo, hi)``, carried from the previous cycle, and checks that the window still holds the posterior.

Why nothing is lost: the 2PL, 1PL and Rasch log-likelihoods are concave in theta (sums of log-logistic
terms), and so is the log of the normal prior, so every respondent's log-posterior at the equally spaced
nodes is a concave sequence. If the value at an inner window edge is more than ``CUT`` below the best value
in the window, the best node of the whole grid is inside the window and every node beyond that edge is lower
still. With ``CUT = 50`` the dropped posterior mass is below ``61 * exp(-50)``, about 1e-20 of the total,
far under the rounding of a double. A respondent whose window fails the check (its posterior moved, e.g. at
a SQUAREM extrapolation) is summed again at every node; where a tenth of the respondents or more have no
window (the first E-step of a fit, a PX-EM cycle that rescales every posterior), they first get one from
every ``SEED``-th node (:func:`_seed`), checked the same way. The sums at the computed nodes are the plain
E-step's own, term for term in the same order (items ascending), so the log-likelihood at a computed node is
bit-identical to the plain product's, and the counts differ from it only by the dropped mass.

On a grid finer than mirt's (``quadpts`` above ``FINE``, as ``fit_em(quadpts=None)`` picks where every
respondent answers thousands of items: :func:`fine_quadpts`) a posterior spans more nodes and moves by more
of them between cycles, and every 4th node of the grid is far more than a window. There the first windows
come from about 16 coarse nodes, and a window that fails is not summed at every node: the parabola through
the best value and its neighbours (the coarse ones, or the failed window's own) predicts the mode and the
width (:func:`_predict`), checked as every window, up to ``RETRIES`` times (:func:`_search`); the whole grid
only for what is left (posteriors too wide, or at an end of the grid).

The kernels are numba functions that release the GIL: the right and the wrong answers run on two threads,
as the plain products do. Without numba (an optional dependency: Debian's ``python3-numba``) the plain
E-step runs. The E-step's items x nodes arrays (the tables, and a fit's counts) live in the windows for
the whole fit (:meth:`NodeWindows.buffer`): fresh ones every cycle cost a page fault per 4 KB page (a
fit had 4.8 million of them, 55 s of system time; now 75,000 and 17 s). Measured on 5,000 x 200,000 with
90% missing (100 million answered cells), 191 nodes (``quadpts=None``): 30 EM cycles, 3.9 s each,
1.9 min on a quiet 2-core machine, peak 4.76 GB; see ``speed/native_em_scale.py`` part 4.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import numpy as np
from scipy import sparse
from scipy.special import logsumexp

from irtbridge.em.jit import compiled
from irtbridge.irt.logistic import log_pq

numba: Any = None  # imported on first use (it takes a while); None until then, False if it is missing

__all__ = ["CUT", "FINE", "FINE_ANSWERS", "MIN_CELLS", "SEED", "WIDEST", "NodeWindows", "available", "fine_quadpts",
           "node_windows", "pair", "windowed_estep"]

CUT = 50.0
"""A node more than this below a respondent's best log-posterior holds less than exp(-50) of its mass."""
MARGIN = 1
"""Nodes added on each side of a respondent's kept nodes for the next cycle (its posterior drifts)."""
SEED = 4
"""The first windows of a fit come from the log-posterior at every ``SEED``-th node (:func:`_seed`)."""
SEED_SHARE = 0.1
"""From this share of respondents without a window (or whose window failed) the E-step seeds windows."""
WIDEST = 24
"""A posterior wider than this many nodes (few answers) is summed at every node, in a pass of its own."""
FINE = 61
"""Grids of more nodes than this (finer than mirt's spacing 0.2) get predicted windows (:func:`_predict`)."""
FINE_ANSWERS = 2000
"""Above this many answers per respondent (a posterior SD below about 0.05, a quarter of mirt's spacing) the
automatic grid (:func:`fine_quadpts`) is finer than mirt's."""
RETRIES = 3
"""On a fine grid, a window that fails is predicted again this many times before the whole grid is summed."""
MIN_CELLS = 1_000_000
"""Below this many answered cells the plain products are fast enough and numba's compilation is not."""
_THREADED_CELLS = 200_000  # below this many answered cells a thread costs more than it saves
_POOL: list[ThreadPoolExecutor] = []


def fine_quadpts(answers: float) -> int:
    """The automatic grid of the native 2PL family (``fit_em(quadpts=None)``): mirt's 61 nodes up to
    ``FINE_ANSWERS`` answers per respondent, above that nodes about four posterior SDs apart.

    A respondent with ``m`` answers has a posterior SD of about ``s = 1 / sqrt(0.2 m)`` (each answer's
    Fisher information ``a^2 p (1 - p)`` is about 0.2 on a leaderboard). On mirt's grid (spacing 0.2) a
    posterior far narrower than the spacing sits on one node, and a small change of the items moves it
    to the next: the EM map jitters instead of contracting. The rule: ``2 * ceil(1.5 / s) + 1`` nodes on
    [-6, 6] (spacing about ``4 s``; odd, so that 0 is a node), never fewer than 61. Measured on
    1,500 x 50,000 with 60% missing (20,000 answers each, as 5,000 x 200,000 with 90% missing), under
    load: 61 nodes, no convergence in 40 cycles (largest change still 4e-2); 127 nodes (spacing 6 s), none in
    65; 191 nodes (this rule), 27 cycles, 3.2 s each; 381 nodes (2 s), 15 cycles, 12.2 s each (wider windows).
    The windows (:func:`windowed_estep`) keep each answer's cost to the nodes that hold its posterior.

    Parameters
    ----------
    answers : float
        The mean number of items a respondent answered.

    Returns
    -------
    int
        The number of nodes: 61 up to ``FINE_ANSWERS``.

    Examples
    --------
    >>> fine_quadpts(500), fine_quadpts(5000), fine_quadpts(20000)
    (61, 97, 191)
    """
    if not answers >= FINE_ANSWERS:
        return 61
    return max(61, 2 * int(np.ceil(1.5 * np.sqrt(0.2 * answers))) + 1)


def available() -> bool:
    """Whether the windowed E-step can run (numba imports; optional: the plain E-step runs without it).

    Returns
    -------
    bool
        True when numba imports.
    """
    global numba
    if numba is None:
        try:
            import numba as module
        except ImportError:  # pragma: no cover - depends on the installation
            module = False
        numba = module
    return numba is not False


def pair(cells: int, first: Callable[[], Any], second: Callable[[], Any]) -> tuple[Any, Any]:
    """``first()`` and ``second()``, on two threads when there are ``cells`` >= 200,000 answered cells and
    the machine has two cores; each is computed whole, so the result does not depend on the threads.

    Parameters
    ----------
    cells : int
        Answered cells (the work).
    first, second : callable
        Two functions of no argument.

    Returns
    -------
    tuple
        ``(first(), second())``.
    """
    if (os.cpu_count() or 1) < 2 or cells < _THREADED_CELLS:
        return first(), second()
    if not _POOL:
        _POOL.append(ThreadPoolExecutor(2, thread_name_prefix="irtbridge-em"))
    later = _POOL[0].submit(second)
    return first(), later.result()


class NodeWindows:
    """Where the next E-step sums each respondent's answers: ``width`` nodes from ``lo[i]``, or the whole
    grid where ``lo[i]`` is -1 (a posterior wider than ``WIDEST`` nodes, and every respondent at the start).

    A hint carried from cycle to cycle of one fit: the E-step checks it and sums a respondent again at every
    node where it no longer holds the posterior, so it changes how much is computed, never the result beyond
    rounding. ``widened`` counts those respondents (diagnostics). The windows also keep the E-step's items x
    nodes arrays (:meth:`buffer`); with ``reuse`` set (by :func:`~irtbridge.em.core.fit_em`, whose M-step
    uses up each cycle's counts) the sparse E-step returns ``r`` and ``n`` in them too, overwritten by the
    next call.

    Parameters
    ----------
    n_respondents : int
        Respondents of the fit.
    quadpts : int
        Quadrature nodes.
    """

    def __init__(self, n_respondents: int, quadpts: int):
        self.quadpts = int(quadpts)
        self.lo = np.full(n_respondents, -1, dtype=np.int64)
        self.width = self.quadpts
        self.widened = 0
        self.reuse = False
        self._buffers: dict[str, np.ndarray] = {}

    def __getstate__(self) -> dict[str, Any]:
        # the buffers stay behind: windows that travel (a Dask worker's, irtbridge.em.distributed) carry
        # their two small arrays, not hundreds of MB
        return {**self.__dict__, "_buffers": {}}

    def buffer(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        """An uninitialised float array of ``shape`` kept under ``name`` for the next calls (the E-step's
        items x nodes arrays, hundreds of MB at leaderboard widths: allocated once per fit, not faulted in
        afresh every cycle).

        Parameters
        ----------
        name : str
            The buffer's name.
        shape : tuple of int
            Its shape (a new array where it changed).

        Returns
        -------
        ndarray
            The buffer, its values those of its last use.
        """
        kept = self._buffers.get(name)
        if kept is None or kept.shape != tuple(shape):
            kept = self._buffers[name] = np.empty(shape)
        return kept

    def __len__(self) -> int:
        return len(self.lo)

    def __repr__(self) -> str:
        return (f"NodeWindows({len(self)} respondents, {int((self.lo >= 0).sum())} on {self.width} of "
                f"{self.quadpts} nodes, {self.widened} widened)")


def node_windows(data: Any, quadpts: int) -> NodeWindows | None:
    """Fresh :class:`~irtbridge.em.window.NodeWindows` for a fit of 0/1 ``data``, or None where the plain
    E-step runs: graded data, fewer than ``window.MIN_CELLS`` answered cells, or no numba. The layout
    decides the kernels: sparse data the sparse ones (:mod:`irtbridge.em.window`), dense data (at least half
    of the cells answered, :func:`irtbridge.em.core.prepare_responses`) the byte ones (:mod:`irtbridge.em.dense`).

    Parameters
    ----------
    data : irtbridge.em.core.ResponseData
        The responses of the fit.
    quadpts : int
        The number of quadrature nodes.

    Returns
    -------
    NodeWindows or None
        One window of nodes per respondent, for :func:`irtbridge.em.core.estep`'s ``windows``; None for the plain E-step.
    """
    if data.ncat is not None or not available():
        return None
    answered = data.M.nnz if sparse.issparse(data.M) else data.bits.cells  # dense 0/1 data has its bits
    return NodeWindows(data.shape[0], quadpts) if answered >= MIN_CELLS else None


def _kernel(kind: str, width: int) -> Callable:
    """A numba kernel for windows of ``width`` nodes, compiled on first use (the width is a constant of
    the compiled loop: 5.2 ns per answered cell at 8 nodes, against 8.2 ns with the width an argument).

    Both kernels walk the answers item by item (the items x respondents layout of ``ResponseData.cells``)
    and skip respondents whose ``lo`` is -1. ``gather``: ``out[i, k] += table[j, lo[i] + k]``;
    ``scatter``: ``out[j, lo[i] + k] += post[i, k]``, for every answered cell (item ``j``, respondent
    ``i``). The respondent side is compact (respondents x ``width``), small enough to stay in cache."""
    key = (kind, int(width))
    if key not in _KERNELS:
        if not available():  # pragma: no cover - node_windows gives no windows without numba
            raise RuntimeError("the windowed E-step needs numba")
        nodes = int(width)
        if kind == "gather":
            def kernel(indptr, indices, table, lo, out):
                for j in range(len(indptr) - 1):
                    row = table[j]
                    for c in range(indptr[j], indptr[j + 1]):
                        i = indices[c]
                        base = lo[i]
                        if base >= 0:
                            target = out[i]
                            for k in range(nodes):
                                target[k] += row[base + k]
        else:
            def kernel(indptr, indices, post, lo, out):
                for j in range(len(indptr) - 1):
                    target = out[j]
                    for c in range(indptr[j], indptr[j + 1]):
                        i = indices[c]
                        base = lo[i]
                        if base >= 0:
                            source = post[i]
                            for k in range(nodes):
                                target[base + k] += source[k]
        _KERNELS[key] = compiled(kernel)
    return _KERNELS[key]


_KERNELS: dict[tuple[str, int], Callable] = {}


def _loglik(cells: tuple[Any, Any], lp: np.ndarray, lq: np.ndarray, lo: np.ndarray, width: int) -> np.ndarray:
    """Respondents x ``width``: at column ``k`` of respondent ``i``, the sum of ``lp`` over its right
    answers and ``lq`` over its wrong ones at node ``lo[i] + k`` (rows with ``lo`` -1 stay zero)."""
    gather = _kernel("gather", width)
    right, wrong = cells

    def run(m, table):
        out = np.zeros((right.shape[1], width))
        gather(m.indptr, m.indices, table, lo, out)
        return out

    first, second = pair(right.nnz + wrong.nnz, lambda: run(right, lp), lambda: run(wrong, lq))
    first += second
    return first


def _counts(cells: tuple[Any, Any], post: np.ndarray, lo: np.ndarray, quadpts: int,
            out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``r`` (right answers) and ``n`` (answered), items x nodes, from a compact posterior (respondents x
    width, column ``k`` at node ``lo[i] + k``; rows with ``lo`` -1 left out); into ``out`` (zeroed first)
    where given."""
    scatter = _kernel("scatter", post.shape[1])
    right, wrong = cells

    def run(m, into):
        if into is None:
            into = np.zeros((m.shape[0], quadpts))
        else:
            into.fill(0.0)
        scatter(m.indptr, m.indices, post, lo, into)
        return into

    first, second = out if out is not None else (None, None)
    r, n = pair(right.nnz + wrong.nnz, lambda: run(right, first), lambda: run(wrong, second))
    n += r
    return r, n


def _window_of(values: np.ndarray, lo: np.ndarray, width: int) -> np.ndarray:
    """Respondents x ``width``: ``values[i, lo[i] + k]`` (``values`` respondents x nodes; rows with ``lo``
    -1 read from node 0 and are not used)."""
    return np.take_along_axis(values, np.maximum(lo, 0)[:, None] + np.arange(width)[None, :], axis=1)


class _Tables:
    """``log P`` and ``log Q`` (items x nodes) of the 2PL response function, filled only at the nodes some
    window reads (the others are never touched), in the windows' buffers (:meth:`NodeWindows.buffer`), a
    block of items at a time (the temporaries of :func:`~irtbridge.irt.logistic.log_pq` stay in cache;
    each value is computed as it is for the whole table at once)."""

    def __init__(self, a: np.ndarray, d: np.ndarray, theta: np.ndarray, windows: NodeWindows):
        self.a, self.d, self.theta = a[:, None], d[:, None], theta
        self.lp = windows.buffer("log P", (len(a), len(theta)))
        self.lq = windows.buffer("log Q", (len(a), len(theta)))
        self.filled = np.zeros(len(theta), dtype=bool)

    def at(self, first: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """The tables, filled at least at nodes ``first..stop-1``."""
        todo = np.flatnonzero(~self.filled[first:stop]) + first
        if todo.size:
            lo, hi = int(todo[0]), int(todo[-1]) + 1
            half = len(self.a) // 2
            block = max(1, _FILL_CELLS // (hi - lo))

            def fill(start: int, end: int) -> None:
                for at in range(start, end, block):
                    rows = slice(at, min(at + block, end))
                    log_pq(self.a[rows] * self.theta[None, lo:hi] + self.d[rows],
                           out=(self.lp[rows, lo:hi], self.lq[rows, lo:hi]))

            pair(len(self.a) * (hi - lo), lambda: fill(0, half), lambda: fill(half, len(self.a)))
            self.filled[lo:hi] = True
        return self.lp, self.lq


_FILL_CELLS = 16384  # cells of a block of the tables' fill: its temporaries (128 KB each) stay in cache


def _seed(cells: Any, tables: _Tables, log_prior: np.ndarray, rows: np.ndarray, quadpts: int,
          loglik: Callable) -> np.ndarray:
    """Windows from every ``SEED``-th node for the respondents ``rows`` (a mask): ``lo`` (-1 elsewhere) of
    width ``2 * SEED + 2``. A respondent whose coarse log-posterior falls by ``CUT`` or more from its best
    coarse node ``c`` to both coarse neighbours ``c - SEED`` and ``c + SEED`` (or whose best is an end of the
    grid) gets the window from ``c - SEED``; the others keep -1 (the whole grid).

    Such a window holds the posterior, by the concavity of the module docstring: the fine sequence's best
    node lies strictly between the coarse neighbours, and its best value is at least the coarse best, so the
    window's edges are ``CUT`` or more below it; :func:`windowed_estep` checks it as every window. A
    respondent without a window (the first E-step of a fit, or a PX-EM cycle that moved the latent scale) is
    then summed at 16 + 10 of mirt's 61 nodes, not at all 61."""
    lo = np.full(len(rows), -1, dtype=np.int64)
    coarse = np.arange(0, quadpts, SEED)
    if coarse.size < 3 or 2 * SEED + 2 > quadpts:
        return lo
    lp, lq = tables.at(0, quadpts)
    values = loglik(cells, np.ascontiguousarray(lp[:, coarse]), np.ascontiguousarray(lq[:, coarse]),
                    np.where(rows, 0, -1), coarse.size) + log_prior[coarse]
    at = np.arange(len(rows))
    best = values.argmax(axis=1)
    top = values[at, best]
    below = values[at, np.maximum(best - 1, 0)]
    above = values[at, np.minimum(best + 1, coarse.size - 1)]
    sharp = rows & ((best == 0) | (below <= top - CUT)) & ((best == coarse.size - 1) | (above <= top - CUT))
    width = 2 * SEED + 2  # even (fewer kernels to compile): one node more on the right
    lo[sharp] = np.clip(coarse[best[sharp]] - SEED, 0, quadpts - width)
    return lo


def _on_windows(cells: Any, tables: _Tables, log_prior: np.ndarray, lo: np.ndarray, width: int,
                ll: np.ndarray, loglik: Callable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The log-posterior of respondents with a window (``lo`` >= 0) at its ``width`` nodes, written into
    ``ll`` where the window holds the posterior; returns the mask of windows that do not, with their values
    and nodes (rows in the order of the mask's respondents: the evidence :func:`_predict` moves them by)."""
    quadpts = ll.shape[1]
    narrow = lo >= 0
    part = loglik(cells, *tables.at(int(lo[narrow].min()), int(lo[narrow].max()) + width), lo, width)[narrow]
    node = lo[narrow, None] + np.arange(width)[None, :]
    part += log_prior[node]
    best = part.max(axis=1)
    held = ((node[:, 0] == 0) | (part[:, 0] <= best - CUT)) & \
        ((node[:, -1] == quadpts - 1) | (part[:, -1] <= best - CUT))
    rows = np.flatnonzero(narrow)
    ll[rows[held, None], node[held]] = part[held]
    failed = np.zeros(len(lo), dtype=bool)
    failed[rows[~held]] = True
    return failed, part[~held], node[~held]


def _predict(values: np.ndarray, node: np.ndarray, quadpts: int, margin: int) -> tuple[np.ndarray, int]:
    """Windows predicted from a respondent's log-posterior at equally spaced nodes (rows of ``values`` at
    the nodes ``node``, spacing ``s`` >= 1): ``lo`` (-1 where there is no prediction) and the width.

    The log-posterior is concave and, with the thousands of answers that make a fine grid worth it, close
    to a parabola: the one through the best node and its two neighbours gives the mode (its vertex) and the
    curvature ``c`` per node squared, so the nodes within ``CUT`` of the mode are those within
    ``sqrt(2 CUT / c)`` of it; ``margin`` nodes are added on each side. A prediction only says where to
    look: :func:`_on_windows` checks every window (a wrong one fails and is predicted again from its own
    values), so it changes the work, never the result. No prediction where the three values are not
    strictly concave (a flat posterior) or the window would be wider than ``WIDEST`` nodes of mirt's grid."""
    k = values.shape[1]
    lo = np.full(len(values), -1, dtype=np.int64)
    if k < 3 or not len(values):
        return lo, 2
    at = np.arange(len(values))
    best = np.clip(values.argmax(axis=1), 1, k - 2)
    left, mid, right = values[at, best - 1], values[at, best], values[at, best + 1]
    step = (node[:, 1] - node[:, 0]).astype(float)
    bend = left - 2 * mid + right  # below 0 for a strictly concave triple
    with np.errstate(divide="ignore", invalid="ignore"):
        vertex = node[at, best] + step * (left - right) / (2 * bend)
        half = 1.2 * step * np.sqrt(2 * CUT / -bend)  # a fifth more: the tails of a log-posterior bend less
    ok = (bend < 0) & np.isfinite(vertex) & np.isfinite(half) & (2 * half <= _widest(quadpts))
    if not ok.any():
        return lo, 2
    first = np.floor(np.where(ok, vertex - half, 0)).astype(np.int64) - margin
    stop = np.ceil(np.where(ok, vertex + half, 0)).astype(np.int64) + margin + 1
    first, stop = np.clip(first, 0, quadpts - 1), np.clip(stop, 1, quadpts)
    width = min(quadpts, 2 * -(-int((stop - first)[ok].max()) // 2))  # even: fewer kernels to compile
    lo[ok] = np.minimum(first[ok], quadpts - width)
    return lo, width


def _widest(quadpts: int) -> int:
    """``WIDEST`` nodes of mirt's grid, in nodes of this one (a fine grid's windows are wider in nodes)."""
    return WIDEST if quadpts <= FINE else int(WIDEST * (quadpts - 1) / 60)


def _search(cells: Any, tables: _Tables, log_prior: np.ndarray, again: np.ndarray,
            failed: tuple[np.ndarray, np.ndarray, np.ndarray], ll: np.ndarray, loglik: Callable) -> np.ndarray:
    """A fine grid's windows for the respondents ``again`` (a mask: no window, or one that failed, whose
    values and nodes ``failed`` carries), predicted (:func:`_predict`) and checked up to ``RETRIES`` times;
    the log-posterior of those it finds is written into ``ll``. Returns the mask of those still without one
    (the whole grid). Where ``SEED_SHARE`` of the respondents or more have no window (the first E-step of
    a fit), theirs are predicted from about 16 coarse nodes (every ``SEED * (quadpts - 1) // 60``-th), not
    summed at every node."""
    quadpts = ll.shape[1]
    mask, values, node = failed
    groups = [(np.flatnonzero(mask), values, node)]
    fresh = again & ~mask
    if fresh.sum() >= SEED_SHARE * len(again):
        coarse = np.arange(0, quadpts, SEED * max(1, (quadpts - 1) // 60))
        lp, lq = tables.at(0, quadpts)
        rows = np.flatnonzero(fresh)
        seen = loglik(cells, np.ascontiguousarray(lp[:, coarse]), np.ascontiguousarray(lq[:, coarse]),
                      np.where(fresh, 0, -1), coarse.size)[rows] + log_prior[coarse]
        groups.append((rows, seen, np.broadcast_to(coarse, seen.shape)))
    for _ in range(RETRIES):
        lo, width = np.full(len(again), -1, dtype=np.int64), 2
        for rows, seen, at in groups:
            guess, wide = _predict(seen, at, quadpts, _margin(quadpts))
            if len(at) and at[0, 1] - at[0, 0] == 1:  # a failed window's own nodes: no use looking again inside it
                guess[(guess >= at[:, 0]) & (guess + wide <= at[:, -1] + 1)] = -1
            lo[rows], width = guess, max(width, wide)
        if not (lo >= 0).any():
            break
        lo = np.where(lo >= 0, np.minimum(lo, quadpts - width), -1)
        mask, values, node = _on_windows(cells, tables, log_prior, lo, width, ll, loglik)
        again &= (lo < 0) | mask
        groups = [(np.flatnonzero(mask), values, node)]
        if not mask.any():
            break
    return again


def _margin(quadpts: int) -> int:
    """Nodes added on each side of a window for the next cycle: ``MARGIN`` on mirt's grid, as many nodes
    as 0.02 in theta on a fine one (its posteriors move by more nodes between cycles)."""
    return MARGIN if quadpts <= FINE else max(MARGIN, round(0.02 * (quadpts - 1) / 12))


def windowed_estep(cells: Any, a: np.ndarray, d: np.ndarray, theta: np.ndarray,
                   log_prior: np.ndarray, windows: NodeWindows, *, loglik: Callable = _loglik,
                   counts: Callable = _counts) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The E-step of :func:`irtbridge.em.core.estep` for slopes ``a`` and intercepts ``d`` on the windows:
    ``r``, ``n`` (items x nodes), ``N`` (nodes) and every respondent's log marginal likelihood; ``windows`` is
    checked, and moved to the nodes within ``CUT`` of each respondent's best node (and ``MARGIN`` more) for
    the next call. ``cells`` is the sparse layout of ``ResponseData.cells``, or another layout with its own
    ``loglik`` and ``counts`` (same contracts as ``_loglik`` and ``_counts``: the dense bytes of
    :mod:`irtbridge.em.dense`).

    Parameters
    ----------
    cells : object
        The responses' layout (see above).
    a, d : ndarray
        Slopes and intercepts.
    theta : ndarray
        Quadrature nodes.
    log_prior : ndarray
        Log weights of the nodes.
    windows : NodeWindows
        The windows, checked and moved.
    loglik, counts : callable
        The layout's kernels (default: the sparse layout's).

    Returns
    -------
    r, n : ndarray
        Items x nodes.
    N : ndarray
        Expected respondents per node.
    marginal : ndarray
        Each respondent's log marginal likelihood.
    """
    tables = _Tables(a, d, theta, windows)
    quadpts, width, lo = windows.quadpts, windows.width, windows.lo
    ll = np.full((len(lo), quadpts), -np.inf)
    again = lo < 0
    failed = np.zeros(len(lo), dtype=bool), np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64)
    if not again.all():
        failed = _on_windows(cells, tables, log_prior, lo, width, ll, loglik)
        windows.widened += int(failed[0].sum())
        again |= failed[0]
    if quadpts > FINE and again.any():  # a fine grid: windows predicted and checked (_search)
        again = _search(cells, tables, log_prior, again, failed, ll, loglik)
    elif again.sum() >= SEED_SHARE * len(lo):  # many without a window: first every SEED-th node (_seed)
        seeded = _seed(cells, tables, log_prior, again, quadpts, loglik)
        if (seeded >= 0).any():
            again &= (seeded < 0) | _on_windows(cells, tables, log_prior, seeded, 2 * SEED + 2, ll, loglik)[0]
    if again.any():  # the whole grid for wide posteriors and for windows that no longer hold theirs
        every = np.where(again, 0, -1)
        ll[again] = loglik(cells, *tables.at(0, quadpts), every, quadpts)[again] + log_prior[None, :]
    # the next windows: every node within CUT of the best, and a margin
    kept = ll >= (ll.max(axis=1) - CUT)[:, None]
    margin = _margin(quadpts)
    first = np.maximum(kept.argmax(axis=1) - margin, 0)
    stop = np.minimum(quadpts - kept[:, ::-1].argmax(axis=1) + margin, quadpts)
    fits = stop - first <= _widest(quadpts)
    width = min(quadpts, 2 * -(-int((stop - first)[fits].max(initial=1)) // 2))  # even: fewer kernels to compile
    windows.lo = np.where(fits, np.minimum(first, quadpts - width), -1)
    windows.width = width
    marginal = logsumexp(ll, axis=1)
    ll -= marginal[:, None]
    post = np.exp(ll, out=ll)
    extra = {}
    if windows.reuse and counts is _counts:  # the fit's own windows: its counts in buffers kept for the fit
        shape = (cells[0].shape[0], quadpts)
        extra = {"out": (windows.buffer("r", shape), windows.buffer("n", shape))}
    r, n = counts(cells, _window_of(post, windows.lo, width), windows.lo, quadpts, **extra)
    if not fits.all():
        r_wide, n_wide = counts(cells, post, np.where(fits, -1, 0), quadpts)
        r += r_wide
        n += n_wide
    return r, n, post.sum(axis=0), marginal
