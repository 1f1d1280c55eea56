#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the VM's initramfs: busybox, the kernel modules soft-RoCE needs (with their dependency
# closure), iproute2's ip/rdma/dcb, ethtool, the verbs utilities and rxe's provider, roced,
# rocectl and the case driver, every shared library they load (found with ldd), and init.
#
#   [TEST_MODULE=x.ko] [EXTRA_MODULES="m ..."] [EXTRA_PROGRAMS="/path ..."] \
#     build_initramfs.sh KERNEL_ROOT KVER INIT OUT.cpio.gz PROGRAM...
#
# KERNEL_ROOT is the extracted kernel package (fetch_kernel.sh), INIT becomes /init, the PROGRAMs
# (roced, rocectl, vm_cases) go to /usr/bin. Takes ~2 s.
set -euo pipefail
KROOT=$1 KVER=$2 INIT=$3 OUT=$4
shift 4
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
R=$WORK/root
mkdir -p "$R"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,etc/libibverbs.d,proc,sys,dev,tmp,run,var/tmp}

# Modules: the ones the cases load, in the order init loads them, with their dependencies first.
# crc32_generic: rxe's ICRC needs a crc32 implementation that no dependency list names; without
# it `rdma link add` fails with ENOENT (rxe_icrc.c: rxe_icrc_init looks crc32 up in the crypto API).
MODULES=(crc32_generic configfs veth rdma_rxe ib_uverbs rdma_cm rdma_ucm 8021q macvlan ipvlan bonding)
declare -A seen=()
ordered=()
add_module() {
  local name=$1 dep
  [[ -n ${seen[$name]:-} ]] && return
  seen[$name]=1
  for dep in $(modinfo -b "$KROOT" -k "$KVER" -F depends "$name" | tr ',' ' '); do
    add_module "$dep"
  done
  local file
  file=$(modinfo -b "$KROOT" -k "$KVER" -F filename "$name")
  [[ $file == "(builtin)" ]] && return
  mkdir -p "$R/modules"
  cp "$file" "$R/modules/"
  # trixie's modules are xz-compressed: busybox's insmod would hand them to the kernel as they are
  # (refused, "Invalid ELF header magic") before decompressing them itself.
  if [[ $file == *.ko.xz ]]; then
    xz -d "$R/modules/$(basename "$file")"
    file=${file%.xz}
  fi
  ordered+=("$(basename "$file")")
}
for m in "${MODULES[@]}" ${EXTRA_MODULES:-}; do add_module "$m"; done
# The test module (TEST_MODULE, built by test/kmod/build.sh) goes last: it needs only built-ins.
if [[ -n ${TEST_MODULE:-} ]]; then
  cp "$TEST_MODULE" "$R/modules/"
  ordered+=("$(basename "$TEST_MODULE")")
fi
printf '%s\n' "${ordered[@]}" > "$R/modules/order"

# Programs, and the libraries they load.
cp /bin/busybox "$R/bin/busybox"
for applet in timeout wget kill sh mount mkdir cat echo ls sleep dd poweroff grep sed head tr \
  insmod rmmod readlink find uname ping; do
  ln -s busybox "$R/bin/$applet"
done
programs=(/usr/sbin/ip /usr/bin/rdma /usr/sbin/dcb /usr/sbin/ethtool /usr/sbin/devlink
          /usr/bin/ibv_devinfo /usr/bin/ibv_rc_pingpong ${EXTRA_PROGRAMS:-} "$@")
provider=$(ls /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav*.so)
for p in "${programs[@]}"; do
  cp -L "$p" "$R/usr/bin/"
  strip --strip-debug "$R/usr/bin/$(basename "$p")"  # roced's debug info alone is ~60 MB
done
cp /etc/libibverbs.d/rxe.driver "$R/etc/libibverbs.d/"
mkdir -p "$R/usr/lib/x86_64-linux-gnu/libibverbs"
cp -L "$provider" "$R/usr/lib/x86_64-linux-gnu/libibverbs/"
for p in "${programs[@]}" "$provider"; do
  ldd "$p" | awk '/=> \//{print $3} /^\t\/lib64/{print $1}'
done | sort -u | while read -r lib; do
  mkdir -p "$R$(dirname "$lib")"
  cp -L "$lib" "$R$lib"
done
# The dynamic loader at the path the programs name.
mkdir -p "$R/lib64"
cp -L /lib64/ld-linux-x86-64.so.2 "$R/lib64/"

echo "root:x:0:0:root:/root:/bin/sh" > "$R/etc/passwd"
echo "root:x:0:" > "$R/etc/group"
echo "nobody:x:65534:" >> "$R/etc/group"
cp "$INIT" "$R/init"
chmod +x "$R/init"
(cd "$R" && find . | cpio -o -H newc --quiet | gzip -1) > "$OUT"
