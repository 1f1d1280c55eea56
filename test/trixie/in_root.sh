#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# in_root.sh REPO OUT CCACHE_DIR: inside the trixie root (trixie_packages.sh runs it there, in a
# throwaway overlay). Builds the packages from a copy of REPO with trixie's compilers and
# libraries, warnings as errors; lintian; installs them; runs the installed roced against the
# installed roce-sim with its D-Bus API on the pod bus the package ships; purges. The .debs go
# to OUT. Exit 0 when every step held.
set -euo pipefail
REPO=$1 OUT=$2
export CCACHE_DIR=$3
export DEBIAN_FRONTEND=noninteractive
step() { printf '== %s (%s s)\n' "$1" "$SECONDS"; }
fail() { echo "FAIL: $*"; exit 1; }

step "build: dpkg-buildpackage in $(. /etc/os-release; echo "$PRETTY_NAME"), $(g++ --version | head -1)"
SRC=/tmp/src/roced
mkdir -p "$SRC"
tar -C "$REPO" --exclude=./.git --exclude='./build*' --exclude='./obj-*' -cf - . | tar -C "$SRC" -xf -
cd "$SRC"
export CCACHE_BASEDIR=$SRC CCACHE_NOHASHDIR=true CCACHE_MAXSIZE=5G
export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
# ROCED_WERROR=ON: a warning from trixie's gcc fails the build (debian/rules passes it on).
if ! ROCED_WERROR=ON dpkg-buildpackage -b -us -uc -j"$(nproc)" >/tmp/build.log 2>&1; then
  cp /tmp/build.log "$OUT"/build.log
  # The reason, not the cache dump dh_auto_configure prints after it.
  grep -E -A12 'CMake Error|error:|FAILED:' /tmp/build.log | head -n 60
  fail "dpkg-buildpackage (the whole log: $OUT/build.log)"
fi
# A compiler's warning is FILE:LINE:COLUMN: warning: (dpkg-shlibdeps has its own, not counted).
warnings=$(grep -cE '^[^ :]+:[0-9]+:[0-9]+: warning:' /tmp/build.log || true)
echo "ok: built, $warnings compiler warnings ($(grep -cE '^\[[0-9]+/[0-9]+\]' /tmp/build.log) build steps)"
((warnings == 0)) || { grep -E '^[^ :]+:[0-9]+:[0-9]+: warning:' /tmp/build.log | head; fail "warnings"; }
cp /tmp/src/*.deb /tmp/src/*.changes /tmp/src/*.buildinfo "$OUT"/
cp /tmp/build.log "$OUT"/build.log

step "lintian $(lintian --version | awk '{print $2}')"
"$REPO/test/packaging/lintian_check.sh" "$OUT" || fail "lintian"

step "install"
dpkg -i "$OUT"/roced_*_amd64.deb "$OUT"/roce-sim_*_amd64.deb >/tmp/install.log 2>&1 ||
  { cat /tmp/install.log; fail "dpkg -i"; }
echo "ok: $(dpkg-query -W -f='${Package} ${Version} ${db:Status-Status}\n' roced roce-sim | paste -sd';')"
for lib in libsdbus-c++ libyaml-cpp libspdlog libfmt; do
  echo "   roced links $(ldd /usr/sbin/roced | grep -o "${lib}[^ ]*" | head -1)"
done
/usr/sbin/roced --check-config /etc/roced/roced.yaml || fail "the shipped configuration"

step "run: the installed roced against the installed roce-sim"
SIM=/tmp/sim
mkdir -p /run/dbus
dbus-daemon --config-file=/usr/share/roced/dbus/pod-bus.conf --fork --nopidfile ||
  fail "the pod bus the package ships does not start"
roce-sim run --dir "$SIM" --quiet --node /usr/share/roce-sim/nodes/default.yaml &
SIM_PID=$!
ready_by=$((SECONDS + 60))
until [[ -e $SIM/roce-sim.pid ]] || ((SECONDS >= ready_by)); do sleep 0.1; done
[[ -e $SIM/roce-sim.pid ]] || fail "roce-sim did not start"
sed 's/^\(\s*\)netdevs: \[\]/\1netdevs: [lan2, lan3, lan4, lan5]/' /etc/roced/roced.yaml >/tmp/roced.yaml
grep -q 'netdevs: \[lan2' /tmp/roced.yaml || fail "could not name the ports in the shipped file"
roced --sim "$SIM" --config /tmp/roced.yaml --log-target console --metrics-listen 127.0.0.1:19879 \
  >/tmp/roced.log 2>&1 &
ROCED_PID=$!
ready_by=$((SECONDS + 120))
until grep -q 'ready:' /tmp/roced.log || ((SECONDS >= ready_by)); do sleep 0.2; done
grep -q 'ready:' /tmp/roced.log || { cat /tmp/roced.log; fail "roced did not become ready"; }
grep 'ready:' /tmp/roced.log
# Over D-Bus (sdbus-c++ 2 on both ends): rocectl check reads the daemon's status document.
rocectl --sim "$SIM" check || { cat /tmp/roced.log; fail "rocectl check"; }
rocectl --sim "$SIM" reload >/tmp/reload.txt 2>&1 || { cat /tmp/reload.txt; fail "rocectl reload over D-Bus"; }
echo "ok: rocectl reload over D-Bus: $(head -1 /tmp/reload.txt)"
curl -sf http://127.0.0.1:19879/metrics >/tmp/metrics.txt || fail "metrics"
in_sync=$(grep -c '^roce_config_port_state{.*state="in-sync".*} 1' /tmp/metrics.txt || true)
echo "ok: metrics served, $in_sync ports in-sync"
((in_sync == 4)) || { grep roce_config_port_state /tmp/metrics.txt; fail "4 ports in-sync"; }
ip_out=$(roce-sim exec "$SIM" -- dcb pfc show dev lan3 prio-pfc)
grep -q '3:on' <<<"$ip_out" || { echo "$ip_out"; fail "dcb reads PFC on priority 3"; }
echo "ok: dcb pfc show dev lan3: $ip_out"
kill -TERM "$ROCED_PID"
wait "$ROCED_PID" || fail "roced exited $? on SIGTERM"
echo "ok: roced stopped cleanly"
kill "$SIM_PID" && wait "$SIM_PID" || true

step "purge"
dpkg --purge roced roce-sim >/tmp/purge.log 2>&1 || { cat /tmp/purge.log; fail "dpkg --purge"; }
for gone in /usr/sbin/roced /usr/bin/rocectl /usr/bin/roce-sim /etc/roced; do
  [[ ! -e $gone ]] || fail "$gone is left after the purge"
done
echo "ok: purged, nothing left"
step "done"
