#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The whole test suite: set-up, build, then every CTest test (unit, simulated node, third-party
# cross-checks, real-kernel veth tests). Run as root on Debian bookworm.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/build.sh"
cd "${ROCED_BUILD_DIR:-$ROOT/build}"
ctest --output-on-failure --timeout 600 -j2
# Then under the sanitizers, in their own builds (ASan+UBSan on the suite, TSan on the concurrent
# parts); a report anywhere fails the test command.
"$ROOT/scripts/hardening.sh"
