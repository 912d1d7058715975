#!/usr/bin/env bash
# The hostile cases of issue #21, run against the built command line as a hostile user would: a full disk, absurd
# numbers, special files, overflowing counts, escape sequences in names, a kill in the middle of a write, names that
# are not UTF-8, duplicate and unreadable presets, and a sweep too large to hold in memory. Each case states what must
# hold; the script prints one line per case and exits non-zero if any failed.
#
# usage: hostile.sh PATH/TO/memwall          (ctest runs it as the test "hostile"; it needs strace and setpriv)
set -uo pipefail
. "$(dirname "$0")/common.sh" hostile "${1:-}"
old() { printf 'OLD CONTENT\n' >"$1"; }
is_old() { [ "$(cat "$1")" = "OLD CONTENT" ]; }

# --- 1. A full disk (a file-size cap stands for it): the write fails with the system's reason, the old file stays.
for target in r.csv r.json r.png r.svg r.pdf; do
  old "$target"
  run bash -c "ulimit -f 1; exec \"\$0\" export --chart roofline --out $target" "$memwall" # each over 1 KiB
  check "full disk: export $target fails, says why, keeps the old file" \
    test "$rc" -eq 1 -a -n "$(grep -F 'File too large' <<<"$err")" -a "$(cat "$target")" = "OLD CONTENT"
done
mkdir -p all && old all/roofline.csv
run bash -c 'ulimit -f 1; exec "$0" export --chart all --format csv --out all' "$memwall"
check "full disk: export --chart all fails and keeps the old file" \
  test "$rc" -eq 1 -a -n "$(grep -F 'File too large' <<<"$err")" -a "$(cat all/roofline.csv)" = "OLD CONTENT"
old saved.memwall.json
# The scenario is under 1 KiB, so the cap is 0; the message goes through a pipe, which the cap does not limit.
err="$(bash -c 'ulimit -f 0; exec "$0" analyze --save-scenario saved.memwall.json 2>&1 >/dev/null' "$memwall")"
rc=$?
check "full disk: analyze --save-scenario fails and keeps the old file" \
  test "$rc" -eq 1 -a -n "$(grep -F 'File too large' <<<"$err")" -a "$(cat saved.memwall.json)" = "OLD CONTENT"
leftovers="$(find . -maxdepth 2 -name '*.??????' -newer saved.memwall.json | grep -v '\.memwall$' || true)"
check "full disk: no temporary file is left behind" test -z "$leftovers"

# --- 2. Absurd but finite numbers: the preset is skipped with a message naming file, field and value.
preset() { # preset DIR ID FIELD-JSON: a valid device with one field replaced
  mkdir -p "$1/hardware"
  cat >"$1/hardware/$2.json" <<JSON
{"kind": "hardware", "schema": 1, "id": "$2", "name": "Test $2", "vendor": "Test", "category": "gpu",
 "year": {"value": 2024, "source": "t"}, "tdp_w": {"value": 300, "source": "t"},
 "peak_flops": {"fp16": {"value": $3, "source": "t"}},
 "memory": [{"name": "HBM", "kind": "dram", "capacity_bytes": {"value": 8e10, "source": "t"},
             "bandwidth_bytes_per_s": {"value": $4, "source": "t"}}]}
JSON
}
preset absurd huge 9e307 3e12
preset absurd tiny 1e15 5e-324
run "$memwall" presets --presets absurd
check "absurd numbers: both devices skipped, each with file, field and value" \
  test "$rc" -eq 0 -a -n "$(grep -F 'huge.json: peak_flops.fp16.value: must be between' <<<"$err" | grep -F '9e+307')" \
  -a -n "$(grep -F 'tiny.json: memory[0].bandwidth_bytes_per_s.value: must be between' <<<"$err")"
run "$memwall" export --presets absurd --hardware huge --chart roofline --out absurd.png
check "absurd numbers: export of a skipped device is a usage error, not a crash" \
  test "$rc" -eq 2 -a ! -e absurd.png
run "$memwall" analyze --what-if-bandwidth 1e-300
check "absurd numbers: a what-if factor out of range is refused" test "$rc" -eq 2

# --- 3. A sweep too large to hold: streamed row by row, under a 400 MB address-space cap.
if grep -qa AddressSanitizer "$memwall"; then # clang links its runtime in statically: look for its strings
  echo "skip: large sweep under an address-space cap (AddressSanitizer reserves terabytes of address space)"
else
  run bash -c 'ulimit -v 400000; "$0" sweep --model llama-2-7b --vary batch=1:262144:1 --vary tp=1,2 --csv | wc -l' \
    "$memwall"
  check "large sweep: 524,288 rows stream out under a 400 MB cap" test "$rc" -eq 0 -a "$out" = 524289
fi

# --- 4. Special files given as input: refused at once, never read or waited on.
mkfifo fifo.memwall.json
ln -s /dev/zero zero.memwall.json
for input in fifo.memwall.json zero.memwall.json; do
  run "$memwall" analyze --scenario "$input"
  check "special file as scenario ($input): refused, no hang" \
    test "$rc" -eq 1 -a -n "$(grep -F 'not a regular file' <<<"$err")"
done

