"""``python SCRIPT ARGS`` run inside the test's process: the script as ``__main__``, its folder first on
``sys.path``, ``sys.argv`` its command line. For tests about what a script does, not about starting a Python,
importing irtbridge and starting R again (a few seconds each time, measured)."""

from __future__ import annotations

import runpy
import sys
import traceback
from pathlib import Path

import pytest


def run_as_script(path: Path, *args: str) -> tuple[int, str]:
    """The exit status ``python PATH ARGS`` would give, and the traceback it would print when it raised.

    ``sys.argv`` and ``sys.path`` are restored afterwards; Ctrl-C still stops the test run."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(path.parent))
        patch.setattr(sys, "argv", [str(path), *args])
        try:
            runpy.run_path(str(path), run_name="__main__")
        except SystemExit as done:
            code = done.code
            return (0, "") if code is None else (code, "") if isinstance(code, int) else (1, str(code))
        except Exception:  # what the interpreter would print before exiting with status 1
            return 1, traceback.format_exc()
    return 0, ""
