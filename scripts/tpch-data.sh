#!/usr/bin/env bash
# TPC-H data as Parquet at any scale factor, generated once and cached:
#
#   scripts/tpch-data.sh SF        # e.g. 0.01, 1, 10
#
# writes data/tpch/sf<SF>/<table>/<table>.<n>.parquet for the 8 tables (customer lineitem nation
# orders part partsupp region supplier; standard lowercase column names) and prints that directory
# on stdout (progress goes to stderr). A second run finds data/tpch/sf<SF>/_COMPLETE and only prints.
#
# The generator is tpchgen-cli (Rust, crates.io), installed once with `cargo install --locked` into
# $BOLIDE_TOOLS/tpchgen-cli-<version>/ (default ~/.cache/bolide/tools: outside the checkout, so fresh
# clones on the same machine, CI's among them, reuse it; building it takes several minutes). Its Parquet output needs no
# rewriting for Spark: int64 keys, int32 small integers, decimal(15,2) money stored as INT64,
# DATE dates, UTF-8 strings; snappy, dictionary-encoded, ~7 MiB row groups.
#
# Environment: TPCH_PARTS (files per table; default max(4, 4*SF)), TPCH_ROW_GROUP_BYTES (default:
# the generator's 7MiB), TPCH_THREADS (default: all CPUs).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

SF=${1:?usage: scripts/tpch-data.sh SCALE_FACTOR (e.g. 0.01 or 1)}
[[ $SF =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "scale factor must be a number: $SF" >&2; exit 2; }

TPCHGEN_VERSION=4.0.0
TOOLS=${BOLIDE_TOOLS:-$HOME/.cache/bolide/tools}/tpchgen-cli-$TPCHGEN_VERSION
BIN=$TOOLS/bin/tpchgen-cli
OUT=$ROOT/data/tpch/sf$SF
MARKER=$OUT/_COMPLETE

if [ -f "$MARKER" ]; then echo "$OUT"; exit 0; fi

mkdir -p "$ROOT/data/tpch"
# One generator at a time (the JVM suite and a make target may race for the same scale factor).
exec 9>"$ROOT/data/tpch/.lock"
flock 9
if [ -f "$MARKER" ]; then echo "$OUT"; exit 0; fi

if [ ! -x "$BIN" ]; then
  CARGO=$(command -v cargo || true)
  [ -n "$CARGO" ] || CARGO=$HOME/.cargo/bin/cargo
  if [ ! -x "$CARGO" ]; then
    echo "cargo not found: install Rust >= 1.88 (rustup), or run .ci/run" >&2
    exit 1
  fi
  echo "installing tpchgen-cli $TPCHGEN_VERSION into $TOOLS (once; several minutes)" >&2
  start=$SECONDS
  mkdir -p "$(dirname "$TOOLS")"
  rm -rf "$TOOLS.tmp"
  "$CARGO" install tpchgen-cli --version "$TPCHGEN_VERSION" --locked --quiet \
    --root "$TOOLS.tmp" >&2
  rm -rf "$TOOLS" && mv "$TOOLS.tmp" "$TOOLS"
  echo "installed tpchgen-cli in $((SECONDS - start)) s" >&2
fi

PARTS=${TPCH_PARTS:-$(awk -v sf="$SF" 'BEGIN { p = int(sf * 4 + 0.999); if (p < 4) p = 4; print p }')}
args=(parquet --scale-factor "$SF" --parts "$PARTS" --no-progress --quiet)
[ -z "${TPCH_ROW_GROUP_BYTES:-}" ] || args+=(--row-group-bytes "$TPCH_ROW_GROUP_BYTES")
[ -z "${TPCH_THREADS:-}" ] || args+=(--num-threads "$TPCH_THREADS")

TMP=$OUT.tmp
rm -rf "$TMP" "$OUT"
echo "generating TPC-H SF $SF ($PARTS files per table) into $OUT" >&2
start=$SECONDS
"$BIN" "${args[@]}" --output-dir "$TMP" >&2
for t in customer lineitem nation orders part partsupp region supplier; do
  ls "$TMP/$t"/*.parquet >/dev/null 2>&1 || { echo "tpchgen-cli wrote no $t files" >&2; exit 1; }
done
printf 'tpchgen-cli %s\nscale factor %s\nparts %s\nseconds %s\n' \
  "$TPCHGEN_VERSION" "$SF" "$PARTS" "$((SECONDS - start))" >"$TMP/_COMPLETE"
mv "$TMP" "$OUT"
echo "generated SF $SF in $((SECONDS - start)) s ($(du -sh "$OUT" | cut -f1))" >&2
echo "$OUT"
