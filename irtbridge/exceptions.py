"""Every error and warning irtbridge raises.

Errors share the base :class:`IrtBridgeError`; each subclass also inherits the built-in exception a
user would catch anyway (a bad argument is a :class:`ValueError`). Warnings share
:class:`IrtBridgeWarning`.
"""

from __future__ import annotations

import inspect
import os
from contextlib import contextmanager
from typing import Iterator

__all__ = [
    "find_stack_level",
    "r_context",
    "one_line",
    "IrtBridgeError",
    "ValidationError",
    "RUnavailableError",
    "RPackageMissingError",
    "RError",
    "RSessionForkedError",
    "UnknownRFunctionError",
    "ConvergenceError",
    "UnitError",
    "OutputBusyError",
    "OutputError",
    "IrtBridgeWarning",
    "RWarning",
    "ConvergenceWarning",
    "DataWarning",
]


class IrtBridgeError(Exception):
    """Base class of every irtbridge error."""


class ValidationError(IrtBridgeError, ValueError):
    """An argument or an input file is not what irtbridge needs; the message names it and the fix."""


class RUnavailableError(IrtBridgeError, ImportError):
    """R or rpy2 cannot be loaded in this Python."""


class RPackageMissingError(IrtBridgeError, ImportError):
    """A required R package is missing or at another version than the lock file pins.

    Parameters
    ----------
    package : str
        The R package.
    message : str, optional
        The message; default one naming the package and how to install it.
    """

    def __init__(self, package: str, message: str | None = None):
        self.package = package
        super().__init__(
            message
            or f"R package {package!r} is not installed. Install it with `make setup` "
            f"(or in R: install.packages({package!r}))."
        )


class RError(IrtBridgeError, RuntimeError):
    """R signalled an error; ``r_message`` and ``r_class`` keep R's own text and condition class.

    Parameters
    ----------
    message : str
        The message, R's text included.
    r_message : str, default ""
        R's own message.
    r_class : tuple of str, default ()
        R's condition classes.
    call : str, default ""
        The R call that failed, when R names it.
    """

    # R's warnings before the error, set where the error is raised (absent otherwise)
    r_warnings: list[str]

    def __init__(self, message: str, r_message: str = "", r_class: tuple[str, ...] = (), call: str = ""):
        self.r_message = r_message
        self.r_class = tuple(r_class)
        self.call = call
        super().__init__(message)


def one_line(text: str) -> str:
    """``text`` on one line: R's messages often run over several (mirt's stop() texts keep their
    indentation); every run of whitespace becomes one space.

    Parameters
    ----------
    text : str
        The message.

    Returns
    -------
    str
        The message on one line.

    Examples
    --------
    >>> one_line("Only X2 can be computed with missing data.\\n             Pass na.rm=TRUE")
    'Only X2 can be computed with missing data. Pass na.rm=TRUE'
    """
    return " ".join(str(text).split())


@contextmanager
def r_context(what: str) -> Iterator[None]:
    """An R error inside becomes one line that says what irtbridge was doing and what R said.

    Parameters
    ----------
    what : str
        What irtbridge was doing, the start of the error's line.

    Examples
    --------
    >>> try:
    ...     with r_context("item_fit: mirt's itemfit"):
    ...         raise RError("R error: boom\\n  on two lines", r_message="boom\\n  on two lines")
    ... except RError as exc:
    ...     print(exc)
    item_fit: mirt's itemfit failed; R said: boom on two lines
    """
    try:
        yield
    except RError as exc:
        said = one_line(exc.r_message or str(exc))
        wrapped = RError(f"{what} failed; R said: {said}", r_message=exc.r_message, r_class=exc.r_class,
                         call=exc.call)
        wrapped.r_warnings = getattr(exc, "r_warnings", [])
        raise wrapped from exc


class RSessionForkedError(IrtBridgeError, RuntimeError):
    """R was used from a process forked after R started; R cannot survive a fork."""


class UnknownRFunctionError(IrtBridgeError, AttributeError):
    """``irtbridge.mirt.NAME`` (or ``irtbridge.ltm.NAME``) names no exported function of that R package;
    the message suggests close names."""


class UnitError(IrtBridgeError, RuntimeError):
    """A unit of a batch failed; the message names the unit and carries the original error."""

    # whether a retry might succeed, set where the error is raised (irtbridge.batch.run.run_unit)
    transient: bool


class OutputBusyError(IrtBridgeError, FileExistsError):
    """Another live run is writing the output folder (its lock file names the writer's pid)."""


class OutputError(IrtBridgeError, OSError):
    """Writing an output folder failed (e.g. a full disk); the previous output is left as it was."""


class ConvergenceError(IrtBridgeError, RuntimeError):
    """An estimation did not converge and no fallback was allowed."""


class IrtBridgeWarning(UserWarning):
    """Base class of every irtbridge warning."""


class RWarning(IrtBridgeWarning):
    """A warning that R raised during a call, re-raised in Python with R's message."""


class ConvergenceWarning(IrtBridgeWarning):
    """An estimation stopped before its convergence criterion was met."""


class DataWarning(IrtBridgeWarning):
    """The input was accepted but changed or is suspicious (dropped items, constant columns, …)."""


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def find_stack_level() -> int:
    """The ``stacklevel`` that makes a warning point at the first frame outside irtbridge: the user's line.

    Pass it as ``warnings.warn(..., stacklevel=find_stack_level())`` (or to a helper that hands it on to
    ``warnings.warn`` one frame down, as :func:`irtbridge._moved.warn_form` does): it counts the calls of
    irtbridge between the warning and the caller, so a call that moves does not make the warning point at
    the wrong line, as a fixed number would (pandas' ``find_stack_level`` does the same).

    Returns
    -------
    int
        One more than the number of irtbridge frames above this function's caller.

    Examples
    --------
    >>> find_stack_level()  # called from outside irtbridge: the warning's caller is the user's line
    1
    """
    frame = inspect.currentframe()
    level = 0
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    return max(level, 1)
