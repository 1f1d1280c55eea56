#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The real-kernel test: a Debian suite's kernel (bookworm's 6.1 or trixie's 6.12) under qemu
# (software emulation, no KVM needed) with soft-RoCE, the mlx5-like test ports of test/kmod built
# for that kernel, roced, rocectl and the cases (vm_cases.cpp, testdev_cases.cpp) in a small
# initramfs. One boot runs every case; the result comes back on the serial console and as qemu's
# exit status.
#
#   run_vm_test.sh CACHE_DIR SUITE SERIES ROCED ROCECTL VM_CASES CONFORMANCE_KERNEL
#   e.g. run_vm_test.sh build/vm-cache trixie 6.12 ...
#
# SERIES is the kernel series the test is named for: a suite whose kernel is another fails.
# Fails, saying why, when qemu, the kernel package or the module's toolchain is missing: never
# skipped.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE=$1 SUITE=$2 SERIES=$3 ROCED=$4 ROCECTL=$5 CASES=$6 CONFORMANCE=$7
BOOT_TIMEOUT=${ROCED_VM_TIMEOUT:-420}  # s: a hang, not a slow machine (a boot takes ~15 s)

QEMU=$(command -v qemu-system-x86_64 || true)
if [[ -z $QEMU ]]; then
  echo "FAIL: qemu-system-x86_64 is not installed (scripts/setup.sh installs qemu-system-x86)"
  exit 1
fi
for tool in busybox ibv_rc_pingpong rdma dcb cpio depmod; do
  if ! command -v "$tool" >/dev/null && [[ ! -x /sbin/$tool && ! -x /usr/sbin/$tool ]]; then
    echo "FAIL: $tool is not installed (scripts/setup.sh installs it)"
    exit 1
  fi
done

mkdir -p "$CACHE"
SECONDS=0
KTREE=$("$HERE/fetch_kernel.sh" "$CACHE" "$SUITE")
KVER=$(ls "$KTREE/lib/modules")
VERSION=$(cat "$KTREE/.version")
if [[ $KVER != "$SERIES".* ]]; then
  echo "FAIL: Debian $SUITE's kernel is $KVER, not of the $SERIES series this test is for"
  exit 1
fi
WORK=$(mktemp -d "$CACHE/run.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# The mlx5-like test ports (test/kmod), built against the headers of exactly this kernel: on this
# machine for bookworm's, in a root of its own suite for a newer suite's (its compiler).
ROOT=
if [[ $SUITE != bookworm ]]; then
  if ! ROOT=$("$HERE/../kmod/build_root.sh" "$CACHE" "$SUITE" "$KVER" "$VERSION"); then
    echo "FAIL: no $SUITE root to build the test module for $KVER in (see above)"
    exit 1
  fi
fi
TEST_MODULE=$("$HERE/../kmod/build.sh" "$KVER" "$VERSION" "$WORK/kmod" ${ROOT:+"$ROOT"})
TEST_MODULE=$TEST_MODULE "$HERE/build_initramfs.sh" "$KTREE" "$KVER" "$HERE/init.sh" \
  "$WORK/initramfs.cpio.gz" "$ROCED" "$ROCECTL" "$CASES" "$CONFORMANCE"
echo "initramfs: $(du -h "$WORK/initramfs.cpio.gz" | cut -f1), kernel $KVER ($SUITE $VERSION);" \
  "kernel, module and initramfs ready in ${SECONDS} s"

# Software emulation (TCG) always: CI has no KVM, and a /dev/kvm that opens is no promise that
# KVM works (here it spun for minutes). isa-debug-exit turns the value init writes to port 0xf4
# into qemu's exit status: (value << 1) | 1.
accel=(-accel tcg)
set +e
SECONDS=0
timeout --kill-after=10 "$BOOT_TIMEOUT" "$QEMU" "${accel[@]}" -m 1024 -smp 2 \
  -kernel "$KTREE/boot/vmlinuz-$KVER" -initrd "$WORK/initramfs.cpio.gz" \
  -append "console=ttyS0 quiet panic=-1" -nographic -no-reboot -nic none \
  -device isa-debug-exit,iobase=0xf4,iosize=0x04 </dev/null | tee "$WORK/console.log" |
  sed -u 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g'
status=${PIPESTATUS[0]}
set -e
echo "boot to power-off: ${SECONDS} s, qemu exit status $status"

result=$(grep -a -o 'ROCED-VM-RESULT: [0-9]*' "$WORK/console.log" | tail -1 | cut -d' ' -f2 || true)
if [[ $status -eq 124 || $status -eq 137 ]]; then
  echo "FAIL: the VM did not finish within ${BOOT_TIMEOUT} s (ROCED_VM_TIMEOUT)"
  exit 1
fi
# init writes its result to isa-debug-exit right after the line: status 1 (passed) or 3 (failed)
# comes only from there. The line itself can be lost when qemu exits before the emulated serial
# port has sent it (a starved emulator); the status then still says how the cases ended.
if [[ -z $result && ( $status -eq 1 || $status -eq 3 ) ]]; then
  result=$(((status - 1) / 2))
  echo "the ROCED-VM-RESULT line did not reach the console before qemu exited; its exit status" \
    "$status carries the result ($result)"
fi
if [[ -z $result ]]; then
  echo "FAIL: the VM printed no ROCED-VM-RESULT line (qemu exit status $status): it did not boot" \
    "to the cases; see the console above"
  exit 1
fi
if [[ $result != 0 || $status -ne 1 ]]; then
  echo "FAIL: the cases failed in the VM (result $result, qemu exit status $status)"
  exit 1
fi
echo "PASS: every case passed in the VM"
