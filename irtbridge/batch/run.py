"""Running a batch: one unit atomically on a worker (:func:`run_unit`), the driver (:func:`run_batch`)."""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import signal
import socket
import time
import uuid
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from irtbridge._constraints import Flag, Int, constraints
from irtbridge import __version__
from irtbridge._io import atomic_write_text, make_readable, to_jsonable
from irtbridge._outdir import FOLDER, check_outputs, claim_folder, output_lock
from irtbridge._parallel import WORKER_ENV, progress_bar, sigint_ignored
from irtbridge._summary import HasSummary, Line, Summary, Warn
from irtbridge._validation import check_int
from irtbridge.batch.kinds import KINDS
from irtbridge.batch.manifest import Manifest, load_manifest
from irtbridge.batch.unit import Unit
from irtbridge.exceptions import DataWarning, RError, UnitError, ValidationError, find_stack_level

__all__ = ["BatchResult", "is_complete", "is_transient", "mark_failed", "run_unit", "run_batch", "local_cluster"]


# --------------------------------------------------------------------------------------------------
# running one unit (on a worker)
# --------------------------------------------------------------------------------------------------

# what a batch writes at the top of its folder: a folder holding only these (an earlier release's, without the
# marker) is still resumed
_OWN = ("units", "batch.json")


def _units_dir(out: str | os.PathLike) -> Path:
    return Path(out) / "units"


def is_complete(unit: Unit, out: str | os.PathLike) -> bool:
    """Whether ``OUT/units/<id>`` holds a finished result (status "done") with this unit's fingerprint.

    Parameters
    ----------
    unit : Unit
        The unit.
    out : str or os.PathLike
        The batch's output folder (``OUT``).

    Returns
    -------
    bool
        True when its ``unit.json`` says ``"done"`` with the unit's current fingerprint.
    """
    meta = _read_meta(out, unit.id)
    return meta.get("status") == "done" and meta.get("fingerprint") == unit.fingerprint


