#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the Debian packages (roced, roce-sim) with dpkg-buildpackage from a copy of this tree,
# so the tree itself stays clean: ./scripts/build-deb.sh [OUTDIR]   (default build/deb)
# Needs debhelper and the build dependencies (scripts/setup.sh installs them).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$(realpath -m "${1:-${ROCED_BUILD_DIR:-$ROOT/build}/deb}")"
WORK="$(mktemp -d /tmp/roced-deb.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

# The sources as they are now (committed or not), without build trees.
mkdir "$WORK/roced"
tar -C "$ROOT" --exclude=./.git --exclude='./build*' --exclude='./obj-*' -cf - . |
  tar -C "$WORK/roced" -xf -
cd "$WORK/roced"
# Through ccache when it is there (CMake takes the launcher from the environment): the copy's path
# is new each time, so the cache is keyed on paths relative to it.
source "$ROOT/scripts/ccache.sh"
if [[ -n $CCACHE_LAUNCHER ]]; then
  export CCACHE_BASEDIR="$WORK/roced"
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
fi
dpkg-buildpackage -b -us -uc -j"$(nproc)" >"$WORK/build.log" 2>&1 || {
  tail -n 60 "$WORK/build.log" >&2
  echo "build-deb: dpkg-buildpackage failed (log above)" >&2
  exit 1
}
mkdir -p "$OUT"
rm -f "$OUT"/*.deb "$OUT"/*.changes "$OUT"/*.buildinfo
mv "$WORK"/*.deb "$WORK"/*.changes "$WORK"/*.buildinfo "$OUT"/
cp "$WORK/build.log" "$OUT/build.log"
ls "$OUT"/*.deb
