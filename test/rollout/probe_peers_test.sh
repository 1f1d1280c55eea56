#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The role's probe peers from the inventory (tasks/probe_peers.yml), rendered by ansible-playbook
# for three hosts under two switches: each host gets every other host of the listed groups, each
# labelled with its group (its switch: the series and the blame name it), after the peers the
# configuration names; none gets its own addresses.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
cd "$HERE/probe_peers"
ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_INVENTORY_UNPARSED_WARNING=false \
  ansible-playbook -i inventory.yml playbook.yml -e out_dir="$OUT" >"$OUT/log" 2>&1 || {
  cat "$OUT/log"
  exit 1
}
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
storage = {"address": "10.9.9.9", "group": "storage"}
want = {
    "gpu1": [storage, {"address": "10.1.0.2", "group": "tor1"}, {"address": "10.2.0.3", "group": "tor2"}],
    "gpu2": [storage, {"address": "10.1.0.1", "group": "tor1"}, {"address": "10.1.1.1", "group": "tor1"},
             {"address": "10.2.0.3", "group": "tor2"}],
    "gpu3": [storage, {"address": "10.1.0.1", "group": "tor1"}, {"address": "10.1.1.1", "group": "tor1"},
             {"address": "10.1.0.2", "group": "tor1"}],
}
failed = False
for host, peers in want.items():
    got = json.load(open(f"{out}/{host}.json"))
    if got.get("peers") != peers or got.get("enabled") is not True:
        print(f"FAIL: {host}: probe is {got}, wanted peers {peers}")
        failed = True
print("FAIL" if failed else "PASS: each host's peers are the other hosts of the groups, by group")
sys.exit(1 if failed else 0)
PY
