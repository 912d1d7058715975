#!/usr/bin/env bash
# Quality gates beyond the plain build + tests of .ci/run:
#   1. ASan + UBSan: the `asan` preset (clang-14, -O1), building and running the CTest suites of the labels in
#      MEMWALL_ASAN_LABELS (a ctest -L regular expression; default "core|presets|cli|asan": every suite without a
#      window, and the GUI suites labelled `asan` in tests/CMakeLists.txt, the torture test among them; "all" runs
#      every suite, some 4 minutes more on 2 cores; "core|presets" builds only memwall_core and its suites).
#   2. clang-tidy-14 on every .cpp of core/, ui/ and app/ with the checked-in .clang-tidy (warnings are errors), from a
#      compile database of its own (build-tidy: the unity batches, no precompiled headers, which clang cannot read
#      from GCC); then each of those files compiled on its own with clang -fsyntax-only (`includes`).
#   3. clang-format-14 --dry-run -Werror on every tracked .cpp and .h file.
#   4. Each libFuzzer target for MEMWALL_FUZZ_SECONDS (default 20) on its seed corpus (tests/fuzz/run_fuzzers.sh).
# Steps can be skipped with MEMWALL_QUALITY_SKIP="asan tidy includes format fuzz" (any subset).
# MEMWALL_BUILD_LOCK=FILE runs every build under `flock FILE` (for machines shared by several builders). Exit
# status: non-zero if any step failed; every step runs regardless, and a summary with the time of each step is printed at the end.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="$(nproc)"
labels="${MEMWALL_ASAN_LABELS:-core|presets|cli|asan}"
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
    # A test that is a script, not a build target (`hostile`, label cli), runs the memwall it is given.
    mapfile -t targets < <(ctest --test-dir build-asan -N -L "$labels" | sed -n 's/^ *Test *#[0-9]*: \(tst_.*\)/\1/p')
    [[ "$labels" == *cli* ]] && targets+=(memwall)
    build build-asan -j"$jobs" --target "${targets[@]}" || return 1
  fi
  # Half of tst_torture's 3000 actions: under ASan the walk is the suite's longest run by far (139 s on 2 cores),
  # and the release build's run in .ci/run takes all 3000.
  MEMWALL_TORTURE_STEPS="${MEMWALL_TORTURE_STEPS:-1500}" \
  ASAN_OPTIONS="detect_leaks=1:strict_string_checks=1" \
  LSAN_OPTIONS="suppressions=$root/tests/lsan.supp:print_suppressions=0" \
  UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
    ctest --test-dir build-asan --output-on-failure -j"$jobs" ${labels:+-L "$labels"}
}

tidy() {
  # On the unity batches of the build (8 sources each), not file by file: the checks' matchers walk every declaration
  # of the Qt headers in each translation unit, so one file at a time took 9.5 min on 2 cores and the batches take
  # under 2. Diagnostics are kept for the batched sources themselves (--header-filter), and the checks read the
  # checked-in .clang-tidy (the batch files live in the build folder). Whether each file includes what it uses,
  # which a batch would hide, is the `includes` step's.
  local db=build-tidy out rc
  cmake -S . -B "$db" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DMEMWALL_BUILD_TESTS=OFF -DMEMWALL_UNITY_BUILD=ON \
    -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null || return 1
  # Nothing is compiled: no source includes moc output, and CMake writes the batches and the version header itself;
  # only the embedded presets, a generated source in core's batches, are made.
  build "$db" --target core/builtin_presets.cpp >/dev/null || return 1
  out="$(/usr/bin/python3 .ci/compile-db.py "$db" batches |
    xargs -P "$jobs" -n 1 clang-tidy-14 -p "$db" --config-file=.clang-tidy --header-filter='.*\.cpp$' \
      --checks=-bugprone-suspicious-include --quiet 2>/dev/null)"
  rc=$?
  [ -n "$out" ] && printf '%s\n' "$out"
  [ "$rc" -eq 0 ] && ! grep -qE 'warning:|error:' <<<"$out"
}

includes() {
  # Every source of core/, ui/ and app/ compiles on its own (clang -fsyntax-only, file by file): the unity batches of
  # the other builds would hide a missing #include.
  local db=build-includes
  cmake -S . -B "$db" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DMEMWALL_BUILD_TESTS=OFF -DMEMWALL_UNITY_BUILD=OFF \
    -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null || return 1
  /usr/bin/python3 .ci/compile-db.py "$db" syntax-only
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
step includes includes
step format format
step fuzz fuzz

echo "=== quality summary"
printf '  %s\n' "${summary[@]}"
exit "$status"
