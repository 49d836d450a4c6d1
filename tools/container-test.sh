#!/usr/bin/env bash
# Build the irtbridge image and run the main job inside it, with the output folder mounted from the host.
#   tools/container-test.sh            (make container-test)
# Steps: a bookworm base image (mmdebstrap, when none is there yet), the image (docker where a Docker engine
# answers, otherwise buildah with --isolation chroot --network host), then inside it `irtbridge doctor`,
# `irtbridge evaluate --quick --out /out` and the README's batch recipe (docs/examples/batch mounted read-only at
# /in, `irtbridge batch /in/manifest.json --out /out/batch --workers 2`); it checks that the report, the tables
# and every batch unit (status done in batch.json and in its unit.json) arrived on the host and prints the
# image size and each step's time.
# The apt mirror and the CRAN repository default to this machine's own (its apt sources and R's repos
# option); override with APT_MIRROR=... CRAN=... in the environment.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf 'container-test: %s\n' "$*"; }
TAG="${IRTBRIDGE_IMAGE:-localhost/irtbridge:test}"
BASE="${IRTBRIDGE_BASE:-localhost/irtbridge-base:bookworm}"
WORK="$(mktemp -d /tmp/irtbridge-container.XXXXXX)"
RECIPE="$PWD/docs/examples/batch"  # the README's batch recipe mounts this folder at /in, read-only
trap 'rm -rf "$WORK"' EXIT
declare -A SECONDS_OF
step() {  # step NAME COMMAND...: run, time, remember
  local name="$1"; shift
  local t0=$SECONDS
  say "step: $name"
  "$@"
  SECONDS_OF[$name]=$((SECONDS - t0))
}

APT_MIRROR="${APT_MIRROR:-$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)}"
APT_MIRROR="${APT_MIRROR:-$(awk '/^deb / {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)}"
CRAN="${CRAN:-$(Rscript -e 'cat(getOption("repos")[["CRAN"]])' 2>/dev/null || true)}"
[[ -n "$APT_MIRROR" ]] || { say "no apt mirror found; set APT_MIRROR"; exit 2; }

if docker info >/dev/null 2>&1; then
  ENGINE=docker
else
  ENGINE=buildah
  for tool in buildah mmdebstrap podman; do
    command -v "$tool" >/dev/null || { say "$tool is missing: apt-get install buildah mmdebstrap podman"; exit 2; }
  done
fi
say "engine $ENGINE, apt mirror $APT_MIRROR, CRAN $CRAN"

make_base() {
  if [[ "$ENGINE" == buildah ]] && ! buildah images --quiet "$BASE" >/dev/null 2>&1; then
    mmdebstrap --variant=minbase --include=ca-certificates bookworm "$WORK/base.tar" "$APT_MIRROR"
    podman import "$WORK/base.tar" "$BASE" >/dev/null
  elif [[ "$ENGINE" == docker ]]; then
    BASE="debian:bookworm-20250520"
  fi
}
build_image() {
  local args=(--build-arg "BASE=$BASE" --build-arg "APT_MIRROR=$APT_MIRROR" --build-arg "CRAN=$CRAN" -t "$TAG")
  if [[ "$ENGINE" == docker ]]; then
    docker build "${args[@]}" .
  else
    # this machine's CA bundle, for the CRAN downloads where TLS is intercepted on the way out
    local ca=/etc/ssl/certs/ca-certificates.crt
    [[ -r "$ca" ]] && args+=(--volume "$ca:/run/host-ca.crt:ro" --build-arg HOST_CA=/run/host-ca.crt)
    buildah bud --isolation chroot --network host --layers "${args[@]}" .
  fi
}
run_in() {  # run_in COMMAND...: inside the image, /out mounted from $WORK/out, /in from $RECIPE (read-only)
  mkdir -p "$WORK/out"
  if [[ "$ENGINE" == docker ]]; then
    docker run --rm -v "$RECIPE:/in:ro" -v "$WORK/out:/out" "$TAG" "$@"
  else
    local ctr
    ctr=$(buildah from --quiet "$TAG")
    buildah run --isolation chroot --network host -v "$RECIPE:/in:ro" -v "$WORK/out:/out" \
      --env MPLBACKEND=Agg "$ctr" -- /opt/irtbridge/.venv/bin/irtbridge "$@" || { buildah rm "$ctr" >/dev/null; return 1; }
    buildah rm "$ctr" >/dev/null
  fi
}
check_batch() {  # every unit of the recipe's manifest done, in batch.json and in its own unit.json
  python3 - "$WORK/out/batch" "$RECIPE/manifest.json" <<'PY'
import json, pathlib, sys
out, manifest = pathlib.Path(sys.argv[1]), json.loads(pathlib.Path(sys.argv[2]).read_text())
summary = json.loads((out / "batch.json").read_text())
status = {u["id"]: u["status"] for u in summary["units"]}
wanted = [u["id"] for u in manifest["units"]]
assert sorted(status) == sorted(wanted), (status, wanted)
bad = {k: s for k, s in status.items() if s != "done"}
assert not bad, f"units not done: {bad} ({[u['error'] for u in summary['units'] if u['status'] != 'done']})"
for uid in wanted:
    meta = json.loads((out / "units" / uid / "unit.json").read_text())
    assert meta["status"] == "done", (uid, meta.get("error"))
    print(f"container-test:   unit {uid}: done, {', '.join(meta['files'])}")
PY
}

step base make_base
step build build_image
step doctor run_in doctor
step evaluate run_in evaluate --quick --out /out/report
step batch run_in batch /in/manifest.json --out /out/batch --workers 2
check_batch

say "checking what arrived on the host"
for f in report/index.html report/summary.json report/tables/ratings.csv batch/batch.json; do
  [[ -s "$WORK/out/$f" ]] || { say "MISSING on the host: $f"; ls -R "$WORK/out" | head -50; exit 1; }
  say "  found $f ($(stat -c %s "$WORK/out/$f") bytes)"
done
n_tables=$(ls "$WORK/out/report/tables" | wc -l)
say "  $n_tables tables in report/tables/"
if [[ "$ENGINE" == docker ]]; then
  size=$(docker image inspect -f '{{.Size}}' "$TAG")
else
  size=$(buildah inspect --type image --format '{{.Size}}' "$TAG" 2>/dev/null || true)
  [[ -n "$size" ]] || size=$(podman image inspect -f '{{.Size}}' "$TAG")
fi
say "image $TAG: $((size / 1000000)) MB"
for name in base build doctor evaluate batch; do say "  time $name: ${SECONDS_OF[$name]} s"; done
say "passed"
