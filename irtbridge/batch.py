"""Many analyses at once on Dask distributed: ``irtbridge batch MANIFEST``.

A *manifest* lists units of work; each unit is one input file and one kind of analysis:

================  ==========================================  ======================================
kind              input (``data``) and options                writes (into ``OUT/units/<id>/``)
================  ==========================================  ======================================
``calibrate``     responses CSV (respondents x items);         ``items.csv``, ``standard_errors.csv``,
                  ``model`` (2PL), ``engine`` (mirt),          ``abilities.csv`` (native EAP),
                  ``id_column``, ``drop_constant``            ``calibration.json``            [R]
``dataset``       a classification CSV and its ``target``;    ``items.csv``, ``respondents.csv``,
                  any :class:`irtbridge.pipeline.Settings`     ``responses.csv``, ``ei.csv`` (binary)
                  field (``max_items``, ``pool``, ...)        — the per-dataset unit of
                                                              ``irtbridge evaluate``          [R]
``hardness``      labels and model scores; ``label``,         ``instances.csv`` (every method),
                  ``scores`` (columns), ``threshold``, ``id``  ``classes.csv``
``ei``            2 x 2 tables: columns ``tp, fp, fn, tn``    ``ei.csv`` (EI family + intervals)
                  (``name``: a label column); ``level``,
                  ``ci_method``, ``correction``
``rate``          matches CSV (period, player, opponent,      ``ratings.csv``, ``history.csv``
                  score); ``tau``
================  ==========================================  ======================================

Every unit folder also holds ``unit.json`` (what ran, where, how long, the R warnings). A manifest is
JSON::

    {"output": "results",                 # optional; relative to the manifest's folder
     "retries": 1,                        # optional: re-runs of a unit that raised (default 1)
     "units": [
        {"id": "lsat", "kind": "calibrate", "data": "lsat.csv", "options": {"model": "2PL"}},
        {"id": "sonar", "kind": "dataset", "data": "sonar.csv", "target": "Class"}
     ]}

or CSV with columns ``id, kind, data`` and optionally ``target`` and ``options`` (a JSON object).
Relative ``data`` paths are relative to the manifest.

Guarantees
----------
* **Atomic results.** A unit computes into a hidden temporary folder and renames it into place when
  every file is written; a folder ``OUT/units/<id>`` is therefore always complete.
* **Resume.** A rerun skips every unit whose folder exists with the same fingerprint (kind, options and
  a SHA-256 of the input file); a changed input or option is recomputed.
* **Failures stay local.** A unit that raises is retried ``retries`` times, then reported with its
  error in ``OUT/batch.json``; the other units are unaffected. A worker that dies (killed, out of
  memory) is replaced and its units are recomputed elsewhere (Dask's ``allowed-failures``).
* **One R per worker, never forked.** Workers are separate processes started with the ``spawn``
  method (``distributed.worker.multiprocessing-method``), one thread each; each embeds its own R on
  its first R-backed unit. The driver never starts R.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import socket
import time
import uuid
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import pandas as pd

from irtbridge import __version__
from irtbridge._validation import _show, check_int, read_csv, require_columns
from irtbridge._io import atomic_write_csv, atomic_write_text, make_readable, to_jsonable
from irtbridge._parallel import WORKER_ENV, progress_bar
from irtbridge.exceptions import DataWarning, UnitError, ValidationError

__all__ = ["KINDS", "Unit", "Manifest", "BatchResult", "UnitError", "load_manifest", "run_unit", "run_batch",
           "local_cluster", "is_complete"]

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
# BLAS/OpenMP pools inside a worker would compete with the other workers for the same cores


# --------------------------------------------------------------------------------------------------
# the manifest
# --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Unit:
    """One unit of work of a batch.

    Attributes
    ----------
    id : str
        Folder name of its results (letters, digits, ``.``, ``_``, ``-``).
    kind : str
        One of :data:`KINDS`.
    data : str
        Absolute path of the input file.
    target : str or None
        Target column (``dataset`` units).
    options : dict
        Kind-specific options (see the module docstring).
    digest : str
        SHA-256 of the input file, part of the fingerprint.
    """

    id: str
    kind: str
    data: str
    target: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    digest: str = ""

    @property
    def fingerprint(self) -> str:
        """What decides whether an existing result is still valid for this unit."""
        text = json.dumps({"kind": self.kind, "target": self.target, "options": to_jsonable(dict(self.options)),
                           "digest": self.digest}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "data": self.data, "target": self.target,
                "options": to_jsonable(dict(self.options)), "digest": self.digest}


@dataclass(frozen=True)
class Manifest:
    """A parsed manifest: its units, the output folder and the retry count."""

    path: Path
    units: tuple[Unit, ...]
    output: Path
    retries: int = 1


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def load_manifest(path: str | os.PathLike, *, output: str | os.PathLike | None = None) -> Manifest:
    """Read and check a JSON or CSV manifest (see the module docstring).

    Raises
    ------
    ValidationError
        Unreadable manifest, duplicate or unsafe unit ids, unknown kinds, missing input files, options
        that are not a JSON object.
    """
    path = Path(path)
    if not path.is_file():
        raise ValidationError(f"manifest {str(path)!r} does not exist (give a .json or .csv manifest)")
    base = path.resolve().parent
    retries = 1
    out_field: Any = None
    if path.suffix.lower() == ".json":
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ValidationError(f"manifest {str(path)!r} is not valid JSON: {exc}") from None
        if isinstance(raw, list):
            raw = {"units": raw}
        if not isinstance(raw, dict) or not isinstance(raw.get("units"), list):
            raise ValidationError(f"manifest {str(path)!r} must be an object with a list \"units\" (or a list of units)")
        entries = raw["units"]
        out_field = raw.get("output")
        retries = check_int(raw.get("retries", 1), "manifest retries", low=0)
    elif path.suffix.lower() == ".csv":
        frame = read_csv(path, "manifest")
        require_columns(frame, ["id", "kind", "data"], str(path))
        entries = []
        for _, row in frame.iterrows():
            entry = {k: row[k] for k in frame.columns if not (isinstance(row[k], float) and pd.isna(row[k]))}
            if isinstance(entry.get("options"), str):
                try:
                    entry["options"] = json.loads(entry["options"])
                except json.JSONDecodeError as exc:
                    raise ValidationError(f"manifest unit {entry.get('id')!r}: options is not a JSON object ({exc})") from None
            entries.append(entry)
    else:
        raise ValidationError(f"manifest {str(path)!r} must be a .json or .csv file")
    units: list[Unit] = []
    seen: set[str] = set()
    for i, e in enumerate(entries):
        if not isinstance(e, dict):
            raise ValidationError(f"manifest unit {i} must be an object with id, kind and data, got {_show(e)}")
        uid = str(e.get("id", "")).strip()
        if not _ID.match(uid):
            raise ValidationError(
                f"manifest unit {i}: id {uid!r} must start with a letter or digit and use only letters, digits, "
                "'.', '_' and '-' (it names the result folder)"
            )
        if uid in seen:
            raise ValidationError(f"manifest unit id {uid!r} is used twice; ids must be unique")
        seen.add(uid)
        kind = str(e.get("kind", ""))
        if kind not in KINDS:
            raise ValidationError(f"manifest unit {uid!r}: kind {kind!r} is not supported; use one of {', '.join(map(repr, KINDS))}")
        data = e.get("data")
        if not isinstance(data, str) or not data:
            raise ValidationError(f"manifest unit {uid!r}: data must be the path of the input file")
        data_path = (base / data).resolve() if not os.path.isabs(data) else Path(data)
        if not data_path.is_file():
            raise ValidationError(f"manifest unit {uid!r}: input file {str(data_path)!r} does not exist")
        options = e.get("options", {}) or {}
        if not isinstance(options, dict):
            raise ValidationError(f"manifest unit {uid!r}: options must be a JSON object, got {_show(options)}")
        target = e.get("target")
        units.append(Unit(uid, kind, str(data_path), None if target is None else str(target), dict(options),
                          _sha256(str(data_path))))
    if not units:
        raise ValidationError(f"manifest {str(path)!r} lists no units")
    if output is not None:
        out = Path(output)
    elif out_field:
        out = Path(out_field) if os.path.isabs(str(out_field)) else base / str(out_field)
    else:
        out = base / f"{path.stem}-results"
    return Manifest(path=path.resolve(), units=tuple(units), output=out.resolve(), retries=retries)


# --------------------------------------------------------------------------------------------------
# the kinds of unit (each writes its files into a folder and returns a small summary dict)
# --------------------------------------------------------------------------------------------------

def _kind_calibrate(unit: Unit, folder: Path) -> dict[str, Any]:
    from irtbridge.calibration import calibrate
    from irtbridge.irt import estimate_abilities

    opts = dict(unit.options)
    frame = read_csv(unit.data, "responses")
    id_column = opts.pop("id_column", None)
    if id_column is not None:
        require_columns(frame, [id_column], unit.data)
        frame = frame.set_index(id_column)
    method = opts.pop("method", "EAP")
    fit = calibrate(frame, model=opts.pop("model", "2PL"), engine=opts.pop("engine", "mirt"),
                    drop_constant=bool(opts.pop("drop_constant", False)), **opts)
    atomic_write_csv(folder / "items.csv", fit.items.rename_axis("item"))
    atomic_write_csv(folder / "standard_errors.csv", fit.standard_errors.rename_axis("item"))
    atomic_write_text(folder / "calibration.json", fit.to_json(indent=2))
    abilities = estimate_abilities(frame[fit.item_names], fit, method=method)
    atomic_write_csv(folder / "abilities.csv", abilities.rename_axis("respondent"))
    return {"model": fit.model, "engine": fit.engine, "converged": bool(fit.converged), "items": len(fit.items),
            "respondents": fit.n_respondents, "loglik": fit.loglik}


def _kind_dataset(unit: Unit, folder: Path) -> dict[str, Any]:
    from irtbridge.pipeline import Settings, run_dataset

    settings = Settings(**dict(unit.options))
    ref = unit.data + (f":{unit.target}" if unit.target else "")
    result = run_dataset(ref, settings)
    if result.error:
        raise UnitError(result.error)
    atomic_write_csv(folder / "items.csv", result.items)
    atomic_write_csv(folder / "respondents.csv", result.respondents)
    atomic_write_csv(folder / "responses.csv", result.responses)
    if result.ei is not None:
        atomic_write_csv(folder / "ei.csv", result.ei)
    return {"dataset": result.name, "instances": result.n_instances, "items": len(result.items), "engine": result.engine,
            "converged": result.converged, "attempts": list(result.attempts), "r_warnings": list(result.warnings)}


def _kind_hardness(unit: Unit, folder: Path) -> dict[str, Any]:
    from irtbridge._validation import check_binary_labels, check_scores
    from irtbridge.hardness import METHODS, class_hardness, hardness_table

    import numpy as np

    opts = dict(unit.options)
    frame = read_csv(unit.data, "hardness input")
    label = opts.get("label", unit.target)
    scores = opts.get("scores")
    if not label or not scores:
        raise ValidationError(f"unit {unit.id!r}: hardness needs options label (0/1 column) and scores (list of columns)")
    scores = [scores] if isinstance(scores, str) else list(scores)
    require_columns(frame, [label, *scores] + ([opts["id"]] if opts.get("id") else []), unit.data)
    index = pd.Index(frame[opts["id"]], name=opts["id"]) if opts.get("id") else pd.RangeIndex(len(frame), name="row")
    y = pd.Series(check_binary_labels(frame[label].to_numpy(dtype=float), f"column {label!r}").astype(int), index=index)
    pool = pd.DataFrame(np.vstack([check_scores(frame[c].to_numpy(dtype=float), f"column {c!r}") for c in scores]),
                        index=scores, columns=index)
    threshold = float(opts.get("threshold", 0.5))
    table = hardness_table(y, pool, METHODS, threshold)
    atomic_write_csv(folder / "instances.csv", table)
    classes = pd.DataFrame({m: class_hardness(y, pool, m, threshold) for m in METHODS})
    classes.index.name = "class"
    atomic_write_csv(folder / "classes.csv", classes)
    return {"instances": int(len(y)), "models": scores}


def _kind_ei(unit: Unit, folder: Path) -> dict[str, Any]:
    from irtbridge.efficiency import efficiency_frame

    opts = dict(unit.options)
    frame = read_csv(unit.data, "2 x 2 tables")
    require_columns(frame, ["tp", "fp", "fn", "tn"], unit.data)
    if opts.get("name"):
        require_columns(frame, [opts["name"]], unit.data)
        frame = frame.set_index(opts.pop("name"))
    table = efficiency_frame(frame["tp"], frame["fp"], frame["fn"], frame["tn"], **opts)
    atomic_write_csv(folder / "ei.csv", table)
    return {"tables": int(len(table))}


def _kind_rate(unit: Unit, folder: Path) -> dict[str, Any]:
    from irtbridge.rating import glicko2

    frame = read_csv(unit.data, "matches")
    result = glicko2(frame, tau=float(unit.options.get("tau", 0.5)), source=os.path.basename(unit.data))
    atomic_write_csv(folder / "ratings.csv", result.ratings)
    atomic_write_csv(folder / "history.csv", result.history, index=False)
    return {"players": int(len(result.ratings)), "games": int(result.n_games)}


#: kind -> function(unit, folder) that writes the unit's files and returns a small summary
KINDS: dict[str, Callable[[Unit, Path], dict[str, Any]]] = {
    "calibrate": _kind_calibrate,
    "dataset": _kind_dataset,
    "hardness": _kind_hardness,
    "ei": _kind_ei,
    "rate": _kind_rate,
}


# --------------------------------------------------------------------------------------------------
# running one unit (on a worker)
# --------------------------------------------------------------------------------------------------

def _units_dir(out: str | os.PathLike) -> Path:
    return Path(out) / "units"


def is_complete(unit: Unit, out: str | os.PathLike) -> bool:
    """Whether ``OUT/units/<id>`` holds a finished result with this unit's fingerprint."""
    meta = _units_dir(out) / unit.id / "unit.json"
    try:
        return json.loads(meta.read_text(encoding="utf-8")).get("fingerprint") == unit.fingerprint
    except (OSError, ValueError):
        return False


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
    """Rename the finished temporary folder into place; False when another attempt got there first."""
    if final.exists():
        if is_complete(unit, final.parent.parent):
            shutil.rmtree(tmp, ignore_errors=True)
            return False
        stale = final.with_name(f".{final.name}.stale-{uuid.uuid4().hex[:8]}")
        os.rename(final, stale)
        shutil.rmtree(stale, ignore_errors=True)
    try:
        os.rename(tmp, final)
    except OSError:
        # a concurrent duplicate of this unit (a worker presumed dead that was not) finished first
        shutil.rmtree(tmp, ignore_errors=True)
        return False
    return True


