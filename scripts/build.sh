#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configures and builds roced into build/ (warnings are errors).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${ROCED_BUILD_DIR:-$ROOT/build}"
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DROCED_WERROR=ON >/dev/null
cmake --build "$BUILD" -j"$(nproc)"
