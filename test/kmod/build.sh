#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the test kernel module (roce_testdev.ko) against Debian's headers for the VM's kernel.
# Without ROOT, on this machine (bookworm's 6.1), installing linux-headers-KVER (with
# linux-kbuild) at the image's exact version when missing: the headers' Makefile includes the
# common tree by its /usr/src path, so unpacking is not enough. With ROOT (build_root.sh: a root
# of the kernel's own suite, with its compiler and headers), in that root, by chroot. Warnings are
# errors. Takes a few seconds.
#
#   build.sh KVER VERSION OUT_DIR [ROOT]    e.g. build.sh 6.1.0-56-amd64 6.1.192-2 /tmp/out
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
KVER=$1 VERSION=$2 OUT=$3 ROOT=${4:-}
HEADERS=/usr/src/linux-headers-$KVER
if [[ -n $ROOT ]]; then
  if [[ ! -f $ROOT$HEADERS/Makefile ]]; then
    echo "build.sh: $ROOT has no $HEADERS (build_root.sh makes it)" >&2
    exit 1
  fi
  WORK=$(mktemp -d "$ROOT/tmp/roce_testdev.XXXXXX")
  trap 'rm -rf "$WORK"' EXIT
  cp "$HERE/roce_testdev.c" "$HERE/Kbuild" "$WORK/"
  chroot "$ROOT" make -s -C "$HEADERS" M="${WORK#"$ROOT"}" KCFLAGS=-Werror modules >&2
else
  if [[ ! -f $HEADERS/Makefile ]]; then
    install() {
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        "linux-headers-$KVER=$VERSION" >&2
    }
    if ! install && ! { apt-get update -qq >&2 && install; }; then
      echo "build.sh: cannot install linux-headers-$KVER=$VERSION, which the test module is built" \
        "against" >&2
      exit 1
    fi
  fi
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
  cp "$HERE/roce_testdev.c" "$HERE/Kbuild" "$WORK/"
  make -s -C "$HEADERS" M="$WORK" KCFLAGS=-Werror modules >&2
fi
mkdir -p "$OUT"
cp "$WORK/roce_testdev.ko" "$OUT/"
echo "$OUT/roce_testdev.ko"
