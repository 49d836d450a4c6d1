"""One run per output folder: a lock beside the folder, a staging folder, one move into place at the end.

A command that writes a folder of results (``evaluate --out``, ``benchmark --out``) writes it as::

    with staged_output(out, param="--out", writer="evaluate") as stage:
        ...write everything under stage...

* **marker**: every folder irtbridge writes holds :data:`MARKER` (``.irtbridge-output``, a small JSON object
  naming the command that wrote it). An existing folder is replaced only when it holds that marker (or is
  empty); a folder with anything else in it is a one-line :class:`ValidationError`: irtbridge never deletes
  what it did not write.
* **inputs**: :func:`check_outputs` refuses, before any work, an output (file or folder) that equals, contains
  or lies inside an input, and output paths that cannot be written (a file where a folder is wanted, a
  missing or read-only folder). The command line runs it for every command (:func:`guard_outputs`).
* **lock**: ``OUT.lock`` (beside ``OUT``) is created exclusively and holds the writer's pid; a second run
  into the same folder fails at once with a one-line :class:`OutputBusyError`. A lock whose pid is no
  longer alive (a run killed with ``kill -9``) is stale and taken over. The lock is re-entrant within a
  process: the command line takes it before any work and the writer inside takes it again.
* **staging**: the run writes into ``OUT.partial-<pid>-<token>`` in the same parent (so the final move is a
  rename on one file system), never into ``OUT`` itself: stale files of an earlier run cannot mix in. The
  staging folder and the ``OUT.old-<pid>-<token>`` the previous output is moved to are created new
  (exclusively, with a random token), so a user's folder that happens to bear such a name is never reused
  or deleted.
* **publish**: when the block ends normally, the previous ``OUT`` (if any) is moved aside, the staging
  folder renamed to ``OUT`` and the old one deleted. Until that moment the previous complete output is
  untouched. A run that fails or is interrupted removes its staging folder (``keep_partial=True`` keeps
  it and says where in the exception's notes) and leaves ``OUT`` as it was. Ctrl-C during the publish,
  the clean-up or the lock's creation and release is held until they are done, then raised.

``batch`` does not stage its whole folder: its units are published one by one (``OUT/units/<id>``,
each atomically) so that a rerun resumes; it takes the lock (:func:`output_lock`) and marks the folder
(:func:`claim_folder`).
"""

from __future__ import annotations

import errno
import json
import os
import re
import secrets
import shutil
import signal
import threading
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Iterable, Iterator

from irtbridge import __version__
from irtbridge.exceptions import OutputBusyError, OutputError, ValidationError

__all__ = ["MARKER", "FOLDER", "FILE", "check_outputs", "guard_outputs", "claim_folder", "has_marker",
           "output_lock", "staged_output", "lock_path", "ctrl_c_noted"]

MARKER = ".irtbridge-output"  # the file that says "irtbridge wrote this folder"
FOLDER, FILE = "folder", "file"  # the kinds of output check_outputs knows

# locks this process holds: lock path -> (pid, depth); the pid guards against a forked child's copy
_HELD: dict[Path, tuple[int, int]] = {}


def lock_path(out: str | os.PathLike) -> Path:
    """The lock file of the output folder ``out``: ``OUT.lock`` beside it."""
    out = Path(out).absolute()
    return out.with_name(out.name + ".lock")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, owned by someone else
        return True
    return True


