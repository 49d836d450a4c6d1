"""`irtbridge batch`: manifests, atomic unit results, resume, retries, and a worker killed mid-run.

Expected numbers come from closed forms (EI = (TP + TN) / (FP + FN); score-driven hardness = squared
error), Glickman's published worked example, and mirt called directly in R on the unit's input file.
"""

from __future__ import annotations

import json
import os
import re
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irtbridge.batch import KINDS, load_manifest, run_batch, run_unit
from irtbridge.exceptions import DataWarning, ValidationError
from tests._rrefs import run_r
from tests._cli import status

ROOT = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------------------------------
# inputs
# --------------------------------------------------------------------------------------------------

def _native_inputs(folder: Path) -> dict[str, Path]:
    rng = np.random.default_rng(7)
    y = np.array([0, 1, 0, 1, 1, 0, 0, 1, 0, 1])
    pd.DataFrame({"y": y, "m1": rng.random(10).round(3), "m2": rng.random(10).round(3)}).to_csv(folder / "scores.csv", index=False)
    pd.DataFrame({"name": ["mace", "other"], "tp": [104, 50], "fp": [188, 5], "fn": [10, 5], "tn": [453, 40]}).to_csv(
        folder / "tables.csv", index=False)
    # two new players, one game: Glicko-2 is symmetric, so the winner gains what the loser loses
    pd.DataFrame({"period": [1], "player": ["w"], "opponent": ["l"], "score": [1.0]}).to_csv(folder / "matches.csv", index=False)
    return {"scores": folder / "scores.csv", "tables": folder / "tables.csv", "matches": folder / "matches.csv"}


def _responses(folder: Path, k: int, n: int = 1500, items: int = 12) -> Path:
    rng = np.random.default_rng(100 + k)
    theta = rng.normal(size=n)
    a = rng.uniform(0.8, 2.0, items)
    b = rng.normal(size=items)
    x = (rng.random((n, items)) < 1 / (1 + np.exp(-a * (theta[:, None] - b)))).astype(int)
    path = folder / f"resp{k}.csv"
    pd.DataFrame(x, columns=[f"q{j + 1}" for j in range(items)]).to_csv(path, index=False)
    return path


def _write(path: Path, manifest: dict) -> Path:
    path.write_text(json.dumps(manifest, indent=1))
    return path


def _native_manifest(folder: Path) -> Path:
    _native_inputs(folder)
    return _write(folder / "manifest.json", {"output": "out", "units": [
        {"id": "hard", "kind": "hardness", "data": "scores.csv", "options": {"label": "y", "scores": ["m1", "m2"]}},
        {"id": "ei", "kind": "ei", "data": "tables.csv", "options": {"name": "name"}},
        {"id": "rate", "kind": "rate", "data": "matches.csv"},
    ]})


# --------------------------------------------------------------------------------------------------
# manifests: one test per class of bad input
# --------------------------------------------------------------------------------------------------

def test_manifest_missing(tmp_path):
    with pytest.raises(ValidationError, match="does not exist"):
        load_manifest(tmp_path / "nope.json")


def test_manifest_not_json(tmp_path):
    (tmp_path / "m.json").write_text("{units: [")
    with pytest.raises(ValidationError, match="not valid JSON"):
        load_manifest(tmp_path / "m.json")


def test_manifest_wrong_extension(tmp_path):
    (tmp_path / "m.yaml").write_text("units: []")
    with pytest.raises(ValidationError, match=r"\.json or \.csv"):
        load_manifest(tmp_path / "m.yaml")


def test_manifest_without_units(tmp_path):
    with pytest.raises(ValidationError, match="lists no units"):
        load_manifest(_write(tmp_path / "m.json", {"units": []}))


def test_manifest_duplicate_id(tmp_path):
    _native_inputs(tmp_path)
    unit = {"id": "x", "kind": "ei", "data": "tables.csv"}
    with pytest.raises(ValidationError, match="used twice"):
        load_manifest(_write(tmp_path / "m.json", {"units": [unit, unit]}))


