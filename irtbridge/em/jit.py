"""numba kernels whose machine code is kept on disk, so that a new process loads them instead of compiling them.

The native engine's compiled loops (:mod:`irtbridge.em.window`, :mod:`irtbridge.em.dense`,
:mod:`irtbridge.em.mstep_jit`, :mod:`irtbridge.em.adaptive_jit`) all go through :func:`compiled`.
"""

from __future__ import annotations

import pickle
import warnings
from typing import Any, Callable

from irtbridge.exceptions import IrtBridgeWarning, find_stack_level

__all__ = ["compiled"]


def compiled(function: Callable, **options: Any) -> Callable:
    """``function`` compiled by numba (``numba.njit(nogil=True, boundscheck=False, **options)``), its machine code
    kept on disk for the next process (numba's ``cache=True``: in the module's ``__pycache__/`` or, where that
    is read-only, numba's user cache; ``NUMBA_CACHE_DIR`` moves it). A fresh process then loads a kernel
    instead of compiling it again (a first windowed 2PL fit of 4,000 x 300: 2.0 s -> 1.3 s). numba keys the
    stored code by the kernel's bytecode, the values it closes over, its argument types and this CPU, and
    drops it when the kernel's source file changes. Where nothing can be stored (no writable folder, a full
    disk), the kernel is compiled in each process, as before, with one warning.

    Parameters
    ----------
    function : callable
        The kernel, a plain Python function numba can compile.
    **options
        Further ``numba.njit`` options (``fastmath=False``).

    Returns
    -------
    callable
        The kernel, compiled at its first call.
    """
    return _Kernel(function, {"nogil": True, "boundscheck": False, **options})


_UNSTORED: list[Exception] = []  # why numba could not store a kernel, in this process


class _Kernel:
    """A numba kernel whose compiled code is stored on disk, or kept in memory only where storing it fails."""

    def __init__(self, function: Callable, options: dict[str, Any]) -> None:
        # numba takes 0.28 s to import (python -X importtime, after numpy and scipy): it loads with the first
        # kernel, never with the package (the callers have checked irtbridge.em.window.available())
        import numba

        self._jit = numba.njit
        self._function, self._options = function, options
        try:
            self._run = numba.njit(cache=True, **options)(function)
        except RuntimeError as exc:  # numba found no writable cache folder ("no locator available")
            self._uncached(exc)

    def _uncached(self, exc: Exception) -> None:
        if not _UNSTORED:  # said once a process
            warnings.warn(f"numba could not store a compiled kernel ({exc}); kernels are compiled again in each "
                          "process (NUMBA_CACHE_DIR=<a writable folder> keeps them)", IrtBridgeWarning,
                          stacklevel=find_stack_level())
        _UNSTORED.append(exc)
        self._run = self._jit(**self._options)(self._function)

    def __call__(self, *args: Any) -> Any:
        try:
            return self._run(*args)
        except (OSError, EOFError, pickle.UnpicklingError) as exc:
            # reading or writing the stored code failed (a compiled kernel itself raises none of these), before
            # the kernel ran: it is compiled again, kept in memory only, and run
            self._uncached(exc)
            return self._run(*args)
