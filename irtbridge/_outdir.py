"""One run per output folder: a lock beside the folder, a staging folder, one move into place at the end.

A command that writes a folder of results (``evaluate --out``, ``benchmark --out``) writes it as::

    with staged_output(out, param="--out") as stage:
        ...write everything under stage...

* **lock**: ``OUT.lock`` (beside ``OUT``) is created exclusively and holds the writer's pid; a second run
  into the same folder fails at once with a one-line :class:`OutputBusyError`. A lock whose pid is no
  longer alive (a run killed with ``kill -9``) is stale and taken over.
* **staging**: the run writes into ``OUT.partial-<pid>`` in the same parent (so the final move is a
  rename on one file system), never into ``OUT`` itself: stale files of an earlier run cannot mix in.
* **publish**: when the block ends normally, the previous ``OUT`` (if any) is moved aside, the staging
  folder renamed to ``OUT`` and the old one deleted. Until that moment the previous complete output is
  untouched. A run that fails or is interrupted removes its staging folder (``keep_partial=True`` keeps
  it and says where in the exception's notes) and leaves ``OUT`` as it was.

``batch`` does not stage its whole folder: its units are published one by one (``OUT/units/<id>``,
each atomically) so that a rerun resumes; it only takes the lock (:func:`output_lock`).
"""

from __future__ import annotations

import errno
import os
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from irtbridge.exceptions import OutputBusyError, OutputError, ValidationError

__all__ = ["output_lock", "staged_output", "lock_path"]


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


def _check_parent(out: Path, param: str) -> None:
    if out.exists() and not out.is_dir():
        raise ValidationError(f"{param} {str(out)!r} is a file; give a folder")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValidationError(f"{param} {str(out)!r} cannot be created: {exc.strerror or exc}") from None
    if not os.access(out.parent, os.W_OK | os.X_OK):
        raise ValidationError(f"{param} {str(out)!r}: its folder {str(out.parent)!r} is not writable")


@contextmanager
def output_lock(out: str | os.PathLike, *, param: str = "out") -> Iterator[Path]:
    """Hold ``OUT.lock`` for the block; :class:`OutputBusyError` if a live process holds it already."""
    out = Path(out).absolute()
    _check_parent(out, param)
    lock = lock_path(out)
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
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
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(f"{os.getpid()}\n")
        break
    else:  # pragma: no cover - two stale takeovers in a row
        raise OutputBusyError(f"{param} {str(out)!r}: could not take the lock {str(lock)!r}")
    try:
        yield lock
    finally:
        lock.unlink(missing_ok=True)


@contextmanager
def staged_output(out: str | os.PathLike, *, param: str = "out", keep_partial: bool = False) -> Iterator[Path]:
    """Lock ``out``, yield a fresh staging folder beside it, and move it into place if the block succeeds.

    Raises
    ------
    ValidationError
        ``out`` is a file or its folder cannot be written (one line naming ``param``).
    OutputBusyError
        Another live run is writing ``out``.
    OutputError
        Writing failed (e.g. the disk is full); ``out`` keeps its previous content.
    """
    out = Path(out).absolute()
    with output_lock(out, param=param):
        _recover(out)
        stage = out.with_name(f"{out.name}.partial-{os.getpid()}")
        shutil.rmtree(stage, ignore_errors=True)
        try:
            stage.mkdir()
        except OSError as exc:
            raise ValidationError(f"{param} {str(out)!r}: cannot create {str(stage)!r}: {exc.strerror or exc}") from None
        try:
            yield stage
            _publish(stage, out)
        except BaseException as exc:
            if keep_partial and stage.exists():
                note = f"partial files of this run kept in {stage}"
                exc.add_note(note)
            else:
                shutil.rmtree(stage, ignore_errors=True)
            if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES):
                kept = "the previous output is unchanged" if out.exists() else "nothing was written"
                raise OutputError(f"{param} {str(out)!r}: writing failed ({exc.strerror or exc}); {kept}") from None
            raise


def _recover(out: Path) -> None:
    """Tidy what runs killed with ``kill -9`` left beside ``out`` (the caller holds the lock).

    A staging folder of a dead run is deleted; a previous output moved aside by a run that died between
    its two renames is put back, so ``out`` again holds the last complete run.
    """
    for sibling in out.parent.glob(f"{out.name}.*-*"):
        kind, _, pid = sibling.name[len(out.name) + 1:].rpartition("-")
        if kind not in ("partial", "old") or not pid.isdigit() or _alive(int(pid)):
            continue
        if kind == "old" and not out.exists():
            os.rename(sibling, out)
        else:
            shutil.rmtree(sibling, ignore_errors=True)


def _publish(stage: Path, out: Path) -> None:
    """Replace ``out`` by ``stage``: the old folder is moved aside first and deleted only after."""
    old = None
    if out.exists():
        old = out.with_name(f"{out.name}.old-{os.getpid()}")
        shutil.rmtree(old, ignore_errors=True)
        os.rename(out, old)
    try:
        os.rename(stage, out)
    except BaseException:
        if old is not None:
            os.rename(old, out)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
