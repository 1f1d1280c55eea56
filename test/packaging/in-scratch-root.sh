#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# in-scratch-root.sh SCRATCH -- CMD [ARGS...]
# Runs CMD as root in a throwaway copy of this machine, so that dpkg, apt and Ansible can install,
# upgrade and purge for real while the machine itself is untouched: an overlay of / whose changes
# land in SCRATCH (on tmpfs: an upper layer on the lower's own file system is refused by some
# kernels), in a mount and PID namespace of its own (every process started inside dies with CMD),
# with fresh /proc, /run and /tmp, the host's /dev, a read-only /sys, and the source tree (this
# script's repository) bound at its own path so that CMD finds it even when it is on another mount.
# SCRATCH_LOWER=DIR makes the copy one of another root (a Debian root made by mmdebstrap) instead
# of this machine's /; SCRATCH_BINDS="DIR..." binds more folders at their own paths (a cache).
set -euo pipefail
[[ $# -ge 3 && $2 == -- ]] || { echo "usage: $0 SCRATCH -- CMD [ARGS...]" >&2; exit 2; }
SCRATCH=$(realpath -m "$1")
shift 2
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$SCRATCH"/{upper,work,root}

LOWER=$(realpath "${SCRATCH_LOWER:-/}")
exec unshare --mount --propagation private --pid --fork --kill-child -- /bin/bash -s "$SCRATCH" "$REPO" "$PWD" "$LOWER" "$@" <<'INNER'
set -euo pipefail
SCRATCH=$1 REPO=$2 CWD=$3 LOWER=$4
shift 4
ROOT=$SCRATCH/root
mount -t overlay overlay -o "lowerdir=$LOWER,upperdir=$SCRATCH/upper,workdir=$SCRATCH/work" "$ROOT"
mount -t proc proc "$ROOT/proc"
mount --rbind /dev "$ROOT/dev"
mount --rbind /sys "$ROOT/sys"
mount -o remount,bind,ro "$ROOT/sys"
mount -t tmpfs tmpfs "$ROOT/run"
mount -t tmpfs tmpfs "$ROOT/tmp"
mkdir -p "$ROOT$REPO"
mount --bind "$REPO" "$ROOT$REPO"
# A build tree outside the repository (ROCED_BUILD_DIR) is bound the same way.
if [[ -n ${ROCED_BUILD_DIR:-} && -d $ROCED_BUILD_DIR && $ROCED_BUILD_DIR != "$REPO"/* ]]; then
  mkdir -p "$ROOT$ROCED_BUILD_DIR"
  mount --bind "$ROCED_BUILD_DIR" "$ROOT$ROCED_BUILD_DIR"
fi
for dir in ${SCRATCH_BINDS:-}; do
  mkdir -p "$ROOT$dir"
  mount --bind "$dir" "$ROOT$dir"
done
exec chroot "$ROOT" /usr/bin/env -i -C "$CWD" PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  HOME=/root LANG=C.UTF-8 TERM=dumb ROCED_BUILD_DIR="${ROCED_BUILD_DIR:-}" "$@"
INNER
