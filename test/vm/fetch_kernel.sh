#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fetches a Debian suite's current kernel (what linux-image-amd64 points at today: bookworm's 6.1
# or trixie's 6.12) and unpacks it into CACHE/kernel-VERSION (vmlinuz, modules, modules.dep,
# .version and .suite), once per version: apt-get download + dpkg-deb -x (5 s), not an install,
# which would rebuild Debian's own initrd for nothing. The security archive keeps only the newest
# kernel, so the version is resolved at run time: a stale package list is updated once, and
# without the network the suite's newest kernel already in the cache is used. trixie is resolved
# through an apt configuration of its own (suite_apt.sh), never the machine's.
#
#   fetch_kernel.sh CACHE SUITE   -> prints the path of the unpacked tree
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE=$1 SUITE=$2
source "$HERE/suite_apt.sh"
suite_apt "$SUITE" "$CACHE"
mkdir -p "$CACHE/debs"

# linux-image-amd64's candidate and the ABI package it depends on, e.g.
# "linux-image-6.1.0-56-amd64 6.1.192-2".
resolve() {
  local version package
  version=$(apt-cache "${SUITE_APT[@]}" policy linux-image-amd64 2>/dev/null |
    awk '/Candidate:/ {print $2}')
  [[ -n $version && $version != "(none)" ]] || return 1
  package=$(apt-cache "${SUITE_APT[@]}" show "linux-image-amd64=$version" 2>/dev/null |
    sed -n 's/^Depends: \(linux-image-[0-9][^ ,]*\).*/\1/p' | head -1)
  [[ -n $package ]] || return 1
  echo "$package $version"
}

# Downloads and unpacks PACKAGE VERSION into the cache; prints the tree.
fetch() {
  local package=$1 version=$2 tree=$CACHE/kernel-$2
  if [[ ! -f $tree/.complete ]]; then
    (cd "$CACHE/debs" && apt-get "${SUITE_APT[@]}" download -q "$package=$version" >&2) || return 1
    rm -rf "$tree"
    mkdir -p "$tree"
    dpkg-deb -x "$CACHE/debs/${package}_${version}_amd64.deb" "$tree"
    # trixie's packages ship /usr/lib/modules (merged /usr); depmod and modinfo -b look in lib/.
    [[ -e $tree/lib || ! -d $tree/usr/lib/modules ]] || ln -s usr/lib "$tree/lib"
    depmod -b "$tree" "${package#linux-image-}"  # no modules.dep in the package: postinst makes it
    echo "$version" > "$tree/.version"
    echo "$SUITE" > "$tree/.suite"
    touch "$tree/.complete"
    rm -f "$CACHE/debs/${package}_${version}_amd64.deb"  # unpacked: 70-110 MB kept for nothing
  fi
  [[ -f $tree/.version ]] || echo "$version" > "$tree/.version"
  [[ -f $tree/.suite ]] || echo "$SUITE" > "$tree/.suite"
  echo "$tree"
}

if found=$(resolve) && fetch $found; then exit 0; fi
# An old package list names a kernel the archive no longer has: update it and try again.
if apt-get "${SUITE_APT[@]}" update -qq >&2 && found=$(resolve) && fetch $found; then exit 0; fi
# Offline: the suite's newest cached kernel (a tree from before .suite was written is bookworm's).
newest=$(for done in "$CACHE"/kernel-*/.complete; do
  [[ -f $done ]] || continue
  tree=${done%/.complete}
  [[ $(cat "$tree/.suite" 2>/dev/null || echo bookworm) == "$SUITE" ]] && echo "$tree"
done | sort -V | tail -1)
if [[ -n $newest && -f $newest/.version ]]; then
  echo "fetch_kernel.sh: cannot fetch Debian $SUITE's current kernel; using the cached $newest" >&2
  echo "$newest"
  exit 0
fi
echo "fetch_kernel.sh: cannot resolve and download Debian $SUITE's current kernel" \
  "(linux-image-amd64 from $SUITE and $SUITE-security): no network or no such package, and none" \
  "of $SUITE's cached in $CACHE" >&2
exit 1
