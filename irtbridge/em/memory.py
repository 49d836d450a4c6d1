"""Freed memory kept for reuse by the process, so the EM cycle's big temporaries stop costing page faults.

Every EM cycle allocates and frees arrays of items x nodes (100 MB at 200,000 items): the tables of
``log P``, the expected counts, the M-step's Newton terms. glibc serves an allocation above its mmap
threshold (128 KB to 32 MB, adjusted as it goes) with fresh pages from the kernel and gives them back on
``free``, so each cycle faults every page in again. Where a fault is expensive (a sandboxed kernel, such as
this project's test machine), that is most of the cycle: the 2PL fit of 2,000 x 20,000 with 90% missing took
14.4 s, and 8.0 s with freed memory kept (``speed/native_em_scale.py`` part 4 prints the whole 100-million-
cell fit). :func:`keep_freed_memory` raises both thresholds once per process (``mallopt``), so blocks up to
256 MB come from the heap and up to 512 MB of free heap stays with the process. Nothing changes where the
C library is not glibc, or where the user set ``MALLOC_MMAP_THRESHOLD_`` or ``MALLOC_TRIM_THRESHOLD_``.

It is a setting of the whole process (every library in it allocates through the same ``malloc``), so it is
**opt-in**: a native fit changes nothing unless the program asked, in one of two ways:

* call :func:`irtbridge.em.keep_freed_memory` once (``speed/native_em_scale.py`` does);
* or set the environment variable ``IRTBRIDGE_KEEP_FREED_MEMORY=1``: every native fit then calls it
  (:func:`keep_freed_memory_if_asked`), in Dask workers too, which inherit the variable from the process
  that starts a local cluster (a call in the client process does not reach them:
  ``client.run(keep_freed_memory)`` does).
"""

from __future__ import annotations

import ctypes
import os
import sys

# irtbridge.em's __init__ has imported irtbridge._constraints (em.core's declarations) before this module runs
from irtbridge._constraints import Int, constraints

__all__ = ["ENV_VAR", "keep_freed_memory", "keep_freed_memory_if_asked"]

#: set to ``1`` to have every native fit call :func:`keep_freed_memory`
ENV_VAR = "IRTBRIDGE_KEEP_FREED_MEMORY"

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters
_DONE: list[bool] = []


# the trim threshold, twice largest, must fit C's int (ctypes would wrap a larger one round to a negative)
@constraints(largest=Int(low=1, high=(2**31 - 1) // 2))
def keep_freed_memory(largest: int = 256 << 20) -> bool:
    """Ask glibc to serve blocks up to ``largest`` bytes from the heap and keep twice that much freed heap.

    A process-wide setting, made once per process and only when called (see the module's notes).

    Parameters
    ----------
    largest : int
        The mmap threshold in bytes (blocks up to it come from the heap); the trim threshold is twice it
        (so at most 1,073,741,823: twice it must fit C's ``int``).

    Returns
    -------
    bool
        Whether it took effect (False where the C library is not glibc, or where the user set
        ``MALLOC_MMAP_THRESHOLD_`` or ``MALLOC_TRIM_THRESHOLD_``). A second call returns the first's answer.

    Examples
    --------
    >>> from irtbridge.em import keep_freed_memory
    >>> keep_freed_memory() in (True, False)
    True
    """
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


def keep_freed_memory_if_asked() -> bool:
    """What every native fit calls: :func:`keep_freed_memory` when ``IRTBRIDGE_KEEP_FREED_MEMORY=1``, nothing
    otherwise.

    Returns
    -------
    bool
        Whether freed memory is kept in this process (by this call or an earlier explicit one).

    Examples
    --------
    >>> import os
    >>> from irtbridge.em.memory import ENV_VAR, keep_freed_memory_if_asked
    >>> os.environ.get(ENV_VAR) == "1" or keep_freed_memory_if_asked() in (True, False)
    True
    """
    if os.environ.get(ENV_VAR, "").strip() == "1":
        return keep_freed_memory()
    return bool(_DONE and _DONE[0])
