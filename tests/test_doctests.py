"""The docstring examples of irtbridge run as tests (issue 17): configuration and the +R convention.

The examples themselves are collected from ``irtbridge/`` by ``--doctest-modules``; these tests check
that the switch stays on and that the root conftest's rules hold (``# doctest: +R`` marks an example
``r``; examples run in a temporary folder).
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_doctests_are_collected_from_the_package():
    opts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "irtbridge" in opts["testpaths"] and "--doctest-modules" in opts["addopts"]


def test_an_r_example_is_marked_r_and_runs_in_a_temporary_folder(tmp_path):
    # a throwaway package beside a copy of the root conftest: "-m 'not r'" must leave the +R docstring
    # out and run the other, whose relative write must land outside the project folder
    (tmp_path / "conftest.py").write_text((ROOT / "conftest.py").read_text())
    pkg = tmp_path / "demo"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "mod.py").write_text(
        'def plain():\n'
        '    """\n'
        '    >>> import os\n'
        '    >>> _ = open("written.txt", "w").write("x")\n'
        '    >>> os.path.exists("written.txt")\n'
        '    True\n'
        '    """\n\n\n'
        'def needs_r():\n'
        '    """\n'
        '    >>> 1 + 1  # doctest: +R\n'
        '    2\n'
        '    """\n'
    )
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--doctest-modules", "-m", "not r", "-q", "-p", "no:cacheprovider", "demo"],
        cwd=tmp_path, capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed, 1 deselected" in run.stdout, run.stdout
    assert not (pkg / "written.txt").exists() and not (tmp_path / "written.txt").exists()
