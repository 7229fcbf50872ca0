#!/usr/bin/env bash
# Regenerates native/sparkhash/spark_vectors_test.go: Murmur3 / XXH64 test vectors computed by
# Spark's own classes (scripts/SparkHashVectors.java run against the spark module's test classpath,
# i.e. the spark-unsafe and spark-catalyst jars the plugin is built against).
exec bash "$(dirname "$0")/java-vectors.sh" scripts/SparkHashVectors.java native/sparkhash/spark_vectors_test.go
