#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Under `roce-sim exec` only NETLINK_ROUTE sockets and the sim's interfaces are redirected:
# genetlink, ioctls on the host's interfaces and ordinary sockets reach the kernel unchanged
# (ethtool naming one of the sim's interfaces gets no genetlink socket, and takes the ioctl).
# Usage: roce_sim_passthrough_test.sh ROCE_SIM SHIM
ROCE_SIM=$1
SHIM=$2
source "$(cd "$(dirname "$0")" && pwd)/lib.sh"
start_sim "$ROCE_SIM" run --dir

assert_eq "ethtool -k lo (genetlink)" "$(ethtool -k lo 2>&1)" "$(sim ethtool -k lo 2>&1)"
assert_eq "ethtool -i lo (ioctl)" "$(ethtool -i lo 2>&1)" "$(sim ethtool -i lo 2>&1)"
assert_eq "ethtool -a lo (genetlink)" "$(ethtool -a lo 2>&1)" "$(sim ethtool -a lo 2>&1)"
# The environment really is the shim's: lan2 is known here, not outside.
sim ethtool -i lan2 >/dev/null || fail "ethtool -i lan2 under exec"
ethtool -i lan2 >/dev/null 2>&1 && fail "host has a lan2: the test cannot tell the sim from the host"

# Ordinary sockets: an AF_INET socket binds and names itself; a socketpair echoes.
out=$(sim python3 -c '
import socket
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
udp.bind(("0.0.0.0", 0))
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
a.send(b"ping")
b.settimeout(30)
print(udp.family == socket.AF_INET and udp.getsockname()[1] > 0, b.recv(8).decode())
') || fail "python sockets under exec"
assert_eq "AF_INET bind and socketpair echo" "True ping" "$out"
echo PASS
