#!/usr/bin/env bash
# The file cases of the third hostile battery (issue #42): nothing lost, nothing overwritten, nothing hung. A link
# planted where an export goes, a user's file that looks like a temporary, standard output that cannot be written,
# a group-shared file replaced, a save larger than what open reads, a special file that blocks, and names and titles
# that must not reach a terminal or an SVG as they are. Each case states what must hold; the script prints one line
# per case and exits non-zero if any failed. (The window's settings file is tested in tests/ui/tst_writes.cpp.)
#
# usage: hostile3_files.sh PATH/TO/memwall     (ctest runs it as "hostile3_files"; it needs strace and python3)
set -uo pipefail
. "$(dirname "$0")/common.sh" hostile3_files "${1:-}"
python=/usr/bin/python3
has() { grep -qF -- "$1" <<<"$2"; } # has NEEDLE HAYSTACK

# --- 1. A link planted where an export goes is never written through (as root it replaced a 0600 file elsewhere).
printf 'SECRET\n' >secret && chmod 600 secret && cp secret secret.copy
mkdir -p shared && ln -s "$work/secret" shared/roofline.png
[ "$(id -u)" -eq 0 ] && chown -R 65534:65534 shared # a folder another user owns, as in the report
untouched() { cmp -s secret secret.copy && echo yes; } # the target, byte for byte
run "$memwall" export --chart all --out shared/
check "planted link: export --chart all leaves the link's target alone and says why in one line" \
  test "$rc" -eq 1 -a "$(untouched)" = yes -a -L shared/roofline.png -a "$(stat -c %a secret)" = 600 \
  -a "$(grep -c 'roofline.png: cannot write: a symbolic link' <<<"$err")" -eq 1
cp secret.copy secret # for the next case, had the first written through the link
run "$memwall" export --chart roofline --out shared/roofline.png
check "planted link: a single export to the link is refused too" \
  test "$rc" -eq 1 -a "$(untouched)" = yes -a -L shared/roofline.png
printf 'OLD\n' >mine.csv && ln -s mine.csv same-folder.csv
run "$memwall" export --chart memory --out same-folder.csv
check "planted link: a link to a file in its own folder writes that file and stays a link" \
  test "$rc" -eq 0 -a -L same-folder.csv -a "$(head -c 3 mine.csv)" != OLD

# --- 2. A user's own file is never taken for an interrupted write's temporary.
printf 'OLD\n' >big.png
(strace -f -o /dev/null -e trace=rename -e inject=rename:signal=SIGKILL "$memwall" export --chart roofline \
  --out big.png >/dev/null 2>&1; true) 2>/dev/null # "; true": the subshell, not bash, reports the kill
printf 'made by the user\n' >big.png.backup    # after the write began, as in the report
printf 'made by the user\n' >big.png.tmp-12345 # a name with a number in it, still not ours
stray="$(find . -maxdepth 1 -name 'big.png.*' ! -name big.png.backup ! -name big.png.tmp-12345)"
run "$memwall" presets
check "interrupted write: the temporary goes, big.png.backup and big.png.tmp-12345 stay" \
  test -n "$stray" -a ! -e "${stray:-x}" -a -e big.png.backup -a -e big.png.tmp-12345 -a "$(cat big.png)" = OLD \
  -a "$(grep -c 'left by an interrupted write' <<<"$err")" -eq 1

# --- 3. Standard output that cannot be written fails the command with the system's reason.
for cmd in "analyze" "sweep --vary batch=1,2" "presets" "trends" "validate" "search" "analyze --json"; do
  # shellcheck disable=SC2086 # the command's words
  timeout -s KILL 60 "$memwall" $cmd >/dev/full 2>"$work/err"
  rc=$? err="$(cat "$work/err")"
  check "stdout on /dev/full: $cmd exits 1 and says why" \
    test "$rc" -eq 1 -a "$(grep -c 'stdout: No space left on device' <<<"$err")" -eq 1
done
for cmd in "analyze" "presets" "export --chart roofline --out closed.png"; do
  # shellcheck disable=SC2086
  timeout -s KILL 60 "$memwall" $cmd >&- 2>"$work/err"
  rc=$? err="$(cat "$work/err")"
  check "stdout closed: $cmd exits 1 and says why" test "$rc" -eq 1 -a -n "$(grep -F 'stdout: Bad file descriptor' <<<"$err")"
done
check "stdout closed: the export itself was still written" test -s closed.png
run bash -c 'ulimit -f 64; "$0" sweep --vary batch=1:4096:1 --csv >sweep.csv' "$memwall"
check "stdout on a full disk: sweep --csv > file exits 1 with the reason" \
  test "$rc" -eq 1 -a -n "$(grep -F 'stdout: File too large' <<<"$err")"

# --- 4. Replacing a group-shared file keeps its owner, group and permissions.
if [ "$(id -u)" -eq 0 ]; then
  printf 'OLD\n' >shared.png && chown 65534:100 shared.png && chmod 640 shared.png
  run "$memwall" export --chart roofline --out shared.png
  check "group-shared file: owner 65534, group 100 and mode 640 kept" \
    test "$rc" -eq 0 -a "$(stat -c %u:%g:%a shared.png)" = 65534:100:640 -a "$(head -c 3 shared.png)" != OLD
else
  echo "skip: group-shared file (needs root to give a file another owner)"
