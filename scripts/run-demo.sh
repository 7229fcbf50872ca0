#!/usr/bin/env bash
# Runs the demo (BolideDemo) through Spark local mode against the built plugin JAR. Used by
# `make demo` and `make bench` (which sets BOLIDE_DEMO_ROWS/RUNS and adds separate-process RSS runs).
set -euo pipefail
cd "$(dirname "$0")/.."
JAR=$(ls dist/bolide-spark4.1_2.13-*.jar | head -1)
mkdir -p build
if [ ! -s build/test-classpath.txt ] || [ spark/pom.xml -nt build/test-classpath.txt ]; then
  mvn -B -q -f spark/pom.xml dependency:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile="$PWD/build/test-classpath.txt" >/dev/null
fi
mvn -B -q -f spark/pom.xml test-compile >/dev/null
# Spark on JDK 17 needs these opens (spark-submit adds them itself).
OPENS="--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED
--add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED
--add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED
--add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
--add-opens=java.base/sun.nio.cs=ALL-UNNAMED --add-opens=java.base/sun.security.action=ALL-UNNAMED
--add-opens=java.base/sun.util.calendar=ALL-UNNAMED -Djdk.reflect.useDirectMethodHandle=false
-Dio.netty.tryReflectionSetAccessible=true"
# The plugin JAR goes first: it is exactly what a user puts on --jars.
CP="$JAR:spark/target/test-classes:$(cat build/test-classpath.txt)"
run() { java -Xmx${BOLIDE_DEMO_HEAP:-4g} $OPENS -cp "$CP" org.apache.spark.sql.bolide.demo.BolideDemo; }
if [ -n "${BOLIDE_BOUNDARY_BENCH:-}" ]; then
  echo "--- JNI boundary: one batch Java -> Go -> Java (BoundaryBench)"
  java $OPENS -cp "$CP" org.apache.spark.sql.bolide.BoundaryBench
fi
if [ -n "${BOLIDE_DEMO_RSS:-}" ]; then
  # Peak RSS per engine needs one process per mode.
  for m in off on; do
    echo "--- separate process, Bolide $m only"
    BOLIDE_DEMO_MODES=$m run | grep -E "peak RSS|median"
  done
fi
run
