"""The mirt conformance suite (issue 26 item 4; ``runner.py`` beside this file) cannot rot: its registry
loads, covers every mirt test file, and a few representative cases (one per route that runs) still equal
mirt run directly.

The expected numbers come from the R snippets of the registry, run in R by the suite's own runner; the
runner's full run (``python -m tests.conformance.runner --write-docs``) writes the table in
docs/coming-from-r.md. Every test here carries the ``conformance`` marker (run by default, CI included).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from . import runner

DOC = Path(__file__).resolve().parents[2] / "docs" / "coming-from-r.md"

pytestmark = pytest.mark.conformance


@pytest.fixture(scope="module")
def suite():
    return runner


def test_registry_covers_every_test_file(suite):
    cases = suite.load_cases()
    per_file = {}
    for c in cases:
        per_file.setdefault(c.file, []).append(c)
        assert c.route in ("first-class", "passthrough", "not expressible")
        assert (c.py is None) == (c.route == "not expressible"), c.name
    assert sorted(per_file) == sorted(f"test-{s}.R" for s in suite.TEST_FILES)
    assert min(len(v) for v in per_file.values()) >= 2
    assert len({(c.file, c.name) for c in cases}) == len(cases)


def test_docs_hold_the_generated_block(suite):
    text = DOC.read_text()
    assert text.count(suite.BEGIN) == 1 and text.count(suite.END) == 1
    assert "| **total** |" in text.split(suite.BEGIN)[1]


@pytest.mark.r
@pytest.mark.slow
@pytest.mark.parametrize("name", [
    "graded coefficients",               # test-02: calibrate
    "DIF, add, intercepts",              # test-17: calibrate_groups + dif
    "CONSTRAIN + PRIOR",                 # test-09: mirt.model syntax as spec=
    "residuals LDG2",                    # test-02: a Calibration method (issue 26 item 3)
    "itemtype 'sequential'",             # test-02: the typed passthrough
    "multipleGroup with TOL = NaN",      # test-00: TOL = NaN in the option domains (issue 40 item 4)
    "QMCEM: itemfit and residuals with QMC",  # test-01: itemfit's ... reaches fscores (issue 40 item 4)
    "Rasch groups, coef with printSE",   # test-04: a group method's ... reaches each group's (issue 40 item 4)
])
def test_representative_cases_equal_mirt(suite, name):
    case = next(c for c in suite.load_cases() if c.name == name)
    result = suite.run_case(case)
    assert result.status == "equal", result.detail


def test_write_docs_replaces_only_the_block(suite, tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text(f"before\n{suite.BEGIN}\nold table\n{suite.END}\nafter\n")
    suite.write_docs("new table", doc)
    assert doc.read_text() == f"before\n{suite.BEGIN}\nnew table\n{suite.END}\nafter\n"
