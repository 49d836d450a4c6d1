"""The package as users install it: a wheel built from this checkout, installed into a fresh venv.

The R helpers, the packaged copy of the R lock file and the report templates must be in the wheel as
real files (no symlink into the repository), the test-only R helpers must not, and the installed package
must find its R sources from a directory far from the checkout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_R = ROOT / "irtbridge" / "_r" / "R"


def test_r_sources_are_real_files_in_the_package():
    assert PACKAGE_R.is_dir() and not PACKAGE_R.is_symlink()
    names = sorted(p.name for p in PACKAGE_R.glob("irtb_*.R"))
    assert "irtb_bridge.R" in names and "irtb_calibrate.R" in names
    assert not any(p.is_symlink() for p in PACKAGE_R.iterdir())


def test_one_lock_file_the_package_ships():
    # irtbridge/_r/R/packages.lock is the one lock: r/lock.R writes it, setup, r/install.R and the Dockerfile
    # install from it, and `irtbridge doctor` compares the installed R packages with it (installed wheel
    # included: test_installed_wheel_finds_its_r_sources below reads it through doctor)
    assert (PACKAGE_R / "packages.lock").is_file()
    locks = sorted(p.relative_to(ROOT).as_posix() for p in ROOT.rglob("packages.lock")
                   if not {".venv", ".git", "build"} & set(p.relative_to(ROOT).parts))
    assert locks == ["irtbridge/_r/R/packages.lock"], locks
    for user in ("Makefile", "tools/setup.sh", "r/install.R", "r/lock.R", "Dockerfile"):
        text = (ROOT / user).read_text(encoding="utf-8")
        assert "r/packages.lock" not in text.replace("irtbridge/_r/R/packages.lock", ""), user


def test_no_test_helper_ships_in_the_package():
    for path in PACKAGE_R.glob("*.R"):
        assert "probe" not in path.read_text(encoding="utf-8"), path


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A wheel of this checkout installed into a fresh venv (system site packages, no network)."""
    tmp_path = tmp_path_factory.mktemp("wheel")
    dist = tmp_path / "dist"
    # no PYTHONPATH (a checkout on it would make pip think irtbridge is installed already)
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
         "-w", str(dist), str(ROOT)],
        check=True, cwd=tmp_path, env=clean,
    )
    (wheel,) = dist.glob("irtbridge-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, env=clean)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)], check=True, env=clean)
    return tmp_path, venv, names


def _run(venv: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(cwd), "TZ": "UTC"}
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, env=env, timeout=600)


@pytest.mark.slow
def test_wheel_holds_the_package_data(installed):
    _, _, names = installed
    for needed in ("irtbridge/_r/R/irtb_bridge.R", "irtbridge/_r/R/irtb_calibrate.R",
                   "irtbridge/_r/R/packages.lock", "irtbridge/__init__.py"):
        assert needed in names, needed
    assert any(n.startswith("irtbridge/report/templates/") for n in names)
    assert not any(n.startswith("tests/") for n in names)


@pytest.mark.slow
def test_installed_wheel_finds_its_r_sources(installed):
    tmp_path, venv, _ = installed
    py = venv / "bin" / "python"
    probe = (
        "import irtbridge, pathlib; from irtbridge._r import session, doctor; "
        "print(irtbridge.__file__); print(len(list(session.R_SOURCE_DIR.glob('irtb_*.R')))); "
        "print(len(doctor.locked_r_packages()))"
    )
    done = _run(venv, tmp_path, str(py), "-c", probe)
    assert done.returncode == 0, done.stderr
    out = done.stdout.split()
    assert Path(out[0]).is_relative_to(venv), out  # the installed copy, not the checkout
    assert int(out[1]) == len(list(PACKAGE_R.glob("irtb_*.R")))
    assert int(out[2]) > 10


@pytest.mark.r
@pytest.mark.slow
def test_installed_wheel_runs_doctor_and_a_calibration(installed):
    tmp_path, venv, _ = installed
    doctor = _run(venv, tmp_path, str(venv / "bin" / "irtbridge"), "doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert doctor.stdout.rstrip().endswith("all OK")
    rng = np.random.default_rng(7)
    theta = rng.normal(size=400)
    b = np.linspace(-1.5, 1.5, 6)
    x = (rng.random((400, 6)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(int)
    pd.DataFrame(x, columns=[f"q{j}" for j in range(6)]).to_csv(tmp_path / "resp.csv", index=False)
    fit = _run(venv, tmp_path, str(venv / "bin" / "irtbridge"), "calibrate", "resp.csv", "--model", "2PL", "--json")
    assert fit.returncode == 0, fit.stderr
    out = json.loads(fit.stdout)
    items = pd.DataFrame(out["items"]) if isinstance(out["items"], list) else pd.DataFrame(out["items"]).T
    assert len(items) == 6 and out["converged"]
