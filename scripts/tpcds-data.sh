#!/usr/bin/env bash
# TPC-DS data as Parquet, generated once and cached:
#
#   scripts/tpcds-data.sh SF       # e.g. 0.01, 1
#
# writes data/tpcds/sf<SF>/<table>.parquet for the 25 tables, as tpcgen-cli writes them (the
# arrow-rs Parquet writer: the files in which all-null string columns once broke the native
# reader), and prints that directory on stdout (progress goes to stderr).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

SF=${1:?usage: scripts/tpcds-data.sh SCALE_FACTOR (e.g. 0.01 or 1)}
[[ $SF =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "scale factor must be a number: $SF" >&2; exit 2; }
OUT=$ROOT/data/tpcds/sf$SF
MARKER=$OUT/_COMPLETE
if [ -f "$MARKER" ]; then echo "$OUT"; exit 0; fi

mkdir -p "$ROOT/data/tpcds"
exec 9>"$ROOT/data/tpcds/.lock"
flock 9
if [ -f "$MARKER" ]; then echo "$OUT"; exit 0; fi

TOOLS=$(bash scripts/tpcgen-venv.sh)
TMP=$OUT.tmp
rm -rf "$TMP" "$OUT"
echo "generating TPC-DS SF $SF into $OUT" >&2
start=$SECONDS
"$TOOLS/bin/tpcgen-cli" tpcds parquet --scale-factor "$SF" --output-dir "$TMP" >&2
for t in customer store_sales date_dim item time_dim; do
  [ -f "$TMP/$t.parquet" ] || { echo "tpcgen-cli wrote no $TMP/$t.parquet" >&2; exit 1; }
done
printf 'generator %s (PyPI)\nscale factor %s\nseconds %s\n' \
  "$(cat "$TOOLS/.installed")" "$SF" "$((SECONDS - start))" >"$TMP/_COMPLETE"
mv "$TMP" "$OUT"
echo "generated TPC-DS SF $SF in $((SECONDS - start)) s ($(du -sh "$OUT" | cut -f1))" >&2
echo "$OUT"
