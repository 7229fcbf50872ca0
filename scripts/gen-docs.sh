#!/usr/bin/env bash
# Regenerates docs/supported.md, docs/functions.md and the settings table of docs/configuration.md from the code.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
if [ ! -s build/test-classpath.txt ] || [ spark/pom.xml -nt build/test-classpath.txt ]; then
  mvn -B -q -f spark/pom.xml dependency:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile="$PWD/build/test-classpath.txt" >/dev/null
fi
mvn -B -q -f spark/pom.xml test-compile >/dev/null
java -cp "spark/target/classes:spark/target/test-classes:$(cat build/test-classpath.txt)" \
  org.apache.spark.sql.bolide.GenerateDocs docs
