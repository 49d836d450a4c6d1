"""R reference numbers computed once and stored as data (statsmodels' ``tests/results/`` habit).

A test that asks R for its expected numbers calls ``run_r([...])`` where it called
``run_r(["Rscript", ...])``: same arguments, same ``CompletedProcess`` back, same files written.
What the call means is its key: the R code (the script's text or ``-e`` code), its other arguments, and the
content of every file or folder it is given; a path that does not exist yet is an output. The outputs,
stdout and exit status of each call are stored under ``tests/r/refs/<test module>.json``, stamped with the
SHA-256 of the R lock file (``irtbridge/_r/R/packages.lock``), which pins every R package.

``IRTBRIDGE_R_REFS`` says what a call does:

* unset or ``use`` (``make test``): the stored outputs are written where R would have written them; a call
  without a stored result, or a file stamped with another lock, fails and says to run ``make refs``;
* ``record`` (``make refs``): R runs and the result is stored (in ``IRTBRIDGE_R_REFS_DIR``, default
  ``tests/r/refs``; a call already stored there is not run again, so an interrupted run resumes); a test whose
  own body does not ask R is skipped once its fixtures are made (tests/conftest.py);
* ``check`` (``make refs-check``, CI): R runs, the test reads R's own output, and the call fails unless the
  stored result equals it (numbers to a relative 1e-6, text exactly);
* ``live``: R runs, nothing is read or stored.

So R stays the oracle: CI regenerates every reference and compares it with the committed one. Where R runs
(check, record), a plain ``Rscript SCRIPT ...`` or ``Rscript -e CODE ...`` call of code using mirt runs as
Rscript would run it, in a fork of one R of the test process that loaded mirt once (tests/r/forkserver.R,
:class:`_ForkServer`).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests._fresh import HelperProcess

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "irtbridge" / "_r" / "R" / "packages.lock"
REFS = ROOT / "tests" / "r" / "refs"
MODES = ("use", "record", "check", "live")
RTOL, ATOL = 1e-6, 1e-9


def lock_hash() -> str:
    """SHA-256 of the R lock file: the stamp every stored reference carries."""
    return hashlib.sha256(LOCK.read_bytes()).hexdigest()


def mode() -> str:
    value = os.environ.get("IRTBRIDGE_R_REFS", "use") or "use"
    if value not in MODES:
        raise pytest.UsageError(f"IRTBRIDGE_R_REFS={value!r}: expected one of {', '.join(MODES)}")
    return value


def refs_dir() -> Path:
    return Path(os.environ.get("IRTBRIDGE_R_REFS_DIR") or REFS)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tree(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): _sha(p) for p in sorted(folder.rglob("*")) if p.is_file()}


def _is_path(arg: str) -> bool:
    return os.path.isabs(arg)


def _describe(args: list[str]) -> tuple[list[Any], dict[int, Any]]:
    """The key's view of the arguments (paths by content) and what each path held before the run."""
    key: list[Any] = []
    before: dict[int, Any] = {}
    for i, arg in enumerate(args):
        if i == 0:
            key.append(Path(arg).name)  # Rscript
        elif not _is_path(arg):
            key.append(arg)
        elif os.path.isfile(arg):
            before[i] = _sha(Path(arg))
            key.append({"file": before[i]})
        elif os.path.isdir(arg):
            before[i] = _tree(Path(arg))
            key.append({"dir": before[i]})
        else:
            before[i] = None
            key.append({"out": Path(arg).name})
    return key, before


def _collect(args: list[str], before: dict[int, Any]) -> dict[str, str]:
    """What the run wrote: each output path given, and each new or changed file in a folder given."""
    out: dict[str, str] = {}
    for i, old in before.items():
        path = Path(args[i])
        if isinstance(old, str):  # a file given: stored when the run rewrote it
            if path.is_file() and _sha(path) != old:
                out[str(i)] = path.read_text(encoding="utf-8")
        elif old is None:
            if path.is_file():
                out[str(i)] = path.read_text(encoding="utf-8")
            elif path.is_dir():  # an output folder
                for rel in _tree(path):
                    out[f"{i}/{rel}"] = (path / rel).read_text(encoding="utf-8")
        else:
            for rel, sha in _tree(path).items():
                if old.get(rel) != sha:
                    out[f"{i}/{rel}"] = (path / rel).read_text(encoding="utf-8")
    return out


