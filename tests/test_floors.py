"""The house's floors (issue 33 item 4): no module imports one on a higher floor, and no import circle.

Read from the source with :mod:`ast` (nothing is imported), counting every import: at module level, inside
functions (``importlib.import_module("irtbridge.x")`` included), and for the floors also in the docstring
examples (``>>> from irtbridge...``), since an example runs as a test of its module. Imports under
``if TYPE_CHECKING:`` are annotations only and do not count. The top-level
``irtbridge/__init__.py`` is the map of the whole house (it resolves every public name lazily) and is no
floor of its own; ``from irtbridge import __version__`` is allowed everywhere.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import irtbridge
from irtbridge import _moved

PACKAGE = Path(irtbridge.__file__).parent

# the floors of helper-rules/CONTRIBUTING, from the ground up; a module not named here is a method (floor 3)
FLOORS = {
    0: ("exceptions", "_validation", "_ties", "_summary", "_outdir", "_io", "_parallel", "_plotting", "_moved", "_catalogue", "_constraints"),
    1: ("_r", "irt", "em", "example_data", "classifiers", "rankstats", "matches"),
    2: ("calibration",),
    4: ("decodirt", "pipeline", "batch", "report", "cli", "__main__"),
}
METHODS = 3
_DOCTEST_IMPORT = re.compile(r"^\s*>>> +(?:from\s+(irtbridge[\w.]*)\s+import\s+([\w, ]+)|import\s+(irtbridge[\w.]*))",
                             re.MULTILINE)


def floor_of(top: str) -> int:
    return next((f for f, names in FLOORS.items() if top in names), METHODS)


def _module_file(dotted: str) -> Path | None:
    # an old module path (irtbridge._moved.MODULES) counts as the module it now is
    path = PACKAGE.joinpath(*_moved.current_module_path(dotted).split(".")[1:])
    for candidate in (path / "__init__.py", path.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    inside = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            inside |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return inside


def _imported(path: Path, examples: bool = True) -> set[str]:
    """The irtbridge modules ``path`` imports (``from irtbridge.x import y`` names module ``x.y`` when it is one),
    with those of its docstring examples or without them."""
    src = path.read_text(encoding="utf-8")
    tree = ast.parse(src)
    skip = _type_checking_nodes(tree)
    found: set[str] = set()

    def add(module: str, names: list[str]) -> None:
        subs = [f"{module}.{n}" for n in names if _module_file(f"{module}.{n}")]
        found.update(subs if len(subs) == len(names) else [module, *subs])

    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("irtbridge"):
            add(node.module, [a.name for a in node.names])
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("irtbridge"))
        elif (isinstance(node, ast.Call) and ast.unparse(node.func).endswith("import_module") and node.args
              and isinstance(node.args[0], ast.Constant) and str(node.args[0].value).startswith("irtbridge")):
            found.add(node.args[0].value)  # importlib.import_module("irtbridge.x"): an import all the same
    for m in _DOCTEST_IMPORT.finditer(src if examples else ""):
        if m.group(3):
            found.add(m.group(3))
        else:
            add(m.group(1), [n.strip() for n in m.group(2).split(",") if n.strip()])
    found.discard("irtbridge")  # the map (``from irtbridge import __version__``)
    return found


def _graph(examples: bool = True) -> dict[str, set[str]]:
    graph = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name == "__init__.py":
            continue
        targets = {_module_file(m) for m in _imported(path, examples)}
        graph[name] = {t.relative_to(PACKAGE).as_posix() for t in targets if t is not None and t != path}
        graph[name].discard("__init__.py")
    return graph


def test_no_module_imports_a_higher_floor():
    up = []
    for name, targets in _graph().items():
        mine = floor_of(name.split("/")[0].removesuffix(".py"))
        for target in targets:
            theirs = floor_of(target.split("/")[0].removesuffix(".py"))
            if theirs > mine:
                up.append(f"{name} (floor {mine}) imports {target} (floor {theirs})")
    assert not up, "imports from a lower floor to a higher one:\n" + "\n".join(sorted(up))


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circle():
    # the code's imports (at module level and inside functions); an example may use its package's face
    circles = _circles(_graph(examples=False))
    assert not circles, f"modules that import each other in a loop: {circles}"


def test_the_checks_see_what_they_check(tmp_path):
    # the old shim's lazy import (benchmark -> pipeline) and the 3PL example's import both counted; the
    # TYPE_CHECKING import of pipeline/headline.py does not
    module = tmp_path / "m.py"
    module.write_text('''"""An example.

    >>> from irtbridge.decodirt.modes import STABLE_PRIORS
    """
    from typing import TYPE_CHECKING
    if TYPE_CHECKING:
        from irtbridge.report import write_report
    def f():
        import importlib
        return importlib.import_module("irtbridge.pipeline")
    '''.replace("\n    ", "\n"))
    assert _imported(module) == {"irtbridge.decodirt.modes", "irtbridge.pipeline"}
    assert _imported(module, examples=False) == {"irtbridge.pipeline"}
    loop = {"a.py": {"b.py"}, "b.py": {"c.py"}, "c.py": {"a.py"}, "d.py": {"a.py"}}
    assert _circles(loop) == [["a.py", "b.py", "c.py"]]
    graph = _graph()
    assert "em/items.py" in graph["em/core.py"]
    assert "pipeline/_units.py" in graph["pipeline/stages.py"]
    assert floor_of("em") < floor_of("calibration") < floor_of("leaderboard") < floor_of("decodirt")


# the rooms of calibration/ (issue 41 item 2), from the top down: a module imports only from its own room or
# the rooms after it. The package's __init__.py (the map of calibration/, which imports the public names of
# every room) stands above them all.
ROOMS = ("fit", "engines", "results", "analysis", "inputs", "shared")


def _room(module: str) -> int | None:
    """The rank of ``module``'s room in :data:`ROOMS` (-1 for calibration/__init__.py); None outside calibration/."""
    parts = module.split("/")
    if parts[0] != "calibration":
        return None
    return -1 if len(parts) == 2 else ROOMS.index(parts[1])


