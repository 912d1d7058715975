#!/usr/bin/env bash
# The GUI suites again on a real X server: Xvfb, with Qt's xcb platform.
#
# The server is started here rather than through xvfb-run: xvfb-run keeps its authority file in a directory under /tmp,
# and one CI run lost that directory in mid-suite (every later test then failed with "could not connect to display",
# and xvfb-run itself with "problem while cleaning up temporary directory"). Here nothing the run needs lives in a
# shared temporary folder: Xvfb picks a free display itself (-displayfd), takes no TCP connections, and accepts local
# clients without an authority file. If the suite fails while the server is gone, that is said plainly, so a lost
# display is not mistaken for a failing test.
#
# -noreset: by default Xvfb resets itself whenever its last client disconnects. With two suites running at once, one
# can connect just as the other's exit triggers that reset; the newcomer then writes to a closed socket and dies of
# SIGPIPE within a tenth of a second (tst_breakdownchart did, once, in CI). Without resets the server stays as it was.
#
# Usage: .ci/xcb-suites.sh BUILD_DIR
set -euo pipefail
build="${1:?usage: $0 BUILD_DIR}"
state="$(cd "$build" && pwd)/xvfb"
rm -rf "$state"
mkdir -p "$state"

Xvfb -displayfd 3 -noreset -nolisten tcp -screen 0 1600x1000x24 3>"$state/display" 2>"$state/server.log" &
server=$!
stop() { kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; }
trap stop EXIT
for _ in $(seq 100); do
  [ -s "$state/display" ] && break
  kill -0 "$server" 2>/dev/null || { echo "xcb-suites: Xvfb did not start:" >&2; cat "$state/server.log" >&2; exit 1; }
  sleep 0.1
done
[ -s "$state/display" ] || { echo "xcb-suites: Xvfb gave no display number within 10 s" >&2; exit 1; }
display=":$(tr -d '[:space:]' <"$state/display")"
echo "xcb-suites: Xvfb on display $display"

cmake -B "$build" -DMEMWALL_TEST_PLATFORM=xcb >/dev/null
status=0
# One suite at a time: they share the one display, and a window another suite raised meanwhile took the activation
# from tst_classroom's (qWaitForWindowActive failed once in a fresh-clone CI run; alone the suite passed every time).
# The offscreen run, where no window takes another's focus, stays parallel.
DISPLAY="$display" QT_QPA_PLATFORM=xcb ctest --test-dir "$build" --output-on-failure -j1 -L ui || status=$?
cmake -B "$build" -DMEMWALL_TEST_PLATFORM=offscreen >/dev/null
if [ "$status" -ne 0 ] && ! kill -0 "$server" 2>/dev/null; then
  echo "xcb-suites: the X server on $display exited during the suite; its log:" >&2
  cat "$state/server.log" >&2
fi
exit "$status"