# --- 5. Counts that would overflow: refused, never wrapped.
run "$memwall" analyze --tp 65536 --pp 32768
check "overflow: tp 65536 x pp 32768 refused" test "$rc" -ne 0 -a -z "$out"
run "$memwall" analyze --model llama-2-70b --tp 8 --pp 80 --dp 65536 --batch 65536 --json
check "overflow: 8 x 80 x 65536 devices counted exactly" test "$rc" -eq 0 -a -n "$(grep -F '"devices": 41943040' <<<"$out")"
run "$memwall" sweep --vary tp=4294967297
check "overflow: --vary tp=4294967297 refused, not wrapped to 1" test "$rc" -eq 2 -a -z "$out"

# --- 6. Escape sequences, C1 controls and bidirectional overrides in names never reach the terminal raw.
mkdir -p evil/models
printf '%s' '{"kind": "model", "schema": 1, "id": "evil", "name": "Evil\u001b]0;pwned\u0007\u001b[2K fits\u202e\u0085",
 "shape": {"layers": 2, "hidden": 64, "heads": 4, "ffn": 256, "vocab": 1000}, "source": "t"}' >evil/models/evil.json
run "$memwall" presets --presets evil
check "escapes: the name is listed with its controls escaped" \
  test "$rc" -eq 0 -a -n "$(grep -F 'Evil\x1b]0;pwned\x07\x1b[2K fits\u202e\u0085' <<<"$out")"
check "escapes: no ESC, BEL, C1 or U+202E byte in the output" \
  test -z "$(LC_ALL=C grep -P '\x1b|\x07|\xc2\x85|\xe2\x80\xae' "$work/out")"
run "$memwall" analyze --presets evil --model evil
check "escapes: analyze prints the name escaped" \
  test "$rc" -eq 0 -a -z "$(LC_ALL=C grep -P '\x1b|\x07' "$work/out")"

# --- 7. Special files as targets: refused, never replaced.
mkfifo out.csv
run "$memwall" export --chart memory --out out.csv
check "special target: a FIFO given to --out stays a FIFO" \
  test "$rc" -eq 1 -a -p out.csv -a -n "$(grep -F 'not a regular file' <<<"$err")"
if [ "$(id -u)" -eq 0 ]; then
  mknod null-copy c 1 3
  run "$memwall" analyze --save-scenario null-copy
  check "special target: as root, a device node given to --save-scenario stays a device" \
    test "$rc" -eq 1 -a -c null-copy
else
  echo "skip: device-node target (needs root to make a device node)"
fi

# --- 8. A name that is not UTF-8: refused, nothing written under another name.
run "$memwall" export --chart memory --out $'caf\xe9.csv'
check "non-UTF-8 --out: refused with exit 1, no file written" \
  test "$rc" -eq 1 -a -z "$(find . -maxdepth 1 -name 'caf*')" -a -n "$(grep -F 'caf\xe9.csv: cannot write' <<<"$err")"

# --- 9. kill -9 before the rename of the temporary over the target: the next start removes the temporary.
if command -v strace >/dev/null; then
  old kill.png
  (strace -f -o /dev/null -e trace=rename -e inject=rename:signal=SIGKILL "$memwall" export --chart roofline \
    --out kill.png >/dev/null 2>&1; true) 2>/dev/null # "; true": the subshell, not bash, reports the kill
  stray="$(find . -maxdepth 1 -name 'kill.png.memwall-tmp.*.??????')"
  check "kill -9 at rename: the target is untouched and one temporary is left" test -n "$stray" -a "$(cat kill.png)" = "OLD CONTENT"
  run "$memwall" presets
  check "kill -9 at rename: the next start removes it and says so" \
    test "$rc" -eq 0 -a ! -e "$stray" -a -n "$(grep -F "removed $work/${stray#./}, left by an interrupted write" <<<"$err")"
else
  fail "kill -9 at rename: strace is missing (cmake/install-deps.sh installs it)"
fi

# --- 10. Two user files with one id: both named.
mkdir -p dup/hardware/a dup/hardware/b
preset dup/hardware/a same 1e15 3e12
preset dup/hardware/b same 2e15 3e12
run "$memwall" presets --presets dup
check "duplicate ids: a warning names both files" \
  test "$rc" -eq 0 -a -n "$(grep -F 'duplicate preset' <<<"$err" | grep -F 'a/hardware/same.json' | grep -F 'b/hardware/same.json')"

# --- 11. An unreadable file: the message gives the system's reason (as root, read as "nobody").
printf '{}' >secret.memwall.json && chmod 0 secret.memwall.json && chmod 755 "$work"
as_user=()
[ "$(id -u)" -eq 0 ] && as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
run "${as_user[@]}" "$memwall" analyze --scenario "$work/secret.memwall.json"
check "unreadable file: exit 1 with the OS reason" \
  test "$rc" -eq 1 -a -n "$(grep -F 'secret.memwall.json: cannot open file: Permission denied' <<<"$err")"

# --- 12. A name a spreadsheet would run as a formula is neutralised in CSV (a memory level's name is a cell).
preset formula formula 1e15 3e12
sed -i 's/"name": "HBM"/"name": "=HYPERLINK(\\"http:\/\/x\\")"/' formula/hardware/formula.json
run "$memwall" export --presets formula --hardware formula --model llama-2-7b --chart memory --out formula.csv
check "CSV formula: the cell starts with an apostrophe" \
  test "$rc" -eq 0 -a -n "$(grep -F "'=HYPERLINK" formula.csv)" -a -z "$(grep -E '(^|,)"?=HYPERLINK' formula.csv)"

finish
