#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# /init of the VM: the kernel's own RDMA stack, a soft-RoCE device (rxe0) on veth0, whose peer
# veth1 lives in a network namespace, the test module's mlx5-like ports rtd0 and rtd1, then the
# cases. The result goes to the serial console (the ROCED-VM-RESULT line) and to qemu's exit status
# through the isa-debug-exit port (run_vm_test.sh reads both).
export PATH=/usr/bin:/bin
fail() {
  echo "ROCED-VM-SETUP-FAILED: $*"
  echo "ROCED-VM-RESULT: 2"
  printf '\002' | dd bs=1 seek=244 count=1 >&3 2>/dev/null
  poweroff -f
}
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# qemu's isa-debug-exit port, opened now: a case raises the kernel's lockdown, which refuses to
# open /dev/port afterwards (LOCKDOWN_DEV_MEM) but leaves an open one usable.
exec 3<>/dev/port
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
for module in $(cat /modules/order); do
  insmod "/modules/$module" || fail "insmod $module"
done
mount -t configfs configfs /sys/kernel/config || fail "mount configfs"
mount -t debugfs debugfs /sys/kernel/debug || fail "mount debugfs"
mount -t securityfs securityfs /sys/kernel/security || fail "mount securityfs"
# busybox's sh prefers its own ip applet: iproute2's by full path.
IP=/usr/bin/ip
$IP link set lo up || fail "lo up"
$IP netns add peer || fail "ip netns add peer"
$IP link add veth0 type veth peer name veth1 || fail "veth pair"
$IP link set veth1 netns peer || fail "veth1 into the namespace"
$IP addr add 10.0.0.1/24 dev veth0 || fail "veth0 address"
$IP link set veth0 up || fail "veth0 up"
$IP netns exec peer $IP addr add 10.0.0.2/24 dev veth1 || fail "veth1 address"
$IP netns exec peer $IP link set veth1 up || fail "veth1 up"
$IP netns exec peer $IP link set lo up || fail "peer lo up"
/usr/bin/rdma link add rxe0 type rxe netdev veth0 || fail "rdma link add rxe0"
# The test module's mlx5-like ports (rtd0, rtd1), fresh (the module loaded again) and up; the
# carrier comes after link training.
FRESH_PORTS="rmmod roce_testdev && insmod /modules/roce_testdev.ko && $IP link set rtd0 up && $IP link set rtd1 up"
$IP link set rtd0 up && $IP link set rtd1 up || fail "the test module's ports up"
echo "ROCED-VM-SETUP-DONE: $(cat /proc/uptime), kernel $(uname -r)"
cd /tmp
# The conformance cases first, on rtd1 with a fresh module for each, then the other cases.
ROCED_CONFORMANCE_NETDEV=rtd1 ROCED_CONFORMANCE_WRITE=1 ROCED_CONFORMANCE_FRESH="$FRESH_PORTS" \
  conformance_kernel --gtest_color=no
conformance=$?
sh -c "$FRESH_PORTS" || fail "the test module's ports after the conformance cases"
vm_cases --gtest_color=no
result=$?
[ "$conformance" -ne 0 ] && result=$conformance
echo "ROCED-VM-RESULT: $result"
[ "$result" -gt 0 ] && code='\001' || code='\000'
printf "$code" | dd bs=1 seek=244 count=1 >&3 2>/dev/null
poweroff -f
