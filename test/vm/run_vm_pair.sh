#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Path probing between two VMs: Debian bookworm's kernel under qemu twice, each with soft-RoCE on
# a virtio NIC, the two NICs joined by qemu's socket network over loopback (nothing leaves the
# machine). VM b answers probes; VM a runs probe_pair's cases against it (a clean path, then
# netem's delay and loss) and its result decides. The figures lines (PROBE-PAIR-FIGURES) are
# copied to FIGURES for the alert rules' test and the note.
#
#   run_vm_pair.sh CACHE_DIR PROBE_PAIR FIGURES
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE=$1 PROGRAM=$2 FIGURES=$3
BOOT_TIMEOUT=${ROCED_VM_TIMEOUT:-420}  # s: a hang, not a slow machine

QEMU=$(command -v qemu-system-x86_64 || true)
if [[ -z $QEMU ]]; then
  echo "FAIL: qemu-system-x86_64 is not installed (scripts/setup.sh installs qemu-system-x86)"
  exit 1
fi
for tool in busybox tc ss cpio depmod; do
  if ! command -v "$tool" >/dev/null && [[ ! -x /sbin/$tool && ! -x /usr/sbin/$tool ]]; then
    echo "FAIL: $tool is not installed (scripts/setup.sh installs it)"
    exit 1
  fi
done
mkdir -p "$CACHE"
SECONDS=0
KTREE=$("$HERE/fetch_kernel.sh" "$CACHE" bookworm)
KVER=$(ls "$KTREE/lib/modules")
WORK=$(mktemp -d "$CACHE/pair.XXXXXX")
B_PID=
cleanup() {
  if [[ -n $B_PID ]]; then
    kill "$B_PID" 2>/dev/null || true
    wait "$B_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
EXTRA_MODULES="virtio_pci virtio_net sch_netem" EXTRA_PROGRAMS="$(command -v tc)" \
  "$HERE/build_initramfs.sh" "$KTREE" "$KVER" "$HERE/pair_init.sh" "$WORK/initramfs.cpio.gz" \
  "$PROGRAM"
echo "initramfs: $(du -h "$WORK/initramfs.cpio.gz" | cut -f1), kernel $KVER; ready in ${SECONDS} s"

# A free port on loopback for the network between the VMs (b listens, a connects).
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
boot() {  # boot ROLE NETDEV-ARGS
  local role=$1 netdev=$2
  timeout --kill-after=10 "$BOOT_TIMEOUT" "$QEMU" -accel tcg -m 1024 -smp 1 \
    -kernel "$KTREE/boot/vmlinuz-$KVER" -initrd "$WORK/initramfs.cpio.gz" \
    -append "console=ttyS0 quiet panic=-1 roced.pair=$role" -nographic -no-reboot \
    -netdev "socket,id=n0,$netdev" \
    -device "virtio-net-pci,netdev=n0,mac=52:54:00:00:07:0${role/a/1},romfile=" \
    -device isa-debug-exit,iobase=0xf4,iosize=0x04 </dev/null
}
SECONDS=0
boot b "listen=127.0.0.1:$PORT" >"$WORK/b.log" 2>&1 &
B_PID=$!
for _ in $(seq 100); do
  ss -Hltn "sport = :$PORT" | grep -q . && break
  sleep 0.1
done
set +e
boot a "connect=127.0.0.1:$PORT" | tee "$WORK/a.log" | sed -u 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g'
status=${PIPESTATUS[0]}
set -e
echo "both VMs booted, a ran its cases and powered off: ${SECONDS} s, qemu exit status $status"
echo "--- VM b's console:"
sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g' "$WORK/b.log" | grep -a "ROCED\|PROBE" || true
grep -a -o 'PROBE-PAIR-FIGURES .*' "$WORK/a.log" | cut -d' ' -f2- | tr -d '\r' >"$FIGURES" || true

result=$(grep -a -o 'ROCED-VM-RESULT: [0-9]*' "$WORK/a.log" | tail -1 | cut -d' ' -f2 || true)
if [[ $status -eq 124 || $status -eq 137 ]]; then
  echo "FAIL: VM a did not finish within ${BOOT_TIMEOUT} s (ROCED_VM_TIMEOUT)"
  exit 1
fi
if [[ -z $result ]]; then
  echo "FAIL: VM a printed no ROCED-VM-RESULT line (qemu exit status $status); see above"
  exit 1
fi
if [[ $result != 0 || $status -ne 1 ]]; then
  echo "FAIL: the probing cases failed in VM a (result $result, qemu exit status $status)"
  exit 1
fi
echo "PASS: probing between the two VMs; figures in $FIGURES"
