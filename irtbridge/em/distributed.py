"""The native EM's E-step on a Dask cluster: respondent chunks live on the workers, sums come back.

Each worker holds a contiguous block of respondents (``A`` and ``M`` rows, scattered once). Every EM cycle
sends the current item parameters and quadrature to the workers; each returns its block's expected counts
``r``, ``n``, ``N`` and log-likelihood, and the client adds them up in block order (a fixed order, so the
result does not depend on which worker finishes first) and runs the same M-step as
:func:`irtbridge.em.core.fit_em`, for every model it fits (graded blocks carry their indicator columns).
For 0/1 data big enough for the windowed E-step (:mod:`irtbridge.em.window`), each block's node windows
come back with its sums and go out with the next cycle (two small arrays). Dask is an optional dependency
(``pip install irtbridge[batch]``; Debian's ``python3-distributed``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from irtbridge.exceptions import ValidationError
from irtbridge.em.core import EMResult, ResponseData, estep, fit_em, node_windows
from irtbridge.em.memory import keep_freed_memory_if_asked
from irtbridge.em.window import NodeWindows

__all__ = ["fit_em_dask", "chunk_bounds"]


def chunk_bounds(n_rows: int, n_chunks: int) -> list[tuple[int, int]]:
    """``n_chunks`` contiguous, nearly equal row blocks covering ``range(n_rows)``.

    Parameters
    ----------
    n_rows : int
        Rows to cover.
    n_chunks : int
        Blocks wanted (fewer when there are fewer rows).

    Returns
    -------
    list of tuple of int
        ``(start, stop)`` of each non-empty block.
    """
    edges = np.linspace(0, n_rows, max(1, min(n_chunks, n_rows)) + 1).round().astype(int)
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:]) if b > a]


def _block_estep(block: ResponseData, a, d, theta, log_prior, windows: NodeWindows | None):
    """One block's E-step sums, and its node windows moved for the next cycle (None: the plain E-step)."""
    keep_freed_memory_if_asked()  # in the worker's process
    return (*estep(block, a, d, theta, log_prior, windows=windows), windows)


def fit_em_dask(data: ResponseData, model: str, client: Any, *, chunks: int | None = None, **options: Any) -> EMResult:
    """:func:`~irtbridge.em.core.fit_em` with the E-step computed on the workers of ``client``.

    ``chunks`` defaults to the number of workers. Returns the same :class:`~irtbridge.em.core.EMResult`
    as the single-process fit, equal to it up to the order of floating-point sums (about 1e-12).

    Parameters
    ----------
    data : ResponseData
        The responses.
    model : str
        As in :func:`~irtbridge.em.core.fit_em`.
    client : distributed.Client
        The Dask client whose workers compute the E-step.
    chunks : int, optional
        Row blocks of the E-step.
    **options
        Passed to :func:`~irtbridge.em.core.fit_em`.

    Returns
    -------
    EMResult
        As above.
    """
    try:
        from distributed import Client
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ValidationError("the Dask engine needs 'distributed' (pip install irtbridge[batch])") from exc
    if not isinstance(client, Client):
        raise ValidationError(f"client must be a distributed.Client, got {type(client).__name__}")
    workers = list(client.scheduler_info()["workers"])
    if not workers:
        raise ValidationError("the Dask client has no workers")
    bounds = chunk_bounds(data.shape[0], chunks or len(workers))
    blocks = [client.scatter(data.rows(lo, hi), workers=[workers[k % len(workers)]]) for k, (lo, hi) in enumerate(bounds)]
    # each block's node windows travel with the cycle (two small arrays), decided as for the whole data
    windowed = node_windows(data, 1) is not None
    windows: list[NodeWindows | None] = [None] * len(blocks)

    def distributed_estep(_data, a, d, theta, log_prior):
        if windowed and windows[0] is None:
            windows[:] = [NodeWindows(hi - lo, len(theta)) for lo, hi in bounds]
        # the item parameters go out once per cycle to every worker (megabytes at 100,000s of items), not
        # once per task in its graph
        shared = client.scatter([a, d, theta, log_prior], broadcast=True, hash=False)
        futures = [client.submit(_block_estep, b, *shared, w, pure=False) for b, w in zip(blocks, windows)]
        parts = client.gather(futures)
        windows[:] = [p[4] for p in parts]
        r = sum((p[0] for p in parts[1:]), parts[0][0].copy())
        n = sum((p[1] for p in parts[1:]), parts[0][1].copy())
        N = sum((p[2] for p in parts[1:]), parts[0][2].copy())
        return r, n, N, float(sum(p[3] for p in parts))

    try:
        return fit_em(data, model, estep_fn=distributed_estep, **options)
    finally:
        for b in blocks:
            b.release()
