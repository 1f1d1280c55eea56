#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The test suites under the sanitizers, each in its own clang build:
#   asan  build-asan/, AddressSanitizer + UndefinedBehaviorSanitizer + LeakSanitizer: every CTest
#         test that runs our code, except those labelled sanitizer-exempt (each says why in its
#         CMakeLists.txt), and the libFuzzer targets' bounded runs (fuzz.*).
#   tsan  build-tsan/, ThreadSanitizer: the daemon's concurrent parts (reconciler port workers,
#         storm loop, health module, D-Bus loop and work queue, telemetry exporter and sampler,
#         the service, rocectl qualify's signal thread and its runs against the in-process node),
#         through their test binaries and the tests that start roced.
# Usage: scripts/hardening.sh [asan] [tsan]   (both when none is named)
# A report in any process, a test's own or a child it starts (roced, roce-sim, rocectl), fails the
# run: every report is written to <build>/sanitizer-reports/ and the run fails if one is there.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/ccache.sh"
source "$ROOT/scripts/phases.sh"
SUPPRESSIONS="$ROOT/test/sanitizers"
JOBS="${ROCED_HARDENING_JOBS:-2}"
# Tests at a time: most of the long ones wait on a simulated link or a child process rather than
# compute, so one more than the cores keeps both busy (the tests must hold under load anyway).
TEST_JOBS="${ROCED_TEST_JOBS:-3}"
# Distinct from every exit code the tests expect (0, 1, 2, 3, 127...): a child's report is never
# taken for an ordinary error exit.
REPORT_EXIT=86

parts=("$@")
((${#parts[@]})) || parts=(asan tsan)
for part in "${parts[@]}"; do
  [[ $part == asan || $part == tsan ]] || { echo "usage: $0 [asan] [tsan]" >&2; exit 2; }
done

"$ROOT/scripts/setup.sh"

# The concurrent parts' tests (CTest names start with the area) and the targets they need.
TSAN_TESTS='^(reconcile|sim_inprocess|watchdog|lldp|health|module|qualify|dbus|telemetry|service|faults)\.'
# Left out under TSan, each for a reason of TSan's own:
#   *NoThreadBehind       counts the process's threads, and TSan's runtime adds its own background
#                         thread at the first pthread_create.
#   qualify on the 8- and 16-port nodes: the same threads as on the others, each GSTATS a step of
#                         the simulated clock; minutes under TSan for nothing new.
TSAN_EXCLUDE='NoThreadBehind$|SimNodes/QualifyEveryNode.*(eight_rail|sixteen)'
TSAN_TARGETS=(roced rocectl roce-sim roce_sim_shim roce_sim_system
  reconcile_unit_test reconcile_node_test sim_inprocess_test watchdog_test storms_test storms_actions_test
  lldp_unit_test peers_test health_module_test module_unit_test module_reload_test metrics_unit_test
  qualify_test qualify_cli_test
  dbus_documents_test dbus_api_test dbus_signals_test dbus_roced_test dbus_roced_storms_test
  telemetry_unit_test telemetry_sim_test service_unit_test service_unit_file_test service_sim_test
  faults_test)

configure() {  # build-dir sanitizers [cmake options]
  local dir=$1 sanitize=$2
  shift 2
  # Line tables, not full debug info: a report's frames still carry function, file and line
  # (inlined ones too), and the sanitizer builds compile in a good deal less time. -O1, as both
  # sanitizers' documentation suggests: reports as precise, a fifth less to compile than -O2.
  # Warnings are errors here too: the ASan build is the suite's only compile of most test code.
  cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_C_COMPILER_LAUNCHER="$CCACHE_LAUNCHER" -DCMAKE_CXX_COMPILER_LAUNCHER="$CCACHE_LAUNCHER" \
    -DROCED_SANITIZE="$sanitize" -DROCED_BUILD_BENCH=OFF -DROCED_WERROR=ON "$@" >/dev/null
}

# Prints the reports left in $1 and fails when there is one.
check_reports() {
  local reports=("$1"/*)
  [[ -e ${reports[0]} ]] || return 0
  echo "hardening: ${#reports[@]} sanitizer report(s) in $1:" >&2
  for report in "${reports[@]}"; do
    echo "----- $report" >&2
    cat "$report" >&2
  done
  return 1
}

summary=()
failed=0
run_part() {  # part
  local part=$1 build sanitize started built tests_log
  build="$ROOT/build-$part"
  [[ $part == asan ]] && sanitize=address,undefined || sanitize=thread
  started=$SECONDS
  # The ASan build also holds the libFuzzer targets (fuzz/): their fuzz.* tests run there, each
  # for a bounded time (ROCED_FUZZ_SECONDS), with the rest of the suite.
  if [[ $part == asan ]]; then
    configure "$build" "$sanitize" -DROCED_BUILD_FUZZ=ON
  else
    configure "$build" "$sanitize"
  fi
  if [[ $part == asan ]]; then
    cmake --build "$build" -j"$JOBS"
  else
    cmake --build "$build" -j"$JOBS" --target "${TSAN_TARGETS[@]}"
  fi
  built=$SECONDS

  local reports="$build/sanitizer-reports"
  rm -rf "$reports"
  mkdir -p "$reports"
  chmod 1777 "$reports"  # the D-Bus tests run rocectl as a user that is not root
  export ASAN_SYMBOLIZER_PATH="$(command -v llvm-symbolizer-14 || command -v llvm-symbolizer)"
  unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS TSAN_OPTIONS  # each run gets its own below

  local select=() run=() status=0
  if [[ $part == asan ]]; then
    export ASAN_OPTIONS="detect_leaks=1:exitcode=$REPORT_EXIT:log_path=$reports/asan:check_initialization_order=1:strict_init_order=1"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=$REPORT_EXIT:log_path=$reports/ubsan"
    export LSAN_OPTIONS="suppressions=$SUPPRESSIONS/lsan.supp:print_suppressions=0"
    select=(-LE sanitizer-exempt)
  else
    # halt_on_error=0: every race of a run is reported (the exit code still says there was one).
    export TSAN_OPTIONS="halt_on_error=0:exitcode=$REPORT_EXIT:log_path=$reports/tsan:second_deadlock_stack=1:suppressions=$SUPPRESSIONS/tsan.supp:print_suppressions=0"
    select=(-R "$TSAN_TESTS" -E "$TSAN_EXCLUDE" -LE sanitizer-exempt)
    # TSan maps its shadow at fixed addresses that a randomized layout can take.
    run=(setarch "$(uname -m)" -R)
  fi
  tests_log="$build/hardening-ctest.log"
  (cd "$build" &&
    "${run[@]}" ctest --output-on-failure --timeout 900 -j"$TEST_JOBS" "${select[@]}") \
    2>&1 | tee "$tests_log" || status=1
  grep -q '^100% tests passed' "$tests_log" || status=1
  check_reports "$reports" || status=1

  record_phase "$part build" $((built - started))
  record_phase "$part tests" $((SECONDS - built))
  local counts
  counts=$(grep -Eo '[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$tests_log" | tail -1)
  summary+=("$(printf '%-5s %-8s %s; build %d s, tests %d s; reports: %d' "$part" \
    "$([[ $status == 0 ]] && echo passed || echo FAILED)" "${counts:-no CTest summary}" \
    $((built - started)) $((SECONDS - built)) "$(find "$reports" -type f | wc -l)")")
  ((status == 0)) || failed=1
}

for part in "${parts[@]}"; do
  run_part "$part"
done
echo
echo "HARDENING SUMMARY"
printf '  %s\n' "${summary[@]}"
exit "$failed"
