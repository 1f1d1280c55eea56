#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run_image.sh IMAGE_DIR DEBDIR: the container image (packaging/container/build-image.sh) run against a
# roce-sim node as the DaemonSet runs it: the node's directory bind-mounted, the configuration a
# ConfigMap-style directory mounted read-only, a read-only root, the pod's own bus in a second
# container, and only the capabilities docs/kubernetes.md lists (CAP_NET_ADMIN, CAP_NET_RAW). The
# node checks capabilities as the kernel does (roce-sim --enforce-capabilities).
# podman is tried first; where it cannot start a container (these machines refuse the OCI
# runtime's setrlimit calls), the image's own root filesystem, unpacked from its OCI layout with
# umoci, runs under bubblewrap with the image's entrypoint, arguments and environment. The script
# says which ran. Checks: the ports applied; metrics served; rocectl in the container reaches
# roced over the pod's bus; a PFC storm held and restored; the ConfigMap replaced under the
# running container is reloaded; SIGTERM stops it cleanly; without CAP_NET_ADMIN it exits naming
# it and writes nothing.
set -euo pipefail
IMAGE_DIR=$(realpath "$1") DEBS=$(realpath "$2")
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN=${ROCED_BIN_DIR:-$REPO/build/bin}
W=$(mktemp -d /tmp/roced-image-test.XXXXXX)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$W"
}
trap cleanup EXIT
failures=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; failures=$((failures + 1)); }
die() { echo "FAIL: $*"; exit 1; }
wait_for() {  # wait_for SECONDS COMMAND...: a deadline that only stops a hang
  local until=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do ((SECONDS < until)) || return 1; sleep 0.2; done
}
VERSION=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["manifests"]; print(m[0]["annotations"]["org.opencontainers.image.ref.name"])' "$IMAGE_DIR/index.json")

# --- the runner
RUNNER=bwrap
if command -v podman >/dev/null; then
  if podman_out=$(timeout 120 podman --root "$W/podman" --runroot "$W/podman-run" \
      --storage-driver vfs run --rm --network host --cap-drop all --read-only \
      "oci:$IMAGE_DIR:$VERSION" --version 2>&1); then
    RUNNER=podman
  else
    echo "podman $(podman --version | awk '{print $3}') cannot start the image here:" \
      "$(grep -m1 -iE 'error|denied|permitted' <<<"$podman_out" || tail -1 <<<"$podman_out")"
  fi
fi
[[ $RUNNER == podman ]] ||
  { command -v bwrap >/dev/null || die "bubblewrap is not installed (scripts/setup.sh installs it)"; }
umoci unpack --image "$IMAGE_DIR:$VERSION" "$W/bundle" >/dev/null
ROOTFS=$W/bundle/rootfs
mapfile -t ENTRY < <(python3 -c 'import json,sys; [print(a) for a in json.load(open(sys.argv[1]))["process"]["args"]]' "$W/bundle/config.json")
mapfile -t ENVS < <(python3 -c 'import json,sys; [print(e) for e in json.load(open(sys.argv[1]))["process"]["env"]]' "$W/bundle/config.json")
echo "runner: $RUNNER; roced:$VERSION, entrypoint and arguments: ${ENTRY[*]}"

