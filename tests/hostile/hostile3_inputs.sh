#!/usr/bin/env bash
# The third hostile battery of issue #42, items 7-9, 11 and 14-18, run against the built command line: a search that
# runs out of memory or would run for ten minutes, no display, inputs whose cost grew with their square, efficiencies
# and numbers at the edge of what a double or an integer holds, silent duplicates, an empty validation set, and
# messages that hid the system's reason or echoed 8 MB. Each case states what must hold; the script prints one line
# per case and exits non-zero if any failed. Every case failed before the fix it covers.
#
# usage: hostile3_inputs.sh PATH/TO/memwall     (ctest runs it as the test "hostile3_inputs"; it needs script(1) and,
#                                                as root, setpriv)
set -uo pipefail
. "$(dirname "$0")/common.sh" hostile3_inputs "${1:-}"
has() { grep -qF -- "$2" <<<"$1"; }             # has TEXT NEEDLE
lines() { printf '%s' "$1" | grep -c '' || true; } # lines of TEXT
asan=false
grep -qa AddressSanitizer "$memwall" && asan=true # it reserves terabytes of address space: no ulimit -v under it
as_user=()
[ "$(id -u)" -eq 0 ] && as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
chmod 755 "$work"

# --- 7. Memory running short in the middle of a search: one line, exit 1; no "terminate called", no abort.
if $asan; then
  echo "skip: search out of memory (ulimit -v under AddressSanitizer)"
else
  # A few caps, as where memory runs out depends on the libraries mapped: none may abort, and one must run out.
  ran_out=false aborted=""
  for cap in 150000 200000 250000 300000; do
    run bash -c 'ulimit -v "$1"; exec "$0" search --model phi-3-5-moe --threads 2 --max-configs 3000000 --json' "$memwall" "$cap"
    [ "$rc" -eq 1 ] && [ "$(lines "$err")" -eq 1 ] && has "$err" 'out of memory' && ran_out=true
    [ "$rc" -ge 128 ] || has "$err" terminate && aborted="$aborted $cap KB (exit $rc: ${err:0:100})"
  done
  check "search out of memory: one line naming it, exit 1, never an abort" test "$ran_out" = true -a -z "$aborted"
fi

# --- 8. A search too large to finish: refused at once, the limit in --help, progress only on a terminal.
run -t 10 "$memwall" search --speculative-ks 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 --json
check "huge search: refused before searching, naming the count and the limit" \
  test "$rc" -eq 1 -a -z "$out" -a "$(lines "$err")" -eq 1 -a -n "$(has "$err" 'more than the limit of 1,000,000' && echo y)"
run "$memwall" search --help
check "huge search: --help states the limit and the memory it bounds" \
  test "$rc" -eq 0 -a -n "$(has "$out" '--max-configs' && has "$out" 'bytes per configuration' && echo y)"
run "$memwall" search --model llama-2-7b --max-devices 8 --max-configs 100
check "huge search: --max-configs lowers the limit" test "$rc" -eq 1 -a -n "$(has "$err" 'limit of 100:' && echo y)"
run "$memwall" search --model llama-2-7b --max-devices 8 --json
quiet="$err"
run script -qefc "'$memwall' search --model llama-2-7b --max-devices 8 --json >/dev/null" /dev/null
check "search progress: shown when stderr is a terminal, and only then" \
  test "$rc" -eq 0 -a -n "$(has "$out" 'searching: ' && echo y)" -a -z "$quiet"

# --- 9. No display: headless commands draw offscreen whatever the environment says; the window says it in one line.
display=87
while [ -e "/tmp/.X11-unix/X$display" ]; do display=$((display + 1)); done
run env -u QT_QPA_PLATFORM DISPLAY=":$display" "$memwall" export --chart roofline --out stale.png
check "no display: export with a stale DISPLAY draws offscreen" test "$rc" -eq 0 -a -s stale.png
run env -u DISPLAY -u WAYLAND_DISPLAY QT_QPA_PLATFORM=xcb "$memwall" export --chart roofline --out xcb.png
check "no display: export with QT_QPA_PLATFORM=xcb and no DISPLAY draws offscreen" test "$rc" -eq 0 -a -s xcb.png
run env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$memwall"
check "no display: the window says in one line that it needs one, exit 2" \
  test "$rc" -eq 2 -a "$(lines "$err")" -eq 1 -a -n "$(has "$err" 'needs a display' && echo y)"
