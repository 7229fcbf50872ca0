#!/usr/bin/env bash
# Regenerates native/expr/icebergtransform_vectors_test.go: Iceberg partition transform vectors
# computed by Iceberg's own Spark functions (scripts/IcebergTransformVectors.java run against the
# spark module's test classpath, i.e. the iceberg-spark-runtime jar the JVM tests use).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
if [ ! -s build/test-classpath.txt ] || [ spark/pom.xml -nt build/test-classpath.txt ]; then
  mvn -B -q -f spark/pom.xml dependency:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile="$PWD/build/test-classpath.txt" >/dev/null
fi
OUT=native/expr/icebergtransform_vectors_test.go
java -cp "$(cat build/test-classpath.txt)" scripts/IcebergTransformVectors.java > "$OUT.tmp"
gofmt "$OUT.tmp" > "$OUT"
rm -f "$OUT.tmp"
echo "wrote $OUT ($(grep -c '^	{' "$OUT") vectors)"
