"""Batch results never outlive their input (issue 34, item 5).

The scenario of the issue: a unit completes; its CSV is corrupted; the rerun says `failed` in
batch.json and exits 1. Its folder must then hold only a unit.json saying "failed", with the error and
the digest of the corrupted input, never the previous input's results; batch.json and every unit.json
agree.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irtbridge.batch import load_manifest, mark_failed, run_batch
from irtbridge.batch.run import _agree
from irtbridge.cli import main


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _agreement(out: Path) -> dict[str, str]:
    """Each unit's status, once from batch.json and once from its unit.json: they must be the same."""
    summary = json.loads((out / "batch.json").read_text())
    statuses = {}
    for row in summary["units"]:
        meta = json.loads((out / "units" / row["id"] / "unit.json").read_text())
        assert meta["status"] in ("done", "failed")
        assert (row["status"] == "failed") == (meta["status"] == "failed"), (row, meta)
        if row["status"] == "failed":
            assert row["error"] == meta["error"]
        statuses[row["id"]] = meta["status"]
    return statuses


def _assert_failed_folder(folder: Path, data: Path) -> dict:
    assert sorted(p.name for p in folder.iterdir()) == ["unit.json"]  # the old outputs are gone
    meta = json.loads((folder / "unit.json").read_text())
    assert meta["status"] == "failed" and meta["error"]
    assert meta["digest"] == _digest(data)  # the input that failed, not the one that succeeded before
    assert meta["files"] == ["unit.json"]
    return meta


def _corrupt(path: Path) -> None:
    # a truncated upload: the header and half a row
    text = path.read_text()
    path.write_text(text[: text.index("\n") + 4])


def _one_table(folder: Path, **top) -> Path:
    """A manifest of one ei unit on one 2 x 2 table."""
    pd.DataFrame({"name": ["a"], "tp": [5], "fp": [1], "fn": [2], "tn": [9]}).to_csv(folder / "t.csv", index=False)
    manifest = folder / "m.json"
    manifest.write_text(json.dumps({"output": "out", **top, "units": [
        {"id": "t", "kind": "ei", "data": "t.csv", "options": {"name": "name"}}]}))
    return manifest


