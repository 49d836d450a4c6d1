"""Test configuration.

Tests that need R carry ``@pytest.mark.r``. CI (``CI=true``) always runs them: there a missing R is
a failure, never a skip. Elsewhere, ``pytest -m "not r"`` runs the pure-Python tiers.

``make test`` runs the suite on two pytest-xdist workers (``-n 2 --dist loadgroup``), each a process with its
own R. The tests of a module that share a module-scoped (or class-scoped) fixture run on one worker, so the
fixture is made once; other tests go to whichever worker is free. An ``xdist_group`` mark sends every test
of that group, from any module, to one worker (so a session fixture they share is made once).

xdist hands out the work units (a group, or one test) in collection order; a long one handed out last would
run alone at the end while the other worker idles. So, under ``--dist loadgroup``, the units that
tests/durations.txt (the slowest tests of a measured run, as ``pytest --durations=N`` prints them) says are
long go first, the longest first; every other test keeps its order after them. Where R runs for every stored
reference (``IRTBRIDGE_R_REFS=check`` in CI and ``make refs-check``, ``record`` in ``make refs``, ``live``), a
test whose fixture asks R takes R's time in its setup, and the slowest are others: there the seconds of
tests/durations-check.txt (the same lines, measured in a CI run) replace a test's where that file lists it.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import _rrefs
from tests._fresh import FreshPython


@pytest.fixture(autouse=True)
def _no_display(monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "Agg")


@pytest.fixture(scope="session")
def fresh_python():
    """``python -c CODE`` in an interpreter where irtbridge was never imported, by fork (tests/_fresh.py)."""
    helper = FreshPython()
    yield helper
    helper.close()


QUICK_SEED = "7"


@pytest.fixture(scope="session")
def quick_runs(tmp_path_factory):
    """Three quick runs of ``irtbridge evaluate`` on iris and wine (the two smallest embedded sets), seed 7:
    ``jobs1`` (one worker, run in this process: so it also shows the tables do not depend on what the
    process did before), ``jobs2`` and ``jobs2_again`` (two spawned workers, each a new ``irtbridge``
    process): name -> output folder.

    Made once for every test that reads them (tests/pipeline/test_determinism.py, test_evaluate.py); a test
    using it carries ``@pytest.mark.xdist_group("quick_runs")`` so that, under xdist, they share one worker.
    """
    from irtbridge.cli import main

    root = tmp_path_factory.mktemp("quick_runs")
    env = {**os.environ, "MPLBACKEND": "Agg"}
    out = {}
    for name, jobs in (("jobs1", "1"), ("jobs2", "2"), ("jobs2_again", "2")):
        out[name] = root / name
        argv = ["evaluate", "--quick", "--datasets", "iris", "wine", "--seed", QUICK_SEED, "--jobs", jobs,
                "--out", str(out[name])]
        if jobs == "1":  # runs in this process (jobs=1 spawns nothing): no second Python, imports and R to start
            stderr = io.StringIO()
            with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stderr(stderr):
                patch.setenv("MPLBACKEND", "Agg")
                status = main(argv)
            assert status == 0, stderr.getvalue()[-4000:]
            continue
        proc = subprocess.run([sys.executable, "-m", "irtbridge", *argv], capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stderr[-4000:]
    yield out
    shutil.rmtree(root, ignore_errors=True)


def _shares_a_fixture(item) -> bool:
    """Whether the test uses a fixture made once for several tests of its module (module, class or package
    scope): such tests run on one worker, so the fixture is made once."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return True
    return any(defs and defs[-1].scope in ("module", "class", "package") for defs in info.name2fixturedefs.values())


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Under ``--dist loadgroup``: a test without an ``xdist_group`` mark that shares a module-scoped fixture
    goes with the rest of its module; any other test goes to whichever worker is free."""
    # (an xdist worker sees dist="no" and the flag loadgroup that xdist sets from the controller's --dist)
    if not (getattr(config.option, "loadgroup", False) or config.getoption("dist", "no") == "loadgroup"):
        return
    for item in items:
        if item.get_closest_marker("xdist_group") is None and _shares_a_fixture(item):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))
    items[:] = longest_units_first(items, scheduling_seconds(_rrefs.mode(), DURATIONS.read_text(encoding="utf-8"),
                                                             CHECK_DURATIONS.read_text(encoding="utf-8")))


DURATIONS = Path(__file__).with_name("durations.txt")
CHECK_DURATIONS = Path(__file__).with_name("durations-check.txt")
_DURATION = re.compile(r"^\s*([0-9.]+)s\s+(?:setup|call|teardown)\s+(\S.*?)\s*$")


def measured_seconds(text: str) -> dict[str, float]:
    """Test id -> seconds (setup, call and teardown added) from ``pytest --durations=N`` lines (with or
    without xdist's ``@group`` suffix); other lines (comments, headers) are ignored."""
    seconds: dict[str, float] = {}
    for line in text.splitlines():
        match = _DURATION.match(line)
        if match:
            test = match.group(2)
            if test.rfind("@") > test.rfind("]"):  # xdist's "@group" suffix under --dist loadgroup
                test = test[:test.rfind("@")]
            seconds[test] = seconds.get(test, 0.0) + float(match.group(1))
    return seconds


def scheduling_seconds(refs_mode: str, durations: str, check_durations: str) -> dict[str, float]:
    """Test id -> the seconds the work is ordered by: those of ``durations`` (tests/durations.txt, stored R
    references read), or, when R computes every reference again (``refs_mode`` other than ``use``), those of
    ``check_durations`` (tests/durations-check.txt) where it lists the test, the others' from ``durations``."""
    seconds = measured_seconds(durations)
    if refs_mode != "use":
        seconds.update(measured_seconds(check_durations))
    return seconds


def _unit(item) -> str:
    """The work unit xdist's loadgroup hands out whole: the test's ``xdist_group``, else the test itself."""
    mark = item.get_closest_marker("xdist_group")
    return str(mark.args[0] if mark.args else mark.kwargs.get("name", "default")) if mark else item.nodeid


def longest_units_first(items: list, seconds: dict[str, float]) -> list:
    """The items with the units that take longest (the sum of their tests' measured seconds) first; units
    with no measured test keep their collection order after them (a stable sort)."""
    total: dict[str, float] = {}
    for item in items:
        total[_unit(item)] = total.get(_unit(item), 0.0) + seconds.get(item.nodeid, 0.0)
    return sorted(items, key=lambda item: -total[_unit(item)])


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    """``make refs`` (``IRTBRIDGE_R_REFS=record``) wants R's answers, not the checks: a test whose body does not
    ask R is skipped once its fixtures (which may) are made."""
    if _rrefs.mode() == "record" and not _rrefs.records_in_call(item):
        pytest.skip("make refs: R's answers are recorded; this test's checks run in make test")
