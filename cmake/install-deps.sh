#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages MemWall needs to build, test and run — only those that are missing.
# Extra package names may be given as arguments. `--list [PKG...]` prints the whole list and installs nothing
# (.ci/check-deps.sh checks that the build uses nothing beyond it and its hard dependencies).
#
# Packages are installed without their Recommends, so everything the build needs is named here, even where another
# package only recommends it: libqt6opengl6-dev, for one, without which Qt6Charts' CMake config fails to load.
# The Python module builds with pybind11-dev against Debian's python3-dev; its suite runs with python3-pytest, and
# numpy (sweep arrays), pandas (to_dataframe) and matplotlib (memwall.plot) are what it offers beside plain dicts.
# strace is for the test suite: tests/hostile kills a write between its link and its rename (strace --inject).
# ccache keeps compiled objects between builds and clones (cmake/MemWallCompilerCache.cmake).
set -euo pipefail
packages=(g++ cmake ninja-build pkg-config qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev nlohmann-json3-dev
          libgl-dev fonts-dejavu-core strace ccache
          pybind11-dev python3-dev python3-pytest python3-numpy python3-pandas python3-matplotlib)
if [ "${1:-}" = "--list" ]; then
  shift
  printf '%s\n' "${packages[@]}" "$@"
  exit 0
fi
packages+=("$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -q
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
