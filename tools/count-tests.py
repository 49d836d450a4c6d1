#!/usr/bin/env python3
"""Count the test suite's tests and compared quantities, so a change to the suite can show that none was dropped.

    python tools/count-tests.py [ROOT] [--no-collect] [--json]

* ``collected``: the items ``pytest --collect-only -q`` lists (test functions times their parameters, plus the
  docstring examples of the package), run from ROOT (default: this checkout) with its ``tests`` and ``irtbridge``;
* ``test functions``: ``def test_*`` in ``tests/**/*.py`` (read from the source, without parameters);
* ``compared quantities``: in the same files, ``assert`` statements plus calls of ``np.testing.*``, any
  ``assert_*`` function (``assert_allclose``, ``assert_frame_equal``, ``assert_array_equal``, ...) and
  ``pytest.approx`` / ``approx``.

Run it on two checkouts (``git worktree add --detach /tmp/base main``) to compare before and after.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path


def _call_name(node: ast.Call) -> str:
    """The dotted name of what is called (``np.testing.assert_allclose``), or ``""``."""
    parts = []
    func = node.func
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return ".".join(reversed(parts))


def _is_comparison(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return ("testing." in name or name.startswith("testing")) or last.startswith("assert_") or last == "approx"


def count_file(path: Path) -> dict[str, int]:
    """Test functions, assert statements and comparison calls in one file."""
    functions = asserts = calls = 0
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            functions += 1
        elif isinstance(node, ast.Assert):
            asserts += 1
        elif isinstance(node, ast.Call) and _is_comparison(_call_name(node)):
            calls += 1
    return {"test functions": functions, "assert statements": asserts, "comparison calls": calls,
            "compared quantities": asserts + calls}


def count_files(root: Path) -> dict[str, dict[str, int]]:
    """``count_file`` for every ``.py`` file under ``root/tests``, by path relative to ``root``."""
    return {path.relative_to(root).as_posix(): count_file(path) for path in sorted((root / "tests").rglob("*.py"))}


def count_source(root: Path) -> dict[str, int]:
    """Test functions, assert statements and comparison calls in ``root/tests``."""
    total: dict[str, int] = {}
    for counts in count_files(root).values():
        for key, value in counts.items():
            total[key] = total.get(key, 0) + value
    return total


def losses(before: Path, after: Path) -> list[str]:
    """Files of ``before`` whose test functions or compared quantities are fewer (or gone) in ``after``."""
    old, new = count_files(before), count_files(after)
    out = []
    for name, counts in old.items():
        for key in ("test functions", "compared quantities"):
            now = new.get(name, {}).get(key, 0)
            if now < counts[key]:
                out.append(f"{name}: {key} {counts[key]} -> {now}")
    return out


def count_collected(root: Path, python: str) -> int:
    """How many items pytest collects in ``root`` (``pytest --collect-only -q``)."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.run([python, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"], cwd=root,
                          capture_output=True, text=True, env=env)
    match = re.search(r"(\d+) tests? collected", proc.stdout) or re.search(r"^(\d+) tests?", proc.stdout, re.M)
    if match is None:
        raise SystemExit(f"pytest --collect-only printed no count:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return int(match.group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--no-collect", action="store_true", help="count the source only (no pytest run)")
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    parser.add_argument("--python", default=sys.executable, help="the interpreter that runs pytest")
    parser.add_argument("--before", metavar="CHECKOUT",
                        help="list the files whose test functions or compared quantities ROOT has fewer of than "
                             "CHECKOUT (a moved assertion shows as a loss in its old file); exit 1 if any")
    args = parser.parse_args(argv)
    root = Path(args.root).resolve()
    if args.before:
        lost = losses(Path(args.before).resolve(), root)
        print("\n".join(lost) if lost else f"no file of {args.before} lost a test function or a compared quantity")
        return 1 if lost else 0
    counts = {}
    if not args.no_collect:
        counts["collected"] = count_collected(root, args.python)
    counts.update(count_source(root))
    if args.json:
        print(json.dumps(counts))
    else:
        for key, value in counts.items():
            print(f"{key:>20}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