def run_unit(unit: Unit, out: str | os.PathLike) -> dict[str, Any]:
    """Compute one unit into ``OUT/units/<id>`` atomically and return its ``unit.json`` content.

    Raises :class:`UnitError` (picklable, with the original error's type and message) when the analysis
    fails, so the scheduler can retry it.
    """
    units = _units_dir(out)
    if is_complete(unit, out):
        return {**json.loads((units / unit.id / "unit.json").read_text(encoding="utf-8")), "status": "skipped"}
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
            "files": sorted(p.name for p in tmp.iterdir()),
        }
        atomic_write_text(tmp / "unit.json", json.dumps(meta, indent=2, allow_nan=False) + "\n")
        make_readable(*tmp.iterdir())
        _publish(tmp, units / unit.id, unit)
    except BaseException as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        _finish_marker(marker, "error")
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        raise UnitError(f"unit {unit.id!r} ({unit.kind}) failed: {type(exc).__name__}: {exc}") from None
    _finish_marker(marker, "done")
    return meta


# --------------------------------------------------------------------------------------------------
# the driver
# --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class BatchResult:
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
        return int((self.units["status"] == "failed").sum())

    def summary(self) -> str:
        counts = self.units["status"].value_counts()
        lines = [
            f"irtbridge batch: {len(self.units)} unit(s) on {self.scheduler}"
            + (f" ({self.workers} workers)" if self.workers else "") + f" in {self.seconds:.1f} s: "
            + ", ".join(f"{int(counts.get(s, 0))} {s}" for s in ("done", "skipped", "failed")),
        ]
        lost = self.units[self.units["interrupted"] > 0]
        for uid, row in lost.iterrows():
            lines.append(f"  {uid}: {int(row['interrupted'])} attempt(s) lost with a worker, recomputed")
        for uid, row in self.units[self.units["status"] == "failed"].iterrows():
            lines.append(f"  FAILED {uid}: {row['error']}")
        lines.append(f"results in {self.out}/units/<id>/, summary in {self.out / 'batch.json'}")
        return "\n".join(lines)


