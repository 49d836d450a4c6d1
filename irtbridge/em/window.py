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

The kernels are numba functions that release the GIL: the right and the wrong answers run on two threads,
as the plain products do. Without numba (an optional dependency: Debian's ``python3-numba``) the plain
E-step runs. Measured on 5,000 x 200,000 with 90% missing (100 million answered cells): see
``speed/native_em_scale.py`` part 4.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import numpy as np
from scipy.special import logsumexp

from irtbridge.irt.logistic import log_pq

numba: Any = None  # imported on first use (it takes a while); None until then, False if it is missing

__all__ = ["CUT", "MIN_CELLS", "SEED", "WIDEST", "NodeWindows", "available", "pair", "windowed_estep"]

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
MIN_CELLS = 1_000_000
"""Below this many answered cells the plain products are fast enough and numba's compilation is not."""
_THREADED_CELLS = 200_000  # below this many answered cells a thread costs more than it saves
_POOL: list[ThreadPoolExecutor] = []


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
    rounding. ``widened`` counts those respondents (diagnostics).

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

    def __len__(self) -> int:
        return len(self.lo)

    def __repr__(self) -> str:
        return (f"NodeWindows({len(self)} respondents, {int((self.lo >= 0).sum())} on {self.width} of "
                f"{self.quadpts} nodes, {self.widened} widened)")


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
        jit = numba.njit(nogil=True, boundscheck=False)
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
        _KERNELS[key] = jit(kernel)
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


def _counts(cells: tuple[Any, Any], post: np.ndarray, lo: np.ndarray, quadpts: int) -> tuple[np.ndarray, np.ndarray]:
    """``r`` (right answers) and ``n`` (answered), items x nodes, from a compact posterior (respondents x
    width, column ``k`` at node ``lo[i] + k``; rows with ``lo`` -1 left out)."""
    scatter = _kernel("scatter", post.shape[1])
    right, wrong = cells

    def run(m):
        out = np.zeros((m.shape[0], quadpts))
        scatter(m.indptr, m.indices, post, lo, out)
        return out

    r, n = pair(right.nnz + wrong.nnz, lambda: run(right), lambda: run(wrong))
    n += r
    return r, n


def _window_of(values: np.ndarray, lo: np.ndarray, width: int) -> np.ndarray:
    """Respondents x ``width``: ``values[i, lo[i] + k]`` (``values`` respondents x nodes; rows with ``lo``
    -1 read from node 0 and are not used)."""
    return np.take_along_axis(values, np.maximum(lo, 0)[:, None] + np.arange(width)[None, :], axis=1)


class _Tables:
    """``log P`` and ``log Q`` (items x nodes) of the 2PL response function, filled only at the nodes some
    window reads (the others are never touched)."""

    def __init__(self, a: np.ndarray, d: np.ndarray, theta: np.ndarray):
        self.a, self.d, self.theta = a[:, None], d[:, None], theta
        self.lp, self.lq = np.empty((len(a), len(theta))), np.empty((len(a), len(theta)))
        self.filled = np.zeros(len(theta), dtype=bool)

    def at(self, first: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """The tables, filled at least at nodes ``first..stop-1``."""
        todo = np.flatnonzero(~self.filled[first:stop]) + first
        if todo.size:
            lo, hi = int(todo[0]), int(todo[-1]) + 1
            log_pq(self.a * self.theta[None, lo:hi] + self.d, out=(self.lp[:, lo:hi], self.lq[:, lo:hi]))
            self.filled[lo:hi] = True
        return self.lp, self.lq


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
                ll: np.ndarray, loglik: Callable) -> np.ndarray:
    """The log-posterior of respondents with a window (``lo`` >= 0) at its ``width`` nodes, written into
    ``ll`` where the window holds the posterior; returns the mask of windows that do not."""
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
    return failed


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
    tables = _Tables(a, d, theta)
    quadpts, width, lo = windows.quadpts, windows.width, windows.lo
    ll = np.full((len(lo), quadpts), -np.inf)
    again = lo < 0
    if not again.all():
        failed = _on_windows(cells, tables, log_prior, lo, width, ll, loglik)
        windows.widened += int(failed.sum())
        again |= failed
    if again.sum() >= SEED_SHARE * len(lo):  # many without a window: first every SEED-th node (_seed)
        seeded = _seed(cells, tables, log_prior, again, quadpts, loglik)
        if (seeded >= 0).any():
            again &= (seeded < 0) | _on_windows(cells, tables, log_prior, seeded, 2 * SEED + 2, ll, loglik)
    if again.any():  # the whole grid for wide posteriors and for windows that no longer hold theirs
        every = np.where(again, 0, -1)
        ll[again] = loglik(cells, *tables.at(0, quadpts), every, quadpts)[again] + log_prior[None, :]
    # the next windows: every node within CUT of the best, and a margin
    kept = ll >= (ll.max(axis=1) - CUT)[:, None]
    first = np.maximum(kept.argmax(axis=1) - MARGIN, 0)
    stop = np.minimum(quadpts - kept[:, ::-1].argmax(axis=1) + MARGIN, quadpts)
    fits = stop - first <= WIDEST
    width = min(quadpts, 2 * -(-int((stop - first)[fits].max(initial=1)) // 2))  # even: fewer kernels to compile
    windows.lo = np.where(fits, np.minimum(first, quadpts - width), -1)
    windows.width = width
    marginal = logsumexp(ll, axis=1)
    ll -= marginal[:, None]
    post = np.exp(ll, out=ll)
    r, n = counts(cells, _window_of(post, windows.lo, width), windows.lo, quadpts)
    if not fits.all():
        r_wide, n_wide = counts(cells, post, np.where(fits, -1, 0), quadpts)
        r += r_wide
        n += n_wide
    return r, n, post.sum(axis=0), marginal
