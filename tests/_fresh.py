"""Fresh interpreters without paying for one each time: ``python -c CODE`` answered by a fork.

Tests that check what importing irtbridge loads (``'rpy2' not in sys.modules``) need an interpreter in which
irtbridge was never imported. Starting one per check costs Python's start and numpy + pandas + scipy's
import every time (about 1 s each, 22 times). Here one helper process (per pytest worker) imports those
three once, and every check runs in a fork of it: a child in which no irtbridge, rpy2 or matplotlib module
was ever imported, with its own stdout and stderr, exactly as ``python -c CODE`` would be (``sys.path[0]``
is ``''``, ``sys.argv`` is ``['-c', *args]``).

    result = fresh_python.run(code, cwd=root)      # the conftest fixture; a subprocess.CompletedProcess
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

# what the helper imports before forking: never irtbridge, rpy2 or matplotlib (what the checks look for)
PRELOAD = ("numpy", "pandas", "scipy.special", "scipy.optimize", "scipy.stats")


class HelperProcess:
    """A long-lived helper process that answers each JSON request (one line on its input) with one line: started
    on first use and again if it died, ended when its input closes (by :meth:`close`, or at exit). The fresh
    interpreters here and the R fork server of tests/_rrefs.py are two of them.

    Parameters
    ----------
    command : list of str
        The helper's command line.
    name : str
        What to call it in the error raised when it ends without answering.
    **popen : Any
        Further ``subprocess.Popen`` arguments (``stderr``).
    """

    def __init__(self, command: list[str], name: str, **popen: Any) -> None:
        self._argv, self._name, self._popen = command, name, popen
        self._proc: subprocess.Popen | None = None
        self._lock = threading.Lock()
        atexit.register(self.close)

    def _ensure(self) -> bool:
        """Start the helper unless it runs; True when it was started now (its first lines are still unread)."""
        if self._proc is not None and self._proc.poll() is None:
            return False
        self._proc = subprocess.Popen(self._argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                      **self._popen)
        return True

    def _line(self) -> str:
        """The helper's next line of output, without its newline."""
        assert self._proc is not None and self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{self._name} ended without answering")
        return line.rstrip("\n")

    def _ask(self, request: dict[str, Any]) -> str:
        """Send ``request`` (started first if needed) and return the answer line."""
        with self._lock:
            self._ensure()
            assert self._proc is not None and self._proc.stdin is not None
            self._proc.stdin.write(json.dumps(request) + "\n")
            self._proc.stdin.flush()
            return self._line()

    def close(self) -> None:
        """End the helper (its loop ends with its input); nothing when it does not run."""
        if self._proc is not None and self._proc.poll() is None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            self._proc.wait(timeout=60)
        self._proc = None


class FreshPython(HelperProcess):
    """A helper process answering ``run(code)`` with a fork that runs it (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__([sys.executable, __file__, "--serve"], "the fresh-interpreter helper")

    def run(self, code: str, *args: str, cwd: Any = None, check: bool = False) -> subprocess.CompletedProcess:
        """What ``subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)`` gives."""
        answer = json.loads(self._ask({"code": code, "args": list(args), "cwd": str(cwd) if cwd else None}))
        result = subprocess.CompletedProcess(["python", "-c", code, *args], answer["returncode"], answer["stdout"],
                                             answer["stderr"])
        if check:
            result.check_returncode()
        return result


def _child(request: dict, out: Path, err: Path) -> None:
    """In the fork: run the code as ``python -c`` would and leave with its exit status."""
    status = 0
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        for fd, path in ((1, out), (2, err)):
            target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(target, fd)
            os.close(target)
        sys.stdout = open(1, "w", closefd=False)
        sys.stderr = open(2, "w", closefd=False)
        if request["cwd"]:
            os.chdir(request["cwd"])
        sys.argv = ["-c", *request["args"]]
        sys.path.insert(0, "")
        exec(compile(request["code"], "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
    except SystemExit as exc:
        code = exc.code
        status = code if isinstance(code, int) else (0 if code is None else 1)
        if not isinstance(code, (int, type(None))):
            print(code, file=sys.stderr)
    except BaseException:  # noqa: B036  (the child reports everything, as an interpreter would)
        import traceback

        traceback.print_exc()
        status = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(status)


def _serve() -> None:
    import importlib
    import tempfile
    import time

    for name in PRELOAD:
        importlib.import_module(name)
    replies = sys.stdout
    scratch = Path(tempfile.mkdtemp(prefix="irtbridge-fresh-"))
    try:
        for line in sys.stdin:
            request = json.loads(line)
            out, err = scratch / "out", scratch / "err"
            start = time.perf_counter()
            replies.flush()
            pid = os.fork()
            if pid == 0:
                _child(request, out, err)
            _, status = os.waitpid(pid, 0)
            code = os.waitstatus_to_exitcode(status)
            replies.write(json.dumps({"returncode": code, "stdout": out.read_text(errors="replace"),
                                      "stderr": err.read_text(errors="replace"),
                                      "seconds": time.perf_counter() - start}) + "\n")
            replies.flush()
    finally:
        for path in scratch.iterdir():
            path.unlink()
        scratch.rmdir()


if __name__ == "__main__" and sys.argv[1:] == ["--serve"]:
    sys.path.pop(0)  # this file's folder (tests/) is not on the path of a `python -c`
    _serve()
