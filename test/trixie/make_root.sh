#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make_root.sh CACHE -> prints the root
# A Debian 13 (trixie) root to build, check and run roced's packages in, made by mmdebstrap from
# the archive: the essential set, apt, build-essential, debhelper and every Build-Depends of
# debian/control as trixie has them, lintian, ccache, and what the packaged roced is run with
# there (dbus-daemon for its D-Bus API, iproute2 and curl). Made once per package list into
# CACHE/trixie-root-KEY (~1.1 GB, 1-3 min with the network); older lists' roots are removed.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
CACHE=$(realpath -m "$1")
source "$REPO/test/vm/suite_apt.sh"
mkdir -p "$CACHE"
suite_apt trixie "$CACHE"

# "debhelper-compat (= 13), cmake, ..." -> debhelper cmake ...: the packages, without versions
# (trixie's are newer than bookworm's) and with the virtual debhelper-compat as its provider.
build_depends=$(grep -v '^#' "$REPO/debian/control" | sed -n '/^Build-Depends:/,/^[A-Z][A-Za-z-]*:/p' |
  sed '$d; s/^Build-Depends://' | tr ',' '\n' | sed -E 's/\([^)]*\)//; s/^ *//; s/ *$//' |
  sed 's/^debhelper-compat$/debhelper/' | grep -v '^$' | sort -u)
packages=$(printf '%s\n' $build_depends build-essential lintian ccache dbus-daemon iproute2 curl \
  ca-certificates | sort -u | paste -sd, -)
key=$( (echo "$packages"; cat "$0") | sha256sum | cut -c1-12)
ROOT=$CACHE/trixie-root-$key
if [[ -f $ROOT/.complete ]]; then
  echo "$ROOT"
  exit 0
fi
command -v mmdebstrap >/dev/null ||
  { echo "make_root.sh: mmdebstrap is not installed: scripts/setup.sh installs it" >&2; exit 1; }
rm -rf "$ROOT.new"
echo "make_root.sh: making the trixie root ($packages)" >&2
SECONDS=0
mmdebstrap --quiet --variant=apt --mode=root --include="$packages" \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-include=/usr/share/man/man[158]/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  trixie "$ROOT.new" "${SUITE_MIRRORS[@]}" >&2 ||
  { rm -rf "$ROOT.new"; echo "make_root.sh: mmdebstrap failed (its error is above)" >&2; exit 1; }
touch "$ROOT.new/.complete"
mv "$ROOT.new" "$ROOT"
echo "make_root.sh: made $ROOT in ${SECONDS} s ($(du -sh "$ROOT" | cut -f1))" >&2
for old in "$CACHE"/trixie-root-*; do
  [[ $old == "$ROOT" || $old == *.new ]] || rm -rf "$old"
done
echo "$ROOT"
