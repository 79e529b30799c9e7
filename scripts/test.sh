#!/usr/bin/env bash
# Runs go test on the given packages (default ./...) against a real ClickHouse, keeps the full
# verbose log in var/test.log, and prints the per-package lines, every failure with its
# messages, every skip with its reason, and a closing "N passed, N failed, N skipped" line. Exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p var
log=${TEST_LOG:-var/test.log}
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./...)

go test -count=1 -timeout "${TEST_TIMEOUT:-10m}" -v "${pkgs[@]}" >"$log" 2>&1
status=$?

# Per-package results, failures with their indented messages, build errors and panics.
awk '
  /^=== (RUN|CONT|NAME|PAUSE) / { cur = $3; next }
  /^[ \t]*--- (FAIL|SKIP): / { print; printf "%s", buf[$3]; delete buf[$3]; next }
  /^[ \t]*--- PASS: / { delete buf[$3]; next }
  /^(ok|FAIL|\?)[ \t]/ || /^FAIL$/ || /^panic:/ || /^# / { print; next }
  /\.go:[0-9]+:[0-9]+: / && !/^[ \t]/ { print; next }
  cur != "" && /^[ \t]/ { buf[cur] = buf[cur] $0 "\n" }
' "$log"

passed=$(grep -cE '^[[:space:]]*--- PASS' "$log")
failed=$(grep -cE '^[[:space:]]*--- FAIL' "$log")
skipped=$(grep -cE '^[[:space:]]*--- SKIP' "$log")
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
  failed=1 # a build error, a panic or a timeout outside any test
fi
echo "full log: $log"
echo "${passed} passed, ${failed} failed, ${skipped} skipped"
exit "$status"
