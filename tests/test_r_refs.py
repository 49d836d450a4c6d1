"""The stored R references (tests/_rrefs.py, tests/r/refs/): stamped with the R lock they were made under,
one file per test module that asks R, and the three ways a call is answered (use, record, check), shown
on a stand-in ``Rscript`` so no R runs here."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
from pathlib import Path

import pytest

from tests import _rrefs
from tests._rrefs import run_r

ROOT = Path(__file__).resolve().parents[1]


def _callers() -> list[str]:
    """The test modules calling run_r, named as their reference files are."""
    names = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        if path.name != Path(__file__).name and re.search(r"\brun_r\b", path.read_text(encoding="utf-8")):
            names.append("__".join(path.relative_to(ROOT / "tests").with_suffix("").parts))
    return names


def test_every_reference_file_is_stamped_with_todays_lock():
    files = sorted(_rrefs.REFS.glob("*.json"))
    assert files, "no stored R references: run `make refs`"
    stale = [f.name for f in files if json.loads(f.read_text(encoding="utf-8")).get("lock") != _rrefs.lock_hash()]
    assert stale == [], f"{_rrefs.LOCK} changed since these references were made: run `make refs` ({stale})"


def test_every_module_asking_r_has_its_references_and_none_is_left_over():
    stored = {f.stem for f in _rrefs.REFS.glob("*.json")}
    callers = set(_callers())
    assert len(callers) > 40
    assert sorted(callers - stored) == [], "run `make refs`"
    assert sorted(stored - callers) == [], "references of a module that no longer asks R: run `make refs`"


def test_no_reference_script_reads_the_clock():
    """`make refs-check` (CI) compares R's rerun with the stored output to 1e-6: a timing among the outputs
    differs on every run (the 3PL script once stored mirt's seconds and failed CI on them)."""
    clock = re.compile(r"\b(proc\.time|Sys\.time|system\.time|date)\s*\(")
    readers = [p.name for p in sorted((ROOT / "tests" / "r").glob("*.R")) if clock.search(p.read_text(encoding="utf-8"))]
    assert readers == []


# --------------------------------------------------------------------------------------------------
# a stand-in Rscript: doubles every number of its input file into its output file, counts its runs
# --------------------------------------------------------------------------------------------------

@pytest.fixture
def fake(tmp_path, monkeypatch):
    monkeypatch.setenv("IRTBRIDGE_R_REFS_DIR", str(tmp_path / "refs"))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "Rscript"
    script.write_text("#!/bin/sh\necho run >> \"$(dirname \"$0\")/runs\"\n"
                      "awk '{ print $1 * 2 }' \"$1\" > \"$2\"\necho done\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    data = tmp_path / "in.txt"
    data.write_text("1\n2.5\n")
    return script, data, tmp_path


def _runs(script: Path) -> int:
    runs = script.parent / "runs"
    return len(runs.read_text().splitlines()) if runs.exists() else 0


def test_record_then_use_writes_the_stored_output_without_running(fake, monkeypatch):
    script, data, tmp = fake
    monkeypatch.setenv("IRTBRIDGE_R_REFS", "record")
    proc = run_r([script, data, tmp / "a.txt"], capture_output=True, text=True, check=True)
    assert proc.stdout == "done\n" and (tmp / "a.txt").read_text() == "2\n5\n" and _runs(script) == 1
    (tmp / "a.txt").unlink()
    monkeypatch.setenv("IRTBRIDGE_R_REFS", "use")
    proc = run_r([script, data, tmp / "a.txt"], capture_output=True, text=True, check=True)
    assert proc.stdout == "done\n" and (tmp / "a.txt").read_text() == "2\n5\n" and _runs(script) == 1
    # other input: no stored answer, and the failure says what to run
    data.write_text("3\n")
    with pytest.raises(pytest.fail.Exception, match="make refs"):
        run_r([script, data, tmp / "a.txt"])


def test_a_reference_made_under_another_lock_fails(fake, monkeypatch):
    script, data, tmp = fake
    monkeypatch.setenv("IRTBRIDGE_R_REFS", "record")
    run_r([script, data, tmp / "a.txt"])
    monkeypatch.setenv("IRTBRIDGE_R_REFS", "use")
    monkeypatch.setattr(_rrefs, "lock_hash", lambda: "0" * 64)
    with pytest.raises(pytest.fail.Exception, match="lock changed"):
        run_r([script, data, tmp / "a.txt"])


def test_check_runs_r_and_compares_within_tolerance(fake, monkeypatch):
    script, data, tmp = fake
    monkeypatch.setenv("IRTBRIDGE_R_REFS", "record")
    run_r([script, data, tmp / "a.txt"])
    file = tmp / "refs" / "test_r_refs.json"
    stored = json.loads(file.read_text())
    monkeypatch.setenv("IRTBRIDGE_R_REFS", "check")
    (tmp / "a.txt").unlink()
    run_r([script, data, tmp / "a.txt"])  # R says the same now
    assert _runs(script) == 2
    (call,) = stored["calls"].values()
    call["outputs"]["2"] = "2.000000001\n5\n"  # within the relative 1e-6
    file.write_text(json.dumps(stored))
    (tmp / "a.txt").unlink()
    run_r([script, data, tmp / "a.txt"])
    call["outputs"]["2"] = "2.01\n5\n"
    file.write_text(json.dumps(stored))
    (tmp / "a.txt").unlink()
    with pytest.raises(pytest.fail.Exception, match=r"output 2: 2\.01 stored, 2 now"):
        run_r([script, data, tmp / "a.txt"])


def test_a_folder_argument_gives_its_new_files_back(fake, monkeypatch):
    _, _, tmp = fake
    script = tmp / "bin" / "Rscript"
    script.write_text("#!/bin/sh\nfor f in \"$1\"/*.in; do awk '{ print $1 + 1 }' \"$f\" > \"${f%.in}.out\"; done\n")
    folder = tmp / "jobs"
    folder.mkdir()
    (folder / "x.in").write_text("4\n")
    monkeypatch.setenv("IRTBRIDGE_R_REFS", "record")
    run_r([script, folder], check=True)
    (folder / "x.out").unlink()
    monkeypatch.setenv("IRTBRIDGE_R_REFS", "use")
    script.unlink()
    run_r([script, folder], check=True)
    assert (folder / "x.out").read_text() == "5\n"


def test_only_rscript_is_run():
    with pytest.raises(ValueError, match="Rscript"):
        run_r(["python3", "-c", "pass"])


def test_references_belong_to_the_module_that_calls_r_not_the_test_that_runs(monkeypatch):
    # tests/em/test_dense.py runs test_native_em's `ref` fixture: its R call is stored (and recorded by
    # `make refs`, which runs the modules naming run_r) with test_native_em, whichever test asks
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "tests/em/test_dense.py::test_x (setup)")
    assert _rrefs._module() == "test_r_refs"


# --------------------------------------------------------------------------------------------------
# the fork server (tests/r/forkserver.R) that runs the reference scripts in check and record modes:
# what it returns is what Rscript returns
# --------------------------------------------------------------------------------------------------

_SCRIPT = """args <- commandArgs(trailingOnly = TRUE)
suppressPackageStartupMessages(library(mirt))
x <- c(1.5, 2)
x
invisible(99)
arguments <- function() commandArgs(TRUE)
print(arguments())
fit <- mirt(expand.table(LSAT7), 1, verbose = FALSE)
fit
writeLines(format(coef(fit, simplify = TRUE)$items[, "a1"], digits = 15), args[1])
message("on stderr")
old <- options(warn = 2); turned <- try(warning("into an error"), silent = TRUE); options(old)
cat(class(turned), "\\n")  # as ltm's tpm does: a warning handler around the run would keep it a warning
set.seed(3); cat(runif(2), Sys.getenv("IRTBRIDGE_TEST_VARIABLE"), getOption("digits"), exists("leak"), "\\n")
assign("leak", 1, envir = globalenv()); options(digits = 3)
"""


@pytest.mark.r
def test_the_fork_server_runs_scripts_as_rscript_does(tmp_path, monkeypatch):
    (tmp_path / "fit.R").write_text(_SCRIPT)
    (tmp_path / "error.R").write_text('# mirt\ncat("before\\n")\nstop("boom")\ncat("after\\n")\n')
    (tmp_path / "quit.R").write_text('# mirt\ncat("bye\\n")\nquit(status = 3)\ncat("not here\\n")\n')
    monkeypatch.setenv("IRTBRIDGE_TEST_VARIABLE", "set")
    server = _rrefs._ForkServer()
    try:
        for args in (["Rscript", tmp_path / "fit.R", tmp_path / "a.txt"], ["Rscript", tmp_path / "error.R"],
                     ["Rscript", tmp_path / "quit.R"], ["Rscript", "-e", "x <- 2; x * 3  # mirt", "ignored"]):
            args = [str(a) for a in args]
            (tmp_path / "a.txt").unlink(missing_ok=True)
            plain = subprocess.run(args, capture_output=True, text=True)
            written = (tmp_path / "a.txt").read_text() if (tmp_path / "a.txt").exists() else None
            (tmp_path / "a.txt").unlink(missing_ok=True)
            served = server.run(args)
            assert served is not None
            assert (served.returncode, served.stdout) == (plain.returncode, plain.stdout), args
            assert ((tmp_path / "a.txt").read_text() if (tmp_path / "a.txt").exists() else None) == written
            assert ("on stderr" in served.stderr) == ("on stderr" in plain.stderr)
            assert ("Execution halted" in served.stderr) == ("Execution halted" in plain.stderr)
        # each run starts from the server's state, not from what the run before it left (a global, an option)
        monkeypatch.setenv("IRTBRIDGE_TEST_VARIABLE", "changed")
        again = server.run(["Rscript", str(tmp_path / "fit.R"), str(tmp_path / "b.txt")])
        assert again is not None and again.stdout.splitlines()[-1].split()[2:] == ["changed", "7", "FALSE"]
    finally:
        server.close()


def test_the_fork_server_leaves_other_commands_and_start_up_settings_to_rscript(tmp_path, monkeypatch):
    script, other = str(tmp_path / "x.R"), str(tmp_path / "y.R")
    Path(script).write_text("library(mirt)\n")
    Path(other).write_text("library(catR)\n")
    command = _rrefs._ForkServer._command
    assert command(["/opt/bin/Rscript", script]) is None  # another program
    assert command(["Rscript", "--vanilla", script]) is None  # Rscript's own options
    assert command(["Rscript", "-e", "mirt::mirt", "-e", "2"]) is None
    assert command(["Rscript", script, "a", "b"]) == (script, None, ["a", "b"])
    assert command(["Rscript", "-e", "mirt::mirt", "a"]) == (None, "mirt::mirt", ["a"])
    assert command(["Rscript", other]) is None and command(["Rscript", "-e", "1"]) is None  # no mirt: a new R
    assert command(["Rscript", str(tmp_path / "missing.R")]) is None
    server = _rrefs._ForkServer()
    monkeypatch.delenv("R_HOME", raising=False)
    server._env, server._home = dict(os.environ), "/usr/lib/R"  # as when it started
    assert server._changes() == ({}, [])
    monkeypatch.setenv("R_HOME", "/usr/lib/R")  # rpy2 sets it as the test process starts its own R: the same R
    assert server._changes() == ({}, [])
    monkeypatch.setenv("IRTBRIDGE_TEST_VARIABLE", "x")
    monkeypatch.delenv("HOME", raising=False)
    assert server._changes() == ({"IRTBRIDGE_TEST_VARIABLE": "x"}, ["HOME"] if "HOME" in server._env else [])
    for name in ("PATH", "R_LIBS", "R_HOME", "LANG", "LC_ALL"):  # read as R (or the shell finding Rscript) starts
        with monkeypatch.context() as patch:
            patch.setenv(name, "/elsewhere")
            assert server._changes() is None, name
