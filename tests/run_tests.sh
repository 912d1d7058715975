#!/usr/bin/env bash
# Builds MemWall with its tests (installing missing packages first) and runs the whole suite with CTest.
# Extra CMake options may be passed in MEMWALL_CMAKE_ARGS; the build folder in MEMWALL_BUILD_DIR (default build-test).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MEMWALL_BUILD_DIR:-$root/build-test}"
bash "$root/cmake/install-deps.sh"
# Optimised as shipped (-O2; the suites' own sources at -Og, tests/CMakeLists.txt) but without debug info, which the
# suite does not need and which is a third of the compile time and most of the link time.
# shellcheck disable=SC2086
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
  -DMEMWALL_BUILD_TESTS=ON ${MEMWALL_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j"$(nproc)"
export QT_QPA_PLATFORM=offscreen
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
