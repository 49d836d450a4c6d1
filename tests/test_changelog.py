"""Every deprecated name is in CHANGELOG.md with its new home and a removal version (issue 33 items 4-5).

A deprecated name is one that warns with a DeprecationWarning. The package raises that warning in one place
only, :mod:`irtbridge._moved`, whose tables (filled as the modules load) name every such name; so the test
imports every module, reads the tables, checks that no other module raises the warning itself, and finds
each name in the changelog's "Deprecated" table with the version that removes it.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import warnings
from pathlib import Path

import pytest

import irtbridge
from irtbridge import _moved

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(irtbridge.__file__).parent
_ROW = re.compile(r"^\| `([\w.]+)` \| `([\w.]+)` \| (\d+\.\d+\.\d+) \|$", re.MULTILINE)


def _all_modules() -> None:
    def walk(pkg) -> None:
        for info in pkgutil.iter_modules(pkg.__path__):
            if info.name == "__main__" or (info.name == "_r" and pkg is irtbridge):
                continue  # _r needs rpy2 and deprecates nothing
            module = importlib.import_module(f"{pkg.__name__}.{info.name}")
            if info.ispkg:
                walk(module)

    walk(irtbridge)


def _changelog_rows() -> dict[str, tuple[str, str]]:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    deprecated = text.split("### Deprecated", 1)[1].split("\n### ", 1)[0]
    return {old: (new, version) for old, new, version in _ROW.findall(deprecated)}


@pytest.fixture(scope="module")
def deprecated() -> dict[str, str]:
    """Old dotted name -> new dotted name, for every name the package deprecates."""
    _all_modules()
    names = {}
    for package, table in _moved.TABLES.items():
        if package.split(".")[0] == "irtbridge":
            for old, home in table.items():
                module, new = _moved.new_home(home, old)
                names[f"{package}.{old}"] = f"{module}.{new}"
    return names


def _raises_deprecation(path: Path) -> bool:
    """Whether the code of ``path`` (not its prose) names DeprecationWarning or PendingDeprecationWarning."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(node, ast.Name) and node.id.endswith("DeprecationWarning") for node in ast.walk(tree))


def test_only_the_one_mechanism_raises_a_deprecation_warning():
    raisers = [p.relative_to(PACKAGE).as_posix() for p in sorted(PACKAGE.rglob("*.py")) if _raises_deprecation(p)]
    assert raisers == ["_moved.py"], f"deprecate through irtbridge._moved (so CHANGELOG.md can be checked): {raisers}"


def test_every_deprecated_name_is_in_the_changelog_with_its_home_and_removal_version(deprecated):
    rows = _changelog_rows()
    assert len(deprecated) >= 58  # the 56 top-level names and the benchmark's runner names at least
    missing = sorted(set(deprecated) - set(rows))
    assert not missing, f"CHANGELOG.md's Deprecated table lacks: {missing}"
    wrong = {old: rows[old][0] for old, new in deprecated.items() if rows[old][0] != new}
    assert not wrong, f"CHANGELOG.md names another new home for: {wrong}"
    assert {version for _, version in rows.values()} == {_moved.REMOVAL}


def test_the_changelog_lists_no_name_that_is_not_deprecated(deprecated):
    assert set(_changelog_rows()) <= set(deprecated) | set(_moved.MODULES)


def test_every_old_module_path_is_in_the_changelog_with_its_new_home_and_removal_version():
    # the modules that moved (irtbridge._moved.MODULES, served by moved_modules): rows "| `old` | `new` | version |"
    rows = _changelog_rows()
    missing = sorted(set(_moved.MODULES) - set(rows))
    assert not missing, f"CHANGELOG.md's Deprecated table lacks the old module paths: {missing}"
    assert {old: rows[old] for old in _moved.MODULES} == {old: (new, _moved.REMOVAL) for old, new in _moved.MODULES.items()}
    assert _moved.moved_module_table() == _moved.MODULES  # nothing else handed to the finder


def test_each_warning_names_the_removal_version_of_the_changelog(deprecated):
    rows = _changelog_rows()
    for old in sorted(deprecated):
        module, name = old.rsplit(".", 1)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = getattr(importlib.import_module(module), name)
        new_module, new_name = deprecated[old].rsplit(".", 1)
        assert value is getattr(importlib.import_module(new_module), new_name), old
        messages = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
        assert messages and f"removed in irtbridge {rows[old][1]}" in messages[0], (old, messages)


def test_every_old_keyword_is_in_the_changelog_with_its_home_and_removal_version(deprecated):
    # the old keyword arguments (irtbridge._moved.moved_keywords), rows "| `function(keyword=)` | `home` | version |"
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8").split("### Deprecated", 1)[1].split("\n### ", 1)[0]
    rows = dict(((fn, kw), (home, version)) for fn, kw, home, version in
                re.findall(r"^\| `([\w.]+)\((\w+)=\)` \| `([\w.()=]+)` \| (\d+\.\d+\.\d+) \|$", text, re.MULTILINE))
    old = {(fn, kw): home for fn, table in _moved.KEYWORDS.items() for kw, home in table.items()
           if fn.startswith("irtbridge.")}  # not the examples of irtbridge._moved's docstrings
    assert {"irtbridge.decodirt.evaluate_dataset", "irtbridge.pipeline.run_benchmark",
            "irtbridge.decodirt.calibrate_with_fallback"} <= set(_moved.KEYWORDS)
    assert {k: (home, _moved.REMOVAL) for k, home in old.items()} == rows
