#!/usr/bin/env bash
# Regenerates native/expr/strcase_tables.go (upper, lower, initcap) from Spark's own case
# mappings on the spark module's test classpath: see SparkCaseTables.java.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/java-vectors.sh scripts/SparkCaseTables.java native/expr/strcase_tables.go
