"""The order tests/conftest.py gives xdist's loadgroup: the longest work units first (tests/durations.txt; where
R computes every reference again, tests/durations-check.txt)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests import conftest
from tests.conftest import CHECK_DURATIONS, DURATIONS, longest_units_first, measured_seconds, scheduling_seconds


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


USE = "40.00s call     t.py::test_python\n2.00s setup    m.py::test_r[x]@m.py\n"
CHECK = "300.00s setup    m.py::test_r[x]@m.py\n30.00s call     t.py::test_python\n9.00s setup    n.py::test_s\n"


def test_check_mode_times_replace_the_stored_reference_times_of_the_tests_they_list():
    assert scheduling_seconds("use", USE, CHECK) == {"t.py::test_python": 40.0, "m.py::test_r[x]": 2.0}
    for mode in ("check", "record", "live"):  # R runs for every reference
        assert scheduling_seconds(mode, USE, CHECK) == {"t.py::test_python": 30.0, "m.py::test_r[x]": 300.0,
                                                        "n.py::test_s": 9.0}


class _Collected:
    """A collected test as the hook sees it: its marks and whether it uses a module-scoped fixture."""

    def __init__(self, nodeid: str, module_fixture: bool):
        self.nodeid, self.marks = nodeid, []
        scope = "module" if module_fixture else "function"
        self._fixtureinfo = SimpleNamespace(name2fixturedefs={"f": [SimpleNamespace(scope=scope)]})

    def add_marker(self, mark):
        self.marks.append(mark.mark)

    def get_closest_marker(self, name):
        return next((m for m in self.marks if m.name == name), None)


@pytest.mark.parametrize("mode, first", [("use", "t.py::test_python"), ("check", "m.py::test_r[x]")])
def test_under_check_the_module_whose_fixture_asks_r_goes_first_whole(tmp_path, monkeypatch, mode, first):
    (tmp_path / "use.txt").write_text(USE, encoding="utf-8")
    (tmp_path / "check.txt").write_text(CHECK, encoding="utf-8")
    monkeypatch.setattr(conftest, "DURATIONS", tmp_path / "use.txt")
    monkeypatch.setattr(conftest, "CHECK_DURATIONS", tmp_path / "check.txt")
    monkeypatch.setenv("IRTBRIDGE_R_REFS", mode)
    items = [_Collected("a.py::test_a", False), _Collected("m.py::test_r[x]", True),
             _Collected("m.py::test_r[y]", True), _Collected("m.py::test_other", True),
             _Collected("t.py::test_python", False), _Collected("n.py::test_s", False)]
    conftest.pytest_collection_modifyitems(SimpleNamespace(option=SimpleNamespace(loadgroup=True)), items)
    order = [i.nodeid for i in items]
    module = ["m.py::test_r[x]", "m.py::test_r[y]", "m.py::test_other"]  # one unit: made once, on one worker
    if mode == "use":
        assert order == ["t.py::test_python", *module, "a.py::test_a", "n.py::test_s"]
    else:
        assert order == [*module, "t.py::test_python", "n.py::test_s", "a.py::test_a"]
    assert order[0] == first
    assert {i.get_closest_marker("xdist_group").args[0] for i in items if i.nodeid.startswith("m.py")} == {"m.py"}


@pytest.mark.parametrize("durations", [DURATIONS, CHECK_DURATIONS], ids=lambda path: path.name)
def test_the_committed_durations_name_tests_that_exist(durations):
    root = durations.parents[1]
    seconds = measured_seconds(durations.read_text(encoding="utf-8"))
    assert len(seconds) >= 10
    for test in seconds:
        path, _, name = test.partition("::")
        function = name.split("[", 1)[0]
        assert f"def {function}(" in (root / path).read_text(encoding="utf-8"), test
