#!/usr/bin/env bash
# Runs every libFuzzer target for SECONDS each (default 600) on its seed corpus, in the build folder of the `fuzz`
# preset (configured and built here if needed). Exit status 1 if any target found a crash, leak, UB or timeout.
#   tests/fuzz/run_fuzzers.sh            long runs (10 minutes per target)
#   tests/fuzz/run_fuzzers.sh 20         the short bounded run of .ci/quality.sh
# Findings are written to $MEMWALL_FUZZ_OUT (default build-fuzz/fuzz-out/<target>/): crash-*, leak-*, timeout-*.
# New interesting inputs go to a scratch corpus there, never into the checked-in seeds (minimise before adding:
# fuzz_x -merge=1 tests/fuzz/corpus/fuzz_x build-fuzz/fuzz-out/fuzz_x/corpus).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
seconds="${1:-600}"
build="${MEMWALL_FUZZ_BUILD_DIR:-$root/build-fuzz}"
out="${MEMWALL_FUZZ_OUT:-$build/fuzz-out}"
targets=(fuzz_presets fuzz_hfconfig fuzz_scenario fuzz_link fuzz_cli)

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake --preset fuzz -S "$root" >/dev/null
fi
# MEMWALL_BUILD_LOCK=FILE: build under `flock FILE` (machines shared by several builders).
if [ -n "${MEMWALL_BUILD_LOCK:-}" ]; then
  flock "$MEMWALL_BUILD_LOCK" cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"
else
  cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"
fi

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
# One target per core at a time: each libFuzzer run is single-threaded.
fuzz_one() { # fuzz_one TARGET: runs it, prints its summary; exit status 1 on a finding
  local t="$1" log="$out/$1/fuzz.log"
  mkdir -p "$out/$t/corpus"
  # -max_len keeps the mutations small (the largest seed is a 100 kB nesting bomb); -timeout flags any input that
  # takes over 10 s; -rss_limit_mb catches runaway allocations.
  if ! "$build/tests/fuzz/$t" -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
         -print_final_stats=1 -artifact_prefix="$out/$t/" "$out/$t/corpus" "$root/tests/fuzz/corpus/$t" \
         >"$log" 2>&1; then
    echo "fuzz: $t FAILED (log: $log)"
    grep -E "ERROR|SUMMARY|runtime error|Test unit written" "$log" | head -n 8 || true
    return 1
  fi
  echo "fuzz: $t: $(grep -E "^Done|stat::number_of_executed_units" "$log" | head -n 1 || true)"
}
failed=()
pids=()
names=()
for t in "${targets[@]}"; do
  echo "fuzz: $t for ${seconds}s"
  fuzz_one "$t" &
  pids+=("$!")
  names+=("$t")
  if [ "${#pids[@]}" -ge "$(nproc)" ]; then
    wait "${pids[0]}" || failed+=("${names[0]}")
    pids=("${pids[@]:1}")
    names=("${names[@]:1}")
  fi
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || failed+=("${names[$i]}")
done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]} (reproduce: build-fuzz/tests/fuzz/TARGET FILE)"
  exit 1
fi
echo "fuzz: no findings"
