"""Every vignette runs end to end (reduced size), so none of them rots."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

VIGNETTES = sorted((Path(__file__).parent.parent / "vignettes").glob("*.py"))


def test_there_are_vignettes():
    assert len(VIGNETTES) >= 2


@pytest.mark.r
@pytest.mark.slow
@pytest.mark.parametrize("path", VIGNETTES, ids=[p.stem for p in VIGNETTES])
def test_vignette_runs(path, tmp_path):
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, str(path), "--out", str(out), "--quick"],
        capture_output=True, text=True, env={**__import__("os").environ, "MPLBACKEND": "Agg"},
    )
    assert proc.returncode == 0, f"{path.name} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    assert proc.stdout.strip(), f"{path.name} printed nothing"
    assert any(out.iterdir()), f"{path.name} saved no figures in {out}"