def arrows_back_up(graph: dict[str, set[str]]) -> list[str]:
    """Every import inside calibration/ from a room to a room above it (or to the map)."""
    up = []
    for name, targets in graph.items():
        mine = _room(name)
        if mine is None or mine == -1:
            continue
        for target in targets:
            theirs = _room(target)
            if theirs is not None and theirs < mine:
                up.append(f"{name} (room {ROOMS[mine]}) imports {target} "
                          f"({'the map' if theirs == -1 else 'room ' + ROOMS[theirs]})")
    return sorted(up)


def test_no_arrow_back_up_inside_calibration():
    # the code's imports (module level and inside functions; an example may use the package's face)
    folders = {p.name for p in (PACKAGE / "calibration").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == set(ROOMS), "a room of calibration/ is missing from ROOMS (place it in the order)"
    up = arrows_back_up(_graph(examples=False))
    assert not up, "imports from a room of calibration/ to a room above it:\n" + "\n".join(up)


def test_the_room_check_sees_an_arrow_back_up():
    graph = {"calibration/inputs/itemtypes.py": {"calibration/engines/__init__.py", "calibration/inputs/options.py"},
             "calibration/results/result.py": {"calibration/analysis/fscores.py", "calibration/__init__.py"},
             "calibration/fit/fitting.py": {"calibration/results/result.py"}, "cat/x.py": {"calibration/fit/a.py"}}
    assert arrows_back_up(graph) == [
        "calibration/inputs/itemtypes.py (room inputs) imports calibration/engines/__init__.py (room engines)",
        "calibration/results/result.py (room results) imports calibration/__init__.py (the map)"]
    # on the house before issue 41 item 2 the analyses imported the results' helpers
    assert _room("calibration/analysis/diagnostics.py") > _room("calibration/results/_base.py")
