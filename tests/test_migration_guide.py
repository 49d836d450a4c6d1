"""The worked migration of docs/coming-from-r.md (issue 26 item 5) runs, agrees with mirt, and is what the
guide shows.

docs/migration/worked_example.R is a plain mirt script (key scoring, DIF between two groups, DRF, linking
two forms); docs/migration/worked_example.py is its irtbridge translation. Both run as written (R's in its own
process, through the stored R references; the Python script as ``__main__`` in the test's process,
tests/_script.py) and write their numbers to JSON; R is the oracle. The guide shows each step of both files
(``### <step>`` followed by an ``r`` and a ``python`` block) and must show them verbatim.

Tolerance 1e-8: every number comes from the same deterministic mirt computation on the same data
(``calibrate_groups(se=True)`` is ``multipleGroup(..., SE = TRUE)`` itself, and DRF's parameter draws follow
the same ``set.seed`` in the same R call), so the two sides can differ only by floating-point summation
order. Measured: at most 4e-15 relative to the value (3.6e-12 absolute, on log-likelihoods near -9,446).
The scored responses are compared exactly.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from tests._rrefs import run_r
from tests._script import run_as_script

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "coming-from-r.md"
R_SCRIPT = ROOT / "docs" / "migration" / "worked_example.R"
PY_SCRIPT = ROOT / "docs" / "migration" / "worked_example.py"
SECTION = "## A worked migration"
COVERAGE = "## Coverage of mirt's exported functions"
NUMBERS_STEP = "Numbers compared by tests/test_migration_guide.py"  # the files' last step, not shown
TOL = 1e-8

_MARKER = re.compile(r"^# ---- (.+) ----$", re.MULTILINE)
_BLOCK = re.compile(r"^```(r|python)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def script_steps(path: Path) -> dict[str, str]:
    """A script's steps: the text after each ``# ---- title ----`` line up to the next one."""
    text = path.read_text(encoding="utf-8")
    marks = list(_MARKER.finditer(text))
    ends = [m.start() for m in marks[1:]] + [len(text)]
    return {m.group(1): text[m.end():end].strip("\n") for m, end in zip(marks, ends)}


def guide_steps(text: str) -> dict[str, dict[str, str]]:
    """The guide's worked migration: per ``### title``, its first ``r`` and first ``python`` code block."""
    assert text.count(SECTION) == 1, f"docs/coming-from-r.md needs one section {SECTION!r}"
    section = text.split(SECTION, 1)[1]
    section = re.split(r"^## ", section, maxsplit=1, flags=re.MULTILINE)[0]
    steps = {}
    for part in re.split(r"^### ", section, flags=re.MULTILINE)[1:]:
        title, body = part.split("\n", 1)
        blocks = steps.setdefault(title.strip(), {})
        for lang, code in _BLOCK.findall(body):
            blocks.setdefault(lang, code.strip("\n"))
    return steps


def test_the_scripts_have_the_same_steps():
    r_steps, py_steps = script_steps(R_SCRIPT), script_steps(PY_SCRIPT)
    assert list(r_steps) == list(py_steps)
    assert list(r_steps)[-1] == NUMBERS_STEP
    assert len(r_steps) >= 5  # setup, key scoring, DIF, DRF, linking


def test_the_guide_shows_the_scripts_verbatim():
    shown = guide_steps(GUIDE.read_text(encoding="utf-8"))
    r_steps, py_steps = script_steps(R_SCRIPT), script_steps(PY_SCRIPT)
    expected = [t for t in r_steps if t != NUMBERS_STEP]
    assert list(shown) == expected, "the guide's ### headings must be the scripts' steps, in order"
    for title in expected:
        assert shown[title].get("r") == r_steps[title], (
            f"docs/coming-from-r.md, step {title!r}: the r block differs from {R_SCRIPT.relative_to(ROOT)}")
        assert shown[title].get("python") == py_steps[title], (
            f"docs/coming-from-r.md, step {title!r}: the python block differs from {PY_SCRIPT.relative_to(ROOT)}")