def test_manifest_unsafe_id(tmp_path):
    _native_inputs(tmp_path)
    with pytest.raises(ValidationError, match="id '../x'"):
        load_manifest(_write(tmp_path / "m.json", {"units": [{"id": "../x", "kind": "ei", "data": "tables.csv"}]}))


def test_manifest_unknown_kind(tmp_path):
    _native_inputs(tmp_path)
    with pytest.raises(ValidationError, match="kind 'fitt' is not supported"):
        load_manifest(_write(tmp_path / "m.json", {"units": [{"id": "x", "kind": "fitt", "data": "tables.csv"}]}))


def test_manifest_missing_input(tmp_path):
    with pytest.raises(ValidationError, match="input file .* does not exist"):
        load_manifest(_write(tmp_path / "m.json", {"units": [{"id": "x", "kind": "ei", "data": "gone.csv"}]}))


def test_manifest_options_not_object(tmp_path):
    _native_inputs(tmp_path)
    with pytest.raises(ValidationError, match="options must be a JSON object"):
        load_manifest(_write(tmp_path / "m.json", {"units": [{"id": "x", "kind": "ei", "data": "tables.csv", "options": [1]}]}))


def test_csv_manifest(tmp_path):
    _native_inputs(tmp_path)
    pd.DataFrame({"id": ["a"], "kind": ["ei"], "data": ["tables.csv"], "options": ['{"name": "name"}']}).to_csv(
        tmp_path / "m.csv", index=False)
    m = load_manifest(tmp_path / "m.csv")
    assert [u.id for u in m.units] == ["a"]
    assert m.units[0].options == {"name": "name"}
    assert m.output == (tmp_path / "m-results").resolve()


def test_cli_bad_manifest_exits_2(tmp_path):
    assert status(["batch", str(tmp_path / "missing.json")]) == 2


# --------------------------------------------------------------------------------------------------
# native units, serial: results, resume, changed inputs, failures
# --------------------------------------------------------------------------------------------------

def test_native_units_numbers(tmp_path):
    res = run_batch(_native_manifest(tmp_path), scheduler="serial")
    assert res.n_failed == 0 and (res.units["status"] == "done").all()
    units = res.out / "units"

    ei = pd.read_csv(units / "ei" / "ei.csv", index_col=0)
    # closed form: EI = (TP + TN) / (FP + FN); 557/198 for the MACE table of Larner (2023)
    assert ei.loc["mace", "ei"] == pytest.approx(557 / 198, rel=1e-12)  # exact ratio: float rounding only
    assert ei.loc["other", "ei"] == pytest.approx(90 / 10, rel=1e-12)

    scores = pd.read_csv(tmp_path / "scores.csv")
    hard = pd.read_csv(units / "hard" / "instances.csv", index_col=0)
    # score-driven hardness (Prudêncio, cost-sensitive instance hardness, T(c) = c): squared error (1 - s)^2 for class 1, s^2 for class 0,
    # averaged over the pool
    s = scores[["m1", "m2"]].to_numpy()
    expected = np.where(scores["y"].to_numpy()[:, None] == 1, (1 - s) ** 2, s**2).mean(axis=1)
    np.testing.assert_allclose(hard["sd"].to_numpy(), expected, rtol=1e-12)  # closed form, float rounding only

    ratings = pd.read_csv(units / "rate" / "ratings.csv", index_col=0)
    # Glicko-2 from the symmetric start 1500/350/0.06: r_w - 1500 = 1500 - r_l, equal RDs; by hand
    # (Glickman 2012, steps 3-8 with sigma' ~ 0.06) the winner reaches about 1662.3
    assert ratings.loc["w", "rating"] - 1500 == pytest.approx(1500 - ratings.loc["l", "rating"], abs=1e-9)
    assert ratings.loc["w", "rd"] == pytest.approx(ratings.loc["l", "rd"], abs=1e-9)
    assert ratings.loc["w", "rating"] == pytest.approx(1662.3, abs=0.1)  # hand computation to 0.1 point

    meta = json.loads((units / "ei" / "unit.json").read_text())
    assert meta["status"] == "done" and meta["fingerprint"] and "ei.csv" in meta["files"]
    summary = json.loads((res.out / "batch.json").read_text())
    assert summary["counts"] == {"done": 3, "skipped": 0, "failed": 0}


