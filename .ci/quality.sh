#!/usr/bin/env bash
# Quality gates beyond the plain build + tests of .ci/run:
#   1. ASan + UBSan: the `asan` preset (clang-14, -O1), building and running the CTest suites of the labels in
#      MEMWALL_ASAN_LABELS (default "all": every suite, the torture test included; "core|presets" builds only
#      memwall_core and its suites, a few minutes less on 2 cores).
#   2. clang-tidy-14 on every .cpp of core/, ui/ and app/ with the checked-in .clang-tidy (warnings are errors), from a compile database of
#      its own (build-tidy: file by file, no precompiled headers, which clang cannot read from GCC).
#   3. clang-format-14 --dry-run -Werror on every tracked .cpp and .h file.
#   4. Each libFuzzer target for MEMWALL_FUZZ_SECONDS (default 20) on its seed corpus (tests/fuzz/run_fuzzers.sh).
# Steps can be skipped with MEMWALL_QUALITY_SKIP="asan tidy format fuzz" (any subset). MEMWALL_BUILD_LOCK=FILE runs
# every build under `flock FILE` (for machines shared by several builders). Exit status: non-zero if any
# step failed; every step runs regardless, and a summary with the time of each step is printed at the end.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="$(nproc)"
labels="${MEMWALL_ASAN_LABELS:-all}"
skip=" ${MEMWALL_QUALITY_SKIP:-} "
export QT_QPA_PLATFORM=offscreen
# Qt warns on stderr when XDG_RUNTIME_DIR is unset, which breaks tests asserting exact stderr: give it a private one.
if [ -z "${XDG_RUNTIME_DIR:-}" ]; then
  XDG_RUNTIME_DIR="$(mktemp -d)" && chmod 700 "$XDG_RUNTIME_DIR" && export XDG_RUNTIME_DIR
fi
build() { # cmake --build ..., under the optional lock
  if [ -n "${MEMWALL_BUILD_LOCK:-}" ]; then flock "$MEMWALL_BUILD_LOCK" cmake --build "$@"; else cmake --build "$@"; fi
}


summary=()
status=0
step() { # step NAME COMMAND...: runs one gate, records its time and result
  local name="$1"; shift
  if [[ "$skip" == *" $name "* ]]; then
    summary+=("$name: skipped")
    return
  fi
  echo "=== quality: $name"
  local start=$SECONDS
  if "$@"; then
    summary+=("$name: ok ($((SECONDS - start)) s)")
  else
    summary+=("$name: FAILED ($((SECONDS - start)) s)")
    status=1
  fi
}

asan() {
  cmake --preset asan >/dev/null || return 1
  local targets=()
  if [ "$labels" = "all" ]; then
    build build-asan -j"$jobs" || return 1
    labels=""
  else
    # Only the suites of the chosen labels (and what they run): `ctest -N` lists them without building.
    mapfile -t targets < <(ctest --test-dir build-asan -N -L "$labels" | sed -n 's/^ *Test *#[0-9]*: //p')
    [[ "$labels" == *cli* ]] && targets+=(memwall)
    build build-asan -j"$jobs" --target "${targets[@]}" || return 1
  fi
  ASAN_OPTIONS="detect_leaks=1:strict_string_checks=1" \
  LSAN_OPTIONS="suppressions=$root/tests/lsan.supp:print_suppressions=0" \
  UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
    ctest --test-dir build-asan --output-on-failure -j"$jobs" ${labels:+-L "$labels"}
}

tidy() {
  # Configured only (nothing is built): unity batches would hide the files from the compile database.
  local db=build-tidy out rc
  cmake -S . -B "$db" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DMEMWALL_BUILD_TESTS=OFF -DMEMWALL_UNITY_BUILD=OFF \
    -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null || return 1
  # The window's sources need their moc output, which the autogen targets make without compiling anything.
  build "$db" --target memwall_ui_autogen memwall_autogen >/dev/null || return 1
  out="$(git ls-files 'core/*.cpp' 'ui/*.cpp' 'app/*.cpp' | xargs -P "$jobs" -n 1 clang-tidy-14 -p "$db" --quiet 2>/dev/null)"
  rc=$?
  [ -n "$out" ] && printf '%s\n' "$out"
  [ "$rc" -eq 0 ] && ! grep -qE 'warning:|error:' <<<"$out"
}

format() {
  # Every C++ file the repository tracks.
  git ls-files -z '*.cpp' '*.h' | xargs -0 clang-format-14 --dry-run -Werror
}

fuzz() {
  bash tests/fuzz/run_fuzzers.sh "${MEMWALL_FUZZ_SECONDS:-20}"
}

step asan asan
step tidy tidy
step format format
step fuzz fuzz

echo "=== quality summary"
printf '  %s\n' "${summary[@]}"
exit "$status"