def test_the_parsers_read_steps_and_blocks(tmp_path):
    script = tmp_path / "s.R"
    script.write_text("# header\n\n# ---- Setup ----\nlibrary(mirt)\n\n# ---- 1. Fit ----\nfit <- mirt(d, 1)\n")
    assert script_steps(script) == {"Setup": "library(mirt)", "1. Fit": "fit <- mirt(d, 1)"}
    guide = (f"# Title\n\n{SECTION}\n\nText.\n\n### 1. Fit\n\n```r\nfit <- mirt(d, 1)\n```\n\n```python\n"
             "fit = calibrate(d)\n```\n\nNote.\n\n## Next\n\n### Other\n\n```r\nx\n```\n")
    assert guide_steps(guide) == {"1. Fit": {"r": "fit <- mirt(d, 1)", "python": "fit = calibrate(d)"}}


def coverage_names(text: str) -> set[str]:
    """The R names in the first column of the guide's table of mirt's exports."""
    section = text.split(COVERAGE, 1)[1]
    section = re.split(r"^## ", section, maxsplit=1, flags=re.MULTILINE)[0]
    names = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            first = line.split(" | ", 1)[0]
            names.update(re.split(r"[ (]", code, maxsplit=1)[0] for code in re.findall(r"`([^`]+)`", first))
    return names


@pytest.mark.r
def test_the_coverage_table_names_every_mirt_export():
    proc = run_r(["Rscript", "-e", 'cat(getNamespaceExports("mirt"), sep = "\\n")'],
                 capture_output=True, text=True, check=True)
    exports = {n for n in proc.stdout.split() if not n.startswith(".__")}  # S4 class and method tables
    assert len(exports) > 60
    missing = sorted(exports - coverage_names(GUIDE.read_text(encoding="utf-8")))
    assert missing == [], f"docs/coming-from-r.md, {COVERAGE!r}: no row for {missing}"


def _run(command: list[str], out: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "MPLBACKEND": "Agg"}
    proc = run_r([*command, str(out)], capture_output=True, text=True, env=env, cwd=ROOT)  # a stored R reference
    assert proc.returncode == 0, f"{' '.join(command)} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    return json.loads(out.read_text())


def _run_python(script: Path, out: Path) -> dict:
    """``python SCRIPT OUT`` from the repository's root, run in this process (tests/_script.py)."""
    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(printed):
        patch.chdir(ROOT)
        patch.setenv("MPLBACKEND", "Agg")
        status, error = run_as_script(script, str(out))
    assert status == 0, f"python {script.name} failed:\n{printed.getvalue()[-2000:]}\n{error[-4000:]}"
    return json.loads(out.read_text())


def _numbers(values: list) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=float)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("migration")
    r = _run(["Rscript", str(R_SCRIPT)], tmp / "r.json")
    py = _run_python(PY_SCRIPT, tmp / "py.json")
    return r, py


@pytest.mark.r
@pytest.mark.slow
def test_the_python_script_writes_what_the_r_script_writes(results):
    r, py = results
    assert sorted(py) == sorted(r)


@pytest.mark.r
@pytest.mark.slow
def test_key_scoring_equals_key2binary(results):
    r, py = results
    np.testing.assert_array_equal(_numbers(py["scored"]), _numbers(r["scored"]))
    assert len(r["scored"]) == 600 * 32


@pytest.mark.r
@pytest.mark.slow
def test_dif_tests_the_same_items(results):
    r, py = results
    assert py["dif_items"] == r["dif_items"] == [f"Item.{j}" for j in range(1, 9)]


@pytest.mark.r
@pytest.mark.slow
@pytest.mark.parametrize("quantity", ["anchored", "dif", "drf", "drf_ci", "linked", "fixed"])
def test_numbers_equal_mirt(results, quantity):
    r, py = results
    expected, got = _numbers(r[quantity]), _numbers(py[quantity])
    assert got.shape == expected.shape and np.isfinite(expected).any()
    np.testing.assert_allclose(got, expected, rtol=TOL, atol=TOL, equal_nan=True, err_msg=quantity)
