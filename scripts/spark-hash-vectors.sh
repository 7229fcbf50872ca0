#!/usr/bin/env bash
# Regenerates native/sparkhash/spark_vectors_test.go: Murmur3 / XXH64 test vectors computed by
# Spark's own classes (scripts/SparkHashVectors.java run against the spark module's test classpath,
# i.e. the spark-unsafe and spark-catalyst jars the plugin is built against).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
if [ ! -s build/test-classpath.txt ] || [ spark/pom.xml -nt build/test-classpath.txt ]; then
  mvn -B -q -f spark/pom.xml dependency:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile="$PWD/build/test-classpath.txt" >/dev/null
fi
OUT=native/sparkhash/spark_vectors_test.go
java -cp "$(cat build/test-classpath.txt)" scripts/SparkHashVectors.java > "$OUT.tmp"
gofmt "$OUT.tmp" > "$OUT"
rm -f "$OUT.tmp"
echo "wrote $OUT ($(grep -c '^	{' "$OUT") vectors)"
