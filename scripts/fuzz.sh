#!/usr/bin/env bash
# make fuzz: every fuzz target of the module (found by name, so a new target is fuzzed too) for
# FUZZTIME each (default 10s). A target fails when go test writes a failing input under
# testdata/fuzz/; a "context deadline exceeded" at the end of FUZZTIME with no input written is
# Go 1.26's fuzzing coordinator racing its own deadline (golang/go#75804, fixed in Go 1.27) on a
# loaded machine: reported, not failed.
set -uo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10s}
go=${GO:-go}
failed=0
start=$(date +%s)
for f in $(grep -rlE --include='*_test.go' '^func Fuzz' --exclude-dir=var --exclude-dir=.git .); do
  dir=$(dirname "$f")
  for t in $(grep -oE '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //'); do
    echo "fuzz $dir $t ($fuzztime)"
    corpus=$dir/testdata/fuzz/$t
    before=$(ls "$corpus" 2>/dev/null | wc -l)
    out=$($go test "$dir" -run '^$' -fuzz "^$t\$" -fuzztime "$fuzztime" 2>&1)
    rc=$?
    echo "$out" | tail -n 3
    after=$(ls "$corpus" 2>/dev/null | wc -l)
    if [ "$rc" -ne 0 ]; then
      if [ "$after" -eq "$before" ] && grep -q '^    context deadline exceeded$' <<<"$out"; then
        echo "fuzz $t: stopped by the coordinator's deadline race (golang/go#75804), no failing input: not a failure"
      else
        echo "$out" | tail -n 40
        echo "fuzz $t FAILED (failing input, if any, in $corpus)" >&2
        failed=1
      fi
    fi
  done
done
echo "fuzz: done in $(($(date +%s) - start)) s"
exit $failed
