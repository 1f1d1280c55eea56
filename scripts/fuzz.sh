#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The libFuzzer targets (fuzz/), run on demand for longer than the suite's bounded runs.
#   scripts/fuzz.sh [TARGET|all] [SECONDS]   one target, or every target one after the other
#                                            (default: all, 300 s each)
#   scripts/fuzz.sh --seeds                  rewrites fuzz/corpus/ from the tree's own files and
#                                            roce-sim's answers (fuzz_seed_gen); with
#                                            ROCED_FIXTURES=DIR also from the real machines'
#                                            sysfs and ethtool captures there (DIR/SOURCES.md)
#   scripts/fuzz.sh --list
# Builds into build-fuzz/ (clang, ASan+UBSan, libFuzzer; ROCED_FUZZ_BUILD_DIR to change it). Each
# target keeps a working corpus in build-fuzz/fuzz-work/<target>/corpus that grows from run to run
# (seeded from fuzz/corpus/<target>); crash, leak, timeout and OOM inputs go to
# build-fuzz/fuzz-work/<target>/artifacts/. To keep one as a regression, copy it to
# fuzz/regressions/<target>/ once fixed. Prints the executions per target; exits 1 on any finding.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${ROCED_FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
TARGETS=(config dcb link nldev ethtool_stats ethtool_names sysfs scenario node_file lldp transceiver)

configure_and_build() {
  if [[ ! -f $BUILD/build.ninja ]]; then
    local launcher=()
    command -v ccache >/dev/null &&
      launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
    CC=clang CXX=clang++ cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DROCED_BUILD_FUZZ=ON -DROCED_SANITIZE=address,undefined -DROCED_BUILD_BENCH=OFF \
      -DROCED_BUILD_TESTS=OFF "${launcher[@]}" >/dev/null
  fi
  cmake --build "$BUILD" -j"${ROCED_FUZZ_JOBS:-2}" --target "$@"
}

# The seeds: text inputs copied from the tree (configs, node files, scenarios, the docs' YAML
# examples, real `ethtool -S` captures), binary ones recorded by fuzz_seed_gen.
write_seeds() {
  local corpus=$ROOT/fuzz/corpus fixtures=${ROCED_FIXTURES:-}
  configure_and_build fuzz_seed_gen
  rm -rf "$corpus"/{config,scenario,node_file,dcb,link,ethtool_stats,ethtool_names,sysfs}
  mkdir -p "$corpus"/{config,scenario,node_file,ethtool_names}
  cp "$ROOT/packaging/roced.yaml" "$corpus/config/packaging-roced.yaml"
  for f in "$ROOT"/test/config/bad/*.yaml; do cp "$f" "$corpus/config/bad-$(basename "$f")"; done
  extract_yaml "$ROOT/docs/config.md" "$corpus/config/docs-config"
  for f in "$ROOT"/sim/nodes/*.yaml; do cp "$f" "$corpus/node_file/"; done
  for f in "$ROOT"/test/sim_files/data/*.yaml; do
    cp "$f" "$corpus/node_file/test-$(basename "$f")"
  done
  for f in "$ROOT"/sim/scenarios/*.yaml; do cp "$f" "$corpus/scenario/"; done
  extract_yaml "$ROOT/docs/sim-formats.md" "$corpus/scenario/docs-sim-formats"
  cp "$ROOT"/test/telemetry/data/*.ethtool-S.txt "$corpus/ethtool_names/"
  if [[ -n $fixtures ]]; then
    cp "$fixtures/node_exporter/ethtool/eth0/statistics" "$corpus/ethtool_names/node-exporter-e1000e"
    "$BUILD/fuzz/fuzz_seed_gen" "$ROOT" "$corpus" "$fixtures"
  else
    echo "fuzz.sh: ROCED_FIXTURES unset: no seeds from real machines' sysfs" >&2
    "$BUILD/fuzz/fuzz_seed_gen" "$ROOT" "$corpus"
  fi
}

# Each ```yaml block of a Markdown file into PREFIX-N.yaml.
extract_yaml() {
  awk -v prefix="$2" '
    /^```yaml/ { n++; out = prefix "-" n ".yaml"; inside = 1; next }
    /^```/ { inside = 0; next }
    inside { print > out }' "$1"
}

fuzz_one() {
  local target=$1 seconds=$2 work=$BUILD/fuzz-work/$1
  mkdir -p "$work/corpus" "$work/artifacts"
  cp -rn "$ROOT/fuzz/corpus/$target/." "$work/corpus/"
  # A long run's RSS grows with its corpus (ASan caches): a higher ceiling than the suite's.
  local options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -malloc_limit_mb=2048
                 -detect_leaks=1 -print_final_stats=1 -artifact_prefix="$work/artifacts/")
  [[ -f $ROOT/fuzz/dict/$target.dict ]] && options+=(-dict="$ROOT/fuzz/dict/$target.dict")
  local status=0
  "$BUILD/fuzz/${target}_fuzz" "${options[@]}" "$work/corpus" >"$work/last-run.log" 2>&1 || status=$?
  local executions
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/last-run.log" | tail -n 1)
  printf '%-14s %10s executions in %s s, corpus %s inputs, peak RSS %s MB\n' "$target" \
    "${executions:-0}" "$seconds" "$(find "$work/corpus" -type f | wc -l)" \
    "$(sed -n 's/^stat::peak_rss_mb: *//p' "$work/last-run.log" | tail -n 1)"
  if ((status != 0)); then
    grep -E '^(==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written|fuzz: broken)' \
      "$work/last-run.log" | sed 's/^/    /' || true
    echo "    FINDING: exit $status; log $work/last-run.log, inputs in $work/artifacts/"
    return 1
  fi
}

case "${1:-all}" in
  --list) printf '%s\n' "${TARGETS[@]}"; exit 0 ;;
  --seeds) write_seeds; exit 0 ;;
  -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
  all) selected=("${TARGETS[@]}") ;;
  *)
    [[ " ${TARGETS[*]} " == *" $1 "* ]] || { echo "fuzz.sh: no target '$1' (--list)" >&2; exit 2; }
    selected=("$1") ;;
esac
seconds=${2:-300}
configure_and_build "${selected[@]/%/_fuzz}"
failed=0
for target in "${selected[@]}"; do fuzz_one "$target" "$seconds" || failed=1; done
exit "$failed"
