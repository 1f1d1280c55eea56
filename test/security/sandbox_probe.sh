#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# sandbox_probe.sh MODE NODE — what a compromised roced might try. Each attempt prints
# "allowed|denied escape|need: WHAT"; "need" lines are what roced itself must be able to do.
# MODE unconfined (the control) leaves out what would change the machine for real (the clock) or
# depends on it (user namespaces and block devices may be unavailable even to root).
MODE=$1 NODE=$2
try() {  # try KIND WHAT COMMAND...
  local kind=$1 what=$2
  shift 2
  if "$@" >/dev/null 2>&1; then echo "allowed $kind: $what"; else echo "denied $kind: $what"; fi
}
py() { python3 -c "$1"; }
try escape "write /usr/lib" touch /usr/lib/.roced-escape
try escape "write /etc" touch /etc/.roced-escape
try escape "read /root" ls /root/.profile
try escape "write a kernel tunable" sh -c 'cat /proc/sys/kernel/domainname > /proc/sys/kernel/domainname'
[[ $MODE == confined ]] && try escape "set the clock" py 'import time; time.clock_settime(time.CLOCK_REALTIME, time.time())'
try escape "mount a tmpfs" mount -t tmpfs none /mnt
[[ $MODE == confined ]] && try escape "create a user namespace" unshare --user true
[[ $MODE == confined ]] && try escape "read a block device" sh -c 'dd if=$(ls /dev/[sv]d[a-z] /dev/nvme0n1 2>/dev/null | head -1) of=/dev/null count=1'
try escape "change a file's owner" sh -c 'touch '"$NODE"'/.chown && chown nobody '"$NODE"'/.chown'
try need "write the node's tree" touch "$NODE/.roced-probe"
try need "open a netlink socket" py 'import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)'
try need "open a packet socket (the switch's LLDP)" py 'import socket; socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)'
