#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# iproute2 6.1's dcb (Debian bookworm) sets NLM_F_ACK on every request but stops reading at the
# reply, so a set reads its get's leftover ACK as its own answer (dcb/dcb.c; fixed upstream by
# "dcb: Do not leave ACKs in socket receive buffer", v6.2.0). Sequence numbers are time(NULL)
# (lib/mnl_utils.c mnlu_msg_prepare): a get and a set in different seconds make libmnl reject the
# ACK with EPROTO, although the set reached the node. The node answers as the kernel does (reply,
# then a separate ACK: net/netlink/af_netlink.c netlink_rcv_skb), so the failure is real here too.
# strace holds the get's recvmsg for 1.1 s to put the set in the next second every time.
# Usage: roce_sim_dcb_stale_ack_test.sh ROCE_SIM SHIM
ROCE_SIM=$1
SHIM=$2
source "$(cd "$(dirname "$0")" && pwd)/lib.sh"
command -v strace >/dev/null || fail "strace is not installed (scripts/setup.sh installs it)"
start_sim "$ROCE_SIM" run --dir

next_second_set() {  # dcb pfc set, with the set one second after the get
  strace -o /dev/null -e trace=recvmsg -e inject=recvmsg:delay_exit=1100000:when=1 \
    dcb pfc set dev lan2 prio-pfc "$1"
}
prio3() { sim dcb pfc show dev lan2 prio-pfc | grep -o '3:o[nf]*'; }

version=$(dcb -V)
status=0
err=$("$ROCE_SIM" exec "$SIM_DIR" -- bash -c "$(declare -f next_second_set); next_second_set 3:on" 2>&1) ||
  status=$?
if [[ $version == *"iproute2-6.1"* ]]; then
  assert_eq "$version: exit of a set in the next second" 1 "$status"
  assert_eq "$version: its error" "Attribute write: Protocol error" "$err"
else
  assert_eq "$version: exit of a set in the next second" 0 "$status"
fi
assert_eq "the set reached the node all the same" "3:on" "$(prio3)"

# The tests' wrappers forgive exactly that failure (lib.sh sim_dcb, test/support/sim_exec.hpp,
# test/e2e_prometheus/harness.py) and no other.
sim_dcb bash -c "$(declare -f next_second_set); next_second_set 3:off" ||
  fail "sim_dcb did not forgive the stale-ACK failure"
assert_eq "the forgiven set reached the node" "3:off" "$(prio3)"
sim_dcb dcb pfc set dev nosuchdev prio-pfc 3:on 2>/dev/null &&
  fail "sim_dcb forgave a set on a device that does not exist"
echo "ok: a set on a device that does not exist still fails"
echo passed
