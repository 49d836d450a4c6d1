"""Freed memory kept for reuse by the process, so the EM cycle's big temporaries stop costing page faults.

Every EM cycle allocates and frees arrays of items x nodes (100 MB at 200,000 items): the tables of
``log P``, the expected counts, the M-step's Newton terms. glibc serves an allocation above its mmap
threshold (128 KB to 32 MB, adjusted as it goes) with fresh pages from the kernel and gives them back on
``free``, so each cycle faults every page in again. Where a fault is expensive (a sandboxed kernel, such as
this project's test machine), that is most of the cycle: the 2PL fit of 2,000 x 20,000 with 90% missing took
14.4 s, and 8.0 s with freed memory kept (``benchmarks/leaderboard.py`` part 4 prints the whole 100-million-
cell fit). :func:`keep_freed_memory` raises both thresholds once per process (``mallopt``), so blocks up to
256 MB come from the heap and up to 512 MB of free heap stays with the process. Nothing changes where the
C library is not glibc, or where the user set ``MALLOC_MMAP_THRESHOLD_`` or ``MALLOC_TRIM_THRESHOLD_``.
"""

from __future__ import annotations

import ctypes
import os
import sys

__all__ = ["keep_freed_memory"]

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters
_DONE: list[bool] = []


def keep_freed_memory(largest: int = 256 << 20) -> bool:
    """Ask glibc to serve blocks up to ``largest`` bytes from the heap and keep twice that much freed heap
    (once per process); whether it took effect."""
    if _DONE:
        return _DONE[0]
    ok = False
    if sys.platform.startswith("linux") and not ({"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"} & set(os.environ)):
        try:
            mallopt = ctypes.CDLL("libc.so.6").mallopt
        except (OSError, AttributeError):  # pragma: no cover - another C library (musl has no mallopt)
            mallopt = None
        if mallopt is not None:
            ok = bool(mallopt(_M_MMAP_THRESHOLD, int(largest))) and bool(mallopt(_M_TRIM_THRESHOLD, 2 * int(largest)))
    _DONE.append(ok)
    return ok
