#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs everything roced needs to build, test and run its demo on Debian bookworm (as root).
# Idempotent: when every package is already there it does not touch apt at all.
set -euo pipefail

PACKAGES=(
  # toolchain
  g++ cmake ninja-build pkg-config clang-format
  # the fuzzing and sanitizer builds: clang with libFuzzer and the sanitizer runtimes, llvm's
  # llvm-symbolizer for their stack traces
  clang clang-14 libclang-rt-14-dev llvm llvm-14
  # ccache: the sanitizer builds (scripts/hardening.sh) rebuild quickly after the first run
  ccache
  # libraries roced links (Debian packages, found by CMake config or pkg-config)
  libnl-3-dev libnl-route-3-dev libnl-genl-3-dev
  rdma-core libibverbs-dev
  libsdbus-c++-dev libsystemd-dev
  libyaml-cpp-dev libcivetweb-dev zlib1g-dev libspdlog-dev nlohmann-json3-dev
  # civetweb: libcivetweb-dev's CMake targets check that its /usr/bin/civetweb exists
  civetweb
  libgtest-dev libgmock-dev googletest
  # the third-party tools the tests cross-check against, and the real-kernel test's needs
  iproute2 ethtool python3
  # an independent LLDP/DCBX decoder for the LLDP parser's cross-check
  tcpdump
  # systemd-analyze (the unit's checks) and busctl, a private dbus-daemon for the D-Bus tests
  systemd dbus-daemon
  # the system bus (dbus.service, dbus.socket) for roced under a real systemd (security.unit_sandbox)
  dbus
  # telemetry: a real Prometheus (and promtool) for the end-to-end test and the rules' unit tests,
  # node_exporter to benchmark against, libssl-dev for civetweb's TLS (it dlopens libssl.so),
  # openssl to make the TLS test's certificate
  prometheus prometheus-node-exporter libssl-dev openssl curl
  # the Debian package (dpkg-buildpackage, debhelper, lintian, man-db for the man pages) and the
  # Ansible role (ansible-core, ansible-lint; python3-apt for its apt module)
  dpkg-dev debhelper lintian man-db ansible-core ansible-lint python3-apt
  # the JSON documents' schemas (docs/schema) checked in the tests
  python3-jsonschema
  # security tests: strace (no process spawned), binutils' nm (no spawning import)
  strace binutils
  # the VM test (test/vm): qemu, and what goes into its initramfs besides roced: busybox, the verbs
  # utilities (ibv_rc_pingpong), kmod's modinfo/depmod, cpio, and xz for trixie's compressed
  # modules; the kernels themselves are downloaded by test/vm/fetch_kernel.sh. mmdebstrap makes
  # the trixie root the test module is built in for trixie's kernel (test/kmod/build_root.sh)
  qemu-system-x86 busybox-static ibverbs-utils kmod cpio xz-utils mmdebstrap
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]})); then
  if [[ $EUID -ne 0 ]]; then
    echo "setup: missing packages (${missing[*]}); run as root to install them" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
