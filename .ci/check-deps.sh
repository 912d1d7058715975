#!/usr/bin/env bash
# Fails when the build or CI uses a Debian package that cmake/install-deps.sh does not install.
#
# A package counts as installed by the script when the script names it, or when apt must install it with them: a
# Depends or PreDepends of theirs, followed recursively (`apt-cache depends --recurse`, Recommends and Suggests not
# followed, since install-deps.sh installs with --no-install-recommends). Anything else that the build finds on this
# machine was put there by hand or by a Recommends, and a fresh machine will not have it.
#
# What is looked up, and how each is traced to its package (`dpkg -S`):
#   - every CMake package config that a configured build folder loaded from /usr: the <Name>_DIR entries of its
#     CMakeCache.txt, through the <Name>Config.cmake or <name>-config.cmake file in that folder;
#   - the compiler and the build program that the build folder uses (CMAKE_CXX_COMPILER, CMAKE_MAKE_PROGRAM);
#   - the Qt platform plugins the programs load at run time: xcb for the application, offscreen for the suites;
#   - the commands CI itself runs, given with --tool (for example Xvfb).
#
# Usage: .ci/check-deps.sh [--extra "PKG ..."] [--tool CMD]... BUILD_DIR...
#   --extra: packages that CI installs on top of install-deps.sh's own list (passed to it as arguments).
# Prints one line per thing checked; exit 1 with a line naming each missing package and how it was found.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

extra=()
tools=()
builds=()
while [ $# -gt 0 ]; do
  case "$1" in
    --extra) read -r -a more <<<"$2"; extra+=("${more[@]}"); shift 2 ;;
    --tool) tools+=("$2"); shift 2 ;;
    *) builds+=("$1"); shift ;;
  esac
done
[ ${#builds[@]} -gt 0 ] || { echo "usage: $0 [--extra \"PKG ...\"] [--tool CMD]... BUILD_DIR..." >&2; exit 2; }

mapfile -t listed < <(bash "$root/cmake/install-deps.sh" --list "${extra[@]}")
# Every package apt installs for that list: the list itself and its hard dependencies, recursively. Unindented lines
# of apt-cache's output are the packages visited; <virtual> ones are provided by a real package visited too.
allowed="$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
             --no-enhances "${listed[@]}" 2>/dev/null | grep -v '^[ <]' | sed 's/:.*//' | sort -u)"
[ -n "$allowed" ] || { echo "check-deps: apt-cache depends gave nothing (run apt-get update first)" >&2; exit 2; }

missing=0
# owner PATH: the package owning PATH (following symlinks, e.g. /usr/bin/c++ -> alternatives -> g++-12)
owner() {
  local p="$1" o
  o="$(dpkg -S "$p" 2>/dev/null | head -n1 | sed 's/:.*//; s/, .*//')" || true
  if [ -z "$o" ] && [ -e "$p" ]; then
    o="$(dpkg -S "$(readlink -f "$p")" 2>/dev/null | head -n1 | sed 's/:.*//; s/, .*//')" || true
  fi
  printf '%s' "$o"
}
# check WHAT PATH: PATH's package must be one install-deps.sh installs
check() {
  local what="$1" path="$2" pkg
  pkg="$(owner "$path")"
  if [ -z "$pkg" ]; then
    echo "MISSING: $what: $path belongs to no Debian package (installed by hand?)"
    missing=1
  elif grep -qxF "$pkg" <<<"$allowed"; then
    echo "ok: $what: $path (package $pkg)"
  else
    echo "MISSING: package $pkg, which install-deps.sh does not install: $what uses $path (found by dpkg -S)"
    missing=1
  fi
}

for build in "${builds[@]}"; do
  cache="$build/CMakeCache.txt"
  [ -f "$cache" ] || { echo "check-deps: $cache does not exist (configure $build first)" >&2; exit 2; }
  name="$(basename "$build")"
  while IFS='=' read -r key dir; do
    pkgname="${key%%_DIR:*}"
    [[ "$dir" == /usr/* && -d "$dir" ]] || continue
    config=""
    for f in "$dir/${pkgname}Config.cmake" "$dir/$(tr '[:upper:]' '[:lower:]' <<<"$pkgname")-config.cmake"; do
      [ -f "$f" ] && config="$f" && break
    done
    [ -n "$config" ] || continue # an include or data folder, not a package config
    check "$name: CMake package $pkgname ($key)" "$config"
  done < <(grep -E '^[A-Za-z0-9_.+-]+_DIR:PATH=' "$cache")
  for key in CMAKE_CXX_COMPILER CMAKE_MAKE_PROGRAM; do
    path="$(sed -n "s/^$key:[A-Z]*=//p" "$cache")"
    [ -n "$path" ] && check "$name: $key" "$path"
  done
  # The platform plugins live beside the Qt the build found.
  qtcore="$(sed -n 's/^Qt6Core_DIR:PATH=//p' "$cache")"
  if [ -n "$qtcore" ]; then
    plugins="$(dirname "$(dirname "$qtcore")")/qt6/plugins/platforms"
    for plugin in xcb offscreen; do
      if [ -f "$plugins/libq$plugin.so" ]; then
        check "$name: Qt platform plugin $plugin (loaded at run time)" "$plugins/libq$plugin.so"
      else
        echo "MISSING: $name: Qt platform plugin $plugin: $plugins/libq$plugin.so does not exist"
        missing=1
      fi
    done
  fi
done

for tool in "${tools[@]}"; do
  if path="$(command -v "$tool")"; then
    check "CI command $tool" "$path"
  else
    echo "MISSING: CI command $tool is not on PATH"
    missing=1
  fi
done

if [ "$missing" -ne 0 ]; then
  echo "check-deps: FAILED: add the packages named MISSING above to cmake/install-deps.sh (or to .ci/run's list)"
  exit 1
fi
echo "check-deps: every package the build and CI use is installed by cmake/install-deps.sh"
