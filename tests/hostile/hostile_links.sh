#!/usr/bin/env bash
# Hostile memwall: links (issue #41) against the built command line, where a script passes a link it was sent:
# `memwall analyze --scenario LINK`. Each is refused in one line (exit 1) that names the key and quotes the value
# cut and escaped, never drives the terminal, never crashes and prints nothing on stdout.
#
# usage: hostile_links.sh PATH/TO/memwall     (ctest runs it as the test "hostile_links")
set -uo pipefail
. "$(dirname "$0")/common.sh" hostile_links "${1:-}"
has() { grep -qF -- "$2" <<<"$1"; }             # has TEXT NEEDLE
lines() { printf '%s' "$1" | grep -c '' || true; } # lines of TEXT
b64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }
# refused NAME LINK NEEDLE: `analyze --scenario LINK` exits 1 with one short line holding NEEDLE and no escape byte.
refused() {
  run "$memwall" analyze --scenario "$2" --json
  check "$1" test "$rc" -eq 1 -a -z "$out" -a "$(lines "$err")" -eq 1 -a "${#err}" -lt 400 \
    -a -n "$(has "$err" "$3" && echo y)" -a -z "$(printf '%s' "$err" | tr -d '\n' | tr -d '[:print:]')"
}

refused "too long: refused before reading, the size named" "memwall:?v=1&batch=$(head -c 100000 /dev/zero | tr '\0' 9)" \
  'link: 100019 bytes, more than the 65536 bytes a link may hold'
refused "a raw escape sequence is quoted escaped" $'memwall:?model=\e[2J\e[31mred' "link: character 16 is '\\x1b'"
refused "an encoded escape sequence is quoted escaped" 'memwall:?draft_model=%1B%5B2J' "encodes a control character (\\x1b)"
refused "an encoded NUL" 'memwall:?model=llama%00' "link: model: 'llama%00' encodes a control character (\\x00)"
refused "bad percent-encoding" 'memwall:?weights=int4%g128' "link: weights: bad percent-encoding at '%g1'"
refused "unknown key" 'memwall:?v=1&batchsize=8' 'link: batchsize: unknown key'
refused "a 60-kB key is cut" "memwall:?$(head -c 60000 /dev/zero | tr '\0' k)=1" '(60000 bytes): unknown key'
refused "duplicate key" 'memwall:?tp=2&tp=4' 'link: tp: given twice'
refused "out of range" 'memwall:?v=1&what_if.capacity=0' 'link: what_if.capacity: must be between 0.01 and 100, got 0'
refused "a 40,000-digit number is cut" "memwall:?batch=$(head -c 40000 /dev/zero | tr '\0' 7)" '(40000 bytes)'
refused "newer version" 'memwall:?v=9' 'link: v: version 9 was written by a newer MemWall (this one reads 1)'
deep="$(printf '%*s' 5000 '' | tr ' ' '[')$(printf '%*s' 5000 '' | tr ' ' ']')"
refused "deeply nested inline model: refused, no crash" "memwall:?model_json=$(printf '%s' "$deep" | b64url)" \
  'link: model_json: nesting deeper than'
refused "inline model that is not JSON" "memwall:?model_json=$(printf '{"id": ' | b64url)" 'link: model_json:1:'
refused "inline model that fails validation names its field" \
  "memwall:?model_json=$(printf '{"id":"x","name":"x","layers":-3}' | b64url)" 'link: model_json: '
refused "inline device that fails validation" "memwall:?hardware_json=$(printf '{"id":"g"}' | b64url)" \
  'link: hardware_json: '
refused "inline object not base64url" 'memwall:?model_json=eyJpZCI6$$$' "link: model_json: is not base64url"
run "$memwall" analyze --scenario 'memwall:?v=1&hardware=l40s&model=llama-3-8b&batch=8' --json
check "a good link analyses" test "$rc" -eq 0 -a -n "$(has "$out" '"batch": 8' && echo y)"
finish
