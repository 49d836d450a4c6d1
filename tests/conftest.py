"""Test configuration.

Tests that need R carry ``@pytest.mark.r``. CI (``CI=true``) always runs them: there a missing R is
a failure, never a skip. Elsewhere, ``pytest -m "not r"`` runs the pure-Python tiers.

``make test`` runs the suite on two pytest-xdist workers (``-n 2 --dist loadgroup``), each a process with its
own R. The tests of a module that share a module-scoped (or class-scoped) fixture run on one worker, so the
fixture is made once; other tests go to whichever worker is free. An ``xdist_group`` mark sends every test
of that group, from any module, to one worker (so a session fixture they share is made once).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

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
    ``jobs1`` (one worker), ``jobs2`` and ``jobs2_again`` (two workers): name -> output folder.

    Made once for every test that reads them (tests/pipeline/test_determinism.py, test_evaluate.py); a test
    using it carries ``@pytest.mark.xdist_group("quick_runs")`` so that, under xdist, they share one worker.
    """
    root = tmp_path_factory.mktemp("quick_runs")
    env = {**os.environ, "MPLBACKEND": "Agg"}
    out = {}
    for name, jobs in (("jobs1", "1"), ("jobs2", "2"), ("jobs2_again", "2")):
        out[name] = root / name
        proc = subprocess.run(
            [sys.executable, "-m", "irtbridge", "evaluate", "--quick", "--datasets", "iris", "wine",
             "--seed", QUICK_SEED, "--jobs", jobs, "--out", str(out[name])],
            capture_output=True, text=True, env=env,
        )
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


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    """``make refs`` (``IRTBRIDGE_R_REFS=record``) wants R's answers, not the checks: a test whose body does not
    ask R is skipped once its fixtures (which may) are made."""
    if _rrefs.mode() == "record" and not _rrefs.records_in_call(item):
        pytest.skip("make refs: R's answers are recorded; this test's checks run in make test")