def test_corrupted_input_replaces_old_results_by_a_failed_folder(tmp_path, capsys):
    pd.DataFrame({"name": ["a", "b"], "tp": [5, 7], "fp": [1, 2], "fn": [2, 1], "tn": [9, 8]}).to_csv(
        tmp_path / "tables.csv", index=False)
    pd.DataFrame({"name": ["c"], "tp": [1], "fp": [1], "fn": [1], "tn": [1]}).to_csv(tmp_path / "other.csv", index=False)
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps({"output": "out", "units": [
        {"id": "t", "kind": "ei", "data": "tables.csv", "options": {"name": "name"}},
        {"id": "o", "kind": "ei", "data": "other.csv", "options": {"name": "name"}},
    ]}))
    assert main(["batch", str(manifest), "--scheduler", "serial", "--json"]) == 0
    out = tmp_path / "out"
    first = json.loads((out / "units" / "t" / "unit.json").read_text())
    assert first["status"] == "done" and (out / "units" / "t" / "ei.csv").exists()

    _corrupt(tmp_path / "tables.csv")
    capsys.readouterr()
    assert main(["batch", str(manifest), "--scheduler", "serial", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert {u["id"]: u["status"] for u in report["units"]} == {"t": "failed", "o": "skipped"}
    meta = _assert_failed_folder(out / "units" / "t", tmp_path / "tables.csv")
    assert meta["digest"] != first["digest"]
    assert _agreement(out) == {"t": "failed", "o": "done"}

    # the input repaired: the unit is computed again and its folder is a result once more
    pd.DataFrame({"name": ["a"], "tp": [3], "fp": [1], "fn": [1], "tn": [3]}).to_csv(tmp_path / "tables.csv", index=False)
    again = run_batch(manifest, scheduler="serial")
    assert again.units.loc["t", "status"] == "done"
    ei = pd.read_csv(out / "units" / "t" / "ei.csv", index_col=0)
    assert ei.loc["a", "ei"] == pytest.approx(6 / 2, rel=1e-12)  # (TP + TN) / (FP + FN)
    assert _agreement(out) == {"t": "done", "o": "done"}


def test_a_failed_unit_is_tried_again_on_the_next_run(tmp_path):
    pd.DataFrame({"tp": [1]}).to_csv(tmp_path / "t.csv", index=False)
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps({"units": [{"id": "t", "kind": "ei", "data": "t.csv"}]}))
    first = run_batch(manifest, scheduler="serial")
    second = run_batch(manifest, scheduler="serial")
    assert first.units.loc["t", "status"] == second.units.loc["t", "status"] == "failed"
    assert second.units.loc["t", "attempts"] == 1  # not skipped: a failure is not a finished result


def test_driver_marks_a_unit_whose_worker_died(tmp_path):
    """A unit that failed without a word from its worker (KilledWorker) gets its failed folder from the driver."""
    manifest = _one_table(tmp_path)
    run_batch(manifest, scheduler="serial")
    pd.DataFrame({"name": ["a"], "tp": [6], "fp": [1], "fn": [2], "tn": [9]}).to_csv(tmp_path / "t.csv", index=False)
    unit = load_manifest(manifest).units[0]
    out = tmp_path / "out"
    row = {"kind": "ei", "status": "failed", "error": "KilledWorker: attempted to run task on 3 workers", "seconds": 0.0}
    assert _agree(out, unit, row) == row
    meta = _assert_failed_folder(out / "units" / "t", tmp_path / "t.csv")
    assert meta["error"] == row["error"]


def test_a_failure_never_replaces_a_finished_result_of_the_same_input(tmp_path):
    """A late duplicate attempt that fails (a worker presumed dead) leaves the finished result alone."""
    manifest = _one_table(tmp_path)
    run_batch(manifest, scheduler="serial")
    unit = load_manifest(manifest).units[0]
    assert mark_failed(unit, tmp_path / "out", "late duplicate") is False
    assert json.loads((tmp_path / "out" / "units" / "t" / "unit.json").read_text())["status"] == "done"
    assert (tmp_path / "out" / "units" / "t" / "ei.csv").exists()


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")  # tornado inside distributed
def test_distributed_deterministic_failure_is_not_retried(tmp_path):
    """On Dask too: one attempt, the folder marked failed by the worker, batch.json agreeing."""
    from irtbridge.batch import local_cluster

    manifest = _one_table(tmp_path, retries=3)
    cluster = local_cluster(1)
    try:
        run_batch(manifest, scheduler=cluster.scheduler_address)
        _corrupt(tmp_path / "t.csv")
        res = run_batch(manifest, scheduler=cluster.scheduler_address)
    finally:
        cluster.close()
    assert res.units.loc["t", "status"] == "failed" and res.units.loc["t", "attempts"] == 1
    _assert_failed_folder(tmp_path / "out" / "units" / "t", tmp_path / "t.csv")
    assert _agreement(tmp_path / "out") == {"t": "failed"}


def _responses(path: Path, n: int = 600, items: int = 6, seed: int = 5) -> None:
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n)
    b = np.linspace(-1.5, 1.5, items)
    x = (rng.random((n, items)) < 1 / (1 + np.exp(-1.3 * (theta[:, None] - b)))).astype(int)
    pd.DataFrame(x, columns=[f"q{j + 1}" for j in range(items)]).to_csv(path, index=False)


@pytest.mark.r
def test_the_issue_scenario_with_a_calibrate_unit(tmp_path, capsys):
    """The exact scenario of the issue: calibrate done, CSV corrupted, rerun failed, exit 1, no old items.csv."""
    _responses(tmp_path / "resp.csv")
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps({"output": "results", "units": [
        {"id": "cal", "kind": "calibrate", "data": "resp.csv", "options": {"model": "2PL", "se": False}}]}))
    assert main(["batch", str(manifest), "--scheduler", "serial"]) == 0
    folder = tmp_path / "results" / "units" / "cal"
    assert (folder / "items.csv").exists()
    assert json.loads((folder / "unit.json").read_text())["status"] == "done"

    # corrupted: a cell that is no answer at all
    text = (tmp_path / "resp.csv").read_text().splitlines()
    text[3] = "x" + text[3][1:]
    (tmp_path / "resp.csv").write_text("\n".join(text) + "\n")
    capsys.readouterr()
    assert main(["batch", str(manifest), "--scheduler", "serial", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["units"][0]["status"] == "failed" and report["counts"]["failed"] == 1
    meta = _assert_failed_folder(folder, tmp_path / "resp.csv")
    assert "ValidationError" in meta["error"] and meta["transient"] is False
    assert report["units"][0]["attempts"] == 1  # a data error is not retried
    assert _agreement(tmp_path / "results") == {"cal": "failed"}


def test_which_errors_are_retried():
    from irtbridge.batch import is_transient
    from irtbridge.exceptions import RError, ValidationError

    assert not is_transient(ValidationError("responses: item 'q1' is not 0/1"))
    assert not is_transient(RError("R error in mirt(): subscript out of bounds"))
    assert not is_transient(ValueError("a bug"))
    assert is_transient(OSError(28, "No space left on device"))
    assert is_transient(MemoryError())
    assert is_transient(RError("R error in mirt(): cannot allocate vector of size 3.2 Gb"))
