"""The order tests/conftest.py gives xdist's loadgroup: the longest work units first (tests/durations.txt)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.conftest import DURATIONS, longest_units_first, measured_seconds


def _item(nodeid: str, group: str | None = None):
    mark = SimpleNamespace(args=(group,), kwargs={}) if group else None
    return SimpleNamespace(nodeid=nodeid, get_closest_marker=lambda name: mark if name == "xdist_group" else None)


def test_durations_lines_are_read_as_pytest_prints_them():
    text = ("# a comment\n============ slowest durations ============\n"
            "12.50s call     tests/a.py::test_x[p@q]\n"
            "3.00s setup    tests/a.py::test_x[p@q]\n"
            "33.20s setup    tests/b.py::test_y@quick_runs\n"
            "0.01s teardown tests/c.py::test_z\n")
    assert measured_seconds(text) == {"tests/a.py::test_x[p@q]": pytest.approx(15.5),
                                      "tests/b.py::test_y": pytest.approx(33.2), "tests/c.py::test_z": 0.01}


def test_longest_units_go_first_and_the_rest_keep_their_order():
    items = [_item("t::a"), _item("t::b", "g"), _item("t::c"), _item("t::d", "g"), _item("t::e"), _item("t::f")]
    seconds = {"t::b": 5.0, "t::d": 6.0, "t::e": 20.0}  # the group g: 11 s; e alone: 20 s
    order = [i.nodeid for i in longest_units_first(items, seconds)]
    assert order == ["t::e", "t::b", "t::d", "t::a", "t::c", "t::f"]


def test_the_committed_durations_name_tests_that_exist():
    root = DURATIONS.parents[1]
    seconds = measured_seconds(DURATIONS.read_text(encoding="utf-8"))
    assert len(seconds) >= 10
    for test in seconds:
        path, _, name = test.partition("::")
        function = name.split("[", 1)[0]
        assert f"def {function}(" in (root / path).read_text(encoding="utf-8"), test
