#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# /init of the VM: the kernel's own RDMA stack, a soft-RoCE device (rxe0) on veth0, whose peer
# veth1 lives in a network namespace (the port roced manages is then the only one here), then the
# cases. The result goes to the serial console (the ROCED-VM-RESULT line) and to qemu's exit status
# through the isa-debug-exit port (run_vm_test.sh reads both).
export PATH=/usr/bin:/bin
fail() {
  echo "ROCED-VM-SETUP-FAILED: $*"
  echo "ROCED-VM-RESULT: 2"
  printf '\002' | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
  poweroff -f
}
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
for module in $(cat /modules/order); do
  insmod "/modules/$module" || fail "insmod $module"
done
mount -t configfs configfs /sys/kernel/config || fail "mount configfs"
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
echo "ROCED-VM-SETUP-DONE: $(cat /proc/uptime)"
cd /tmp
vm_cases --gtest_color=no
result=$?
echo "ROCED-VM-RESULT: $result"
[ "$result" -gt 0 ] && code='\001' || code='\000'
printf "$code" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
poweroff -f