run env -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM DISPLAY=":$display" "$memwall"
check "no display: a stale DISPLAY gives that one line too, not an abort" \
  test "$rc" -eq 2 -a "$(lines "$err")" -eq 1 -a -n "$(has "$err" "display :$display" && echo y)"

# --- 11. Costs that grew with the square of the input: linear now, or refused with a stated limit.
# (files made with the shell and awk only: no Python needed)
{
  printf '{"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008, "num_attention_heads": 32,'
  printf ' "num_hidden_layers": 32, "num_key_value_heads": 32, "vocab_size": 32000, "junk": ['
  yes NaN | head -n 2000000 | paste -sd, - | tr -d '\n'
  printf ']}'
} >nan.json
mkdir -p many/hardware
awk 'BEGIN {
  for (i = 0; i < 10000; i++) {
    f = "many/hardware/d" i ".json"
    printf "{\"kind\": \"hardware\", \"schema\": 1, \"id\": \"d%d\", \"name\": \"Device %d\", \"vendor\": \"V%d\", ", i, i, i % 7 > f
    printf "\"category\": \"gpu\", \"year\": {\"value\": %d, \"source\": \"t\"}, ", 2000 + i % 25 > f
    printf "\"tdp_w\": {\"value\": 300, \"source\": \"t\"}, \"peak_flops\": {\"fp16\": {\"value\": 1e15, \"source\": \"t\"}}, " > f
    printf "\"memory\": [{\"name\": \"HBM\", \"kind\": \"dram\", \"capacity_bytes\": {\"value\": 8e10, \"source\": \"t\"}, " > f
    printf "\"bandwidth_bytes_per_s\": {\"value\": 3e12, \"source\": \"t\"}}]}\n" > f
    close(f)
  }
}'
run -t 10 "$memwall" analyze --model-config nan.json --json
check "quadratic: a config.json with 2,000,000 NaN reads in under 10 s" test "$rc" -eq 0
run -t 10 "$memwall" presets --presets many --json
check "quadratic: 10,000 presets in a --presets folder load in under 10 s" \
  test "$rc" -eq 0 -a -n "$(grep -F '"d9999"' "$work/out")"
title="$(head -c 120000 /dev/zero | tr '\0' x)"
cap="ulimit -v 2000000;"
$asan && cap=""
run bash -c "$cap"' exec "$0" export --chart roofline --out title.png --title "$1"' "$memwall" "$title"
check "quadratic: a 120,000-character title is refused with the limit" \
  test "$rc" -eq 2 -a ! -e title.png -a -n "$(has "$err" '--title: 120000 characters; the limit is 1000' && echo y)"
run "$memwall" export --help
check "quadratic: export --help states the title limit" test -n "$(has "$out" 'at most 1000 characters' && echo y)"

# --- 14. Efficiencies of no sense: below 0.1 % refused everywhere the option table is read.
run "$memwall" analyze --compute-efficiency 1e-320 --json
check "efficiency: --compute-efficiency 1e-320 refused, quoted as typed" \
  test "$rc" -eq 2 -a -z "$out" -a -n "$(has "$err" 'must be between 0.001 and 1, got 1e-320' && echo y)"
run "$memwall" analyze --memory-efficiency 4.9e-324
check "efficiency: --memory-efficiency 4.9e-324 refused (no ∞ s, no -nan %)" \
  test "$rc" -eq 2 -a -z "$out"
scenario() { # scenario FILE SCENARIO-BODY: a scenario file on the built-in presets
  printf '{"kind": "scenario", "schema": 1, "hardware": "h100-sxm", "model": "llama-2-7b", "scenario": {%s}}' "$2" >"$1"
}
scenario eff.json '"memory_efficiency": 1e-300'
run "$memwall" analyze --scenario eff.json
check "efficiency: a scenario file with memory_efficiency 1e-300 is refused naming file and field" \
  test "$rc" -eq 1 -a -z "$out" -a -n "$(has "$err" 'eff.json: scenario.memory_efficiency: must be between 0.001' && echo y)"

# --- 15. Numbers too large for 64 bits: quoted as written, never wrapped to a negative.
scenario big63.json '"batch": 9223372036854775808'
run "$memwall" analyze --scenario big63.json
check "wrap: batch 2^63 in a scenario is quoted as written" \
  test "$rc" -eq 1 -a -n "$(has "$err" 'got 9223372036854775808' && echo y)" -a -z "$(has "$err" 'got -' && echo y)"
