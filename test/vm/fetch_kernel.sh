#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fetches the pinned Debian kernel package and unpacks it into CACHE/kernel (vmlinuz, modules,
# modules.dep), once: apt-get download + dpkg-deb -x (5 s), not an install, which would rebuild
# Debian's own initrd for nothing.
#
#   fetch_kernel.sh CACHE   -> prints the path of the unpacked tree
set -euo pipefail
# Bookworm's kernel, pinned by ABI and version so every run boots the same one. When Debian's
# mirror no longer carries this version, the download fails and says so: move the pin.
KERNEL_PACKAGE=linux-image-6.1.0-56-amd64
KERNEL_VERSION=6.1.192-2
KVER=${KERNEL_PACKAGE#linux-image-}
CACHE=$1
TREE=$CACHE/kernel-$KERNEL_VERSION
if [[ ! -f $TREE/.complete ]]; then
  rm -rf "$TREE"
  mkdir -p "$TREE" "$CACHE/debs"
  download() { (cd "$CACHE/debs" && apt-get download -q "$KERNEL_PACKAGE=$KERNEL_VERSION" >&2); }
  # A package list older than the pin (setup.sh updates it only when it installs): update, retry.
  if ! download && ! { apt-get update -qq >&2 && download; }; then
    echo "fetch_kernel.sh: cannot download $KERNEL_PACKAGE=$KERNEL_VERSION from Debian's mirror" \
      "(apt-get update run? version gone? see test/vm/fetch_kernel.sh)" >&2
    exit 1
  fi
  dpkg-deb -x "$CACHE/debs/${KERNEL_PACKAGE}_${KERNEL_VERSION}_amd64.deb" "$TREE"
  depmod -b "$TREE" "$KVER"  # the package ships no modules.dep: dpkg's postinst makes it
  touch "$TREE/.complete"
fi
echo "$TREE"
