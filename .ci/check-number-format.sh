#!/usr/bin/env bash
# Fails when code under ui/ writes a number with Qt's raw formatters instead of the locale-aware helpers of
# ui/util/text.h (issue #39: "a CI check that fails on a raw QString::number or arg(double) for a displayed figure").
#
# A figure people read goes through formatSi(), formatBytes(), formatSeconds(), formatPercent(), formatFixed(),
# formatExact() ..., which write the core's digits and units with the user's decimal point and grouping, so the window
# and the command line agree. Text a program reads back (CSV, clipboard data) uses csvNumber() (C locale, never
# grouped). What this flags, outside comments:
#   - QString::number(...)                       any use: a number made into text by hand;
#   - .arg(value, width, 'f'|'g'|'e', precision)  QString::arg's double overload with a format.
# (A bare .arg(double) cannot be told from .arg(int) by text alone; the reviewers keep to the helpers there.)
#
# Uses that show no figure to a reader are listed below, each with why, as "path|exact text on the line|reason".
# An entry matches a line of that file containing the text; add one only for text no person reads as a figure.
#
# Usage: .ci/check-number-format.sh [DIR]   (DIR defaults to the repository's ui/; paths below are relative to it)
# Exit 0 when clean; 1 with one line per use found ("path:line: text").
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${1:-$root/ui}"

allowed() {
  cat <<'EOF'
util/text.cpp|QString::number(value, 'g', significant)|the helpers themselves: formatExact()'s %g and csvNumber()
util/savefile.cpp|QString::number(::getpid())|a process id in a temporary file's name
lessons/lessonpanel.cpp|QString::number(i)|a settings key ("lesson-id#3"), never shown
dialogs/presetfiles.cpp|QString::number(value / scale, 'g', 10)|an editor field's text, read back by numberFromText() in the C locale first: grouping would change the value
dialogs/hardwareeditordialog.cpp|QString::number(link.maxDevices)|an editable cell, read back by numberFromText() like the fields
charts/trendschart.cpp|QString::number(firstYear)|a year, which is never grouped ("2003", not "2,003")
charts/trendschart.cpp|QString::number(year)|a year in the base-year menu
charts/trendschart.cpp|QString::number(tp.year, 'f', 1)|a fractional year ("2019.5") of a trend point, never grouped
EOF
}

status=0
while IFS= read -r hit; do
  file="${hit%%:*}"
  rest="${hit#*:}"
  line="${rest#*:}"
  rel="${file#"$dir"/}"
  # comments do not format anything
  if [[ "$line" =~ ^[[:space:]]*(//|\*) ]]; then
    continue
  fi
  ok=0
  while IFS='|' read -r path text _reason; do
    if [ "$rel" = "$path" ] && [[ "$line" == *"$text"* ]]; then
      ok=1
      break
    fi
  done < <(allowed)
  if [ "$ok" = 0 ]; then
    echo "${rel}:${rest%%:*}: raw number formatting (use ui/util/text.h): $(echo "$line" | sed 's/^[[:space:]]*//')"
    status=1
  fi
done < <(grep -rnE --include='*.cpp' --include='*.h' \
  "QString::number\(|\.arg\([^;]*,[[:space:]]*-?[0-9]+[[:space:]]*,[[:space:]]*'[eEfFgG]'" "$dir" || true)

if [ "$status" = 0 ]; then
  echo "check-number-format: no raw number formatting under $dir"
fi
exit "$status"
