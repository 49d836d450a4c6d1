"""The package as users install it: a wheel built from this checkout, installed into a fresh venv.

The R helpers, the packaged copy of the R lock file and the report templates must be in the wheel as
real files (no symlink into the repository), the test-only R helpers must not, and the installed package
must find its R sources from a directory far from the checkout.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_R = ROOT / "irtbridge" / "_r" / "R"


def test_r_sources_are_real_files_in_the_package():
    assert PACKAGE_R.is_dir() and not PACKAGE_R.is_symlink()
    names = sorted(p.name for p in PACKAGE_R.glob("irtb_*.R"))
    assert "irtb_bridge.R" in names and "irtb_calibrate.R" in names
    assert not any(p.is_symlink() for p in PACKAGE_R.iterdir())


def test_packaged_lock_equals_the_repository_lock():
    # r/packages.lock is what setup and the Dockerfile install; the package's copy is what `irtbridge
    # doctor` compares the installed R packages with (r/lock.R writes both)
    assert (PACKAGE_R / "packages.lock").read_bytes() == (ROOT / "r" / "packages.lock").read_bytes()


def test_no_test_helper_ships_in_the_package():
    for path in PACKAGE_R.glob("*.R"):
        assert "probe" not in path.read_text(encoding="utf-8"), path


@pytest.mark.slow
def test_wheel_installs_and_finds_its_r_sources(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
         "-w", str(dist), str(ROOT)],
        check=True, cwd=tmp_path,
    )
    (wheel,) = dist.glob("irtbridge-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    for needed in ("irtbridge/_r/R/irtb_bridge.R", "irtbridge/_r/R/irtb_calibrate.R",
                   "irtbridge/_r/R/packages.lock", "irtbridge/__init__.py"):
        assert needed in names, needed
    assert any(n.startswith("irtbridge/report/templates/") for n in names)
    assert not any(n.startswith("tests/") for n in names)

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)], check=True)
    probe = (
        "import irtbridge, pathlib; from irtbridge._r import session, doctor; "
        "print(irtbridge.__file__); print(len(list(session.R_SOURCE_DIR.glob('irtb_*.R')))); "
        "print(len(doctor.locked_r_packages()))"
    )
    out = subprocess.run([str(py), "-c", probe], check=True, cwd=tmp_path, capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}).stdout.split()
    assert Path(out[0]).is_relative_to(venv), out  # the installed copy, not the checkout
    assert int(out[1]) == len(list(PACKAGE_R.glob("irtb_*.R")))
    assert int(out[2]) > 10