SIM=$W/sim CONF=$W/configmap BUS=$W/run-dbus STATE=$W/state
mkdir -p "$CONF" "$BUS" "$STATE"
chmod 0777 "$BUS"  # as a Kubernetes emptyDir is made
# roced reaches a simulated node through roce-sim's transports, which the image does not hold (a
# node needs none): the roce-sim package's, built for the image's suite, are mounted in for the
# test, where that package would put them.
dpkg-deb -x "$(ls "$DEBS"/roce-sim_*_amd64.deb)" "$W/roce-sim-pkg"
PLUGINS=$W/roce-sim-pkg/usr/lib/roced
[[ -d $PLUGINS ]] || die "no usr/lib/roced in the roce-sim package"
# container NAME CAPS -- [ARGS...]: as root, the image's root read-only, the mounts the DaemonSet
# gives, the host's network. The pod runs its bus as uid 65534; here it runs as root with no
# capability: bubblewrap could start it as another user only in a user namespace of its own, where
# roced's uid 0 is unmapped and the bus's policy would take roced for nobody. No ARGS: the image's entrypoint and arguments; ARGS starting with "/": that
# command instead (a pod's command:); other ARGS: the entrypoint with them (a pod's args:).
container() {
  local name=$1 caps=$2; shift 3
  local command=("${ENTRY[@]}")
  if (($#)) && [[ $1 == /* ]]; then command=("$@"); elif (($#)); then command=("${ENTRY[0]}" "$@"); fi
  if [[ $RUNNER == podman ]]; then
    local capargs=(--cap-drop all)
    for cap in $caps; do capargs+=(--cap-add "${cap#CAP_}"); done
    exec podman --root "$W/podman" --runroot "$W/podman-run" --storage-driver vfs run --rm \
      --name "$name" --network host --read-only "${capargs[@]}" \
      -v "$SIM:$SIM" -v "$CONF:/etc/roced:ro" -v "$BUS:/run/dbus" -v "$STATE:/var/lib/roced" \
      -v "$PLUGINS:/usr/lib/roced:ro" \
      --entrypoint "${command[0]}" "oci:$IMAGE_DIR:$VERSION" "${command[@]:1}"
  fi
  local capargs=(--cap-drop ALL)
  for cap in $caps; do capargs+=(--cap-add "$cap"); done
  local envargs=(--clearenv)
  for pair in "${ENVS[@]}"; do envargs+=(--setenv "${pair%%=*}" "${pair#*=}"); done
  exec bwrap --ro-bind "$ROOTFS" / --proc /proc --dev /dev --tmpfs /tmp --tmpfs /run \
    --bind "$BUS" /run/dbus --bind "$STATE" /var/lib/roced --ro-bind "$CONF" /etc/roced \
    --bind "$SIM" "$SIM" --ro-bind "$PLUGINS" /usr/lib/roced --die-with-parent --unshare-ipc --unshare-uts \
    "${capargs[@]}" "${envargs[@]}" -- "${command[@]}"
}
exec_in() {  # what kubectl exec runs: a command beside roced, in the same image and mounts
  (container exec "CAP_NET_ADMIN CAP_NET_RAW" -- "$@")
}

# --- the node and its configuration
"$BIN/roce-sim" run --dir "$SIM" --quiet --enforce-capabilities \
  --scenario "$REPO/sim/scenarios/steady.yaml" >"$W/sim.log" 2>&1 &
PIDS+=($!)
wait_for 60 test -e "$SIM/roce-sim.pid" || die "roce-sim did not start: $(cat "$W/sim.log")"
source "$REPO/test/container/configmap.sh"
config() {  # config CABLE_LENGTH: the shipped file, the node's ports named, the watchdog acting
  sed -e 's/^\(\s*\)netdevs: \[\]/\1netdevs: [lan2, lan3, lan4, lan5]/' "$REPO/packaging/etc/roced.yaml"
  printf 'profile:\n  pfc: {priorities: [3], cable_length: %s}\n' "$1"
  printf 'watchdog:\n  enabled: true\n  poll_interval: 10ms\n  detection_time: 50ms\n'
  printf '  restoration_time: 500ms\n  action: {rx: disable-pfc, tx: stall-prevention}\n'
  printf 'metrics:\n  listen: 127.0.0.1:19880\n'
}
configmap_publish "$CONF" roced.yaml "$(config 10)"
grep -q 'netdevs: \[lan2' "$CONF/roced.yaml" || die "could not name the ports in the shipped file"
writes() { awk '$1 == "total" {print $2}' "$SIM/roce-sim.writes"; }
pfc_of() { "$BIN/roce-sim" exec "$SIM" -- dcb pfc show dev "$1" "${@:2}"; }

# --- without CAP_NET_ADMIN: refused by name, nothing written
before=$(writes)
rc=0
(container nocap "CAP_NET_RAW" -- --sim "$SIM" --config /etc/roced/roced.yaml --log-target console \
  --no-dbus) >"$W/nocap.log" 2>&1 || rc=$?
if ((rc == 1)) && grep -q 'roced needs CAP_NET_ADMIN' "$W/nocap.log"; then
  ok "without CAP_NET_ADMIN: exit 1, \"$(grep -o 'roced needs CAP_NET_ADMIN[^(]*' "$W/nocap.log")\""
else
  bad "without CAP_NET_ADMIN: exit $rc: $(tail -3 "$W/nocap.log")"
fi
[[ $(writes) == "$before" ]] && ok "... and nothing written to the node" || bad "writes: $before -> $(writes)"

# --- the pod: its bus, then roced with the listed capabilities and the image's own arguments
# (but for the node: --sim, as a real node needs none)
(container bus "" -- /usr/bin/dbus-daemon --config-file=/usr/share/roced/dbus/pod-bus.conf \
  --nofork --nopidfile) >"$W/bus.log" 2>&1 &
PIDS+=($!)
wait_for 30 test -S "$BUS/system_bus_socket" || die "the pod's bus did not start: $(cat "$W/bus.log")"
ok "the pod's bus runs from the image (pod-bus.conf), as $(stat -c %U "$BUS/system_bus_socket")"
(container roced "CAP_NET_ADMIN CAP_NET_RAW" -- "${ENTRY[@]:1}" --sim "$SIM") >"$W/roced.log" 2>&1 &
ROCED=$!
PIDS+=("$ROCED")
wait_for 120 grep -q 'ready:' "$W/roced.log" || die "roced did not become ready: $(tail -20 "$W/roced.log")"
ok "roced ready: $(grep -o 'ready: .*' "$W/roced.log")"
grep -q "D-Bus API: io.roced.Daemon1 on the system bus" "$W/roced.log" &&
  ok "roced offers its API on the pod's bus" || bad "no D-Bus API: $(grep -i d-bus "$W/roced.log")"
if metrics=$(curl -sf http://127.0.0.1:19880/metrics); then
  n=$(grep -c '^roce_config_port_state{.*state="in-sync".*} 1' <<<"$metrics" || true)
  ((n == 4)) && ok "metrics: 4 ports in-sync" || bad "metrics: $n ports in-sync"
else
  bad "no metrics on 127.0.0.1:19880"
fi
if status=$(exec_in /usr/bin/rocectl --sim "$SIM" check 2>&1); then
  ok "rocectl check in the container (kubectl exec): $status"
else
  bad "rocectl check in the container: $status"
fi

# --- a PFC storm: held, then restored
carrier_up() { [[ $(cat "$SIM/sys/class/net/lan3/carrier" 2>/dev/null) == 1 ]]; }
wait_for 60 carrier_up || bad "lan3 has no carrier"
printf 'name: storm-now\nevents:\n  - {at: 0s, kind: pfc_storm, port: lan3, priority: 3, direction: rx, duration: 3s}\n' \
  >"$W/storm.yaml"
"$BIN/roce-sim" inject "$SIM" "$W/storm.yaml"
if wait_for 60 grep -qE 'lan3: PFC storm .* (stopped it|did not stop it|not remediated)' "$W/roced.log"; then
  ok "storm: $(grep -oE 'lan3: PFC storm .*' "$W/roced.log" | head -1 | cut -c1-120)"
else
  bad "roced did not act on the storm: $(tail -5 "$W/roced.log")"
fi
pfc3_on() { pfc_of lan3 prio-pfc | grep -q '3:on'; }
if wait_for 60 grep -qE 'lan3: PFC storm .* ended: .*putting the configuration back' "$W/roced.log" &&
  wait_for 60 pfc3_on; then
  ok "restored: $(grep -oE 'lan3: PFC storm .* ended: [^;]*' "$W/roced.log" | head -1 | cut -c1-120); dcb reads 3:on"
else
  bad "PFC not restored on lan3: $(tail -5 "$W/roced.log")"
fi

# --- the ConfigMap replaced under the running container
configmap_publish "$CONF" roced.yaml "$(config 25)"
if wait_for 60 sh -c "'$BIN/roce-sim' exec '$SIM' -- dcb pfc show dev lan5 delay | grep -q 'delay 25'"; then
  ok "ConfigMap update reloaded without a restart: $(grep -o '/etc/roced/roced.yaml changed: reloading' "$W/roced.log" | head -1)"
else
  bad "the ConfigMap update was not applied: $(tail -5 "$W/roced.log")"
fi
kill -0 "$ROCED" 2>/dev/null && ok "the same roced still runs" || bad "roced is gone"

# --- a clean stop
pkill -TERM -f "^/usr/sbin/roced .*--sim $SIM" || true
rc=0
wait "$ROCED" || rc=$?
((rc == 0)) && grep -q '^.*stopped' "$W/roced.log" && ok "SIGTERM: exit 0, \"stopped\"" ||
  bad "SIGTERM: exit $rc: $(tail -3 "$W/roced.log")"

echo "runner: $RUNNER; $failures failure(s)"
((failures == 0))
