#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Path probing between two VMs: Debian bookworm's kernel under qemu twice, each with soft-RoCE on
# a virtio NIC, the two NICs joined by qemu's socket network over loopback (nothing leaves the
# machine). VM b answers probes; VM a runs probe_pair's cases against it (a clean path, then
# netem's delay and loss, then roced itself probing through netem's loss) and its result decides.
# The figures lines (PROBE-PAIR-FIGURES) are copied to FIGURES for the note; the series roced
# exported in the VM (PROBE-PAIR-SERIES) become a promtool test of the shipped alert rules
# (RULES_DIR/roced-alerts.yml): RoceProbeLoss must fire on them.
#
#   run_vm_pair.sh CACHE_DIR PROBE_PAIR FIGURES ROCED ROCECTL RULES_DIR
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE=$1 PROGRAM=$2 FIGURES=$3 ROCED=$4 ROCECTL=$5 RULES=$6
BOOT_TIMEOUT=${ROCED_VM_TIMEOUT:-420}  # s: a hang, not a slow machine

QEMU=$(command -v qemu-system-x86_64 || true)
if [[ -z $QEMU ]]; then
  echo "FAIL: qemu-system-x86_64 is not installed (scripts/setup.sh installs qemu-system-x86)"
  exit 1
fi
for tool in busybox tc ss cpio depmod promtool; do
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
    # VM b's qemu is a grandchild (the subshell, then timeout): stop it by its own initramfs,
    # which names this run alone, or it would spin an emulated CPU until its timeout.
    pkill -f "$WORK/initramfs.cpio.gz" 2>/dev/null || true
    kill "$B_PID" 2>/dev/null || true
    wait "$B_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
EXTRA_MODULES="virtio_pci virtio_net sch_netem" EXTRA_PROGRAMS="$(command -v tc)" \
  "$HERE/build_initramfs.sh" "$KTREE" "$KVER" "$HERE/pair_init.sh" "$WORK/initramfs.cpio.gz" \
  "$PROGRAM" "$ROCED" "$ROCECTL"
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
# As in run_vm_test.sh: status 1 or 3 comes only from pair_init.sh's isa-debug-exit write, right
# after the line, which a starved emulator can lose.
if [[ -z $result && ( $status -eq 1 || $status -eq 3 ) ]]; then
  result=$(((status - 1) / 2))
  echo "VM a's ROCED-VM-RESULT line did not reach the console; its exit status $status carries it"
fi
if [[ -z $result ]]; then
  echo "FAIL: VM a printed no ROCED-VM-RESULT line (qemu exit status $status); see above"
  exit 1
fi
if [[ $result != 0 || $status -ne 1 ]]; then
  echo "FAIL: the probing cases failed in VM a (result $result, qemu exit status $status)"
  exit 1
fi
# The series roced exported in VM a, continued at their measured rates for ten minutes (an alert
# needs its 5-minute window and its 2 minutes), as a promtool test of the shipped rules.
grep -a -o 'PROBE-PAIR-SERIES .*' "$WORK/a.log" | tr -d '\r' | cut -d' ' -f2- >"$WORK/series.txt"
python3 - "$WORK/series.txt" "$RULES/roced-alerts.yml" >"$WORK/vm-probe.test.yml" <<'PY'
import sys
samples = [tuple(float(x) for x in line.split()) for line in open(sys.argv[1]) if line.strip()]
if len(samples) < 3:
    sys.exit("fewer than three samples of roced's probe series from VM a")
(t0, s0, l0), (t1, s1, l1) = samples[0], samples[-1]
steps = max(1, round((t1 - t0) / 5))
sent_step, lost_step = round((s1 - s0) / steps), round((l1 - l0) / steps)
sent = [s for _, s, _ in samples] + [s1 + sent_step * i for i in range(1, 145)]
lost = [l for _, _, l in samples] + [l1 + lost_step * i for i in range(1, 145)]
ratio = lost_step / sent_step
labels = 'job="roced",instance="vm-a:9879",netdev="eth0",group="pair"'
print(f"""rule_files: [{sys.argv[2]}]
evaluation_interval: 5s
tests:
  - interval: 5s
    input_series:
      - series: 'roce_probe_sent_total{{{labels}}}'
        values: '{" ".join(str(int(v)) for v in sent)}'
      - series: 'roce_probe_lost_total{{{labels}}}'
        values: '{" ".join(str(int(v)) for v in lost)}'
    alert_rule_test:
      - eval_time: 1m
        alertname: RoceProbeLoss
        exp_alerts: []
      - eval_time: 11m
        alertname: RoceProbeLoss
        exp_alerts:
          - exp_labels: {{severity: critical, job: roced, instance: "vm-a:9879", netdev: eth0, group: pair}}
            exp_annotations:
              runbook_url: "http://vm-a:9879/runbook/RoceProbeLoss"
              summary: "eth0 on vm-a:9879: {ratio * 100:.4g}% of the probes to pair lost"
              description: "eth0 on vm-a:9879 has lost {ratio * 100:.4g}% of its probes to the peers of pair over 5 minutes, sent on the lossless class: RoCE between them loses packets. `rocectl status` shows roced's finding (probe_path_loss) with the likely place: this port, a peer, the switch or one path."
""")
print(f"VM a's series: {len(samples)} samples over {t1 - t0:.0f} s, {ratio:.1%} lost", file=sys.stderr)
PY
echo "--- the shipped alert rules on VM a's series (promtool test rules):"
if ! promtool test rules "$WORK/vm-probe.test.yml"; then
  echo "FAIL: RoceProbeLoss did not fire as expected on the series roced exported in VM a"
  cat "$WORK/vm-probe.test.yml"
  exit 1
fi
echo "PASS: probing between the two VMs; figures in $FIGURES"
