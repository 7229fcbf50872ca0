#!/usr/bin/env bash
# Regenerates native/expr/icebergtransform_vectors_test.go: Iceberg partition transform vectors
# computed by Iceberg's own Spark functions (scripts/IcebergTransformVectors.java run against the
# spark module's test classpath, i.e. the iceberg-spark-runtime jar the JVM tests use).
exec bash "$(dirname "$0")/java-vectors.sh" scripts/IcebergTransformVectors.java native/expr/icebergtransform_vectors_test.go
