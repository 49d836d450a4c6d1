"""Every vignette runs end to end (reduced size), so none of them rots.

Each runs as its script (``__name__ == "__main__"``, its folder first on ``sys.path``, its command line in
``sys.argv``) inside the test's process, not a new interpreter: a vignette is about its steps, not about
starting Python, importing irtbridge and starting R again (measured: a few seconds of each run).
"""

from __future__ import annotations

import runpy
import sys
import traceback
from pathlib import Path

import pytest

VIGNETTES = sorted((Path(__file__).parent.parent / "vignettes").glob("*.py"))


def test_there_are_vignettes():
    assert len(VIGNETTES) >= 2


def _run_as_script(path: Path, *args: str) -> tuple[int, str]:
    """The exit status of ``python PATH ARGS`` run in this process, and its traceback if it raised."""
    try:
        runpy.run_path(str(path), run_name="__main__")
    except SystemExit as done:
        code = done.code
        return (0, "") if code is None else (code, "") if isinstance(code, int) else (1, str(code))
    except Exception:  # what the interpreter would print before exiting with status 1 (Ctrl-C still stops)
        return 1, traceback.format_exc()
    return 0, ""


@pytest.mark.r
@pytest.mark.slow
@pytest.mark.parametrize("path", VIGNETTES, ids=[p.stem for p in VIGNETTES])
def test_vignette_runs(path, tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.syspath_prepend(str(path.parent))
    monkeypatch.setattr(sys, "argv", [str(path), "--out", str(out), "--quick"])
    returncode, error = _run_as_script(path)
    stdout, stderr = capsys.readouterr()
    assert returncode == 0, f"{path.name} failed:\n{stdout[-2000:]}\n{stderr[-4000:]}\n{error[-4000:]}"
    assert stdout.strip(), f"{path.name} printed nothing"
    assert any(out.iterdir()), f"{path.name} saved no figures in {out}"
