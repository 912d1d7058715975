#!/usr/bin/env bash
# Builds MemWall (installing missing packages first) and starts the application. Arguments go to memwall.
# MEMWALL_CONFIGURE_ONLY=1 stops after configuring build/ (CI checks which packages that configuration uses).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/cmake/install-deps.sh"
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMWALL_BUILD_TESTS=OFF >/dev/null
[ "${MEMWALL_CONFIGURE_ONLY:-0}" = 1 ] && exit 0
cmake --build "$root/build" -j"$(nproc)" --target memwall
exec "$root/build/app/memwall" "$@"
