"""The Dockerfile and the setup script agree, since no Docker engine runs here to build the image.

One setup for everyone: the Dockerfile, CI (.ci/run -> make test) and `make setup` must all run
tools/setup.sh, which installs the same apt package list and the R packages of the same lock file
(irtbridge/_r/R/packages.lock, the one lock file, through r/install.R). The image pins both runtimes: a dated base image (or a digest),
a Debian snapshot of the same day, and apt versions of R and rpy2 equal to those on this machine,
where the test suite proves they work (`dpkg-query -W`).
"""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _instructions(text: str) -> list[tuple[str, str]]:
    """Dockerfile instructions as (KEYWORD, arguments), continuation lines joined, comments dropped."""
    out: list[tuple[str, str]] = []
    current = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not current and (not stripped or stripped.startswith("#")):
            continue
        if stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            current += stripped[:-1] + " "
            continue
        current += stripped
        keyword, _, rest = current.partition(" ")
        out.append((keyword.upper(), rest.strip()))
        current = ""
    return out


@pytest.fixture(scope="module")
def dockerfile() -> list[tuple[str, str]]:
    return _instructions((ROOT / "Dockerfile").read_text())


@pytest.fixture(scope="module")
def setup_script() -> str:
    return (ROOT / "tools" / "setup.sh").read_text()


def _apt_packages(setup_script: str) -> list[str]:
    block = re.search(r"APT_PACKAGES=\((.*?)\)", setup_script, re.S)
    assert block, "tools/setup.sh defines no APT_PACKAGES=( ... ) list"
    return [w for w in shlex.split(block.group(1), comments=True)]


def _docker_apt_installs(dockerfile) -> dict[str, str | None]:
    """package -> pinned version (None when unpinned) of every `apt-get install` in a RUN."""
    pins: dict[str, str | None] = {}
    for keyword, args in dockerfile:
        if keyword != "RUN":
            continue
        for command in re.split(r"&&|;", args):
            words = shlex.split(command)
            if "apt-get" in words and "install" in words:
                for w in words[words.index("install") + 1:]:
                    if w.startswith("-"):
                        continue
                    name, _, version = w.partition("=")
                    pins[name] = version or None
    return pins


def _installed_version(package: str) -> str:
    out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout, f"{package} is not installed on this machine: {out.stderr}"
    return out.stdout.strip()


def _build_args(dockerfile) -> dict[str, str]:
    return {a.split("=", 1)[0]: a.split("=", 1)[1] for k, a in dockerfile if k == "ARG" and "=" in a}


def test_base_image_is_pinned_by_date_or_digest(dockerfile):
    # every stage starts FROM ${BASE}; the default of BASE is the pinned image (a local base can be given
    # with --build-arg BASE=... where Docker Hub cannot be reached)
    froms = [args.split()[0] for keyword, args in dockerfile if keyword == "FROM"]
    assert froms and all(f == "${BASE}" for f in froms), froms
    image = _build_args(dockerfile)["BASE"]
    dated = re.fullmatch(r"debian:bookworm-(\d{8})", image)
    digest = re.fullmatch(r"[\w./-]+(:[\w.-]+)?@sha256:[0-9a-f]{64}", image)
    assert dated or digest, f"base image {image!r} is neither a dated debian:bookworm-YYYYMMDD tag nor a digest"


def test_apt_sources_are_the_snapshot_of_the_base_image_day(dockerfile):
    args = _build_args(dockerfile)
    day = re.search(r"bookworm-(\d{8})", args["BASE"])
    assert "SNAPSHOT" in args, "the Dockerfile must pin apt to snapshot.debian.org with ARG SNAPSHOT=..."
    assert re.fullmatch(r"\d{8}T\d{6}Z", args["SNAPSHOT"])
    if day:  # a dated tag: the packages come from the same day's archive
        assert args["SNAPSHOT"].startswith(day.group(1))
    runs = [a for k, a in dockerfile if k == "RUN"]
    sources = (ROOT / "tools" / "apt-sources.sh").read_text()
    assert "snapshot.debian.org/archive/debian/" in sources
    # every stage writes its apt sources from SNAPSHOT, or from APT_MIRROR when one is given
    assert sum('apt-sources.sh "$SNAPSHOT" "$APT_MIRROR"' in r for r in runs) == len(
        [k for k, _ in dockerfile if k == "FROM"])
    assert args.get("APT_MIRROR", None) == "" and "CRAN" in args


@pytest.mark.parametrize("package", ["r-base-core", "python3-rpy2"])
def test_runtime_versions_are_pinned_to_this_machine(dockerfile, package):
    pins = _docker_apt_installs(dockerfile)
    assert pins.get(package), f"the Dockerfile must install {package}=<version>, found {pins.get(package)!r}"
    assert pins[package] == _installed_version(package)


def test_dockerfile_installs_nothing_outside_the_setup_list(dockerfile, setup_script):
    listed = set(_apt_packages(setup_script))
    extra = set(_docker_apt_installs(dockerfile)) - listed
    assert not extra, f"the Dockerfile installs {sorted(extra)} that tools/setup.sh does not list"


