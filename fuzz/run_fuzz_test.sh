#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One fuzz.<target> CTest test: replays fuzz/regressions/<target>/* (inputs that once crashed),
# then fuzzes for SECONDS on a copy of fuzz/corpus/<target> in a temporary directory (the source
# tree is never written). Fails on a crash, a leak, a hang (one input over 10 s), an input over
# the memory limit, or when nothing ran; prints the executions run.
#   run_fuzz_test.sh FUZZ_BINARY FUZZ_SOURCE_DIR TARGET SECONDS
set -uo pipefail
binary=$1 fuzz_dir=$2 target=$3 seconds=$4

work=$(mktemp -d "${TMPDIR:-/tmp}/fuzz.$target.XXXXXX")
keep_work=0
trap '((keep_work)) || rm -rf "$work"' EXIT
fail() {
  keep_work=1
  echo "fuzz.$target: FAILED: $1 (inputs and log kept in $work)"
  exit 1
}

options=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 -detect_leaks=1
         -print_final_stats=1 -artifact_prefix="$work/")
[[ -f $fuzz_dir/dict/$target.dict ]] && options+=(-dict="$fuzz_dir/dict/$target.dict")

shopt -s nullglob
regressions=("$fuzz_dir/regressions/$target"/*)
if ((${#regressions[@]})); then
  if ! "$binary" "${options[@]}" "${regressions[@]}" >"$work/replay.log" 2>&1; then
    tail -n 60 "$work/replay.log"
    fail "a regression input crashes again"
  fi
  echo "fuzz.$target: ${#regressions[@]} regression inputs replayed, none failed"
fi

mkdir "$work/corpus"
cp -r "$fuzz_dir/corpus/$target/." "$work/corpus/"
seeds=$(find "$work/corpus" -type f | wc -l)
((seeds > 0)) || fail "no seed corpus in $fuzz_dir/corpus/$target"
"$binary" "${options[@]}" -max_total_time="$seconds" "$work/corpus" >"$work/fuzz.log" 2>&1
status=$?
executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log" | tail -n 1)
peak_rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$work/fuzz.log" | tail -n 1)
grown=$(find "$work/corpus" -type f | wc -l)
echo "fuzz.$target: ${executions:-0} executions in $seconds s, corpus $seeds -> $grown inputs," \
     "peak RSS ${peak_rss:-?} MB"
if ((status != 0)); then
  tail -n 60 "$work/fuzz.log"
  fail "libFuzzer exited with $status (crash, leak, timeout or out-of-memory; see above)"
fi
((${executions:-0} > 0)) || fail "no input was executed"