def local_cluster(workers: int | None = None, **kwargs: Any):
    """A Dask ``LocalCluster`` of spawned single-threaded worker processes (one R each).

    Parameters
    ----------
    workers : int, optional
        Number of worker processes (default: the number of CPUs).
    **kwargs
        Passed to ``distributed.LocalCluster``.
    """
    import dask
    from distributed import LocalCluster

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
            DataWarning, stacklevel=2,
        )
        dask.config.set({"distributed.worker.multiprocessing-method": "spawn"})
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
                from distributed import Client

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
            finally:
                if own_client is not None:
                    own_client.close()
                if own is not None:
                    own.close()
    finally:
        bar.close()
    attempts = _collect_attempts(out_dir, manifest.units)
    _clear_leftovers(out_dir)  # temporary folders of attempts that died with their worker
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
    return {"kind": unit.kind, "status": "failed", "error": error, "seconds": 0.0}


def _distributed(client: Any, todo: Sequence[Unit], out: Path, retries: int, bar: Any) -> dict[str, dict[str, Any]]:
    from distributed import as_completed

    futures = {}
    for unit in todo:
        # a fresh key per run: a rerun must recompute, not fetch a result cached by a long-lived cluster
        fut = client.submit(run_unit, unit, str(out), key=f"irtbridge-unit-{unit.id}-{uuid.uuid4().hex[:8]}",
                            retries=retries, pure=False)
        futures[fut] = unit
    rows: dict[str, dict[str, Any]] = {}
    for fut in as_completed(list(futures)):
        unit = futures[fut]
        if fut.status == "finished":
            meta = fut.result()
            rows[unit.id] = {"kind": unit.kind, "status": "done", "error": "", "seconds": meta.get("seconds", 0.0)}
        else:
            try:
                exc = fut.exception()
            except BaseException as lost:  # e.g. cancelled when the scheduler went away
                exc = lost
            # KilledWorker: the unit took down every worker it ran on (allowed-failures times)
            message = str(exc) if isinstance(exc, UnitError) else f"{type(exc).__name__}: {exc}"
            rows[unit.id] = {"kind": unit.kind, "status": "failed", "error": message, "seconds": 0.0}
        bar.update(1)
    return rows
