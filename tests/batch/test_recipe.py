"""The README's container recipe for a batch: what it mounts and runs is what tools/container-test.sh runs,
and the example it mounts (docs/examples/batch) is a valid manifest whose units all succeed.

The image itself is built and the recipe run inside it only by `make container-test`
(IRTBRIDGE_CONTAINER_TEST=1; 20-50 minutes).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from irtbridge.batch import load_manifest, run_batch

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "batch"
COMMAND = "batch /in/manifest.json --out /out/batch --workers 2"


def test_readme_recipe_mounts_the_example_and_runs_batch():
    readme = (ROOT / "README.md").read_text()
    runs = [c for c in re.findall(r"docker run[^`\n]*", readme) if " batch " in c]
    assert runs, "the README shows no `docker run ... batch` recipe"
    cmd = runs[0]
    assert '-v "$PWD/docs/examples/batch:/in:ro"' in cmd and '-v "$PWD/out:/out"' in cmd
    assert cmd.endswith(f"irtbridge {COMMAND}")


def test_container_test_runs_exactly_the_recipe():
    script = (ROOT / "tools" / "container-test.sh").read_text()
    assert subprocess.run(["bash", "-n", str(ROOT / "tools" / "container-test.sh")]).returncode == 0
    assert 'RECIPE="$PWD/docs/examples/batch"' in script
    # both engines mount the example read-only at /in and the host folder at /out
    assert script.count('-v "$RECIPE:/in:ro" -v "$WORK/out:/out"') == 2
    assert f"step batch run_in {COMMAND}\ncheck_batch" in script


def test_example_manifest_is_valid():
    m = load_manifest(EXAMPLE / "manifest.json")
    assert {u.kind for u in m.units} == {"calibrate", "abilities", "fit", "ei", "hardness"}
    assert all(Path(u.data).parent == EXAMPLE for u in m.units)  # the data travel with the manifest


@pytest.mark.r
def test_example_runs(tmp_path):
    """The recipe's batch, outside the container: every unit done (serial here, a local cluster in the image)."""
    shutil.copytree(EXAMPLE, tmp_path / "in")
    res = run_batch(tmp_path / "in" / "manifest.json", out=tmp_path / "out", scheduler="serial")
    assert (res.units["status"] == "done").all(), res.units["error"].to_dict()
    for uid in res.units.index:
        assert json.loads((tmp_path / "out" / "units" / uid / "unit.json").read_text())["status"] == "done"
