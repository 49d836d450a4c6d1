"""The ``irtbridge`` command line.

Each subcommand lives in its own module under ``irtbridge.cli`` and defines ``register(subparsers)``
(which adds its parser and sets ``func``). Bad input prints one line to stderr and exits 2; a traceback
means a bug.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
import warnings
from typing import Callable, NoReturn

from irtbridge import __version__
from irtbridge._outdir import ctrl_c_noted
from irtbridge.exceptions import IrtBridgeError, IrtBridgeWarning, OutputBusyError, ValidationError, one_line

# subcommand modules, in the order `irtbridge --help` lists them
COMMANDS = [
    "irtbridge.cli.evaluate",
    "irtbridge.cli.calibrate",
    "irtbridge.cli.fit",
    "irtbridge.cli.dif",
    "irtbridge.cli.doctor",
    "irtbridge.cli.rate",
    "irtbridge.cli.hardness",
    "irtbridge.cli.ei",
    "irtbridge.cli.mlc",
    "irtbridge.cli.portfolio",
    "irtbridge.cli.batch",
    "irtbridge.cli.benchmark",
    "irtbridge.cli.anchors",
    "irtbridge.cli.estimate",
    "irtbridge.cli.ingest",
    "irtbridge.cli.leaderboard",
    "irtbridge.cli.tiny",
    "irtbridge.cli.twophase",
    "irtbridge.cli.dims",
]


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors (unknown option, invalid choice, missing argument) as one line on stderr
    and exit status 2, like every other bad input; subcommand parsers are of this class too."""

    fill_help: Callable[[argparse.ArgumentParser], None] | None = None
    """Sets texts of the help that need heavy imports (a subcommand's description, epilog, an option's help),
    called once, when the help is first shown: building the parser imports no command's library."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def format_help(self) -> str:
        fill, self.fill_help = self.fill_help, None
        if fill is not None:
            fill(self)
        return super().format_help()


def build_parser() -> argparse.ArgumentParser:
    """The ``irtbridge`` argument parser, with every subcommand of :data:`COMMANDS` registered.

    Returns
    -------
    argparse.ArgumentParser
        Its errors (unknown option, invalid choice, missing argument) are one line on stderr and exit status 2.
    """
    parser = _Parser(
        prog="irtbridge",
        description="Item Response Theory for evaluating ML models, datasets and algorithm portfolios.",
    )
    parser.add_argument("--version", action="version", version=f"irtbridge {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(name).register(sub)
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None):  # noqa: ARG001
    label = category.__name__ if issubclass(category, IrtBridgeWarning) else "warning"
    print(f"irtbridge: {label}: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run the ``irtbridge`` command line and return its exit status.

    Bad input (a ValidationError, a busy output folder) prints one line to stderr and gives 2; any other
    irtbridge error (an R error included) or an OSError prints one line and gives 1; Ctrl-C at any moment
    (while the commands are imported included) prints one line and gives 130. Before any work, the outputs a
    command declares (``set_defaults(outputs=...)``) are checked against every path it reads and their
    folders locked (:func:`irtbridge._outdir.guard_outputs`).

    Parameters
    ----------
    argv : list of str or None, default None
        The arguments after the program name; None reads ``sys.argv``.

    Returns
    -------
    int
        The exit status (2 and the help on stderr when no subcommand is given).
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    command = _command_of(argv)
    interrupts = _Interrupts()
    try:
        parser = _build_parser_interruptibly()  # imports every command: the seconds of start-up
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help(sys.stderr)
            return 2
        command = args.command
        warnings.showwarning = _show_warning
        from irtbridge._outdir import guard_outputs  # kept off the CLI's start (~2 s)

        outputs = _declared_outputs(args)
        with guard_outputs(outputs, _inputs(args, {dest for dest, _ in getattr(args, "outputs", ())})):
            return int(args.func(args) or 0)
    except (ValidationError, OutputBusyError) as exc:
        print(f"irtbridge {command}: error: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except IrtBridgeError as exc:  # e.g. an R error: one line that includes R's message
        print(f"irtbridge {command}: error: {one_line(str(exc))}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # e.g. `irtbridge ... --json | head`
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        interrupts.stop()
        _quiet_sigint()
        print(f"irtbridge {command}: interrupted" if command else "irtbridge: interrupted", file=sys.stderr)
        return 130
    except OSError as exc:  # e.g. a full disk while writing: one line, not a traceback
        print(f"irtbridge {command}: error: {exc}", file=sys.stderr)
        return 1
    finally:
        interrupts.stop()


def _build_parser_interruptibly() -> argparse.ArgumentParser:
    """:func:`build_parser`; a Ctrl-C during its imports is a KeyboardInterrupt even where an extension module
    turned it into an ImportError (numpy's C extension does)."""
    noted: list[int] = []
    try:
        with ctrl_c_noted(noted):
            return build_parser()
    except Exception:
        if noted:
            raise KeyboardInterrupt from None
        raise


class _Interrupts:
    """Ctrl-C until it is heard: a KeyboardInterrupt raised inside a C callback (numba's compiler, called through
    ctypes) is printed as "Exception ignored" and lost, and the run would go on. While :func:`main` runs, such a
    lost Ctrl-C is not printed and is sent again a moment later (by then, most likely outside the callback)."""

    AGAIN = 0.1  # seconds

    def __init__(self) -> None:
        self.hook = sys.unraisablehook
        self.heard = False
        sys.unraisablehook = self.unraisable

    def unraisable(self, info) -> None:
        if not (info.exc_type and issubclass(info.exc_type, KeyboardInterrupt)):
            self.hook(info)
        elif not self.heard:
            timer = threading.Timer(self.AGAIN, self.again)
            timer.daemon = True
            timer.start()

    def again(self) -> None:
        if not self.heard:
            os.kill(os.getpid(), signal.SIGINT)

    def stop(self) -> None:
        """Heard (or the run is over): nothing is sent again."""
        self.heard = True
        if sys.unraisablehook == self.unraisable:
            sys.unraisablehook = self.hook


def _command_of(argv: list[str]) -> str:
    """The subcommand named in ``argv`` (for a message before the parser exists), or ``""``."""
    first = next((a for a in argv if not a.startswith("-")), "")
    return first if first.replace("-", "").isalpha() and first.islower() else ""


def _declared_outputs(args: argparse.Namespace) -> list[tuple[str, str, str]]:
    """``(flag, path, kind)`` of each output the command declares and was given (``outputs=((dest, kind), ...)``)."""
    return [(f"--{dest.replace('_', '-')}", getattr(args, dest), kind)
            for dest, kind in getattr(args, "outputs", ()) if getattr(args, dest, None)]


def _inputs(args: argparse.Namespace, outputs: set[str]) -> list[str]:
    """Every other text argument: those naming a file or folder are what the run reads."""
    found = []
    for dest, value in vars(args).items():
        if dest in outputs or dest in ("func", "command", "outputs"):
            continue
        for v in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(v, str):
                found.append(v)
    return found


def _quiet_sigint() -> None:
    """A second Ctrl-C while the process winds down (interpreter exit) must not print a traceback."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
