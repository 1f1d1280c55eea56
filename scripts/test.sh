#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The whole test suite: set-up, build, then every CTest test once (unit, simulated node,
# third-party cross-checks, real-kernel veth tests, packages, VMs). Each test that runs our code
# runs under ASan+UBSan (scripts/hardening.sh), and the concurrent parts' again under TSan; the
# main build runs the rest, the tests labelled sanitizer-exempt (the packages, the VMs, the demo,
# Prometheus, memory growth). Run as root on Debian bookworm. Ends with the time each phase took.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${ROCED_BUILD_DIR:-$ROOT/build}"
# hardening.sh appends its own phases (each sanitizer build and its tests) to the same table.
export ROCED_PHASE_LOG
ROCED_PHASE_LOG="$(mktemp /tmp/roced-phases.XXXXXX)"
source "$ROOT/scripts/phases.sh"
# The table is printed however the run ends: a failing phase is timed too.
trap 'print_phases; rm -f "$ROCED_PHASE_LOG"' EXIT

phase setup "$ROOT/scripts/setup.sh"
# Only what the main build's tests run: the sanitizer builds compile and run every other test.
phase build "$ROOT/scripts/build.sh" exempt_test_programs
# Tests at a time: most of the long ones wait on a simulated link or a child process rather than
# compute, so one more than the cores keeps both busy (the tests must hold under load anyway).
export ROCED_TEST_JOBS="${ROCED_TEST_JOBS:-3}"
main_ctest() {  # the output is kept for the slowest-tests list below
  (cd "$BUILD" && ctest --output-on-failure --timeout 600 -j"$ROCED_TEST_JOBS" -L sanitizer-exempt) |
    tee "$BUILD/main-ctest.log"
}
phase "main CTest" main_ctest
echo
echo "SLOWEST TESTS (main build, wall time)"
slowest_tests "$BUILD/main-ctest.log" 15 | awk '{ printf "  %8.2f s  %s\n", $1, $2 }'
# Then under the sanitizers, in their own builds (ASan+UBSan on the suite, TSan on the concurrent
# parts); a report anywhere fails the test command.
"$ROOT/scripts/hardening.sh"
