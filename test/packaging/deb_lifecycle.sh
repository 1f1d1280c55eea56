#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# deb_lifecycle.sh DEBDIR: install, upgrade (conffile untouched, then edited: kept or replaced as
# the administrator says), remove and purge the packages for real. Run inside a scratch root
# (in-scratch-root.sh): it changes the system it runs on. Exit 0 when every check held.
set -euo pipefail
DEBS=$(realpath "$1")
WORK=$(mktemp -d)
export DEBIAN_FRONTEND=noninteractive
failures=0
check() {  # check "what" COMMAND...: passes when COMMAND exits 0
  local what=$1; shift
  if "$@" >/dev/null 2>&1; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi
}
check_eq() {  # check_eq "what" EXPECTED ACTUAL
  if [[ $2 == "$3" ]]; then echo "ok: $1 ($3)"; else echo "FAIL: $1: expected '$2', got '$3'"; failures=$((failures + 1)); fi
}
status_of() { dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || echo "not-installed"; }
version_of() { dpkg-query -W -f='${Version}' "$1"; }
CONF=/etc/roced/roced.yaml
WANTS=/etc/systemd/system/multi-user.target.wants/roced.service

# A later version of the package whose shipped roced.yaml differs: what an upgrade brings.
repack() {  # repack VERSION LINE -> $WORK/roced_VERSION.deb, its roced.yaml with LINE appended
  local dir=$WORK/pkg-$1
  rm -rf "$dir"
  dpkg-deb -R "$DEBS"/roced_*_amd64.deb "$dir"
  sed -i "s/^Version: .*/Version: $1/" "$dir/DEBIAN/control"
  # Only the conffile changes, and conffiles are not in DEBIAN/md5sums: it stays valid.
  echo "$2" >>"$dir$CONF"
  dpkg-deb -b --root-owner-group "$dir" "$WORK/roced_$1.deb" >/dev/null
  cp "$dir$CONF" "$WORK/roced.yaml.$1"
}

echo "== install"
check "no roced installed before" test "$(status_of roced)" = not-installed
dpkg -i "$DEBS"/roced_*_amd64.deb "$DEBS"/roce-sim_*_amd64.deb >"$WORK/install.log" 2>&1 ||
  { cat "$WORK/install.log"; exit 1; }
check_eq "roced installed" installed "$(status_of roced)"
check_eq "roce-sim installed" installed "$(status_of roce-sim)"
check_eq "the configuration is a conffile" "$CONF" \
  "$(dpkg-query -W -f='${Conffiles}' roced | awk 'NF {print $1}')"
check "roced --version" sh -c '/usr/sbin/roced --version | grep -q "0.1.0"'
check "roced --check-config accepts the shipped file" /usr/sbin/roced --check-config "$CONF"
check "rocectl validate accepts it" /usr/bin/rocectl validate "$CONF"
check "bash completes rocectl's commands from the installed completion" bash -c \
  'source /usr/share/bash-completion/completions/rocectl && COMP_WORDS=(rocectl pl) && COMP_CWORD=1 && _rocectl && test "${COMPREPLY[*]}" = plan'
check "the unit is enabled (multi-user.target.wants)" test "$(readlink "$WANTS")" = /lib/systemd/system/roced.service
check "the unit verifies" systemd-analyze verify /lib/systemd/system/roced.service
check "the D-Bus policy is where dbus-daemon reads it" test -f /usr/share/dbus-1/system.d/io.roced.Daemon1.conf
check "the D-Bus policy is well-formed XML" python3 -c \
  'import xml.dom.minidom,sys; xml.dom.minidom.parse("/usr/share/dbus-1/system.d/io.roced.Daemon1.conf")'
check "the dashboard is JSON" python3 -c 'import json; json.load(open("/usr/share/roced/grafana/roced.json"))'
check "the alert rules are there" test -s /usr/share/roced/prometheus/roced-alerts.yml
if command -v promtool >/dev/null; then
  check "promtool accepts the installed rules" promtool check rules /usr/share/roced/prometheus/roced-alerts.yml
fi
for page in roced.8 rocectl.8 roced.yaml.5 roce-sim.1; do
  check "man page $page" test -s "/usr/share/man/man${page##*.}/$page.gz"
