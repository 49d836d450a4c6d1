"""Faults a user meets: Ctrl-C, a worker killed, an unwritable or full output, two runs into one folder.

Each test asserts what the user is left with (exit status, one line on stderr, the output folder). No
test measures time: waits are on events (progress on stderr, R loaded in a process) with generous
timeouts only so that a regression cannot hang the suite.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests._synthetic import synthetic_evaluation

from irtbridge._outdir import MARKER, lock_path, output_lock, staged_output
from irtbridge.cli import main
from irtbridge.exceptions import OutputBusyError, OutputError
from irtbridge.report import write_report

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "TZ": "UTC", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
HANG = 180  # seconds: only a guard against hanging, never an expectation


def _popen(cmd: list[str]) -> subprocess.Popen:
    """A child as a terminal starts it: its own process group, and SIGINT at its default. A shell that runs
    the test suite in the background (``pytest &``) passes SIGINT on as ignored, and Python started with
    SIGINT ignored keeps ignoring it: the child would never see the Ctrl-C these tests send."""
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _previous_output(out: Path) -> None:
    """A complete output of an earlier run (with irtbridge's marker, so a new run may replace it), to be found
    intact."""
    (out / "tables").mkdir(parents=True)
    (out / MARKER).write_text('{"written_by": "irtbridge", "command": "evaluate"}\n')
    (out / "summary.json").write_text('{"run": "previous"}\n')
    (out / "tables" / "responses_old.csv").write_text("x\n1\n")


def _is_previous(out: Path) -> bool:
    return (json.loads((out / "summary.json").read_text()) == {"run": "previous"}
            and sorted(p.name for p in (out / "tables").iterdir()) == ["responses_old.csv"])


def _leftovers(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(out.name + "."))


def _start(out: Path, *extra: str, datasets=("iris", "wine")) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "irtbridge", "evaluate", "--quick", "--datasets", *datasets, "--out", str(out), *extra]
    return _popen(cmd)


def _session(sid: int) -> list[str]:
    """Live processes of a session, with their command lines: not zombies (a container's pid 1 may not reap
    orphans), and not a process already exiting (its memory, command line included, is gone: on a busy
    machine a worker the parent ended can still be tearing down when the parent's own exit is seen)."""
    ps = subprocess.run(["ps", "-e", "-o", "pid=,sid=,stat="], capture_output=True, text=True).stdout
    live = []
    for ln in ps.splitlines():
        pid, session, stat = ln.split()[:3]
        if session != str(sid) or stat.startswith("Z"):
            continue
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:  # gone since ps looked
            continue
        if command:
            live.append(f"{pid} {command}")
    return live


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def _has_r(pid: int, library: str = "libR.so") -> bool:
    """Whether R (or an R package's shared library) is loaded in the process."""
    try:
        return library in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


def _wait(cond, proc: subprocess.Popen, what: str, every: float = 0.1):
    """Poll ``cond()`` every ``every`` seconds until it is truthy (the run must still be going)."""
    deadline = time.monotonic() + HANG
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        if proc.poll() is not None:
            pytest.fail(f"the run ended (status {proc.returncode}) before {what}: {proc.stderr.read().decode()}")
        time.sleep(every)
    proc.kill()
    pytest.fail(f"no {what} within {HANG} s")


def _finish(proc: subprocess.Popen) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=HANG)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("the run did not end")
    return proc.returncode, out.decode(), err.decode()


def _assert_interrupted(code: int, err: str) -> None:
    assert code == 130, err
    assert err.rstrip().splitlines()[-1] == "irtbridge evaluate: interrupted"
    assert "Traceback" not in err and "Exception ignored" not in err, err


# --------------------------------------------------------------------------------------------------
# Ctrl-C
# --------------------------------------------------------------------------------------------------

@pytest.mark.r
@pytest.mark.slow
def test_ctrl_c_to_the_group_ends_the_run_and_its_workers_and_keeps_the_previous_output(tmp_path):
    out = tmp_path / "report"
    _previous_output(out)
    # more units than workers: units still queued when Ctrl-C comes must not make the pool print a traceback
    proc = _start(out, "--jobs", "2", datasets=("iris", "wine", "breast_cancer", "Sonar"))
    # mid-run: a worker is calibrating (mirt loaded in its R)
    _wait(lambda: any(_has_r(c, "mirt.so") for c in _children(proc.pid)), proc, "a worker running mirt")
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal sends
    code, _, err = _finish(proc)
    _assert_interrupted(code, err)
    assert _session(proc.pid) == []
    assert _is_previous(out)
    assert _leftovers(out) == []


@pytest.mark.r
@pytest.mark.slow
def test_ctrl_c_stops_r_running_in_the_main_process(tmp_path):
    out = tmp_path / "report"
    proc = _start(out, "--jobs", "1")
    _wait(lambda: _has_r(proc.pid), proc, "R started in the main process")
    os.kill(proc.pid, signal.SIGINT)  # the main process alone
    code, _, err = _finish(proc)
    _assert_interrupted(code, err)
    assert _session(proc.pid) == []
    assert not out.exists() and _leftovers(out) == []


@pytest.mark.r
@pytest.mark.slow
def test_ctrl_c_stops_a_calibration_in_r(tmp_path):
    from tests.batch.test_batch import _responses

    data = _responses(tmp_path, 1, n=20000, items=40)  # a 3PL fit of many seconds
    cmd = [sys.executable, "-m", "irtbridge", "calibrate", str(data), "--model", "3PL", "--out", str(tmp_path / "items.csv")]
    proc = _popen(cmd)
    _wait(lambda: _has_r(proc.pid, "mirt.so"), proc, "mirt loaded in R")
    os.killpg(proc.pid, signal.SIGINT)
    code, _, err = _finish(proc)
    assert code == 130, err
    assert err.strip() == "irtbridge calibrate: interrupted"  # nothing from R or rpy2 either
    assert _session(proc.pid) == []
    assert not (tmp_path / "items.csv").exists()


def test_a_python_caller_gets_keyboard_interrupt_and_the_previous_output(tmp_path):
    out = tmp_path / "report"
    _previous_output(out)
    with pytest.raises(KeyboardInterrupt):
        with staged_output(out) as stage:
            (stage / "summary.json").write_text("{}")
            raise KeyboardInterrupt
    assert _is_previous(out) and _leftovers(out) == []


# --------------------------------------------------------------------------------------------------
# a worker killed
# --------------------------------------------------------------------------------------------------

@pytest.mark.r
@pytest.mark.slow
def test_kill_9_of_one_worker_names_its_dataset_as_failed_and_keeps_the_others(tmp_path):
    out = tmp_path / "report"
    proc = _start(out, "--jobs", "2")
    victim = _wait(lambda: next((c for c in _children(proc.pid) if _has_r(c, "mirt.so")), None), proc,
                   "a worker running mirt")
    os.kill(victim, signal.SIGKILL)
    code, stdout, err = _finish(proc)
    # the killed worker's dataset failed: exit 1, and stderr names it (the report of the other is kept)
    assert code == 1, err
    assert "1 of 2 dataset(s) failed" in err, err
    assert "Traceback" not in err
    summary = json.loads((out / "summary.json").read_text())
    table = (out / "tables" / "datasets.csv").read_text().splitlines()
    failed = [row for row in table[1:] if "worker process died" in row]
    assert len(failed) == 1, table
    assert len(table) == 3  # header, the dataset that failed, the dataset that was kept
    assert "1 of 2 dataset(s) evaluated" in stdout, stdout
    assert summary["report"] == str(out / "index.html")


# --------------------------------------------------------------------------------------------------
# output folders
# --------------------------------------------------------------------------------------------------

def test_an_unwritable_out_is_one_line_and_exit_2(tmp_path, capsys):
    # tests run as root, for whom permission bits do not stop a write: a folder under a regular file can
    # never be created, by anyone
    blocker = tmp_path / "a-file"
    blocker.write_text("keep me")
    out = blocker / "report"
    code = main(["evaluate", "--quick", "--datasets", "iris", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "--out" in err and str(out) in err, err
    assert blocker.read_text() == "keep me"


@pytest.fixture
def small_disk(tmp_path):
    """A 256 KiB tmpfs: too small for a report."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mnt)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"a small tmpfs cannot be mounted here (needs root or CAP_SYS_ADMIN): {done.stderr.strip()}")
    yield mnt
    subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_a_full_disk_fails_in_one_line_and_keeps_the_previous_report(small_disk):
    out = small_disk / "report"
    _previous_output(out)
    with pytest.raises(OutputError, match="report.*writing failed.*previous output is unchanged"):
        write_report(synthetic_evaluation(), out)
    assert _is_previous(out)
    assert _leftovers(out) == []


def test_a_second_run_into_a_folder_being_written_exits_2_at_once(tmp_path, capsys):
    out = tmp_path / "report"
    _previous_output(out)
    # a real concurrent writer: another process holding the folder
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from irtbridge._outdir import output_lock\n"
                               f"with output_lock({str(out)!r}):\n    print('locked', flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=ENV)
    try:
        assert holder.stdout.readline().strip() == b"locked"
        code = main(["evaluate", "--quick", "--datasets", "iris", "--out", str(out)])
        err = capsys.readouterr().err
        assert code == 2
        assert len(err.strip().splitlines()) == 1 and f"pid {holder.pid}" in err and str(out) in err, err
        with pytest.raises(OutputBusyError):
            write_report(synthetic_evaluation(), out)
    finally:
        holder.communicate(b"", timeout=HANG)
    assert _is_previous(out)
    assert not lock_path(out).exists()


def test_a_lock_left_by_a_dead_run_is_taken_over(tmp_path):
    out = tmp_path / "report"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    lock_path(out).write_text(dead.stdout)
    with output_lock(out):
        assert lock_path(out).read_text().strip() == str(os.getpid())
    assert not lock_path(out).exists()


def test_a_new_run_replaces_the_old_output_whole(tmp_path):
    out = tmp_path / "report"
    _previous_output(out)
    files = write_report(synthetic_evaluation(), out)
    assert not (out / "tables" / "responses_old.csv").exists()  # nothing of the earlier run mixes in
    assert sorted(p.name for p in (out / "tables").iterdir()) == sorted(p.name for p in files.tables.values())
    assert json.loads(files.summary.read_text())["report"] == str(out / "index.html")
    assert _leftovers(out) == []


def test_a_failed_run_leaves_the_previous_output_and_can_keep_its_partial_files(tmp_path):
    out = tmp_path / "report"
    _previous_output(out)
    with pytest.raises(RuntimeError) as info:
        with staged_output(out, keep_partial=True) as stage:
            (stage / "half.csv").write_text("x\n")
            raise RuntimeError("boom")
    assert _is_previous(out)
    assert any(str(stage) in note for note in info.value.__notes__)
    assert (stage / "half.csv").exists()


# --------------------------------------------------------------------------------------------------
# batch: Ctrl-C, then a rerun resumes
# --------------------------------------------------------------------------------------------------

@pytest.mark.r
@pytest.mark.slow
def test_ctrl_c_stops_a_batch_and_a_rerun_resumes_with_the_finished_units(tmp_path):
    from tests.batch.test_batch import _responses, _write

    # 2PL fits (a third of a 3PL's time): what is checked is the interruption and the resumed run
    units = [{"id": f"cal{k}", "kind": "calibrate", "data": _responses(tmp_path, k, n=800).name,
              "options": {"model": "2PL", "engine": "mirt", "se": False}} for k in range(4)]
    manifest = _write(tmp_path / "manifest.json", {"output": "out", "units": units})
    cmd = [sys.executable, "-m", "irtbridge", "batch", str(manifest), "--workers", "2"]
    proc = _popen(cmd)
    published = tmp_path / "out" / "units"

    def finished():
        return [p.name for p in published.iterdir() if not p.name.startswith(".")] if published.is_dir() else []

    _wait(finished, proc, "a finished unit")
    os.killpg(proc.pid, signal.SIGINT)
    code, _, err = _finish(proc)
    assert code == 130, err
    assert err.rstrip().splitlines()[-1] == "irtbridge batch: interrupted"
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert _session(proc.pid) == []
    kept = finished()
    assert kept and not lock_path(tmp_path / "out").exists()

    rerun = subprocess.run([*cmd, "--json"], capture_output=True, text=True, env=ENV, timeout=HANG * 2)
    assert rerun.returncode == 0, rerun.stderr
    report = json.loads(rerun.stdout)
    status = {u["id"]: u["status"] for u in report["units"]}
    assert {k for k, s in status.items() if s == "skipped"} == set(kept)
    assert all(s in ("skipped", "done") for s in status.values())


def test_what_a_killed_run_left_is_tidied_by_the_next(tmp_path):
    out = tmp_path / "report"
    dead = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True).stdout)
    # killed between its two renames: the previous output moved aside, its own staging folder complete
    _previous_output(tmp_path / f"report.old-{dead}")
    (tmp_path / f"report.partial-{dead}").mkdir()
    with output_lock(out):
        pass
    with staged_output(out) as stage:
        assert _is_previous(out)  # the last complete output is back before anything else happens
        (stage / "summary.json").write_text('{"run": "new"}')
    assert json.loads((out / "summary.json").read_text()) == {"run": "new"}
    assert _leftovers(out) == []


# --------------------------------------------------------------------------------------------------
# Ctrl-C at every moment of each command that writes a folder: start-up (the seconds of imports), reading,
# the fit, publishing. Each run starts over a previous complete output, which must be found intact (or,
# when Ctrl-C comes while the new output is being moved into place, replaced whole): exit 130, one line,
# nothing half-written beside it, the lock released.
# --------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def big_input(tmp_path_factory) -> Path:
    """4,000 models x 500 items (4 MB): read for most of a second, fitted for far longer; with a target column
    it is also a classification dataset for ``evaluate``."""
    rng = np.random.default_rng(0)
    theta = rng.normal(size=(4000, 1))
    x = rng.random((4000, 500)) < 1 / (1 + np.exp(-(theta - np.linspace(-2, 2, 500))))  # a 1PL's answers
    frame = pd.DataFrame(x.astype(int), columns=[f"q{j}" for j in range(500)])
    frame.insert(0, "model", [f"m{i}" for i in range(4000)])
    frame["target"] = frame["q0"]  # 0/1: one more item for the leaderboard, two classes for evaluate
    path = tmp_path_factory.mktemp("big") / "big.csv"
    frame.to_csv(path, index=False)
    return path


def _command(name: str, data: Path, out: Path, phase: str = "reading") -> list[str]:
    dataset = f"{data}:target" if phase == "reading" else "iris"  # evaluate: the big CSV only to be read
    args = {"leaderboard": ["leaderboard", str(data), "--id-column", "model"],
            "tiny": ["tiny", str(data), "--id-column", "model", "--k", "50"],
            "evaluate": ["evaluate", "--quick", "--jobs", "1", "--datasets", dataset]}[name]
    return [sys.executable, "-m", "irtbridge", *args, "--out", str(out)]


def _loaded(pid: int, library: str) -> bool:
    try:
        return library in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


def _open_in(pid: int, path: Path) -> bool:
    """Whether the process or one of its children has ``path`` open."""
    for p in [pid, *_children(pid)]:
        try:
            fds = list(Path(f"/proc/{p}/fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(fd) == str(path):
                    return True
            except OSError:
                continue
    return False


def _read_then_closed(pid: int, path: Path, seen: list[int], quiet: int = 30):
    """Once ``path`` was open: True after ``quiet`` polls in a row without it (reading is over)."""
    if _open_in(pid, path):
        seen[:] = [1]
    elif seen:
        seen.append(1)
    return len(seen) > quiet


PHASES = {
    # numpy is loaded by the imports of the commands (irtbridge's own start-up), before any argument is read
    "start-up": lambda proc, data: _loaded(proc.pid, "_multiarray_umath"),
    "reading": lambda proc, data: _open_in(proc.pid, data),
}


@pytest.mark.parametrize("phase", ["start-up", "reading", "fit"])
@pytest.mark.parametrize("command", ["leaderboard", "tiny",
                                     pytest.param("evaluate", marks=[pytest.mark.r, pytest.mark.slow])])
@pytest.mark.slow
def test_ctrl_c_at_any_moment_exits_130_and_keeps_the_previous_output(command, phase, big_input, tmp_path):
    out = tmp_path / "out"
    _previous_output(out)
    proc = _popen(_command(command, big_input, out, phase))
    if phase in PHASES:  # polled often: the imports go on for a fraction of a second after numpy's
        _wait(lambda: PHASES[phase](proc, big_input), proc, phase, every=0.002)
    elif command == "evaluate":  # the calibration: mirt loaded in the run's R
        _wait(lambda: _loaded(proc.pid, "mirt.so"), proc, "mirt loaded")
    else:  # the native fit follows the reading at once and lasts seconds
        seen: list[int] = []
        _wait(lambda: _read_then_closed(proc.pid, big_input, seen), proc, "the input read")
    os.killpg(proc.pid, signal.SIGINT)
    code, _, err = _finish(proc)
    assert code == 130, err
    assert err.rstrip().splitlines()[-1] == f"irtbridge {command}: interrupted", err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert _session(proc.pid) == []
    assert _is_previous(out)
    assert _leftovers(out) == []  # no staging folder, no lock


@contextlib.contextmanager
def _ctrl_c_while_publishing(monkeypatch, out: Path):
    """Send this process SIGINT the moment the previous ``out`` has been moved aside (between the two renames
    of the publish), with Python's own handler in place."""
    rename, sent = os.rename, []

    def renaming(src, dst, *args, **kwargs):
        rename(src, dst, *args, **kwargs)
        if Path(src) == out and not sent:
            sent.append(dst)
            os.kill(os.getpid(), signal.SIGINT)

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    monkeypatch.setattr(os, "rename", renaming)
    try:
        yield sent
    finally:
        monkeypatch.undo()
        signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize("command", ["leaderboard", "tiny"])
def test_ctrl_c_while_publishing_leaves_one_whole_output(command, tmp_path, monkeypatch, capsys):
    from tests.test_outputs import _matrix

    data = _matrix(tmp_path / "m.csv", models=30, items=20)
    out = tmp_path / "out"
    _previous_output(out)
    argv = _command(command, data, out)[3:] + (["--no-validate", "--k", "10"] if command == "tiny" else [])
    with _ctrl_c_while_publishing(monkeypatch, out) as sent:
        code = main(argv)
    err = capsys.readouterr().err
    assert sent, "the publish never moved the previous output aside"
    assert code == 130, err
    assert err.rstrip().splitlines()[-1] == f"irtbridge {command}: interrupted" and "Traceback" not in err
    # Ctrl-C came after the previous output was moved aside: the publish completes, then the run stops
    expected = {"leaderboard": "index.html", "tiny": "bank.json"}[command]
    assert (out / expected).is_file() and (out / MARKER).is_file() and not (out / "tables" / "responses_old.csv").exists()
    assert _leftovers(out) == []


def test_ctrl_c_while_a_report_is_published_leaves_one_whole_report(tmp_path, monkeypatch):
    """`evaluate`'s publish (write_report), without R."""
    out = tmp_path / "report"
    _previous_output(out)
    with _ctrl_c_while_publishing(monkeypatch, out) as sent:
        with pytest.raises(KeyboardInterrupt):
            write_report(synthetic_evaluation(), out)
    assert sent and (out / "index.html").is_file() and (out / "summary.json").is_file()
    assert _leftovers(out) == []
