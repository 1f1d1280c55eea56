#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A Debian root of the kernel's own suite to build the test module in, for a kernel whose headers
# do not run on this machine: trixie's are for gcc-14, whose flags (-fmin-function-alignment)
# bookworm's gcc-12 refuses. mmdebstrap makes it (essential packages, make, and what
# linux-headers-KVER depends on: gcc-14, linux-kbuild and the common headers, at the image's exact
# version; the image itself is left out), then the headers package is unpacked into it. Made once
# per version into CACHE/kroot-SUITE-VERSION (~320 MB, ~1.5 min); older versions' roots are removed.
# Without the network a cached root is used, and without one it fails saying so.
#
#   build_root.sh CACHE SUITE KVER VERSION   -> prints the root
#   e.g. build_root.sh build/vm-cache trixie 6.12.118+deb13-amd64 6.12.118-1
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE=$1 SUITE=$2 KVER=$3 VERSION=$4
ROOT=$CACHE/kroot-$SUITE-$VERSION
if [[ -f $ROOT/.complete ]]; then
  echo "$ROOT"
  exit 0
fi
source "$HERE/../vm/suite_apt.sh"
suite_apt "$SUITE" "$CACHE"
fail() {
  echo "build_root.sh: cannot make the $SUITE root to build the test module for $KVER in ($*);" \
    "none is cached in $CACHE" >&2
  exit 1
}
command -v mmdebstrap >/dev/null || fail "mmdebstrap is not installed: scripts/setup.sh installs it"

headers=linux-headers-$KVER
# "linux-base (>= 4.12~), linux-headers-X-common (= V), linux-image-X (= V) | ..., linux-kbuild-X,
# gcc-14" -> linux-headers-X-common=V linux-kbuild-X gcc-14: what building needs, pinned where the
# package pins it; linux-base only serves the image's maintainer scripts.
depends() {
  apt-cache "${SUITE_APT[@]}" show "$headers=$VERSION" 2>/dev/null | sed -n 's/^Depends: //p' |
    head -1 | tr ',' '\n' | grep -v -e linux-image -e linux-base |
    sed -E 's/^ *//; s/ *\(= ([^)]*)\)/=\1/; s/ *\([^)]*\)//; s/ *$//'
}
mapfile -t deps < <(depends || true)
if ((${#deps[@]} == 0)); then
  apt-get "${SUITE_APT[@]}" update -qq --error-on=any >&2 ||
    fail "apt-get update failed: no network?"
  mapfile -t deps < <(depends || true)
  ((${#deps[@]})) || fail "no $headers=$VERSION in $SUITE"
fi
mkdir -p "$CACHE/debs"
(cd "$CACHE/debs" && apt-get "${SUITE_APT[@]}" download -q "$headers=$VERSION" >&2) ||
  fail "cannot download $headers=$VERSION"

rm -rf "$ROOT.new"
echo "build_root.sh: making the $SUITE root for $KVER (make ${deps[*]})" >&2
SECONDS=0
mmdebstrap --quiet --variant=essential --mode=root \
  --include="$(IFS=,; echo "make,${deps[*]}")" \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  "$SUITE" "$ROOT.new" "${SUITE_MIRRORS[@]}" >&2 ||
  { rm -rf "$ROOT.new"; fail "mmdebstrap failed"; }
dpkg-deb -x "$CACHE/debs/${headers}_${VERSION}_amd64.deb" "$ROOT.new"
rm -f "$CACHE/debs/${headers}_${VERSION}_amd64.deb"
[[ -f $ROOT.new/usr/src/$headers/Makefile ]] || fail "no /usr/src/$headers/Makefile in the root"
touch "$ROOT.new/.complete"
rm -rf "$ROOT"
mv "$ROOT.new" "$ROOT"
echo "build_root.sh: made $ROOT in ${SECONDS} s ($(du -sh "$ROOT" | cut -f1))" >&2
for old in "$CACHE"/kroot-"$SUITE"-*; do
  [[ $old == "$ROOT" || $old == *.new ]] || rm -rf "$old"
done
echo "$ROOT"
