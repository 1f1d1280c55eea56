#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configures and builds roced into build/ (warnings are errors).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${ROCED_BUILD_DIR:-$ROOT/build}"
source "$ROOT/scripts/ccache.sh"
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DROCED_WERROR=ON \
  -DCMAKE_C_COMPILER_LAUNCHER="$CCACHE_LAUNCHER" \
  -DCMAKE_CXX_COMPILER_LAUNCHER="$CCACHE_LAUNCHER" >/dev/null
cmake --build "$BUILD" -j"$(nproc)"
