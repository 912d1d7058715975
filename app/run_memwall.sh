#!/usr/bin/env bash
# Builds MemWall (installing missing packages first) and starts the application. Arguments go to memwall.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/cmake/install-deps.sh"
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMWALL_BUILD_TESTS=OFF >/dev/null
cmake --build "$root/build" -j"$(nproc)" --target memwall
exec "$root/build/app/memwall" "$@"
