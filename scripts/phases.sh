# SPDX-License-Identifier: Apache-2.0
# Sourced by test.sh and hardening.sh: times each phase of a run into $ROCED_PHASE_LOG (when set)
# so the test command can end with one table of where its time went.

phase() {  # name command...: runs the command, records its wall time, keeps its exit status
  local name=$1 started=$SECONDS status=0
  shift
  "$@" || status=$?
  record_phase "$name" $((SECONDS - started))
  return "$status"
}

record_phase() {  # name seconds
  [[ -n ${ROCED_PHASE_LOG:-} ]] && printf '%s\t%s\n' "$1" "$2" >>"$ROCED_PHASE_LOG"
  return 0
}

print_phases() {
  [[ -n ${ROCED_PHASE_LOG:-} && -s $ROCED_PHASE_LOG ]] || return 0
  echo
  echo "PHASES (wall time)"
  awk -F'\t' '{ printf "  %-22s %6d s\n", $1, $2; total += $2 }
              END { printf "  %-22s %6d s (%d min %d s)\n", "total", total, total / 60, total % 60 }' \
    "$ROCED_PHASE_LOG"
}

slowest_tests() {  # ctest-output-file count: the slowest tests of a CTest run, for the table
  # awk, not head: under pipefail, head closing the pipe early would fail the run by SIGPIPE.
  { grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: ' "$1" || true; } |
    sed -E 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) .* ([0-9.]+) sec$/\2 \1/' |
    sort -rn | awk -v count="$2" 'NR <= count'
}
