#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configures and builds roced into build/ (warnings are errors): everything, or the targets named.
#
# scripts/build.sh exempt_test_programs: only the programs the sanitizer-exempt tests run, which
# is all scripts/test.sh runs in this build (the sanitizer builds run the rest).
#
# --demo: only what scripts/demo.sh runs (roced, rocectl, roce-sim, roce-sim's plugin and shim),
# into build-demo/, without debug info and without the tests and benchmarks: a fresh machine's
# first demo compiles about a tenth of the tree. Same -O2 code as build/ (RelWithDebInfo less -g).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEMO=0
TARGETS=()
for arg in "$@"; do
  case "$arg" in
    --demo) DEMO=1 ;;
    -h | --help) echo "usage: scripts/build.sh [--demo | TARGET...]"; exit 0 ;;
    -*) echo "build: unknown option '$arg'" >&2; exit 1 ;;
    *) TARGETS+=("$arg") ;;
  esac
done
if ((DEMO && ${#TARGETS[@]})); then
  echo "build: --demo builds its own targets; name no others" >&2
  exit 1
fi
source "$ROOT/scripts/ccache.sh"
if ((DEMO)); then
  BUILD="${ROCED_BUILD_DIR:-$ROOT/build-demo}"
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" \
    -DROCED_WERROR=ON -DROCED_BUILD_TESTS=OFF -DROCED_BUILD_BENCH=OFF \
    -DCMAKE_C_COMPILER_LAUNCHER="$CCACHE_LAUNCHER" \
    -DCMAKE_CXX_COMPILER_LAUNCHER="$CCACHE_LAUNCHER" >/dev/null
  cmake --build "$BUILD" -j"$(nproc)" --target roced rocectl roce-sim roce_sim_system roce_sim_shim
  exit 0
fi
BUILD="${ROCED_BUILD_DIR:-$ROOT/build}"
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DROCED_WERROR=ON \
  -DCMAKE_C_COMPILER_LAUNCHER="$CCACHE_LAUNCHER" \
  -DCMAKE_CXX_COMPILER_LAUNCHER="$CCACHE_LAUNCHER" >/dev/null
cmake --build "$BUILD" -j"$(nproc)" ${TARGETS[@]+--target "${TARGETS[@]}"}
