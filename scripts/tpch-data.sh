#!/usr/bin/env bash
# TPC-H data as Parquet at any scale factor, generated once and cached:
#
#   scripts/tpch-data.sh SF        # e.g. 0.01, 1, 10
#
# writes data/tpch/sf<SF>/<table>/<table>.<n>.parquet for the 8 tables (customer lineitem nation
# orders part partsupp region supplier; standard lowercase column names) and prints that directory
# on stdout (progress goes to stderr). A second run finds data/tpch/sf<SF>/_COMPLETE and only prints.
#
# The generator is tpcgen-cli (the TPC-H/TPC-DS generator of datafusion-contrib; byte-identical
# output to tpchgen-cli 4.0.0 from crates.io), a prebuilt wheel from PyPI installed once by
# scripts/tpcgen-venv.sh (seconds, no Rust toolchain). scripts/tpch-check-q1.py checks SF 1 against
# the official TPC-H Q1 answer right after generating it. The Parquet output needs no rewriting for Spark: int64 keys,
# int32 small integers, decimal(15,2) money stored as INT64, DATE dates, UTF-8 strings; snappy,
# dictionary-encoded, ~7 MiB row groups.
#
# Environment: TPCH_PARTS (files per table; default max(4, 4*SF)), TPCH_ROW_GROUP_BYTES (default:
# the generator's 7MiB), TPCH_THREADS (default: all CPUs).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

SF=${1:?usage: scripts/tpch-data.sh SCALE_FACTOR (e.g. 0.01 or 1)}
[[ $SF =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "scale factor must be a number: $SF" >&2; exit 2; }

GENERATOR=tpcgen-cli
OUT=$ROOT/data/tpch/sf$SF
MARKER=$OUT/_COMPLETE

if [ -f "$MARKER" ]; then echo "$OUT"; exit 0; fi

mkdir -p "$ROOT/data/tpch"
# One generator at a time (the JVM suite and a make target may race for the same scale factor).
exec 9>"$ROOT/data/tpch/.lock"
flock 9
if [ -f "$MARKER" ]; then echo "$OUT"; exit 0; fi

TOOLS=$(bash scripts/tpcgen-venv.sh)
BIN=$TOOLS/bin/$GENERATOR
PY=$TOOLS/bin/python

PARTS=${TPCH_PARTS:-$(awk -v sf="$SF" 'BEGIN { p = int(sf * 4 + 0.999); if (p < 4) p = 4; print p }')}
args=(tpch parquet --scale-factor "$SF" --parts "$PARTS" --no-progress --quiet)
[ -z "${TPCH_ROW_GROUP_BYTES:-}" ] || args+=(--row-group-bytes "$TPCH_ROW_GROUP_BYTES")
[ -z "${TPCH_THREADS:-}" ] || args+=(--num-threads "$TPCH_THREADS")

TMP=$OUT.tmp
rm -rf "$TMP" "$OUT"
echo "generating TPC-H SF $SF ($PARTS files per table) into $OUT" >&2
start=$SECONDS
"$BIN" "${args[@]}" --output-dir "$TMP" >&2
# With --parts the generator writes <table>/<table>.<n>.parquet (n from 1; the small tables nation
# and region in one file), the layout the JVM suites and the benchmark read.
for t in customer lineitem nation orders part partsupp region supplier; do
  ls "$TMP/$t/$t".*.parquet >/dev/null 2>&1 || { echo "$GENERATOR wrote no $TMP/$t/$t.*.parquet" >&2; exit 1; }
done
seconds=$((SECONDS - start))
check=none
if awk -v sf="$SF" 'BEGIN { exit !(sf == 1) }'; then
  "$PY" scripts/tpch-check-q1.py "$TMP" >&2 || {
    echo "TPC-H SF $SF from $(cat "$TOOLS/.installed") fails the official Q1 answer: left in $TMP" >&2
    exit 1
  }
  check="Q1 equals the official answer (tpch/answers/q1-sf1.csv)"
fi
printf 'generator %s (PyPI)\nscale factor %s\nparts %s\nseconds %s\ncheck %s\n' \
  "$(cat "$TOOLS/.installed")" "$SF" "$PARTS" "$seconds" "$check" >"$TMP/_COMPLETE"
mv "$TMP" "$OUT"
echo "generated SF $SF in $seconds s ($(du -sh "$OUT" | cut -f1))" >&2
echo "$OUT"