def _restore(args: list[str], outputs: dict[str, str]) -> None:
    for where, text in outputs.items():
        index, _, rel = where.partition("/")
        path = Path(args[int(index)])
        if rel:
            path = path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _module() -> str:
    """The test module whose code calls :func:`run_r` (``tests/em/test_native_em.py`` -> ``em__test_native_em``).

    The caller's file, not the running test's: a fixture defined in one module and used by another (as
    ``tests/em/test_dense.py`` uses ``test_native_em``'s ``ref``) stores its references once, with the module
    that holds the R call, which ``make refs`` runs (the modules that name ``run_r``).
    """
    here = Path(__file__).resolve()
    frame = sys._getframe(1)
    while frame is not None:
        file = Path(frame.f_code.co_filename).resolve()
        if file != here and file.is_relative_to(ROOT / "tests"):
            rel = file.relative_to(ROOT / "tests").with_suffix("")
            return "__".join(rel.parts)
        frame = frame.f_back  # type: ignore[assignment]
    raise RuntimeError("run_r is for the tests under tests/: no caller there")


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    name = hashlib.sha256(str(path).encode()).hexdigest()[:16]
    with open(Path(tempfile.gettempdir()) / f"irtbridge-rrefs-{name}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def _differences(stored: str, live: str) -> str | None:
    """None when the two texts say the same (numbers to RTOL/ATOL, everything else exactly)."""
    if stored == live:
        return None
    a, b = _NUMBER.split(stored), _NUMBER.split(live)
    if a != b:
        return "the text between the numbers differs"
    for x, y in zip(_NUMBER.findall(stored), _NUMBER.findall(live)):
        fx, fy = float(x), float(y)
        if not math.isclose(fx, fy, rel_tol=RTOL, abs_tol=ATOL):
            return f"{x} stored, {y} now"
    return None


def _compare(record: dict[str, Any], live: dict[str, Any], where: str) -> None:
    problems = []
    if record["returncode"] != live["returncode"]:
        problems.append(f"exit status {record['returncode']} stored, {live['returncode']} now")
    for name in sorted(set(record["outputs"]) | set(live["outputs"])):
        if name not in record["outputs"] or name not in live["outputs"]:
            problems.append(f"output {name}: written by only one of the runs")
            continue
        diff = _differences(record["outputs"][name], live["outputs"][name])
        if diff:
            problems.append(f"output {name}: {diff}")
    diff = _differences(record["stdout"], live["stdout"])
    if diff:
        problems.append(f"stdout: {diff}")
    if problems:
        pytest.fail(f"R reference {where} differs from R now: " + "; ".join(problems) + " (run `make refs`)",
                    pytrace=False)


class _ForkServer(HelperProcess):
    """``Rscript SCRIPT ARGS...`` and ``Rscript -e CODE ARGS...`` of R code using mirt, run by one R of this
    process (tests/r/forkserver.R) that loaded mirt and jsonlite once and runs each script in a forked copy of
    itself, as Rscript would: the same output, files and exit status, without the 2.4 s a new R spends loading
    mirt (most of the 81 reference runs in CI). Anything else (code without mirt, Rscript options, a
    given ``env`` or ``cwd``, ``PATH`` or R's start-up variables changed since the server started) runs Rscript
    itself."""

    PRELOAD = ("jsonlite", "mirt")
    _USES_MIRT = re.compile(r"\bmirt\b")
    _START_UP = re.compile(r"^(R_|LC_|LANG$|LANGUAGE$|PATH$)")

    def __init__(self) -> None:
        server = str(ROOT / "tests" / "r" / "forkserver.R")
        super().__init__(["Rscript", server, *self.PRELOAD], f"{server} (run it by hand with Rscript to see why)",
                         stderr=subprocess.DEVNULL)
        self._env: dict[str, str] = {}
        self._home = ""

    @classmethod
    def _command(cls, args: list[str]) -> tuple[str | None, str | None, list[str]] | None:
        """(script, code, arguments) of a plain ``Rscript SCRIPT ...`` or ``Rscript -e CODE ...`` whose R code
        uses mirt, else None. Code without mirt runs faster in a new R: a forked R carries mirt's objects,
        which every garbage collection of the run then walks (measured: a catR script 0.86 s in a new R,
        1.20 s forked), while a new R that loads mirt spends those 2.4 s again (0.15 s forked)."""
        if args[0] != "Rscript" or len(args) < 2:
            return None
        if args[1] == "-e":
            if len(args) < 3 or "-e" in args[3:]:
                return None
            script, code, rest = None, args[2], args[3:]
        elif args[1].startswith("-") or not os.path.isfile(args[1]):
            return None
        else:
            script, code, rest = args[1], None, args[2:]
        text = code if script is None else Path(script).read_text(encoding="utf-8", errors="replace")
        return (script, code, rest) if cls._USES_MIRT.search(text) else None

    def _changes(self) -> tuple[dict[str, str], list[str]] | None:
        """The environment variables set and unset since the server started, or None when one of them is
        read as R or Rscript start (they would not take effect in a running R). ``R_HOME`` set to the
        server's own R home (as rpy2 sets it when the test process starts its R) changes nothing."""
        now = dict(os.environ)
        changed = {k for k in set(now) | set(self._env) if now.get(k) != self._env.get(k)}
        if {now.get("R_HOME"), self._env.get("R_HOME")} <= {None, self._home}:
            changed.discard("R_HOME")
        if any(self._START_UP.match(name) for name in changed):
            return None
        return {k: now[k] for k in changed if k in now}, sorted(k for k in changed if k not in now)

    def run(self, args: list[str]) -> subprocess.CompletedProcess | None:
        """What ``subprocess.run(args, capture_output=True, text=True)`` returns, or None where Rscript itself
        must run."""
        command = self._command(args)
        if command is None:
            return None
        if self._ensure():  # its first line, once mirt is loaded: R's home
            self._env = dict(os.environ)
            self._home = self._line().strip()
        changes = self._changes()
        if changes is None:
            return None
        script, code, rest = command
        with tempfile.TemporaryDirectory(prefix="irtbridge-rrefs-") as folder:
            out, err = os.path.join(folder, "out"), os.path.join(folder, "err")
            status = self._ask({"script": script, "code": code, "args": rest, "cwd": os.getcwd(), "set": changes[0],
                                "unset": changes[1], "out": out, "err": err})
            read = [Path(p).read_text(encoding="utf-8") if os.path.exists(p) else "" for p in (out, err)]
        return subprocess.CompletedProcess(args, int(status), read[0], read[1])


_SERVER = _ForkServer()


def run_r(args: list[str], *, check: bool = False, capture_output: bool = False, text: bool = False,
          env: dict[str, str] | None = None, cwd: Any = None, **kwargs: Any) -> subprocess.CompletedProcess:
    """``run_r(["Rscript", ...])`` answered from the stored R references (see the module docstring)."""
    args = [str(a) for a in args]
    if Path(args[0]).name != "Rscript":
        raise ValueError(f"run_r runs Rscript, not {args[0]!r}")
    how = mode()
    if how == "live":
        return subprocess.run(args, check=check, capture_output=capture_output, text=text, env=env, cwd=cwd,
                              **kwargs)
    described, before = _describe(args)
    key = hashlib.sha256(json.dumps(described, sort_keys=True).encode()).hexdigest()[:20]
    file = refs_dir() / f"{_module()}.json"
    where = f"{file.relative_to(ROOT) if file.is_relative_to(ROOT) else file} [{key}]"
    if how == "record" and _load(file).get("lock") == lock_hash() and key in _load(file).get("calls", {}):
        how = "use"  # recorded earlier in this `make refs` (it starts from an empty folder): a resumed run
    if how == "use":
        stored = _load(file)
        if stored and stored.get("lock") != lock_hash():
            pytest.fail(f"{where}: the R references were made under another {LOCK.name} "
                        f"(the lock changed): run `make refs`", pytrace=False)
        record = stored.get("calls", {}).get(key)
        if record is None:
            pytest.fail(f"{where}: no stored R reference for {described!r}: run `make refs` "
                        f"(it runs R and stores what it returns)", pytrace=False)
        _restore(args, record["outputs"])
    else:
        proc = _SERVER.run(args) if env is None and cwd is None and not kwargs else None
        if proc is None:
            proc = subprocess.run(args, capture_output=True, text=True, env=env, cwd=cwd, **kwargs)
        record = {"command": described, "returncode": proc.returncode, "stdout": proc.stdout,
                  "stderr": proc.stderr[-4000:], "outputs": _collect(args, before)}
        if not capture_output:  # what the caller would have seen
            print(proc.stdout, end="")
            print(proc.stderr, end="")
        if how == "check":
            stored = _load(refs_dir() / f"{_module()}.json")
            if stored.get("lock") != lock_hash():
                pytest.fail(f"{where}: stamped with another lock: run `make refs`", pytrace=False)
            if key not in stored.get("calls", {}):
                pytest.fail(f"{where}: no stored R reference for {described!r}: run `make refs`", pytrace=False)
            _compare(stored["calls"][key], record, where)
        else:
            with _locked(file):
                stored = _load(file)
                if stored.get("lock") != lock_hash():
                    stored = {"lock": lock_hash(), "calls": {}}
                stored["calls"][key] = record
                file.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    stdout, stderr = record["stdout"], record["stderr"]
    if not text and not kwargs.get("universal_newlines") and not kwargs.get("encoding"):
        stdout, stderr = stdout.encode(), stderr.encode()
    result = subprocess.CompletedProcess(args, record["returncode"], stdout if capture_output else None,
                                         stderr if capture_output else None)
    if check:
        result.check_returncode()
    return result


def _callers_of_r(module: Any) -> set[str]:
    """Names of the module's functions that call run_r, directly or through another such function."""
    import inspect

    sources = {}
    for name, obj in vars(module).items():
        if (inspect.isfunction(obj) and getattr(obj, "__module__", None) == module.__name__
                and not hasattr(obj, "_pytestfixturefunction")):  # a fixture asks R in setup, not in the body
            try:
                sources[name] = inspect.getsource(obj)
            except (OSError, TypeError):
                continue
    found = {"run_r"}
    while True:
        more = {name for name, src in sources.items() if name not in found
                and any(re.search(rf"\b{re.escape(f)}\b", src) for f in found)}
        if not more:
            return found
        found |= more


def records_in_call(item: Any) -> bool:
    """Whether a test's own body may ask R (``make refs`` skips the bodies of the others: their fixtures,
    which may ask R, have run by then)."""
    import inspect

    function = getattr(item, "function", None)
    module = getattr(item, "module", None)
    if function is None or module is None:
        return False
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        return True
    return any(re.search(rf"\b{re.escape(name)}\b", source) for name in _callers_of_r(module))