@contextmanager
def _sigint_held() -> Iterator[None]:
    """Hold a Ctrl-C that arrives inside the block until the block is done, then act on it as usual.

    For steps that must not stop half-way (two renames, a lock file and its pid, a clean-up). Python runs
    signal handlers in the main thread only, so elsewhere (and under a handler that is not Python's) the
    block runs as is.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    try:
        previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    except (ValueError, OSError):  # pragma: no cover - no signals here
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught and callable(previous):
            previous(signal.SIGINT, None)  # Python's default raises KeyboardInterrupt now


@contextmanager
def ctrl_c_noted(noted: list[int]) -> Iterator[None]:
    """Note in ``noted`` a Ctrl-C that arrives inside the block, handled as usual all the same.

    For code that may turn the KeyboardInterrupt into another error on its way out (pandas' C reader makes it
    a ParserError, numpy's import an ImportError): the caller can tell an interrupted run from a failed one.
    """
    previous = signal.getsignal(signal.SIGINT) if threading.current_thread() is threading.main_thread() else None
    if not callable(previous):  # not the main thread, or Ctrl-C ignored or left to the system
        yield
        return

    def note(signum, frame):
        noted.append(signum)
        previous(signum, frame)

    signal.signal(signal.SIGINT, note)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def has_marker(folder: str | os.PathLike) -> bool:
    """Whether ``folder`` holds irtbridge's :data:`MARKER` (it was written by irtbridge)."""
    return (Path(folder) / MARKER).is_file()


def _write_marker(folder: Path, writer: str) -> None:
    text = json.dumps({"written_by": "irtbridge", "command": writer, "version": __version__}) + "\n"
    (folder / MARKER).write_text(text, encoding="utf-8")


def _check_replaceable(out: Path, param: str, known: Iterable[str] = ()) -> None:
    """An existing ``out`` may be replaced only when irtbridge wrote it (its marker) or it is empty (or holds
    only ``known`` names)."""
    if out.is_dir() and not has_marker(out) and not {p.name for p in out.iterdir()} <= set(known):
        raise ValidationError(
            f"{param} {str(out)!r} is a folder irtbridge did not write (it holds files and no {MARKER} marker "
            "of an earlier run), and writing there would replace it; give a new or empty folder")


def _existing_inputs(inputs: Iterable[str | os.PathLike | None]) -> list[Path]:
    """The inputs that name something on disk, resolved; ``PATH:TARGET`` (a dataset and its column) counts
    as ``PATH`` too."""
    found = []
    for value in inputs:
        if value is None:
            continue
        text = os.fspath(value)
        for candidate in (text, text.rpartition(":")[0] if ":" in text else ""):
            if candidate and os.path.lexists(candidate):
                found.append(Path(candidate).resolve())
    return found


def _nearest_existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _check_writable(out: Path, param: str, kind: str) -> None:
    """A file where a folder is wanted (or the reverse), a folder that is missing or cannot be written."""
    if kind == FOLDER:
        if out.exists() and not out.is_dir():
            raise ValidationError(f"{param} {str(out)!r} is a file, not a directory; give a folder")
        base = _nearest_existing(out.parent)
        if not base.is_dir():
            raise ValidationError(f"{param} {str(out)!r} cannot be created: {str(base)!r} is a file, not a folder")
    else:
        if out.is_dir():
            raise ValidationError(f"{param} {str(out)!r} is a folder; give a file name")
        base = out.parent
        if not base.is_dir():
            what = "does not exist" if not base.exists() else "is a file, not a folder"
            raise ValidationError(f"{param} {str(out)!r}: its folder {str(base)!r} {what}; create it first")
        if out.exists() and not os.access(out, os.W_OK):
            raise ValidationError(f"{param} {str(out)!r} is read-only; give another file or make it writable")
    if not os.access(base, os.W_OK | os.X_OK):
        raise ValidationError(f"{param} {str(out)!r} cannot be written: the folder {str(base)!r} is read-only")


def check_outputs(outputs: Iterable[tuple[str, str | os.PathLike, str]],
                  inputs: Iterable[str | os.PathLike | None] = (), *, known: Iterable[str] = ()) -> None:
    """Refuse, before any work, outputs that would lose a user's files or could not be written.

    Parameters
    ----------
    outputs : iterable of (str, path, str)
        ``(param, path, kind)``: the option that names it (for the message), the path, :data:`FOLDER` or
        :data:`FILE`.
    inputs : iterable of path or None
        What the run reads (files or folders; ``PATH:TARGET`` also as ``PATH``); names that do not exist are
        left out (they cannot be harmed).
    known : iterable of str, default ()
        Names a folder output may hold without the marker (what a release before the marker wrote there,
        see :func:`claim_folder`).

    Raises
    ------
    ValidationError
        One line naming ``param``: an output equals, contains or lies inside an input (paths resolved, so
        ``.`` and symbolic links count); two outputs are one path; a folder output exists and holds files
        without irtbridge's :data:`MARKER`; a folder output is a file or a file output a folder; a file
        output's folder is missing; the place cannot be written.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> here = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (here / "d.csv").write_text("a\\n1\\n")
    >>> check_outputs([("--out", here / "report", FOLDER)], [here / "d.csv"])  # a new folder beside the input
    >>> check_outputs([("--out", here, FOLDER)], [here / "d.csv"])
    Traceback (most recent call last):
    ...
    irtbridge.exceptions.ValidationError: --out '...' contains the input '.../d.csv'; give a folder that holds no input
    """
    sources, known = _existing_inputs(inputs), tuple(known)
    seen: dict[Path, str] = {}
    for param, path, kind in outputs:
        if kind not in (FOLDER, FILE):
            raise ValueError(f"kind must be {FOLDER!r} or {FILE!r}, got {kind!r}")
        out = Path(path).resolve()
        if out in seen:
            raise ValidationError(f"{param} {str(path)!r} is also {seen[out]}; give each output its own path")
        seen[out] = param
        for source in sources:
            if out == source:
                raise ValidationError(f"{param} {str(path)!r} is also an input; writing it would destroy the "
                                      "input: give another path")
            if out in source.parents:
                raise ValidationError(f"{param} {str(out)!r} contains the input {str(source)!r}; give a folder "
                                      "that holds no input")
            if source in out.parents:
                raise ValidationError(f"{param} {str(path)!r} lies inside the input folder {str(source)!r}; "
                                      "write outside it")
        _check_writable(out, param, kind)
        if kind == FOLDER:
            _check_replaceable(out, param, known)


@contextmanager
def guard_outputs(outputs: Iterable[tuple[str, str | os.PathLike, str]],
                  inputs: Iterable[str | os.PathLike | None] = ()) -> Iterator[None]:
    """:func:`check_outputs`, then hold the lock of every folder output for the block (before any work).

    Parameters
    ----------
    outputs : iterable of (str, path, str)
        As :func:`check_outputs`.
    inputs : iterable of path or None
        As :func:`check_outputs`.

    Yields
    ------
    None
        The block runs with the folders locked; :func:`staged_output` inside takes the same locks again.
    """
    outputs = list(outputs)
    check_outputs(outputs, inputs)
    with ExitStack() as stack:
        for param, path, kind in outputs:
            if kind == FOLDER:
                stack.enter_context(output_lock(path, param=param))
        yield


def _check_parent(out: Path, param: str) -> None:
    if out.exists() and not out.is_dir():
        raise ValidationError(f"{param} {str(out)!r} is a file; give a folder")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValidationError(f"{param} {str(out)!r} cannot be created: {exc.strerror or exc}") from None
    if not os.access(out.parent, os.W_OK | os.X_OK):
        raise ValidationError(f"{param} {str(out)!r}: its folder {str(out.parent)!r} is not writable")


def _take(lock: Path, out: Path, param: str) -> None:
    for _ in range(2):
        try:
            with _sigint_held():  # a lock file without its pid would block every later run
                fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    fh.write(f"{os.getpid()}\n")
            return
        except FileExistsError:
            try:
                pid = int(lock.read_text(encoding="utf-8").split()[0])
            except (OSError, ValueError, IndexError):
                pid = 0  # being written this instant, or garbage: treat a pid-less lock as live once
            if pid and not _alive(pid) or pid == os.getpid():
                lock.unlink(missing_ok=True)  # stale: its writer is dead
                continue
            raise OutputBusyError(
                f"{param} {str(out)!r} is being written by another run (pid {pid or '?'}, lock {str(lock)!r}); "
                "wait for it or choose another folder") from None
        except OSError as exc:
            raise ValidationError(f"{param} {str(out)!r}: cannot create the lock {str(lock)!r}: "
                                  f"{exc.strerror or exc}") from None
    raise OutputBusyError(f"{param} {str(out)!r}: could not take the lock {str(lock)!r}")  # pragma: no cover


@contextmanager
def output_lock(out: str | os.PathLike, *, param: str = "out") -> Iterator[Path]:
    """Hold ``OUT.lock`` for the block; :class:`OutputBusyError` if a live process holds it already.

    Re-entrant: a process that holds the lock takes it again at once and releases it with its outermost block.
    """
    out = Path(out).absolute()
    _check_parent(out, param)
    lock = lock_path(out)
    pid, depth = _HELD.get(lock, (0, 0))
    if pid == os.getpid() and depth and lock.exists():
        _HELD[lock] = (pid, depth + 1)
        try:
            yield lock
        finally:
            _HELD[lock] = (pid, depth)
        return
    _take(lock, out, param)
    _HELD[lock] = (os.getpid(), 1)
    try:
        yield lock
    finally:
        with _sigint_held():
            _HELD.pop(lock, None)
            lock.unlink(missing_ok=True)


def claim_folder(out: str | os.PathLike, *, param: str = "out", writer: str = "irtbridge",
                 known: Iterable[str] = ()) -> Path:
    """Make ``out`` irtbridge's folder, written in place (``batch``): refused when it holds files and no marker.

    Parameters
    ----------
    out : str or os.PathLike
        The folder (created if needed).
    param : str, default "out"
        How the message names it.
    writer : str, default "irtbridge"
        The command written into the marker.
    known : iterable of str, default ()
        Names the writer puts at the top of its folder: a folder holding nothing else (written by a release
        before the marker) is claimed too.

    Returns
    -------
    Path
        The folder.
    """
    out = Path(out)
    _check_replaceable(out, param, known)
    out.mkdir(parents=True, exist_ok=True)
    if not has_marker(out):
        _write_marker(out, writer)
    return out


@contextmanager
def staged_output(out: str | os.PathLike, *, param: str = "out", keep_partial: bool = False,
                  writer: str = "irtbridge") -> Iterator[Path]:
    """Lock ``out``, yield a fresh staging folder beside it, and move it into place if the block succeeds.

    The staging folder holds :data:`MARKER` naming ``writer`` from the start; an existing ``out`` is replaced
    only when it holds that marker or is empty.

    Raises
    ------
    ValidationError
        ``out`` is a file, holds files irtbridge did not write, or its folder cannot be written (one line
        naming ``param``).
    OutputBusyError
        Another live run is writing ``out``.
    OutputError
        Writing failed (e.g. the disk is full); ``out`` keeps its previous content.
    """
    out = Path(out).absolute()
    with output_lock(out, param=param):
        _recover(out)
        _check_replaceable(out, param)
        stage = None
        try:
            with _sigint_held():
                stage = _fresh_sibling(out, "partial")
                _write_marker(stage, writer)
        except OSError as exc:
            if stage is not None:
                shutil.rmtree(stage, ignore_errors=True)
            raise ValidationError(f"{param} {str(out)!r}: cannot create a staging folder beside it: "
                                  f"{exc.strerror or exc}") from None
        try:
            yield stage
            with _sigint_held():
                _publish(stage, out)
        except BaseException as exc:
            with _sigint_held():
                if keep_partial and stage.exists():
                    exc.add_note(f"partial files of this run kept in {stage}")
                else:
                    shutil.rmtree(stage, ignore_errors=True)
            if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES):
                kept = "the previous output is unchanged" if out.exists() else "nothing was written"
                raise OutputError(f"{param} {str(out)!r}: writing failed ({exc.strerror or exc}); {kept}") from None
            raise


