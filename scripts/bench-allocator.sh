#!/usr/bin/env bash
# The allocator's production cost against an earlier commit: BenchmarkAllocateFree (native/memory)
# with the checking mode off, run alternately against the allocator of BASE (default: the commit
# before the checking mode) and of the working tree, then compared with benchstat.
#
#   scripts/bench-allocator.sh [BASE] [COUNT]     # writes build/bench-allocator/{old,new,benchstat}.txt
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${1:-e3b2dc9}
COUNT=${2:-10}
OUT=build/bench-allocator
rm -rf "$OUT" && mkdir -p "$OUT/old"
git archive "$BASE" native | tar -x -C "$OUT/old"
# The benchmark uses only the allocator's exported API, so the same file runs against both.
cp native/memory/bench_test.go "$OUT/old/native/memory/"
rm -f "$OUT/old/native/memory/main_test.go"
BENCHSTAT=$(go env GOPATH)/bin/benchstat
[ -x "$BENCHSTAT" ] || go install golang.org/x/perf/cmd/benchstat@latest
: >"$OUT/old.txt"; : >"$OUT/new.txt"
for i in $(seq "$COUNT"); do
  (cd "$OUT/old/native" && BOLIDE_MEMCHECK=0 go test -run '^$' -bench BenchmarkAllocateFree -count 1 ./memory) \
    | grep '^Benchmark' >>"$OUT/old.txt"
  (cd native && BOLIDE_MEMCHECK=0 go test -run '^$' -bench BenchmarkAllocateFree -count 1 ./memory) \
    | grep '^Benchmark' >>"$OUT/new.txt"
done
(cd "$OUT" && "$BENCHSTAT" old.txt new.txt) | tee "$OUT/benchstat.txt"
