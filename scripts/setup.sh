#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what roced needs on Debian bookworm (as root): with --demo only what the demo needs
# (the toolchain, the libraries roced, rocectl and roce-sim link, and the tools the demo runs),
# otherwise everything the test suite needs as well.
# Idempotent: when every package is already there it does not touch apt at all.
set -euo pipefail

DEMO=0
LIST=0
for arg in "$@"; do
  case "$arg" in
    --demo) DEMO=1 ;;
    --list) LIST=1 ;;  # print the packages, one a line, and install nothing
    -h | --help) echo "usage: scripts/setup.sh [--demo] [--list]"; exit 0 ;;
    *) echo "setup: unknown option '$arg'" >&2; exit 1 ;;
  esac
done

# The demo (scripts/demo.sh, built by scripts/build.sh --demo): roced, rocectl and roce-sim.
DEMO_PACKAGES=(
  # toolchain, and ccache: a second build (or one after the test suite's) compiles nothing
  g++ cmake ninja-build pkg-config ccache
  # libraries roced links (Debian packages, found by CMake config or pkg-config)
  libnl-3-dev libnl-route-3-dev libnl-genl-3-dev
  rdma-core libibverbs-dev librdmacm-dev
  libsdbus-c++-dev libsystemd-dev
  libyaml-cpp-dev libcivetweb-dev zlib1g-dev libspdlog-dev nlohmann-json3-dev libssl-dev nettle-dev
  # civetweb: libcivetweb-dev's CMake targets check that its /usr/bin/civetweb exists
  civetweb
  # what the demo runs: dcb/ip (iproute2) and ethtool against the node, python3 for its
  # timings, a private dbus-daemon, busctl (systemd) for D-Bus, curl for the metrics
  iproute2 ethtool python3 dbus-daemon systemd curl
)

PACKAGES=(
  "${DEMO_PACKAGES[@]}"
  clang-format
  # the fuzzing and sanitizer builds: clang with libFuzzer and the sanitizer runtimes, llvm's
  # llvm-symbolizer for their stack traces
  clang clang-14 libclang-rt-14-dev llvm llvm-14
  libgtest-dev libgmock-dev googletest
  # an independent LLDP/DCBX decoder for the LLDP parser's cross-check
  tcpdump
  # the system bus (dbus.service, dbus.socket) for roced under a real systemd (security.unit_sandbox)
  dbus
  # telemetry: a real Prometheus (and promtool) for the end-to-end test and the rules' unit tests,
  # node_exporter to benchmark against, openssl to make the TLS test's certificate (libssl-dev,
  # for civetweb's TLS, and curl are the demo's too)
  prometheus prometheus-node-exporter openssl
  # probe_bench's baseline: one ping a port at the probes' rate
  iputils-ping
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
  # the container image (packaging/container, test/container): umoci makes it from the packages;
  # podman is tried first to run it, bubblewrap runs its root where podman cannot start one
  umoci podman bubblewrap
  # the Kubernetes manifests' checks (test/kubernetes): yamllint, the API's models
  yamllint python3-kubernetes
)

((DEMO)) && PACKAGES=("${DEMO_PACKAGES[@]}")
if ((LIST)); then
  printf '%s\n' "${PACKAGES[@]}"
  exit 0
fi
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
