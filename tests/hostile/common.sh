# What every hostile script shares, sourced after `set -uo pipefail` with the script's name and the memwall binary:
#   . "$(dirname "$0")/common.sh" NAME "$1"
# It makes a scratch folder (removed on exit) with a home of its own, so that user presets, settings and the write
# journal stay inside it, enters it, and defines pass/fail/run/check/finish. $memwall is the binary's full path.
hostile_name="$1"
memwall="$(realpath "${2:?usage: $hostile_name.sh PATH/TO/memwall}")"
work="$(mktemp -d)"
trap 'chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 1
export XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config" XDG_RUNTIME_DIR="$work/run" LC_ALL=C.UTF-8
export QT_QPA_PLATFORM=offscreen
mkdir -p "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
failures=0
pass() { echo "ok:   $1"; }
fail() { echo "FAIL: $1"; failures=$((failures + 1)); }
# run [-t SECONDS] CMD...: runs CMD with stdout in $out, stderr in $err (each up to 100,000 bytes) and the exit
# status in $rc, killed after SECONDS (default 60).
run() {
  local limit=60
  if [ "$1" = -t ]; then
    limit="$2"
    shift 2
  fi
  timeout -s KILL "$limit" "$@" >"$work/out" 2>"$work/err"
  rc=$?
  out="$(head -c 100000 "$work/out")"
  err="$(head -c 100000 "$work/err")"
}
# check NAME CONDITION...: the condition is evaluated as a command (usually test); on failure the command's exit
# status and stderr are shown.
check() {
  local name="$1"
  shift
  if "$@"; then pass "$name"; else
    fail "$name (exit $rc; stderr: ${err:0:400})"
  fi
}
# finish: the summary line, and the script's exit status (non-zero if any case failed).
finish() {
  echo "$hostile_name: $failures failed"
  [ "$failures" -eq 0 ]
}
