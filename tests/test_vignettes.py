"""Every vignette runs end to end (reduced size), so none of them rots.

Each runs as its script (``__name__ == "__main__"``, its folder first on ``sys.path``, its command line in
``sys.argv``) inside the test's process, not a new interpreter: a vignette is about its steps, not about
starting Python, importing irtbridge and starting R again (measured: a few seconds of each run).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._script import run_as_script

VIGNETTES = sorted((Path(__file__).parent.parent / "vignettes").glob("*.py"))
# a vignette that can spread its datasets over spawned workers runs them here in the test's process (its steps
# are the point; spawned workers, one R each, are the subject of tests/pipeline and tests/cli)
ARGS = {"irt_glicko_benchmark": ["--jobs", "1"]}


def test_there_are_vignettes():
    assert len(VIGNETTES) >= 2
    assert set(ARGS) <= {p.stem for p in VIGNETTES}


@pytest.mark.r
@pytest.mark.slow
@pytest.mark.parametrize("path", VIGNETTES, ids=[p.stem for p in VIGNETTES])
def test_vignette_runs(path, tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    monkeypatch.setenv("MPLBACKEND", "Agg")
    returncode, error = run_as_script(path, "--out", str(out), "--quick", *ARGS.get(path.stem, []))
    stdout, stderr = capsys.readouterr()
    assert returncode == 0, f"{path.name} failed:\n{stdout[-2000:]}\n{stderr[-4000:]}\n{error[-4000:]}"
    assert stdout.strip(), f"{path.name} printed nothing"
    assert any(out.iterdir()), f"{path.name} saved no figures in {out}"
