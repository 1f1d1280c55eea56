#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# trixie_packages.sh CACHE OUT: roced on Debian 13. Makes (or reuses) the trixie root
# (make_root.sh), then in a throwaway overlay of it (test/packaging/in-scratch-root.sh) builds,
# checks, installs, runs and purges the packages (in_root.sh). The trixie .debs land in OUT, for
# the container image. The compiler cache is trixie's own, beside the machine's: gcc-14's objects
# never meet gcc-12's.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
CACHE=$(realpath -m "$1") OUT=$(realpath -m "$2")
ROOT=$("$HERE/make_root.sh" "$CACHE")
CCACHE_TRIXIE=${ROCED_TRIXIE_CCACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/roced-trixie-ccache}
mkdir -p "$OUT" "$CCACHE_TRIXIE"
rm -f "$OUT"/*.deb "$OUT"/*.changes "$OUT"/*.buildinfo
SCRATCH=$(mktemp -d /dev/shm/roced-trixie.XXXXXX)
trap 'rm -rf "$SCRATCH"' EXIT
SCRATCH_LOWER=$ROOT SCRATCH_BINDS="$OUT $CCACHE_TRIXIE" \
  "$REPO/test/packaging/in-scratch-root.sh" "$SCRATCH" -- \
  "$HERE/in_root.sh" "$REPO" "$OUT" "$CCACHE_TRIXIE"
