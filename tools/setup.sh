#!/usr/bin/env bash
# One setup for everyone: `make setup`, CI (.ci/run) and the Dockerfile all run this script.
# Idempotent: what is already installed at the right version is left alone. Fails loudly.
#
#   tools/setup.sh            system packages (apt), locked R packages, .venv, editable install
#   tools/setup.sh --no-apt   skip apt (the Dockerfile's apt layer already ran it)
#   tools/setup.sh --runtime  the image's final stage: no compilers, -dev packages or test-only tools
#                               (the CRAN packages were built in the build stage and copied in)
#   tools/setup.sh --r-library  the image's build stage: R, the build tools and the locked R packages
#                               only (it needs only irtbridge/_r/R/packages.lock, r/install.R and this script, so the
#                               image layer stays cached until one of them changes)
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf 'irtbridge setup: %s\n' "$*"; }

APT_PACKAGES=(
  r-base-core r-base-dev gfortran g++ make cmake curl ca-certificates
  python3 python3-venv python3-pip python3-setuptools python3-wheel
  python3-rpy2 python3-numpy python3-pandas python3-scipy python3-sklearn python3-matplotlib
  python3-jinja2 python3-tqdm python3-rich python3-pytest python3-pytest-xdist python3-hypothesis
  python3-dask python3-distributed python3-numba
  chromium fonts-dejavu-core
  flake8 mypy python3-sphinx python3-numpydoc python3-myst-parser python3-sphinx-rtd-theme
)
# needed only to build the CRAN packages from source (cmake: RcppParallel builds its bundled TBB with it;
# found missing when building the image from a minimal base), or only by the test suite
BUILD_ONLY=(r-base-dev gfortran g++ make cmake curl)
# (and the developers' tools: linters, type checker, the docs build)
TEST_ONLY=(chromium python3-pytest python3-pytest-xdist python3-hypothesis flake8 mypy python3-sphinx python3-numpydoc python3-myst-parser
  python3-sphinx-rtd-theme)
# Debian's r-cran-* binaries named in the lock file
mapfile -t R_DEBIAN < <(awk -F'\t' '!/^#/ && $3 == "debian" { print $4 }' irtbridge/_r/R/packages.lock)

MODE="${1:-}"
WANTED=("${APT_PACKAGES[@]}")
if [[ "$MODE" == "--r-library" ]]; then
  WANTED=(r-base-core ca-certificates "${BUILD_ONLY[@]}")
elif [[ "$MODE" == "--runtime" ]]; then
  WANTED=()
  for p in "${APT_PACKAGES[@]}"; do
    [[ " ${BUILD_ONLY[*]} ${TEST_ONLY[*]} " == *" $p "* ]] || WANTED+=("$p")
  done
fi
if [[ "$MODE" != "--no-apt" ]]; then
  missing=()
  for p in "${WANTED[@]}" "${R_DEBIAN[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    say "installing ${#missing[@]} Debian package(s): ${missing[*]}"
    SUDO=""; [[ $(id -u) -eq 0 ]] || SUDO="sudo"
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
  else
    say "Debian packages present"
  fi
fi

say "R packages (irtbridge/_r/R/packages.lock)"
if [[ "$MODE" == "--runtime" ]]; then
  Rscript r/install.R --check
else
  MAKEFLAGS="-j$(nproc)" Rscript r/install.R
fi
[[ "$MODE" == "--r-library" ]] && { say "R library ready (no Python environment in this mode)"; exit 0; }

if [[ ! -x .venv/bin/python ]]; then
  say "creating .venv from /usr/bin/python3 (with the system's python3-* packages)"
  /usr/bin/python3 -m venv --system-site-packages .venv
fi
say "installing irtbridge into .venv (editable, no downloads)"
.venv/bin/python -m pip install --quiet --no-deps --no-build-isolation --no-index -e .
.venv/bin/python - "$MODE" <<'PY'
import importlib, sys
runtime = sys.argv[1:] == ["--runtime"]
for mod in ("numpy", "pandas", "scipy", "sklearn", "matplotlib", "rpy2", "distributed", "irtbridge") + (() if runtime else ("pytest", "xdist", "hypothesis")):
    importlib.import_module(mod)
print("irtbridge setup: Python", sys.version.split()[0], "and its packages import; irtbridge is at .venv/bin/irtbridge")
PY
