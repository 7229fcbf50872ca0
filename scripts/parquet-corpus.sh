#!/usr/bin/env bash
# The pyarrow Parquet corpus: writes files with the Arrow C++ writer and checks that the native
# reader reads every cell of them back.
#
#   scripts/parquet-corpus.sh [go test flags]
#
# Writes the corpus with scripts/parquet-corpus.py (pyarrow from the tools venv of
# scripts/tpcgen-venv.sh) into build/parquet-corpus/files (each .parquet with a .json of the values
# expected back), then runs the corpus tests of native/parquet against it (TestCorpusPyarrow reads
# $BOLIDE_PARQUET_CORPUS; the in-process corpus tests run too). Extra arguments go to `go test`,
# e.g. scripts/parquet-corpus.sh -race -v. `make test-go` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/build/parquet-corpus/files

TOOLS=$(bash scripts/tpcgen-venv.sh)
"$TOOLS/bin/python" scripts/parquet-corpus.py "$OUT"
cd native
BOLIDE_PARQUET_CORPUS=$OUT go test -count=1 -run Corpus "$@" ./parquet
