"""What importing irtbridge costs: one fresh interpreter (tests/_fresh.py) imports ``irtbridge``, then every
module of the package, ``irtbridge._r`` included; rpy2 is never loaded, so R never starts ("import irtbridge
never starts R"). The time of each import is recorded (the ``import_seconds`` property of the test in
pytest's report, and printed with ``-rP``), the slowest first.

The per-package tests (``test_import_stays_r_free`` and the like) run their own code the same way, in a
fork of one helper process instead of a new interpreter each.
"""

from __future__ import annotations

import json

CODE = """
import importlib, json, pkgutil, sys, time
start = time.perf_counter()
import irtbridge
first = time.perf_counter() - start
times, loaded_r = {}, {}
for info in pkgutil.walk_packages(irtbridge.__path__, "irtbridge."):
    if info.name.rsplit(".", 1)[-1] == "__main__":
        continue  # running it is the CLI
    start = time.perf_counter()
    importlib.import_module(info.name)
    times[info.name] = time.perf_counter() - start
    if "rpy2" in sys.modules and not loaded_r:
        loaded_r = {"first importer of rpy2": info.name}
print(json.dumps({"irtbridge": first, "modules": times, "rpy2": sorted(m for m in sys.modules if m.split(".")[0] == "rpy2"),
                  **loaded_r}))
"""


def test_every_module_imports_without_loading_rpy2_and_its_cost_is_recorded(fresh_python, record_property):
    proc = fresh_python.run(CODE)
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = json.loads(proc.stdout)
    assert found["rpy2"] == [], f"rpy2 loaded by importing {found.get('first importer of rpy2')}"
    modules = found["modules"]
    # the walk saw the whole package: every floor, the R boundary and the CLI
    for name in ("irtbridge._r.session", "irtbridge.calibration.fit", "irtbridge.em.core", "irtbridge.cli",
                 "irtbridge.leaderboard", "irtbridge.report"):
        assert name in modules, name
    assert len(modules) > 100
    slowest = sorted(modules.items(), key=lambda kv: -kv[1])[:10]
    record_property("import_seconds", {"irtbridge": round(found["irtbridge"], 3),
                                       "every module": round(found["irtbridge"] + sum(modules.values()), 3)})
    print(f"import irtbridge: {found['irtbridge']:.3f} s; all {len(modules)} modules: "
          f"{found['irtbridge'] + sum(modules.values()):.2f} s; slowest: "
          + ", ".join(f"{n} {s:.2f} s" for n, s in slowest))


def test_the_command_lines_parser_loads_no_commands_library(fresh_python):
    """Every ``irtbridge`` run builds the whole parser: the texts of ``evaluate --help`` that need decodirt (and
    with it matplotlib and scipy) are filled only when the help is shown (``_Parser.fill_help``)."""
    code = ("import sys\nfrom irtbridge.cli import build_parser\nparser = build_parser()\n"
            "before = sorted(m for m in ('irtbridge.decodirt', 'matplotlib') if m in sys.modules)\n"
            "sub = next(a for a in parser._actions if a.dest == 'command').choices['evaluate']\n"
            "text = ' '.join(sub.format_help().split())\n"
            "print(before, 'irtbridge.decodirt' in sys.modules, 'weakly informative priors' in text)")
    proc = fresh_python.run(code)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["[]", "True", "True"], proc.stdout