scenario big64.json '"batch": 18446744073709551615'
run "$memwall" analyze --scenario big64.json
check "wrap: batch 2^64-1 in a scenario is quoted as written" \
  test "$rc" -eq 1 -a -n "$(has "$err" 'must be between 1 and 16777216, got 18446744073709551615' && echo y)"
run "$memwall" analyze --batch 99999999999999999999
check "wrap: --batch of 20 digits is out of range, quoted as typed" \
  test "$rc" -eq 2 -a -n "$(has "$err" 'must be between 1 and 16777216, got 99999999999999999999' && echo y)"

# --- 16. A key given twice: refused with the key (and the file), never the last taken in silence.
scenario dup.json '"batch": 1, "context": 512, "batch": 64'
run "$memwall" analyze --scenario dup.json
check "duplicate: a scenario key given twice is refused naming file and key" \
  test "$rc" -eq 1 -a -z "$out" -a -n "$(has "$err" 'dup.json: scenario.batch: duplicate key' && echo y)"
run "$memwall" sweep --vary batch=1,2 --vary batch=3,4
check "duplicate: sweep --vary batch twice is refused naming the field" \
  test "$rc" -eq 2 -a -z "$out" -a -n "$(has "$err" '--vary batch is given twice' && echo y)"
mkdir -p duppreset/hardware
sed 's/"name": "Device 1"/"name": "Device 1", "name": "Other"/' many/hardware/d1.json >duppreset/hardware/d1.json
run "$memwall" presets --presets duppreset
check "duplicate: a preset with a key given twice is skipped naming file and key" \
  test "$rc" -eq 0 -a -n "$(has "$err" 'd1.json: name: duplicate key' && echo y)"

# --- 17. A validation set that validates nothing, or a value that makes the errors NaN: refused.
printf '{"kind": "validation", "schema": 1, "runs": []}' >empty-runs.json
run "$memwall" validate --runs empty-runs.json
check "validate: an empty runs list is refused naming file and field" \
  test "$rc" -eq 1 -a -z "$out" -a -n "$(has "$err" 'empty-runs.json: runs: holds no run' && echo y)"
printf '{"kind": "validation", "schema": 1, "runs": [{"id": "r", "model": "llama-2-7b", "device": "h100-sxm",
 "batch": 1, "input_tokens": 8, "output_tokens": 8, "weights": "fp16", "framework": "t", "metric": "tpot_s",
 "value": 5e-324, "source": "t"}]}' >tiny-runs.json
run "$memwall" validate --runs tiny-runs.json
check "validate: a measured value of 5e-324 is refused naming file and field" \
  test "$rc" -eq 1 -a -z "$(has "$out" 'nan' && echo y)" -a -n "$(has "$err" 'tiny-runs.json: runs[0].value: must be between' && echo y)"

# --- 18. Messages: the system's reason is named, an echoed value is cut.
mkdir -p locked/hardware && cp many/hardware/d1.json locked/hardware/ && chmod 0 locked
run "${as_user[@]}" "$memwall" presets --presets "$work/locked"
check "messages: an unreadable --presets folder is named with the system's reason" \
  test -n "$(has "$err" "$work/locked: cannot read the folder: Permission denied" && echo y)"
mkdir -p readonly && chmod 555 readonly
run "${as_user[@]}" "$memwall" export --chart all --format csv --out "$work/readonly/charts"
check "messages: a folder that cannot be made is named with the system's reason" \
  test "$rc" -eq 1 -a -n "$(has "$err" 'cannot create the folder: Permission denied' && echo y)"
scenario long.json "\"batch\": $(head -c 8000000 /dev/zero | tr '\0' 1)"
run "$memwall" analyze --scenario long.json
check "messages: an 8 MB number in a file is cut in the message" \
  test "$rc" -eq 1 -a "${#err}" -lt 300 -a -n "$(has "$err" '(8000000 bytes)' && echo y)"
run "$memwall" analyze --batch "$(head -c 100000 /dev/zero | tr '\0' 7)"
check "messages: a 100,000-digit argument is cut in the message" \
  test "$rc" -eq 2 -a "${#err}" -lt 300 -a -n "$(has "$err" '(100000 bytes)' && echo y)"

run "$memwall" analyze --hardware "$(head -c 100000 /dev/zero | tr '\0' h)"
check "messages: a 100,000-character preset id is cut in the message" \
  test "$rc" -eq 2 -a "${#err}" -lt 400 -a -n "$(has "$err" "unknown hardware 'hhh" && has "$err" '(100000 bytes)' && echo y)"

finish