def test_rerun_skips_completed_units(tmp_path):
    manifest = _native_manifest(tmp_path)
    first = run_batch(manifest, scheduler="serial")
    stamps = {p: p.stat().st_mtime_ns for p in (first.out / "units").rglob("*.csv")}
    again = run_batch(manifest, scheduler="serial")
    assert (again.units["status"] == "skipped").all()
    assert (again.units["attempts"] == 0).all()
    assert {p: p.stat().st_mtime_ns for p in (first.out / "units").rglob("*.csv")} == stamps


def test_changed_input_is_recomputed(tmp_path):
    manifest = _native_manifest(tmp_path)
    run_batch(manifest, scheduler="serial")
    pd.DataFrame({"name": ["mace", "other"], "tp": [1, 50], "fp": [1, 5], "fn": [1, 5], "tn": [1, 40]}).to_csv(
        tmp_path / "tables.csv", index=False)
    again = run_batch(manifest, scheduler="serial")
    assert again.units.loc["ei", "status"] == "done"
    assert again.units.loc["hard", "status"] == "skipped"
    ei = pd.read_csv(again.out / "units" / "ei" / "ei.csv", index_col=0)
    assert ei.loc["mace", "ei"] == pytest.approx(1.0, rel=1e-12)  # (1 + 1) / (1 + 1)


def test_failed_unit_is_reported_at_once_not_retried(tmp_path):
    """A missing column fails the same way every time: one attempt, the folder marked failed."""
    _native_inputs(tmp_path)
    pd.DataFrame({"tp": [1], "fp": [2]}).to_csv(tmp_path / "broken.csv", index=False)
    manifest = _write(tmp_path / "m.json", {"output": "out", "retries": 2, "units": [
        {"id": "good", "kind": "ei", "data": "tables.csv", "options": {"name": "name"}},
        {"id": "broken", "kind": "ei", "data": "broken.csv"},
    ]})
    res = run_batch(manifest, scheduler="serial")
    assert res.units.loc["good", "status"] == "done"
    assert res.units.loc["broken", "status"] == "failed"
    assert res.units.loc["broken", "attempts"] == 1  # deterministic: no retry
    assert "no column(s) 'fn', 'tn'" in res.units.loc["broken", "error"]
    # nothing half-written: the failed unit's folder holds its unit.json alone, saying why
    assert [p.name for p in (res.out / "units" / "broken").iterdir()] == ["unit.json"]
    meta = json.loads((res.out / "units" / "broken" / "unit.json").read_text())
    assert meta["status"] == "failed" and meta["error"] == res.units.loc["broken", "error"] and meta["transient"] is False
    assert not any(p.name.startswith(".") for p in (res.out / "units").iterdir())
    summary = json.loads((res.out / "batch.json").read_text())
    assert summary["counts"]["failed"] == 1
    assert "FAILED broken" in res.summary()


def test_transient_error_is_retried(tmp_path, monkeypatch):
    """An OSError (a file system hiccup) is retried; the retry's result replaces the failed folder."""
    from irtbridge.batch import kinds

    manifest = _native_manifest(tmp_path)
    real = KINDS["ei"]
    calls = []

    def flaky(unit, folder):
        calls.append(1)
        if len(calls) == 1:
            raise OSError("stale file handle")
        return real(unit, folder)

    monkeypatch.setitem(kinds.KINDS, "ei", flaky)
    res = run_batch(manifest, scheduler="serial", retries=2)
    assert res.units.loc["ei", "status"] == "done" and res.units.loc["ei", "attempts"] == 2
    meta = json.loads((res.out / "units" / "ei" / "unit.json").read_text())
    assert meta["status"] == "done" and "ei.csv" in meta["files"]


