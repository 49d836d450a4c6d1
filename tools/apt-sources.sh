#!/bin/sh
# apt sources of the image: the Debian snapshot of SNAPSHOT (default, versions frozen), or APT_MIRROR when
# given (a reachable bookworm mirror; R and rpy2 stay pinned by version in the Dockerfile).
#   sh tools/apt-sources.sh SNAPSHOT [APT_MIRROR]
set -eu
snapshot="$1"
mirror="${2:-}"
if [ -n "$mirror" ]; then
  printf 'deb %s bookworm main\ndeb %s bookworm-updates main\n' "$mirror" "$mirror" > /etc/apt/sources.list
else
  printf 'deb http://snapshot.debian.org/archive/debian/%s bookworm main\ndeb http://snapshot.debian.org/archive/debian-security/%s bookworm-security main\n' \
    "$snapshot" "$snapshot" > /etc/apt/sources.list
fi
rm -f /etc/apt/sources.list.d/debian.sources
