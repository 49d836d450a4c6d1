"""The windowed binary E-step for dense 0/1 data: every (or most) cells answered, one byte per cell.

A language-model leaderboard is often fully observed (every model ran every item: 5,000 models x 28,632
items is 143 million cells). :func:`irtbridge.em.core.prepare_responses` keeps such data dense, and the plain
E-step multiplies it at all 61 nodes (four respondents x items x nodes products a cycle). This module runs
the windowed E-step of :mod:`irtbridge.em.window` on it instead: the same windows, the same check that a
window still holds its respondent's posterior (exact to rounding: the log-posterior is concave in theta),
with kernels that read the answers as one byte per cell.

* The log-likelihood of respondent ``i`` at node ``q`` is ``sum_j x_ij (log P - log Q)_jq + sum_j
  m_ij log Q_jq`` (``x`` right answers, ``m`` answered cells), the plain dense product's own split. Where
  every cell is answered, the second sum is the column sum of ``log Q``, the same for every respondent,
  and no mask is read at all.
* Respondents are taken in groups that share a window (``lo``): for each group the items x width slice of
  the tables is copied once (compact: it stays in cache) and each respondent's row of bytes is summed
  against it. The expected counts ``r = x' post`` and ``n = m' post`` are scattered the same way, into an
  items x width slice; with every cell answered ``n`` is the posterior's column sum, the same for every item.
* The respondents are split into two fixed halves (by position), run on two threads where the machine
  has two cores; each half is computed whole and the two are added in order, so the result does not depend
  on the number of threads.

Which E-step runs (:func:`irtbridge.em.core.node_windows`, decided once per fit from the data alone): 0/1
data of ``window.MIN_CELLS`` (a million) answered cells or more, with numba, gets windows; its layout,
chosen by :func:`irtbridge.em.core.prepare_responses` (dense when at least half of the cells are answered),
picks the kernels: these for dense data, :mod:`irtbridge.em.window`'s for sparse. Anything else (graded
data, fewer cells, no numba) runs the plain products at every node.

Measured with ``speed/lm_scale.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from irtbridge.em import window as em_window
from irtbridge.em.jit import compiled
from irtbridge.em.window import NodeWindows, pair

__all__ = ["DenseBits", "dense_bits", "loglik", "counts", "windowed_estep"]


@dataclass(frozen=True)
class DenseBits:
    """Dense 0/1 responses as bytes: ``right`` (respondents x items, 1 where correct) and ``seen`` (1 where
    answered), or ``seen`` None where every cell is answered.

    Attributes
    ----------
    right : ndarray of uint8
        Respondents x items, 1 where correct.
    seen : ndarray of uint8 or None
        Respondents x items, 1 where answered; None when every cell is.
    """

    right: np.ndarray
    seen: np.ndarray | None

    @property
    def cells(self) -> int:
        """The number of answered cells."""
        return int(self.right.size if self.seen is None else np.count_nonzero(self.seen))


def dense_bits(A: np.ndarray, M: np.ndarray) -> DenseBits:
    """The byte layout of dense ``A`` (correct) and ``M`` (answered), both respondents x items, 0/1.

    Parameters
    ----------
    A : ndarray
        Respondents x items, 1 where correct.
    M : ndarray
        Respondents x items, 1 where answered.

    Returns
    -------
    DenseBits
        The byte layout.

    Examples
    --------
    >>> bits = dense_bits(np.array([[1.0, 0.0], [0.0, 1.0]]), np.ones((2, 2)))
    >>> bits.right.tolist(), bits.seen
    ([[1, 0], [0, 1]], None)
    """
    right = np.ascontiguousarray(np.asarray(A) == 1).view(np.uint8)
    full = np.asarray(M) == 1
    return DenseBits(right, None if full.all() else np.ascontiguousarray(full).view(np.uint8))


def _kernel(kind: str, width: int, masked: bool) -> Callable:
    """A numba kernel for windows of ``width`` nodes (a constant of the compiled loop), compiled on first use.

    ``gather(right, seen, rows, diff, low, out)``: ``out[r, k] = sum_j right[i, j] diff[j, k]`` (plus
    ``seen[i, j] low[j, k]`` when ``masked``) for ``i = rows[r]``; ``scatter(right, seen, rows, post, r_out,
    n_out)``: ``r_out[j, k] += right[i, j] post[r, k]`` (and ``n_out`` with ``seen`` when ``masked``)."""
    key = (kind, int(width), bool(masked))
    if key not in _KERNELS:
        if not em_window.available():  # pragma: no cover - node_windows gives no windows without numba
            raise RuntimeError("the windowed E-step needs numba")
        nodes = int(width)
        if kind == "gather":
            def kernel(right, seen, rows, diff, low, out):
                items = right.shape[1]
                for r in range(len(rows)):
                    x = right[rows[r]]
                    acc = np.zeros(nodes)
                    for j in range(items):
                        v = np.float64(x[j])
                        for k in range(nodes):
                            acc[k] += v * diff[j, k]
                    if masked:
                        m = seen[rows[r]]
                        for j in range(items):
                            v = np.float64(m[j])
                            for k in range(nodes):
                                acc[k] += v * low[j, k]
                    for k in range(nodes):
                        out[r, k] = acc[k]
        else:
            def kernel(right, seen, rows, post, r_out, n_out):
                items = right.shape[1]
                for r in range(len(rows)):
                    x = right[rows[r]]
                    p = post[r]
                    for j in range(items):
                        v = np.float64(x[j])
                        for k in range(nodes):
                            r_out[j, k] += v * p[k]
                    if masked:
                        m = seen[rows[r]]
                        for j in range(items):
                            v = np.float64(m[j])
                            for k in range(nodes):
                                n_out[j, k] += v * p[k]
        _KERNELS[key] = compiled(kernel)
    return _KERNELS[key]


_KERNELS: dict[tuple[str, int, bool], Callable] = {}


def _groups(lo: np.ndarray) -> dict[int, np.ndarray]:
    """The respondents with a window, grouped by its first node: ``{lo: rows}``, rows ascending."""
    order = np.argsort(lo, kind="stable")
    starts, first = np.unique(lo[order], return_index=True)
    bounds = np.append(first, len(order))
    return {int(s): order[bounds[g]:bounds[g + 1]] for g, s in enumerate(starts) if s >= 0}


def _halves(groups: dict[int, np.ndarray], n: int) -> tuple[dict[int, np.ndarray], dict[int, np.ndarray]]:
    """Each group split by position: respondents ``0..n//2-1`` and the rest (a fixed split, whatever the
    number of threads)."""
    def half(first: bool) -> dict[int, np.ndarray]:
        return {s: rows[(rows < n // 2) == first] for s, rows in groups.items()}

    return half(True), half(False)


def loglik(bits: DenseBits, lp: np.ndarray, lq: np.ndarray, lo: np.ndarray, width: int) -> np.ndarray:
    """Respondents x ``width``: at column ``k`` of respondent ``i``, its log-likelihood at node ``lo[i] + k``
    from ``lp`` = log P and ``lq`` = log Q (items x nodes; read only at the windows' nodes); rows with ``lo``
    -1 stay zero. The contract of the sparse layout's ``window._loglik``.

    Parameters
    ----------
    bits : DenseBits
        The responses.
    lp, lq : ndarray
        log P and log Q, items x nodes.
    lo : ndarray
        Each respondent's first node (-1: no window).
    width : int
        Nodes per window.

    Returns
    -------
    ndarray
        Respondents x ``width``.
    """
    masked = bits.seen is not None
    gather = _kernel("gather", width, masked)
    out = np.zeros((len(lo), width))
    groups = _groups(lo)
    if not groups:
        return out
    base = min(groups)
    diff = lp[:, base:max(groups) + width] - lq[:, base:max(groups) + width]
    low = lq[:, base:max(groups) + width]
    total = low.sum(axis=0)  # every item answered: the sum of log Q, the same for every respondent
    empty = np.zeros((0, width))

    def compact(table: np.ndarray, start: int) -> np.ndarray:
        return np.ascontiguousarray(table[:, start - base:start - base + width])

    tables = {s: (compact(diff, s), compact(low, s) if masked else empty) for s in groups}
    seen = bits.seen if masked else bits.right

    def run(part: dict[int, np.ndarray]) -> None:
        for start, rows in part.items():
            if len(rows):
                block = np.empty((len(rows), width))
                gather(bits.right, seen, rows, *tables[start], block)
                if not masked:
                    block += total[start - base:start - base + width][None, :]
                out[rows] = block

    first, second = _halves(groups, len(lo))
    pair(bits.right.size, lambda: run(first), lambda: run(second))
    return out


def counts(bits: DenseBits, post: np.ndarray, lo: np.ndarray, quadpts: int) -> tuple[np.ndarray, np.ndarray]:
    """``r`` (right answers) and ``n`` (answered), items x nodes, from a compact posterior (respondents x
    width, column ``k`` at node ``lo[i] + k``; rows with ``lo`` -1 left out). The contract of the sparse
    layout's ``window._counts``.

    Parameters
    ----------
    bits : DenseBits
        The responses.
    post : ndarray
        The compact posterior, respondents x width.
    lo : ndarray
        Each respondent's first node (-1: no window).
    quadpts : int
        Quadrature nodes.

    Returns
    -------
    r, n : ndarray
        Items x nodes.
    """
    masked = bits.seen is not None
    width = post.shape[1]
    scatter = _kernel("scatter", width, masked)
    items = bits.right.shape[1]
    seen = bits.seen if masked else bits.right
    empty = np.zeros((0, width))
    groups = _groups(lo)

    def run(part: dict[int, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        r, n = np.zeros((items, quadpts)), np.zeros((items, quadpts))
        for start, rows in part.items():
            if not len(rows):
                continue
            nodes = slice(start, start + width)
            r_out = np.zeros((items, width))
            n_out = np.zeros((items, width)) if masked else empty
            scatter(bits.right, seen, rows, np.ascontiguousarray(post[rows]), r_out, n_out)
            r[:, nodes] += r_out
            if masked:
                n[:, nodes] += n_out
            else:  # every item answered by every respondent: n is the posterior's column sum, for every item
                n[:, nodes] += post[rows].sum(axis=0)[None, :]
        return r, n

    first, second = _halves(groups, len(lo))
    (r, n), (r2, n2) = pair(bits.right.size, lambda: run(first), lambda: run(second))
    r += r2
    n += n2
    return r, n


def windowed_estep(bits: DenseBits, a: np.ndarray, d: np.ndarray, theta: np.ndarray, log_prior: np.ndarray,
                   windows: NodeWindows) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`irtbridge.em.window.windowed_estep` on dense bytes: ``r``, ``n`` (items x nodes), ``N``
    (nodes) and every respondent's log marginal likelihood; ``windows`` checked and moved as there.

    Parameters
    ----------
    bits : DenseBits
        The responses.
    a, d : ndarray
        Slopes and intercepts.
    theta : ndarray
        Quadrature nodes.
    log_prior : ndarray
        Log weights of the nodes.
    windows : NodeWindows
        The windows, moved for the next call.

    Returns
    -------
    r, n : ndarray
        Items x nodes.
    N : ndarray
        Expected respondents per node.
    marginal : ndarray
        Each respondent's log marginal likelihood.
    """
    return em_window.windowed_estep(bits, a, d, theta, log_prior, windows, loglik=loglik, counts=counts)
