#!/usr/bin/env bash
# Writes a Go test-vector file from a single-file Java program run against the spark module's test
# classpath (Spark's and Iceberg's own classes as the oracle): java-vectors.sh PROGRAM.java OUT.go.
# Used by spark-hash-vectors.sh and iceberg-transform-vectors.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
PROG=${1:?usage: java-vectors.sh PROGRAM.java OUT.go}
OUT=${2:?usage: java-vectors.sh PROGRAM.java OUT.go}
mkdir -p build
if [ ! -s build/test-classpath.txt ] || [ spark/pom.xml -nt build/test-classpath.txt ]; then
  mvn -B -q -f spark/pom.xml dependency:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile="$PWD/build/test-classpath.txt" >/dev/null
fi
java -cp "$(cat build/test-classpath.txt)" "$PROG" > "$OUT.tmp"
gofmt "$OUT.tmp" > "$OUT"
rm -f "$OUT.tmp"
echo "wrote $OUT ($(grep -c '^	{' "$OUT") vectors)"