def _recover(out: Path) -> None:
    """Tidy what runs killed with ``kill -9`` left beside ``out`` (the caller holds the lock).

    A staging folder of a dead run is deleted; a previous output moved aside by a run that died between
    its two renames is put back, so ``out`` again holds the last complete run. A folder of that name without
    irtbridge's marker (a user's ``report.old-2023``) is left alone.
    """
    for sibling in out.parent.glob(f"{out.name}.*-*"):
        found = _SIBLING.fullmatch(sibling.name[len(out.name) + 1:])
        if found is None or _alive(int(found.group(2))):
            continue
        kind = found.group(1)
        if not sibling.is_dir() or not has_marker(sibling) and any(sibling.iterdir()):
            continue
        if kind == "old" and not out.exists():
            os.rename(sibling, out)
        else:
            shutil.rmtree(sibling, ignore_errors=True)


# what a run leaves beside OUT: OUT.partial-<pid>-<token> / OUT.old-<pid>-<token> (no token: earlier versions)
_SIBLING = re.compile(r"(partial|old)-(\d+)(?:-[0-9a-f]{8})?")


def _fresh_sibling(out: Path, kind: str) -> Path:
    """A new empty folder ``OUT.<kind>-<pid>-<token>`` beside ``out``, created exclusively (never an existing
    one, whoever made it)."""
    while True:
        path = out.with_name(f"{out.name}.{kind}-{os.getpid()}-{secrets.token_hex(4)}")
        try:
            path.mkdir()
        except FileExistsError:
            continue
        return path


def _publish(stage: Path, out: Path) -> None:
    """Replace ``out`` by ``stage``: the old folder is moved aside first and deleted only after."""
    old = None
    if out.exists():
        old = _fresh_sibling(out, "old")
        os.rename(out, old)  # onto the empty folder just made: a rename may replace an empty folder
    try:
        os.rename(stage, out)
    except BaseException:
        if old is not None:
            os.rename(old, out)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