def test_final_stage_is_lean(dockerfile, setup_script):
    # the compilers and -dev packages stay in the build stage; the final stage copies the built R library
    stages = " ".join(f"{k} {a}" for k, a in dockerfile).split("FROM ")
    assert len(stages) == 3, "a build stage and a final stage"
    final = stages[-1]
    assert "COPY --from=build /usr/local/lib/R/site-library" in final
    assert "tools/setup.sh --runtime" in final
    assert "BUILD_ONLY=(" in setup_script and "r-base-dev" in setup_script.split("BUILD_ONLY=(")[1].split(")")[0]
    # scipy's declared compiler dependency (python3-pythran -> g++, Boost, -dev) is met by a held placeholder
    assert "Package: python3-pythran" in final and "apt-mark hold python3-pythran" in final
    assert final.index("python3-pythran") < final.index("tools/setup.sh --runtime")


def test_build_stage_layer_depends_on_the_lock_only(dockerfile):
    # the slow CRAN builds are cached until the lock, the installer or the setup script change: nothing else is copied
    stages = " ".join(f"{k} {a}" for k, a in dockerfile).split("FROM ")
    build = stages[1]
    copies = [a for k, a in dockerfile if k == "COPY"]
    assert "tools/setup.sh --r-library" in build and "COPY . ." not in build
    assert "irtbridge/_r/R/packages.lock irtbridge/_r/R/" in copies and "r/install.R r/" in copies
    assert "tools/setup.sh tools/setup.sh" in copies


def test_dockerfile_runs_the_setup_script_like_ci(dockerfile):
    runs = [a for k, a in dockerfile if k == "RUN"]
    assert any(re.search(r"\bbash tools/setup\.sh\b", r) for r in runs), "the Dockerfile must run tools/setup.sh"
    # no second way of installing R or Python packages that would bypass the lock file
    for r in runs:
        assert "install.packages" not in r and "pip install" not in r and "r-cran-" not in r, r
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"\bmake test\b", ci)
    makefile = (ROOT / "Makefile").read_text()
    assert "bash tools/setup.sh" in makefile


def test_same_lock_file(dockerfile, setup_script):
    # the image copies the whole tree (the lock file included) and setup.sh installs from it
    copies = [a for k, a in dockerfile if k == "COPY"]
    assert any(a.split()[:2] == [".", "."] for a in copies), copies
    ignored = [ln.strip() for ln in (ROOT / ".dockerignore").read_text().splitlines() if ln.strip()]
    for needed in ("r", "irtbridge/_r/R/packages.lock", "r/install.R", "tools", "tools/setup.sh", "pyproject.toml", "irtbridge"):
        assert needed not in ignored and f"/{needed}" not in ignored, f".dockerignore drops {needed}"
    assert "Rscript r/install.R" in setup_script
    assert "irtbridge/_r/R/packages.lock" in setup_script  # the Debian rows are read from the same file
    install = (ROOT / "r" / "install.R").read_text()
    assert '"irtbridge", "_r", "R", "packages.lock"' in install
    docker_text = (ROOT / "Dockerfile").read_text()
    locks = set(re.findall(r"[\w./-]*\.lock\b", docker_text))
    assert locks <= {"irtbridge/_r/R/packages.lock"}, f"the Dockerfile names another lock file: {locks}"


def _lock_rows() -> list[dict[str, str]]:
    rows = []
    lines = [ln for ln in (ROOT / "irtbridge" / "_r" / "R" / "packages.lock").read_text().splitlines() if ln and not ln.startswith("#")]
    header = lines[0].split("\t")
    for ln in lines[1:]:
        rows.append(dict(zip(header, ln.split("\t"))))
    return rows


def test_debian_rows_of_the_lock_match_this_machine():
    mismatched = []
    for row in _lock_rows():
        if row["source"] != "debian":
            continue
        version = _installed_version(row["debian"])
        upstream = re.sub(r"^\d+:", "", version).rsplit("-", 1)[0].split("+")[0]
        if upstream != row["version"]:
            mismatched.append((row["package"], row["version"], version))
    assert not mismatched, f"lock file and installed Debian packages differ: {mismatched}"


def test_setup_list_covers_what_the_code_needs(setup_script):
    apt = set(_apt_packages(setup_script))
    # evaluate/report/batch and their checks: the report page is rendered by Debian's Chromium in the tests
    for needed in ("r-base-core", "python3-rpy2", "python3-jinja2", "python3-tqdm", "python3-distributed",
                   "python3-dask", "python3-numba", "python3-sklearn", "python3-matplotlib", "chromium"):
        assert needed in apt, needed


def test_docker_run_evaluate_writes_into_the_mounted_folder(dockerfile):
    entry = [a for k, a in dockerfile if k == "ENTRYPOINT"]
    assert entry and "irtbridge" in entry[-1]
    workdir = [a for k, a in dockerfile if k == "WORKDIR"][-1]
    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r"docker run[^`\n]*", readme)
    assert commands, "the README shows no `docker run` command"
    for cmd in commands:
        if " evaluate" not in cmd:
            continue
        mount = re.search(r"-v\s+\S+:(\S+?)\"?\s", cmd + " ")
        assert mount, cmd
        target = mount.group(1).rstrip('"')
        out = re.search(r"--out\s+(\S+)", cmd)
        # without --out the report goes to WORKDIR/irtbridge-report, which must then be inside the mount
        where = out.group(1) if out else f"{workdir}/irtbridge-report"
        assert where == target or where.startswith(target.rstrip("/") + "/"), (cmd, where, target)
