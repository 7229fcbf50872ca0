#!/usr/bin/env bash
# `make bench-memory`: an executor's peak RSS against heap + off-heap pool, Bolide on and off
# (scripts/measure-rss.py says what is measured and how). Needs the plugin JAR and bench/'s driver
# and classpath (`make jar bench-prep`, which `make bench-memory` runs first). Environment:
#
#   SF=1                     TPC-H scale factor (data made once by scripts/tpch-data.sh)
#   HEAP=2g                  -Xms = -Xmx of every JVM (pre-touched)
#   POOLS=512m,2g            spark.memory.offHeap.size, one JVM per size and engine
#   MEM_QUERIES=q1,q9,q18,q21,groupby-highcard  queries (tpch/queries, bench/memory-queries) run
#                            once each, in order, in every JVM
#   ENGINES=spark,bolide     spark: vanilla Spark (Bolide off); bolide: the plugin on
#   CORES=2                  local[CORES]
#
# Writes bench/results/memory-<timestamp>/{summary.md,memory.csv,logs/} (bench/results/memory-latest).
set -euo pipefail
cd "$(dirname "$0")/.."
SF=${SF:-1}
HEAP=${HEAP:-2g}
POOLS=${POOLS:-512m,2g}
MEM_QUERIES=${MEM_QUERIES:-q1,q9,q18,q21,groupby-highcard}
ENGINES=${ENGINES:-spark,bolide}
CORES=${CORES:-2}
JAR=$(ls dist/bolide-spark4.1_2.13-*.jar | head -1)
[ -s build/bench/classpath.txt ] || { echo "no build/bench/classpath.txt: run make bench-prep" >&2; exit 1; }
DATA=${TPCH_DATA:-$(bash scripts/tpch-data.sh "$SF" | tail -1)}
OUT=bench/results/memory-$(date +%Y%m%d-%H%M%S)
CMD="make bench-memory SF=$SF HEAP=$HEAP POOLS=$POOLS MEM_QUERIES=$MEM_QUERIES ENGINES=$ENGINES CORES=$CORES"
python3 scripts/measure-rss.py --sf "$SF" --data "$DATA" --heap "$HEAP" --pools "$POOLS" \
  --queries-list "$MEM_QUERIES" --engines "$ENGINES" --cores "$CORES" \
  --classpath build/bench/classpath.txt --bolide-jar "$JAR" --out "$OUT" --command "$CMD"
ln -sfn "$(basename "$OUT")" bench/results/memory-latest
echo "results in bench/results/memory-latest -> $(basename "$OUT")"