done
check "man finds roced.yaml(5)" sh -c 'man -w 5 roced.yaml | grep -q man5/roced.yaml.5'
# What the unit and the man pages point readers at must be installed under that very name:
# debhelper compresses /usr/share/doc's larger files (config.md becomes config.md.gz).
docs=$(sed -n 's/^Documentation=//p' /lib/systemd/system/roced.service)
check "the unit names its documentation" test -n "$docs"
for target in $docs; do
  case "$target" in
    man:*) page=${target#man:}; section=${page#*(}
           check "unit Documentation=$target: man finds it" \
             man -w "${section%)}" "${page%(*}" ;;
    file://*) check "unit Documentation=$target exists" test -f "${target#file://}" ;;
    *) check "unit Documentation=$target is man: or file:" false ;;
  esac
done
for page in roced.8 rocectl.8 roced.yaml.5 roce-sim.1; do
  for path in $(zcat "/usr/share/man/man${page##*.}/$page.gz" | sed 's/\\-/-/g' |
                grep -oE '/usr/share/(doc|roced)/[A-Za-z0-9_./-]*[A-Za-z0-9_]' | sort -u); do
    check "$page names $path: it is installed" test -e "$path"
  done
done
# The packaged simulator finds its packaged shim: an unmodified ip reads a simulated port.
SIM=$WORK/sim
roce-sim run --dir "$SIM" --quiet --node /usr/share/roce-sim/nodes/default.yaml &
# Ready once its pid file exists; a minute only stops a hang (a busy machine starts it slowly).
ready_by=$((SECONDS + 60))
until [[ -e $SIM/roce-sim.pid ]] || ((SECONDS >= ready_by)); do sleep 0.1; done
check "roce-sim exec ip link show lan2 (the shim in /usr/lib/roced)" \
  sh -c "roce-sim exec '$SIM' -- ip link show lan2 | grep -q 'lan2:.*mtu 1500'"
check "the installed file names no port: rocectl plans an idle node (exit 0) and says so" \
  sh -c "rocectl --sim '$SIM' plan --config '$CONF' 2>&1 | grep -q 'idle: ports.netdevs names no port' && rocectl --sim '$SIM' plan --config '$CONF' >/dev/null 2>&1"
check "... ports.netdevs is empty" \
  sh -c "rocectl --sim '$SIM' plan --config '$CONF' 2>&1 | grep -q 'ports.netdevs: empty: roced manages no port'"
check "the recipe written out plans every port (exit 2: changes pending)" \
  sh -c "rocectl --sim '$SIM' plan --config /usr/share/roced/roced.yaml; test \$? -eq 2"
check "the installed plan schema accepts rocectl plan --json" sh -c \
  "rocectl --sim '$SIM' plan --json --config /usr/share/roced/roced.yaml >'$WORK/plan.json'; \
   python3 -c 'import json,jsonschema,sys; jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' \
     /usr/share/roced/schema/roced.plan.v1.json '$WORK/plan.json'"
kill %1 && wait %1 || true

# systemd is not PID 1 here; stand-ins for systemctl and deb-systemd-invoke record what the
# maintainer scripts ask of it, as they would with /run/systemd/system present.
mkdir -p /run/systemd/system
CALLS=$WORK/systemd-calls
for tool in systemctl deb-systemd-invoke; do
  printf '#!/bin/sh\necho "%s $*" >>%s\n' "$tool" "$CALLS" >/usr/local/sbin/$tool
  chmod +x /usr/local/sbin/$tool
done
calls() { if [[ -f $CALLS ]]; then cat "$CALLS"; fi; : >"$CALLS"; }

echo "== upgrade, conffile untouched: the new one is installed silently"
repack 0.1.1 "# 0.1.1: the shipped example changed"
dpkg -i "$WORK/roced_0.1.1.deb" >"$WORK/upgrade1.log" 2>&1 </dev/null || { cat "$WORK/upgrade1.log"; exit 1; }
check_eq "upgraded" 0.1.1 "$(version_of roced)"
check "the file is the new version's" cmp "$CONF" "$WORK/roced.yaml.0.1.1"
check "no .dpkg-dist or .dpkg-old left" sh -c '! ls /etc/roced/*.dpkg-* 2>/dev/null'
upgrade_calls=$(calls)
check_eq "the upgrade reloads systemd, then restarts roced only if it runs" \
  "systemctl --system daemon-reload
