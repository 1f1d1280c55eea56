#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# /init of each VM of the probing pair (run_vm_pair.sh): soft-RoCE (rxe0) on the NIC that joins
# the two VMs, then on VM "b" the responder until it is stopped, on VM "a" the probing cases
# (probe_pair.cpp). The result goes to the serial console and qemu's exit status as in init.sh.
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
exec 3<>/dev/port
mount -t tmpfs tmpfs /tmp
for module in $(cat /modules/order); do
  insmod "/modules/$module" || fail "insmod $module"
done
role=$(sed -n 's/.*roced\.pair=\([ab]\).*/\1/p' /proc/cmdline)
[ "$role" = a ] && self=10.7.0.1 || self=10.7.0.2
IP=/usr/bin/ip
$IP link set lo up || fail "lo up"
$IP addr add $self/24 dev eth0 || fail "eth0 address"
$IP link set eth0 up || fail "eth0 up"
/usr/bin/rdma link add rxe0 type rxe netdev eth0 || fail "rdma link add rxe0"
echo "ROCED-VM-SETUP-DONE: $(cat /proc/uptime), kernel $(uname -r), VM $role ($self)"
cd /tmp
if [ "$role" = b ]; then
  probe_pair respond $self
  fail "the responder stopped"
fi
# The other VM boots alongside: wait (bounded) until it answers on the joined network.
tries=0
until ping -c 1 -W 1 10.7.0.2 >/dev/null 2>&1; do
  tries=$((tries + 1))
  [ $tries -gt 180 ] && fail "VM b never answered a ping"
done
# Its responder's service resolves (bounded): the cases then start with a peer that answers.
probe_pair ready 10.7.0.2 || fail "VM b's probe service never resolved"
probe_pair --gtest_color=no
result=$?
echo "ROCED-VM-RESULT: $result"
[ "$result" -gt 0 ] && code='\001' || code='\000'
printf "$code" | dd bs=1 seek=244 count=1 >&3 2>/dev/null
poweroff -f