fi
printf 'OLD\n' >private.csv && chmod 600 private.csv
run "$memwall" export --chart memory --out private.csv
check "private file: mode 600 kept" test "$rc" -eq 0 -a "$(stat -c %a private.csv)" = 600

# --- 5. A save never writes what open refuses: one limit for both.
run "$memwall" analyze --save-scenario base.memwall.json
"$python" - <<'PY'
import json
s = json.load(open("base.memwall.json"))
device = {"id": "big", "name": "Big", "vendor": "Test", "category": "gpu", "year": {"value": 2024, "source": "t"},
          "tdp_w": {"value": 300, "source": ""}, "peak_flops": {"fp16": {"value": 1e15, "source": "t"}},
          "memory": [{"name": "HBM", "kind": "dram", "capacity_bytes": {"value": 8e10, "source": "t"},
                      "bandwidth_bytes_per_s": {"value": 3e12, "source": "t"}}]}
s["hardware"] = device
size = len(json.dumps(s, separators=(",", ":")))
device["tdp_w"]["source"] = "x" * (8 * 1024 * 1024 - 64 - size) # compact, just under the limit
open("large.memwall.json", "w").write(json.dumps(s, separators=(",", ":")))
PY
printf 'OLD\n' >saved.memwall.json
run "$memwall" analyze --scenario large.memwall.json --save-scenario saved.memwall.json
check "large save: refused before writing, one line naming the file and the limit" \
  test "$rc" -eq 1 -a "$(cat saved.memwall.json)" = OLD \
  -a -n "$(grep -F 'saved.memwall.json: not written:' <<<"$err" | grep -F 'more than the 8388608 bytes MemWall reads')"

# --- 10. Special files that block: never waited on.
if [ -r /proc/kmsg ]; then
  run "$memwall" analyze --scenario /proc/kmsg
  check "/proc/kmsg as --scenario: refused within the timeout" \
    test "$rc" -eq 1 -a -n "$(grep -F '/proc/kmsg: cannot read file' <<<"$err")"
  mkdir -p kmsg/hardware && ln -s /proc/kmsg kmsg/hardware/kmsg.json
  run "$memwall" presets --presets kmsg
  check "/proc/kmsg linked into --presets: skipped, the listing still comes" \
    test "$rc" -eq 0 -a -n "$(grep -F 'kmsg.json: cannot read file' <<<"$err")" -a -n "$out"
else
  echo "skip: /proc/kmsg (not readable here)"
fi
# The race: the scenario is a regular file when checked, and a FIFO when opened. strace holds the open of that path
# 1.5 s; its log shows the open entered (after the check), and the file is swapped for a FIFO then.
cp base.memwall.json race.memwall.json
timeout -s KILL 30 strace -f -qq -o "$work/strace.log" -P "$work/race.memwall.json" -e trace=openat \
  -e inject=openat:delay_enter=1500000 "$memwall" analyze --scenario "$work/race.memwall.json" >"$work/out" 2>"$work/err" &
racer=$!
for _ in $(seq 100); do grep -q race.memwall.json "$work/strace.log" 2>/dev/null && break; sleep 0.1; done
rm -f race.memwall.json && mkfifo race.memwall.json
wait "$racer"
rc=$? err="$(cat "$work/err")"
check "FIFO swapped in between the check and the open: refused, no hang" \
  test "$rc" -eq 1 -a -n "$(grep -F 'race.memwall.json: cannot read file: not a regular file' <<<"$err")"

# --- 12. Text in an SVG is escaped: the file parses and carries no markup of the title's.
for title in 'R&D: latency < 5 ms' '<script>alert(1)</script>' ']]><x/>'; do
  rm -f title.svg
  run "$memwall" export --chart roofline --title "$title" --caption "$title" --out title.svg
  parsed="$("$python" -c '
import sys, xml.dom.minidom
d = xml.dom.minidom.parse(sys.argv[1])
t = d.getElementsByTagName("title")
print(len(d.getElementsByTagName("script")) + len(d.getElementsByTagName("x")), t[0].firstChild.data if t else "")
' title.svg 2>&1)"
  check "SVG title '$title': well-formed, no element of its own, the text kept" \
    test "$rc" -eq 0 -a "$parsed" = "0 $title"
done

# --- 13. File names on standard output and in messages are quoted: no escape sequence reaches the terminal.
name=$'evil\e]0;pwned\a\nname.csv'
run "$memwall" export --chart memory --out "$name"
check "export --out with ESC, BEL and a newline: one escaped line on stdout" \
  test "$rc" -eq 0 -a -e "$name" -a "$out" = 'evil\x1b]0;pwned\x07\nname.csv' \
  -a -z "$(LC_ALL=C grep -P '\x1b|\x07' "$work/out")"
run "$memwall" export --chart memory --out $'evil\e[2J.xyz'
check "a usage error naming such a file: escaped in one line" \
  test "$rc" -eq 2 -a -z "$(LC_ALL=C grep -P '\x1b' "$work/err")" -a -n "$(grep -F 'evil\x1b[2J.xyz' <<<"$err")"
run "$memwall" $'\e]0;pwned\a'
check "an unknown command is quoted" test "$rc" -eq 2 -a -z "$(LC_ALL=C grep -P '\x1b|\x07' "$work/err")"

finish