def _read_meta(out: str | os.PathLike, uid: str) -> dict[str, Any]:
    """``OUT/units/<id>/unit.json``, or ``{}`` when there is none (or it cannot be read)."""
    try:
        meta = json.loads((_units_dir(out) / uid / "unit.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}


def is_transient(exc: BaseException) -> bool:
    """Whether another attempt might not meet this error: the file system, memory, the network.

    Everything else (bad input, a refused option, an R error on the data, a bug) happens again on the
    same input, so it is reported at once and not retried.

    Parameters
    ----------
    exc : BaseException
        The error a unit raised.

    Returns
    -------
    bool
        True for an OSError (the file system, the network), a MemoryError or R's "cannot allocate".
    """
    if isinstance(exc, ValidationError):
        return False
    if isinstance(exc, (OSError, MemoryError)):
        return True
    return isinstance(exc, RError) and "cannot allocate" in str(exc)


def _marker(out: str | os.PathLike, unit: Unit) -> Path:
    """A file that says 'an attempt at this unit started here'; it is gone only if the attempt ended."""
    folder = _units_dir(out) / ".attempts" / unit.id
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}.running"
    path.write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started": time.time()}))
    return path


def _finish_marker(marker: Path, status: str) -> None:
    try:
        marker.rename(marker.with_suffix(f".{status}"))
    except OSError:
        pass


def _publish(tmp: Path, final: Path, unit: Unit) -> bool:
    """Rename the finished temporary folder into place; False when another attempt got there first.

    A previous folder (another input's result, or a failure) is first renamed aside and then removed: a
    reader finds the old folder, then briefly none, then the new one, never a mixture.
    """
    if final.exists():
        if is_complete(unit, final.parent.parent):
            shutil.rmtree(tmp, ignore_errors=True)
            return False
        stale = final.with_name(f".{final.name}.stale-{uuid.uuid4().hex[:8]}")
        try:
            os.rename(final, stale)
        except FileNotFoundError:  # another attempt moved it first
            pass
        shutil.rmtree(stale, ignore_errors=True)
    try:
        os.rename(tmp, final)
    except OSError:
        # a concurrent duplicate of this unit (a worker presumed dead that was not) finished first
        shutil.rmtree(tmp, ignore_errors=True)
        return False
    return True


@constraints(transient=Flag())
def mark_failed(unit: Unit, out: str | os.PathLike, error: str, *, transient: bool = False) -> bool:
    """Replace ``OUT/units/<id>`` by a folder holding only ``unit.json`` with ``"status": "failed"``.

    The unit's previous results (of an earlier input or options) are removed with it, so no folder ever
    shows results its current input did not produce; ``unit.json`` keeps the error, the new input's
    digest and the fingerprint. A finished result of this very fingerprint (a concurrent attempt that
    succeeded) is kept instead: returns False then.

    Parameters
    ----------
    unit : Unit
        The unit that failed.
    out : str or os.PathLike
        The batch's output folder (``OUT``).
    error : str
        The error, as ``unit.json`` keeps it.
    transient : bool, default False
        Whether a retry might succeed (recorded in ``unit.json``).

    Returns
    -------
    bool
        True when the failed folder was put in place; False when a finished result was kept instead.
    """
    units = _units_dir(out)
    if is_complete(unit, out):
        return False
    tmp = units / f".{unit.id}.tmp-{uuid.uuid4().hex[:8]}"
    tmp.mkdir(parents=True)
    meta = {**unit.to_dict(), "fingerprint": unit.fingerprint, "status": "failed", "error": error,
            "transient": bool(transient), "host": socket.gethostname(), "pid": os.getpid(),
            "irtbridge": __version__, "files": ["unit.json"]}
    atomic_write_text(tmp / "unit.json", json.dumps(to_jsonable(meta), indent=2, allow_nan=False) + "\n")
    make_readable(tmp / "unit.json")
    return _publish(tmp, units / unit.id, unit)


def run_unit(unit: Unit, out: str | os.PathLike) -> dict[str, Any]:
    """Compute one unit into ``OUT/units/<id>`` atomically and return its ``unit.json`` content.

    Raises :class:`UnitError` (picklable, with the original error's type and message, and ``transient``:
    whether a retry might succeed, :func:`is_transient`) when the analysis fails; the unit's folder is
    then replaced by a failed one (:func:`mark_failed`).

    Parameters
    ----------
    unit : Unit
        The unit to compute.
    out : str or os.PathLike
        The batch's output folder (``OUT``).

    Returns
    -------
    dict of str to Any
        The unit's ``unit.json`` content (``"status": "skipped"`` when a finished result of the same
        fingerprint was already there).
    """
    units = _units_dir(out)
    if is_complete(unit, out):
        return {**_read_meta(out, unit.id), "status": "skipped"}
    marker = _marker(out, unit)
    tmp = units / f".{unit.id}.tmp-{uuid.uuid4().hex[:8]}"
    tmp.mkdir(parents=True)
    start = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            info = KINDS[unit.kind](unit, tmp)
        kept = [f"{w.category.__name__}: {w.message}" for w in caught if w.category.__module__.startswith("irtbridge")]
        meta = {
            **unit.to_dict(), "fingerprint": unit.fingerprint, "status": "done", "result": to_jsonable(info),
            "warnings": list(dict.fromkeys(kept)), "seconds": time.perf_counter() - start,
            "host": socket.gethostname(), "pid": os.getpid(), "irtbridge": __version__,
            "files": sorted(p.name for p in tmp.iterdir()) + ["unit.json"],
        }
        atomic_write_text(tmp / "unit.json", json.dumps(meta, indent=2, allow_nan=False) + "\n")
        make_readable(*tmp.iterdir())
        _publish(tmp, units / unit.id, unit)
    except BaseException as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        _finish_marker(marker, "error")
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        message = f"unit {unit.id!r} ({unit.kind}) failed: {type(exc).__name__}: {exc}"
        transient = is_transient(exc)
        mark_failed(unit, out, message, transient=transient)
        error = UnitError(message)
        error.transient = transient
        raise error from None
    _finish_marker(marker, "done")
    return meta


def _attempt(unit: Unit, out: str | os.PathLike) -> dict[str, Any]:
    """One attempt on a worker: a deterministic failure is returned (Dask does not retry it), a transient one raised."""
    try:
        return run_unit(unit, out)
    except UnitError as exc:
        if getattr(exc, "transient", True):
            raise
        return {"status": "failed", "error": str(exc), "seconds": 0.0}


# --------------------------------------------------------------------------------------------------
# the driver
# --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class BatchResult(HasSummary):
    """What :func:`run_batch` did.

    Attributes
    ----------
    out : Path
        The output folder (``units/<id>/`` per unit, ``batch.json`` summary).
    units : DataFrame
        One row per unit (index ``id``): ``kind``, ``status`` ("done", "skipped", "failed"), ``error``,
        ``seconds``, ``attempts`` (started in this run) and ``interrupted`` (attempts lost with their
        worker and recomputed), ``worker`` (host-pid that produced the result).
    scheduler : str
    workers : int or None
    seconds : float
    """

    out: Path
    units: pd.DataFrame
    scheduler: str
    workers: int | None
    seconds: float

    @property
    def n_failed(self) -> int:
        """The number of units whose status is ``"failed"``.
        """
        return int((self.units["status"] == "failed").sum())

    def summary(self) -> Summary:
        """What ran, what was recomputed after a lost worker, what failed and where the results are.

        Returns
        -------
        Summary
            The batch's summary.
        """
        counts = self.units["status"].value_counts()
        lines = [Line.of("lost", f"{uid}: {int(row['interrupted'])} attempt(s) lost with a worker, recomputed")
                 for uid, row in self.units[self.units["interrupted"] > 0].iterrows()]
        lines += [Line.of("failed", Warn(f"FAILED {uid}"), f": {row['error']}")
                  for uid, row in self.units[self.units["status"] == "failed"].iterrows()]
        lines.append(Line.of("out", f"results in {self.out}/units/<id>/, summary in {self.out / 'batch.json'}"))
        title = (f"irtbridge batch: {len(self.units)} unit(s) on {self.scheduler}"
                 + (f" ({self.workers} workers)" if self.workers else "") + f" in {self.seconds:.1f} s: "
                 + ", ".join(f"{int(counts.get(s, 0))} {s}" for s in ("done", "skipped", "failed")))
        return Summary(title, tuple(lines), data={"units": self.units.reset_index()})


@constraints(workers=Int(low=1, allow_none=True))
def local_cluster(workers: int | None = None, **kwargs: Any):
    """A Dask ``LocalCluster`` of spawned single-threaded worker processes (one R each).

    Parameters
    ----------
    workers : int, optional
        Number of worker processes (default: the number of CPUs).
    **kwargs
        Passed to ``distributed.LocalCluster``.

    Returns
    -------
    distributed.LocalCluster
        The cluster, ready for a ``distributed.Client``.
    """
    import dask  # dask (~0.9 s) loads for a cluster only
    from distributed import LocalCluster  # dask (~0.9 s) loads for a cluster only

    n = workers or os.cpu_count() or 1
    options = dict(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                   silence_logs=logging.ERROR, env=dict(WORKER_ENV))
    options.update(kwargs)
    # Workers must start from a fresh interpreter: a forked child would inherit this process's R. The
    # nanny reads this setting each time it (re)starts a worker, also after a crash, so it is set for
    # the process, not just around the cluster's creation.
    if dask.config.get("distributed.worker.multiprocessing-method") not in ("spawn", "forkserver"):
        warnings.warn(
            "distributed.worker.multiprocessing-method was 'fork'; irtbridge sets it to 'spawn' because a forked "
            "worker would inherit this process's R",
            DataWarning, stacklevel=find_stack_level(),
        )
        dask.config.set({"distributed.worker.multiprocessing-method": "spawn"})
    # workers ignore Ctrl-C (the driver ends them): they inherit the disposition when spawned
    with sigint_ignored():
        return LocalCluster(**options)


def _collect_attempts(out: Path, units: Sequence[Unit]) -> dict[str, dict[str, int]]:
    """Count this run's attempts per unit from the markers, then clear them."""
    root = _units_dir(out) / ".attempts"
    counts: dict[str, dict[str, int]] = {}
    for unit in units:
        folder = root / unit.id
        if not folder.is_dir():
            continue
        files = list(folder.iterdir())
        counts[unit.id] = {
            "attempts": len(files),
            "interrupted": sum(f.suffix == ".running" for f in files),
        }
    shutil.rmtree(root, ignore_errors=True)
    return counts


def _clear_leftovers(out: Path) -> None:
    """Temporary folders and markers of a previous run that was interrupted as a whole."""
    units = _units_dir(out)
    if not units.is_dir():
        return
    for p in units.iterdir():
        if p.name.startswith(".") and (".tmp-" in p.name or ".stale-" in p.name):
            shutil.rmtree(p, ignore_errors=True)
    shutil.rmtree(units / ".attempts", ignore_errors=True)


@constraints(workers=Int(low=1, allow_none=True), retries=Int(low=0, allow_none=True), progress=Flag())
def run_batch(
    manifest: str | os.PathLike | Manifest,
    *,
    out: str | os.PathLike | None = None,
    scheduler: str = "local",
    workers: int | None = None,
    retries: int | None = None,
    client: Any = None,
    progress: bool = False,
) -> BatchResult:
    """Run every unit of a manifest that is not complete yet, and write ``OUT/batch.json``.

    Parameters
    ----------
    manifest : path or Manifest
    out : path, optional
        Output folder (default: the manifest's ``output``, else ``<manifest stem>-results`` beside it).
    scheduler : "local", "serial" or a scheduler address
        ``"local"``: a :func:`local_cluster` of ``workers`` processes, closed at the end; an address such
        as ``"tcp://10.0.0.5:8786"``: an existing Dask cluster (its workers must have irtbridge, R and
        the input paths); ``"serial"``: one unit after another in this process (debugging).
    workers : int, optional
        Worker processes of the local cluster (default: one per CPU).
    retries : int, optional
        Re-runs of a unit that raised (default: the manifest's, else 1).
    client : distributed.Client, optional
        Use this client instead of creating a cluster (``scheduler`` is then only a label).
    progress : bool
        A tqdm bar on stderr.

    Returns
    -------
    BatchResult

    Notes
    -----
    The driver only reads files and talks to the scheduler; it never starts R, so nothing R-related is
    inherited by anything. Units are submitted with ``retries`` (Dask re-runs a task that raised) and a
    unit whose worker dies is rescheduled by Dask (up to ``distributed.scheduler.allowed-failures``
    deaths) before being reported as failed.
    """
    if client is None and scheduler not in ("local", "serial") and not re.match(r"^[a-z]+://\S+|^\S+:\d+$", str(scheduler)):
        raise ValidationError(f"--scheduler {scheduler!r} must be 'local', 'serial' or an address like tcp://HOST:8786")
    if not isinstance(manifest, Manifest):
        manifest = load_manifest(manifest, output=out)
    elif out is not None:
        manifest = Manifest(manifest.path, manifest.units, Path(out).resolve(), manifest.retries)
    retries = manifest.retries if retries is None else check_int(retries, "retries", low=0)
    # before any work: the folder is no input (nor holds one) and is irtbridge's (its marker) or new or empty
    inputs: list[str | os.PathLike] = [manifest.path, *(u.data for u in manifest.units),
                                       *(p for u in manifest.units for p in u.paths.values())]
    check_outputs([("out", manifest.output, FOLDER)], inputs, known=_OWN)
    # one driver per folder (OUT.lock beside it); the folder itself is not staged: each unit is
    # published atomically into OUT/units/<id>, which is what lets a rerun resume
    with output_lock(manifest.output, param="out"):
        claim_folder(manifest.output, param="out", writer="batch", known=_OWN)
        return _run_locked(manifest, scheduler, workers, retries, client, progress)


def _run_locked(manifest: Manifest, scheduler: str, workers: int | None, retries: int, client: Any,
                progress: bool) -> BatchResult:
    out_dir = manifest.output
    out_dir.mkdir(parents=True, exist_ok=True)
    _clear_leftovers(out_dir)
    started = time.perf_counter()
    rows: dict[str, dict[str, Any]] = {}
    todo: list[Unit] = []
    for unit in manifest.units:
        if is_complete(unit, out_dir):
            rows[unit.id] = {"kind": unit.kind, "status": "skipped", "error": "", "seconds": 0.0}
        else:
            todo.append(unit)
    bar = progress_bar(progress, len(manifest.units), desc="units", initial=len(manifest.units) - len(todo))
    n_workers: int | None = None
    try:
        if scheduler == "serial":
            for unit in todo:
                rows[unit.id] = _serial(unit, out_dir, retries)
                bar.update(1)
        else:
            own = None
            if client is None:
                from distributed import Client  # dask (~0.9 s) loads for a cluster only

                if scheduler == "local":
                    own = local_cluster(workers)
                    client = Client(own)
                else:
                    client = Client(scheduler)
                own_client = client
            else:
                own_client = None
            try:
                n_workers = len(client.scheduler_info().get("workers", {})) or None
                rows.update(_distributed(client, todo, out_dir, retries, bar))
            except KeyboardInterrupt:
                if own is not None:
                    _kill_workers(own)  # a graceful close waits for the running units
                raise
            finally:
                if own_client is not None:
                    own_client.close()
                if own is not None:
                    own.close()
    finally:
        bar.close()
    attempts = _collect_attempts(out_dir, manifest.units)
    _clear_leftovers(out_dir)  # temporary folders of attempts that died with their worker
    rows = {u.id: _agree(out_dir, u, rows[u.id]) for u in manifest.units}
    table = pd.DataFrame.from_dict(rows, orient="index").reindex([u.id for u in manifest.units])
    table.index.name = "id"
    table["attempts"] = [attempts.get(u, {}).get("attempts", 0) for u in table.index]
    table["interrupted"] = [attempts.get(u, {}).get("interrupted", 0) for u in table.index]
    table["worker"] = [_worker_of(out_dir, u) for u in table.index]
    result = BatchResult(out=out_dir, units=table, scheduler=scheduler, workers=n_workers,
                         seconds=time.perf_counter() - started)
    atomic_write_text(out_dir / "batch.json", json.dumps(to_jsonable({
        "manifest": str(manifest.path), "out": str(out_dir), "scheduler": scheduler, "workers": n_workers,
        "retries": retries, "seconds": result.seconds, "irtbridge": __version__,
        "counts": {s: int((table["status"] == s).sum()) for s in ("done", "skipped", "failed")},
        "units": table.reset_index(),
    }), indent=2, allow_nan=False) + "\n")
    return result


def _kill_workers(cluster: Any) -> None:
    """SIGKILL the worker processes of a local cluster (their R with them); finished units stay published."""
    for nanny in list(getattr(cluster, "workers", {}).values()):
        pid = getattr(nanny, "pid", None)
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def _worker_of(out: Path, uid: str) -> str:
    try:
        meta = json.loads((_units_dir(out) / uid / "unit.json").read_text(encoding="utf-8"))
        return f"{meta.get('host')}-{meta.get('pid')}"
    except (OSError, ValueError):
        return ""


def _serial(unit: Unit, out: Path, retries: int) -> dict[str, Any]:
    error = ""
    for _ in range(retries + 1):
        try:
            meta = run_unit(unit, out)
            return {"kind": unit.kind, "status": "done", "error": "", "seconds": meta.get("seconds", 0.0)}
        except UnitError as exc:
            error = str(exc)
            if not getattr(exc, "transient", True):
                break  # it would fail the same way again
    return {"kind": unit.kind, "status": "failed", "error": error, "seconds": 0.0}


def _distributed(client: Any, todo: Sequence[Unit], out: Path, retries: int, bar: Any) -> dict[str, dict[str, Any]]:
    from distributed import as_completed  # dask (~0.9 s) loads for a cluster only

    futures = {}
    for unit in todo:
        # a fresh key per run: a rerun must recompute, not fetch a result cached by a long-lived cluster;
        # Dask retries only what _attempt raises (transient errors), a deterministic failure is returned
        fut = client.submit(_attempt, unit, str(out), key=f"irtbridge-unit-{unit.id}-{uuid.uuid4().hex[:8]}",
                            retries=retries, pure=False)
        futures[fut] = unit
    rows: dict[str, dict[str, Any]] = {}
    for fut in as_completed(list(futures)):
        unit = futures[fut]
        if fut.status == "finished":
            meta = fut.result()
            failed = meta.get("status") == "failed"
            rows[unit.id] = {"kind": unit.kind, "status": "failed" if failed else "done",
                             "error": meta.get("error", "") if failed else "", "seconds": meta.get("seconds", 0.0)}
        else:
            try:
                exc = fut.exception()
            except BaseException as lost:  # e.g. cancelled when the scheduler went away
                exc = lost
            # KilledWorker: the unit took down every worker it ran on (allowed-failures times)
            message = (str(exc) if isinstance(exc, UnitError)
                       else f"unit {unit.id!r} ({unit.kind}) failed: {type(exc).__name__}: {exc}")
            rows[unit.id] = {"kind": unit.kind, "status": "failed", "error": message, "seconds": 0.0}
        bar.update(1)
    return rows


def _agree(out: Path, unit: Unit, row: dict[str, Any]) -> dict[str, Any]:
    """The unit's row of batch.json, made to agree with its folder (and its folder with the row).

    A failed unit whose folder does not say so yet (its worker died, the scheduler went away) is marked
    failed here; a unit reported done or skipped whose folder holds no finished result of its
    fingerprint (removed meanwhile) is reported failed.
    """
    meta = _read_meta(out, unit.id)
    if row["status"] == "failed":
        if meta.get("status") == "failed" and meta.get("fingerprint") == unit.fingerprint:
            return {**row, "error": meta.get("error", row["error"])}
        if mark_failed(unit, out, row["error"]):
            return row
        meta = _read_meta(out, unit.id)  # a concurrent attempt finished it after all
        return {**row, "status": "done", "error": ""} if meta.get("status") == "done" else row
    if is_complete(unit, out):
        return row
    error = f"unit {unit.id!r} ({unit.kind}) failed: its result folder {str(_units_dir(out) / unit.id)!r} is gone"
    mark_failed(unit, out, error)
    return {**row, "status": "failed", "error": error}
