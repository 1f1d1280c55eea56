#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# build-image.sh DEBDIR OUT [SUITE]: the container image roced:VERSION, from the Debian packages
# in DEBDIR (roced_VERSION_amd64.deb, built for SUITE: trixie unless named), with Debian's own
# tools and nothing from an image registry:
#   mmdebstrap --variant=extract  roced's package, dbus-daemon (the pod's own bus, pod-bus.conf),
#                                 base-files (/etc/os-release, which image scanners match
#                                 Debian's advisories by) and the packages they depend on, unpacked without maintainer
#                                 scripts: no shell, no package manager, no dpkg database
#   umoci                         that tree as one layer of an OCI image in OUT/oci (tag
#                                 VERSION), with roced as the entrypoint, and OUT/roced-VERSION.oci.tar
#                                 for podman load, ctr images import or skopeo
# Needs root (mmdebstrap --mode=root, and umoci keeps the files' owners) and the network (the
# archive); MIRROR (default http://deb.debian.org/debian) names another.
set -euo pipefail
DEBS=$(realpath "$1") OUT=$(realpath -m "$2") SUITE=${3:-trixie}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
deb=$(ls "$DEBS"/roced_*_amd64.deb)
VERSION=$(dpkg-deb -f "$deb" Version)
WORK=$(mktemp -d /tmp/roced-image.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
ROOTFS=$WORK/rootfs

# apt inside the tree reads the package at the path named: a setup hook copies it there (the
# file-mirror hook's bind mount outlives an extract run) and the copy is removed afterwards.
mkdir -p "$WORK/debs"
cp "$deb" "$WORK/debs/"
mmdebstrap --quiet --variant=extract --mode=root \
  --setup-hook="mkdir -p \"\$1$WORK/debs\" && cp '$WORK/debs/$(basename "$deb")' \"\$1$WORK/debs/\"" \
  --include="$WORK/debs/$(basename "$deb")" --include=dbus-daemon --include=base-files \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/lintian/*' --dpkgopt='path-exclude=/usr/share/info/*' \
  "$SUITE" "$ROOTFS" "deb $MIRROR $SUITE main" >"$WORK/mmdebstrap.log" 2>&1 ||
  { cat "$WORK/mmdebstrap.log" >&2; echo "build-image: mmdebstrap failed" >&2; exit 1; }
# The merged-/usr links that the essential set's maintainer scripts would make (trixie's libc6
# has its loader in /usr/lib64 only, while every program names /lib64/ld-linux-x86-64.so.2).
for dir in bin sbin lib lib64; do
  [[ -e $ROOTFS/$dir || ! -d $ROOTFS/usr/$dir ]] || ln -s "usr/$dir" "$ROOTFS/$dir"
done
rm -rf "${ROOTFS:?}/${WORK#/}" "$ROOTFS/tmp"/* "$ROOTFS/var/cache/apt" "$ROOTFS/var/lib/apt"
rmdir -p --ignore-fail-on-non-empty "$(dirname "$ROOTFS/${WORK#/}")" 2>/dev/null || true
# dbus-daemon's common files depend on adduser, which brings passwd's set-user-ID tools: no
# process here may gain privileges (allowPrivilegeEscalation: false), and none keeps the bit.
find "$ROOTFS" -xdev -type f -perm /6000 -exec chmod ug-s {} +
# The users the image's processes run as (no base-passwd: it would bring its maintainer scripts):
# roced as root, for the root-owned files it writes; the pod's bus as nobody.
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' \
  >"$ROOTFS/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$ROOTFS/etc/group"
# Mount points for a read-only root: the configuration, the state, the bus's and roced's runtime
# folders, and the host's /sys, debugfs and configfs; /usr/lib/roced for the roce-sim package's
# transports, which a test against a simulated node mounts there (roced --sim looks there).
mkdir -p "$ROOTFS"/{etc/roced,var/lib/roced,run/dbus,run/roced,sys,proc,dev,tmp,usr/lib/roced}
chmod 1777 "$ROOTFS/tmp"

rm -rf "$OUT/oci" "$OUT"/roced-*.oci.tar
mkdir -p "$OUT"
umoci init --layout "$OUT/oci"
umoci new --image "$OUT/oci:$VERSION"
umoci unpack --image "$OUT/oci:$VERSION" "$WORK/bundle" >/dev/null
cp -a "$ROOTFS/." "$WORK/bundle/rootfs/"
umoci repack --image "$OUT/oci:$VERSION" "$WORK/bundle" >/dev/null
args=()
for arg in --config /etc/roced/roced.yaml --log-target console --watch-config; do
  args+=("--config.cmd=$arg")
done
umoci config --image "$OUT/oci:$VERSION" --config.entrypoint /usr/sbin/roced "${args[@]}" \
  --config.env STATE_DIRECTORY=/var/lib/roced --config.user 0:0 --config.workingdir / \
  --config.exposedports 9879/tcp --author "roced maintainers" \
  --config.label "org.opencontainers.image.title=roced" \
  --config.label "org.opencontainers.image.version=$VERSION" \
  --config.label "org.opencontainers.image.licenses=Apache-2.0" \
  --config.label "org.opencontainers.image.description=keeps RoCE v2 lossless on mlx5 ports ($SUITE)"
umoci gc --layout "$OUT/oci"
tar -C "$OUT/oci" -cf "$OUT/roced-$VERSION.oci.tar" .
echo "build-image: roced:$VERSION ($SUITE) in $OUT/oci and $OUT/roced-$VERSION.oci.tar:" \
  "$(du -sh --apparent-size "$ROOTFS" | cut -f1) unpacked, $(du -h "$OUT/roced-$VERSION.oci.tar" | cut -f1) archived"