def test_transient_error_retried_then_reported(tmp_path, monkeypatch):
    from irtbridge.batch import kinds

    manifest = _native_manifest(tmp_path)

    def always(unit, folder):
        raise OSError("disk full")

    monkeypatch.setitem(kinds.KINDS, "ei", always)
    res = run_batch(manifest, scheduler="serial", retries=2)
    assert res.units.loc["ei", "status"] == "failed" and res.units.loc["ei", "attempts"] == 3
    meta = json.loads((res.out / "units" / "ei" / "unit.json").read_text())
    assert meta["status"] == "failed" and meta["transient"] is True and "disk full" in meta["error"]


def test_cli_exit_code_reports_failure(tmp_path, capsys):
    from irtbridge.cli import main

    _native_inputs(tmp_path)
    pd.DataFrame({"tp": [1]}).to_csv(tmp_path / "broken.csv", index=False)
    manifest = _write(tmp_path / "m.json", {"units": [{"id": "b", "kind": "ei", "data": "broken.csv"}]})
    assert main(["batch", str(manifest), "--scheduler", "serial", "--retries", "0", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["counts"] == {"done": 0, "skipped": 0, "failed": 1}
    assert out["units"][0]["error"].startswith("unit 'b' (ei) failed: ValidationError")


def test_unit_result_is_atomic(tmp_path, monkeypatch):
    """A unit that dies while writing leaves no result, only a failed unit.json: the next run computes it."""
    manifest = load_manifest(_native_manifest(tmp_path))
    unit = next(u for u in manifest.units if u.id == "ei")

    def crash(u, folder):
        (folder / "ei.csv").write_text("half")
        raise RuntimeError("power cut")

    monkeypatch.setitem(KINDS, "ei", crash)
    with pytest.raises(Exception, match="power cut"):
        run_unit(unit, manifest.output)
    # the half-written file is gone: the folder says the unit failed, and why
    assert [p.name for p in (manifest.output / "units" / "ei").iterdir()] == ["unit.json"]
    assert not [p for p in (manifest.output / "units").iterdir() if ".tmp-" in p.name]
    monkeypatch.undo()
    res = run_batch(manifest, scheduler="serial")
    assert res.units.loc["ei", "status"] == "done"
    assert pd.read_csv(manifest.output / "units" / "ei" / "ei.csv", index_col=0).shape[0] == 2


# --------------------------------------------------------------------------------------------------
# two-worker local cluster, R in every worker, one worker killed mid-run
# --------------------------------------------------------------------------------------------------

def _frames_equal(a: Path, b: Path) -> None:
    for csv in sorted(a.rglob("*.csv")):
        other = b / csv.relative_to(a)
        assert other.exists(), other
        left, right = pd.read_csv(csv, index_col=0), pd.read_csv(other, index_col=0)
        # same code and data in two processes; BLAS thread counts differ (1 in workers), so allow
        # last-bit differences from a different summation order
        pd.testing.assert_frame_equal(left, right, rtol=1e-10, atol=1e-12)


@pytest.mark.r
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")  # tornado inside distributed
def test_two_workers_survive_a_killed_worker(tmp_path):
    from distributed import Client

    from irtbridge._r import session
    from irtbridge.batch import local_cluster

    # R is running in this (driver) process: a worker forked from it would inherit R and fail the
    # bridge's fork guard, so every calibrate unit succeeding shows the workers were spawned
    session.call("irtb_versions", packages=["mirt"])
    assert session.started()

    data = tmp_path / "data"
    data.mkdir()
    _native_inputs(data)
    # 2PL fits: what is checked is the workers' survival and the results' equality (serial, mirt), for
    # which a 2PL's fit is as good a witness as a 3PL's at a third of the time
    units = [{"id": f"cal{k}", "kind": "calibrate", "data": _responses(data, k).name,
              "options": {"model": "2PL", "engine": "mirt", "se": False}} for k in range(4)]
    units += [
        {"id": "hard", "kind": "hardness", "data": "scores.csv", "options": {"label": "y", "scores": ["m1", "m2"]}},
        {"id": "ei", "kind": "ei", "data": "tables.csv", "options": {"name": "name"}},
    ]
    manifest = _write(data / "manifest.json", {"units": units})

    out = tmp_path / "distributed"
    killed: list[str] = []

    def kill_first_running_calibration():
        attempts = out / "units" / ".attempts"
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and not killed:
            for marker in attempts.glob("cal*/*.running") if attempts.exists() else []:
                pid = int(marker.name.split("-")[-2])
                if pid != os.getpid():
                    os.kill(pid, signal.SIGKILL)
                    killed.append(marker.parent.name)
                    return
            time.sleep(0.005)

    cluster = local_cluster(2)
    try:
        with Client(cluster) as client:
            assert len(client.scheduler_info()["workers"]) == 2
            # the nanny reads this each time it (re)starts a worker, the killed one included
            assert __import__("dask").config.get("distributed.worker.multiprocessing-method") in ("spawn", "forkserver")
            pids = set(client.run(os.getpid).values())
            assert os.getpid() not in pids and len(pids) == 2
            killer = threading.Thread(target=kill_first_running_calibration, daemon=True)
            killer.start()
            res = run_batch(manifest, out=out, client=client, scheduler="local")
            killer.join(timeout=5)
    finally:
        cluster.close()

    assert killed, "no calibration was seen running"
    assert (res.units["status"] == "done").all(), res.units
    assert res.units.loc[killed[0], "interrupted"] >= 1  # its attempt died with the worker ...
    assert res.units.loc[killed[0], "attempts"] >= 2     # ... and it was recomputed elsewhere
    assert not any(p.name.startswith(".") for p in (out / "units").iterdir())

    serial = run_batch(manifest, out=tmp_path / "serial", scheduler="serial")
    assert (serial.units["status"] == "done").all()
    _frames_equal(out / "units", tmp_path / "serial" / "units")
    _frames_equal(tmp_path / "serial" / "units", out / "units")

    # the calibrate unit against mirt itself, called directly on the same file
    script = tmp_path / "mirt.R"
    script.write_text(
        "args <- commandArgs(TRUE)\n"
        "suppressMessages(library(mirt))\n"
        "d <- read.csv(args[1])\n"
        "fit <- mirt(d, 1, itemtype = '2PL', verbose = FALSE)\n"
        "write.csv(coef(fit, IRTpars = TRUE, simplify = TRUE)$items, args[2])\n"
    )
    run_r(["Rscript", str(script), str(data / "resp0.csv"), str(tmp_path / "mirt.csv")], check=True,
                   env={**os.environ, "TZ": "UTC"}, capture_output=True)
    ref = pd.read_csv(tmp_path / "mirt.csv", index_col=0)
    ours = pd.read_csv(out / "units" / "cal0" / "items.csv", index_col=0)
    # same engine, same data and defaults: equal up to CSV round-tripping (15 significant digits)
    np.testing.assert_allclose(ours[["a", "b", "g", "u"]].to_numpy(), ref[["a", "b", "g", "u"]].to_numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.r
@pytest.mark.slow
def test_dataset_unit_is_the_evaluate_unit(tmp_path):
    """A `dataset` unit on a CSV: the per-dataset pipeline of `irtbridge evaluate`, written to files."""
    from sklearn.datasets import load_breast_cancer

    bunch = load_breast_cancer(as_frame=True)
    frame = bunch.frame.iloc[::3, [0, 1, 2, 3, 4, 5, -1]].reset_index(drop=True)
    frame.to_csv(tmp_path / "bc.csv", index=False)
    manifest = _write(tmp_path / "m.json", {"units": [{
        "id": "bc", "kind": "dataset", "data": "bc.csv", "target": "target",
        "options": {"pool": "quick", "max_items": 40, "seed": 3},
    }]})
    res = run_batch(manifest, scheduler="serial")
    assert res.units.loc["bc", "status"] == "done", res.units.loc["bc", "error"]
    unit = res.out / "units" / "bc"
    items = pd.read_csv(unit / "items.csv", index_col=0)
    responses = pd.read_csv(unit / "responses.csv", index_col=0)
    ei = pd.read_csv(unit / "ei.csv", index_col=0)
    assert len(responses.columns) == 40 and set(items.index.astype(str)) <= set(responses.columns)
    assert {"optimal", "pessimal"} <= set(responses.index)
    # closed forms: every classifier's 2 x 2 table covers the 40 test instances, and EI = (TP + TN) / (FP + FN)
    assert (ei[["tp", "fp", "fn", "tn"]].sum(axis=1) == 40).all()
    np.testing.assert_allclose(ei["ei"], (ei["tp"] + ei["tn"]) / (ei["fp"] + ei["fn"]), rtol=1e-12)
    np.testing.assert_array_equal((ei["tp"] + ei["tn"]).to_numpy(), responses.loc[ei.index].sum(axis=1).to_numpy())
    result = json.loads((unit / "unit.json").read_text())["result"]
    assert result["engine"] in ("ltm", "mirt")
    # the structured calibration attempts and warnings are written as the strings they always were
    assert all(re.fullmatch(r"(ltm|mirt): (converged|not converged|error)( \(.*\))?, \d+\.\d s", a) for a in result["attempts"])
    assert result["attempts"] and all(isinstance(w, str) and ": " in w for w in result["r_warnings"])


def test_local_cluster_refuses_fork(monkeypatch):
    """A 'fork' setting is replaced by 'spawn' (with a warning) before any worker starts."""
    import dask

    import irtbridge.batch as batch

    started = {}

    class FakeCluster:
        def __init__(self, **kw):
            started["method"] = dask.config.get("distributed.worker.multiprocessing-method")
            started.update(kw)

    monkeypatch.setattr("distributed.LocalCluster", FakeCluster)
    with dask.config.set({"distributed.worker.multiprocessing-method": "fork"}):
        with pytest.warns(DataWarning, match="forked worker would inherit"):
            batch.local_cluster(2)
    assert started["method"] == "spawn"
    assert started["n_workers"] == 2 and started["threads_per_worker"] == 1 and started["processes"] is True


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")  # tornado inside distributed
def test_existing_scheduler_address(tmp_path):
    """`--scheduler tcp://...`: the units go to a cluster that is already running, which stays up."""
    from distributed import Client

    from irtbridge.batch import local_cluster

    manifest = _native_manifest(tmp_path)
    cluster = local_cluster(1)
    try:
        res = run_batch(manifest, scheduler=cluster.scheduler_address)
        assert (res.units["status"] == "done").all() and res.workers == 1
        with Client(cluster.scheduler_address) as client:  # still there for the next batch
            assert len(client.scheduler_info()["workers"]) == 1
    finally:
        cluster.close()
    serial = run_batch(manifest, out=tmp_path / "serial", scheduler="serial")
    for name in ("hard/instances.csv", "ei/ei.csv", "rate/ratings.csv"):
        left = pd.read_csv(res.out / "units" / name, index_col=0)
        right = pd.read_csv(serial.out / "units" / name, index_col=0)
        pd.testing.assert_frame_equal(left, right)  # native, same code: identical


def test_bad_scheduler_address(tmp_path):
    with pytest.raises(ValidationError, match="--scheduler"):
        run_batch(_native_manifest(tmp_path), scheduler="nowhere")