deb-systemd-invoke try-restart roced.service" "$(grep -E 'daemon-reload|deb-systemd-invoke' <<<"$upgrade_calls")"

echo "== upgrade, conffile edited, --force-confold: the administrator's file stays"
sed -i 's/^  netdevs: \[\]/  netdevs: [lan2]/' "$CONF"
check "edited" grep -q '^  netdevs: \[lan2\]' "$CONF"
repack 0.1.2 "# 0.1.2: changed again"
dpkg --force-confdef --force-confold -i "$WORK/roced_0.1.2.deb" >"$WORK/upgrade2.log" 2>&1 </dev/null ||
  { cat "$WORK/upgrade2.log"; exit 1; }
check_eq "upgraded" 0.1.2 "$(version_of roced)"
check "the edited file is kept" grep -q '^  netdevs: \[lan2\]' "$CONF"
check "the new version's file is beside it as .dpkg-dist" cmp /etc/roced/roced.yaml.dpkg-dist "$WORK/roced.yaml.0.1.2"

echo "== upgrade, conffile edited, no answer given: dpkg asks, and without a terminal it stops"
repack 0.1.3 "# 0.1.3: and again"
rm -f /etc/roced/roced.yaml.dpkg-dist
rc=0
dpkg -i "$WORK/roced_0.1.3.deb" >"$WORK/upgrade-prompt.log" 2>&1 </dev/null || rc=$?
check "dpkg refuses to guess (exit non-zero)" test "$rc" -ne 0
check "... at the conffile question" grep -q "Configuration file '$CONF'" "$WORK/upgrade-prompt.log"
check "the edited file is untouched" grep -q '^  netdevs: \[lan2\]' "$CONF"

echo "== upgrade, conffile edited, --force-confnew: replaced, the edit saved as .dpkg-old"
dpkg --force-confnew -i "$WORK/roced_0.1.3.deb" >"$WORK/upgrade3.log" 2>&1 </dev/null ||
  { cat "$WORK/upgrade3.log"; exit 1; }
check_eq "upgraded" 0.1.3 "$(version_of roced)"
check "the file is the new version's" cmp "$CONF" "$WORK/roced.yaml.0.1.3"
check "the edit is in .dpkg-old" grep -q '^  netdevs: \[lan2\]' /etc/roced/roced.yaml.dpkg-old

echo "== remove: roced is stopped, the programs go, the configuration stays"
calls >/dev/null
dpkg -r roced >/dev/null 2>&1
check "the removal stops roced before its binary goes" \
  sh -c "grep -qx 'deb-systemd-invoke stop roced.service' '$CALLS'"
check_eq "status after remove" config-files "$(status_of roced)"
check "roced is gone" test ! -e /usr/sbin/roced
check "the unit is gone" test ! -e /lib/systemd/system/roced.service
check "the configuration stays" test -f "$CONF"

echo "== purge: nothing of roced is left"
dpkg -P roced roce-sim >/dev/null 2>&1
check_eq "status after purge" not-installed "$(status_of roced)"
check "/etc/roced is gone (with .dpkg-old)" test ! -e /etc/roced
check "the enable link is gone" test ! -e "$WANTS"
check "no roced state left for systemd" sh -c '! ls /var/lib/systemd/deb-systemd-helper-enabled/ 2>/dev/null | grep -q roced'
check "roce-sim is gone" test ! -e /usr/bin/roce-sim

echo "== a fresh install where systemd runs: enabled by its preset, not started"
calls >/dev/null
dpkg -i "$DEBS"/roced_*_amd64.deb >"$WORK/install2.log" 2>&1 || { cat "$WORK/install2.log"; exit 1; }
install_calls=$(calls)
check "systemd is asked to enable it" grep -q "preset roced.service" <<<"$install_calls"
check "and never to start it (the installed file names no port: it would run idle)" \
  bash -c '! grep -qE "(^| )(start|restart|try-restart|reload-or-restart) " <<<"$1"' _ "$install_calls"
dpkg -P roced >/dev/null 2>&1

rm -rf "$WORK"
echo "== $failures failed"
exit $((failures > 0))
