# Bolide: `make` builds the plugin JAR (Go engine inside) into dist/; `make test` runs every suite;
# `make demo` is the main job (see README.md).
SHELL := /bin/bash
JAVA_HOME ?= $(shell dirname $$(dirname $$(readlink -f $$(which javac))))
GOOS := $(shell go env GOOS)
GOARCH := $(shell go env GOARCH)
PLATFORM := $(GOOS)-$(GOARCH)
NATIVE_DIR := build/native-resources/bolide/native/$(PLATFORM)
NATIVE_LIB := $(NATIVE_DIR)/libbolide.so
VERSION := 0.1.0-SNAPSHOT
JAR := dist/bolide-spark4.1_2.13-$(VERSION).jar
MVN := mvn -B -q -f spark/pom.xml
export CGO_CFLAGS := -I$(JAVA_HOME)/include -I$(JAVA_HOME)/include/linux -O2
GO_SOURCES := $(shell find native -name '*.go' -not -name '*_test.go') native/go.mod native/go.sum
SCALA_SOURCES := $(shell find spark/src/main -type f) spark/pom.xml

.PHONY: all native jar test test-go test-jvm test-iceberg-latest demo docs clean lint tpch-data fuzz

all: $(JAR)

native: $(NATIVE_LIB)

$(NATIVE_LIB): $(GO_SOURCES)
	@mkdir -p $(NATIVE_DIR)
	cd native && go build -buildmode=c-shared -trimpath -o ../$(NATIVE_LIB) ./jni
	@rm -f $(NATIVE_DIR)/libbolide.h

$(JAR): $(NATIVE_LIB) $(SCALA_SOURCES)
	@mkdir -p dist
	$(MVN) -DskipTests -Dbolide.ownSession.skip=true package
	cp spark/target/bolide-spark4.1_2.13-$(VERSION).jar $(JAR)
	@echo "built $(JAR)"

jar: $(JAR)

lint:
	@test -z "$$(gofmt -l native)" || { echo "gofmt needed:"; gofmt -l native; exit 1; }
	cd native && go vet ./...

# Go unit tests with -race (the allocator's checking mode is on in every test binary), then the
# pyarrow-written Parquet corpus (scripts/parquet-corpus.sh). native/objstore's tests run a real
# S3-compatible server (versitygw, scripts/s3-server.sh): it is built first, once, so that its
# one-time build is not timed as a test (BOLIDE_SKIP_S3=1 skips those tests and the build).
test-go: lint
	@if [ "$${BOLIDE_SKIP_S3:-}" != 1 ]; then bash scripts/s3-server.sh install >/dev/null; fi
	@# The race detector slows the join and aggregate packages to minutes each on two cores: the
	@# default 10-minute limit per package binary leaves too little headroom on a busy machine.
	cd native && go test -race -count=1 -timeout 30m ./...
	@# The matrix tests run a rotating part of their cells under -race (memtest.Race): all of them here.
	cd native && go test -count=1 -run '^(TestJoinAgainstReference|TestSpillGivesTheSameGroups)$$' ./ops/join ./ops/aggregate
	bash scripts/parquet-corpus.sh

# TpchSuite and TpcdsTablesSuite read TPC-H and TPC-DS SF 0.01, TpchSmallPoolSuite TPC-H SF 0.1,
# ClusterSuite runs executors from Spark's distribution (each made once, cached under data/; the
# suites would make them too, this only keeps the one-time generator install and download outside
# of Surefire's output).
test-jvm: $(NATIVE_LIB) data/tpch/sf0.01/_COMPLETE data/tpch/sf0.1/_COMPLETE data/tpcds/sf0.01/_COMPLETE data/spark/spark-4.1.3/_COMPLETE
	mvn -B -ntp -f spark/pom.xml test
	$(MAKE) test-iceberg-latest

# The Iceberg suites again on the newest Iceberg release Maven Central serves (the pom's
# iceberg.version, 1.11.0, is the oldest supported).
ICEBERG_LATEST := 1.12.0
test-iceberg-latest: $(NATIVE_LIB) data/tpch/sf0.01/_COMPLETE
	mvn -B -ntp -f spark/pom.xml test -Diceberg.version=$(ICEBERG_LATEST) -Dbolide.build.dir=$(CURDIR)/spark/target/iceberg-$(ICEBERG_LATEST) \
	  -Dtest='IcebergScanSuite,TpchIcebergSuite,SparkChildrenSuite' -Dsurefire.failIfNoSpecifiedTests=false \
	  -Dbolide.ownSession.skip=true

# Differential fuzzing of the native functions against Spark (FuzzSuite; `make test` runs it for
# 60 s with a fixed seed): rounds that compare every native function once, whatever the time, then
# random rounds until the time is up. `make fuzz DURATION=30m [SEED=n]` runs longer with a fresh
# seed, which a difference reports so that SEED=n replays it.
DURATION ?= 10m
SEED ?=
fuzz: $(NATIVE_LIB)
	secs=$$(echo "$(DURATION)" | awk '/h$$/{print $$0*3600; next} /m$$/{print $$0*60; next} {print $$0+0}') && \
	seed="$(SEED)" && seed="$${seed:-$$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')}" && \
	mvn -B -ntp -f spark/pom.xml test -Dtest=FuzzSuite -Dbolide.ownSession.skip=true \
	  -Dbolide.fuzz.seconds=$$secs -Dbolide.fuzz.seed=$$seed

data/spark/spark-%/_COMPLETE:
	bash scripts/spark-dist.sh

# TPC-H Parquet at any scale factor: `make tpch-data SF=10` (scripts/tpch-data.sh, cached in data/tpch/).
tpch-data:
	bash scripts/tpch-data.sh $(SF)

data/tpch/sf%/_COMPLETE:
	bash scripts/tpch-data.sh $*

data/tpcds/sf%/_COMPLETE:
	bash scripts/tpcds-data.sh $*

test: test-go test-jvm test-bench-smoke

# Builds the jar, writes the demo's dataset (once, under data/), runs the demo queries with Bolide
# off and on through Spark local mode, prints plans, checks answers, prints times.
demo: $(JAR)
	bash scripts/run-demo.sh

# The speed check of the foundation: the demo queries over 20M rows (median of 5 after a warm-up,
# Bolide off and on in one process), peak RSS per engine in separate processes, the JNI boundary
# cost per batch, and the Go micro-benchmarks (compare runs with benchstat; the allocator's checking
# mode, on by default in test binaries, is off for them).
bench-demo: $(JAR)
	BOLIDE_BOUNDARY_BENCH=1 BOLIDE_DEMO_RSS=1 BOLIDE_DEMO_ROWS=$${ROWS:-20000000} \
	  BOLIDE_DEMO_RUNS=$${RUNS:-5} bash scripts/run-demo.sh
	cd native && BOLIDE_MEMCHECK=0 go test -run '^$$' -bench . -benchmem ./... | tee ../build/go-bench.txt

docs: $(JAR)
	bash scripts/gen-docs.sh

clean:
	rm -rf build dist spark/target

# TPC-H on vanilla Spark, Spark + Bolide and Spark + Apache DataFusion Comet:
# `make bench [SF=1] [FORMAT=parquet|iceberg] [ENGINES=spark,bolide,comet] [ITER=3] [QUERIES=q1,q6]`
# (bench-tpch is the same; FORMAT=iceberg reads Iceberg v2 copies of the tables, written once next to
# the data). `make bench-iceberg [SF=1]`: Iceberg scan throughput on lineitem (full scan and a
# filtered aggregate; plain Parquet, Iceberg v2, v2 with 5% positional deletes, v3 with deletion
# vectors; bench/iceberg-queries). One JVM per engine
# (bench/'s driver), queries alternating between engines, answers checked against Spark's. Writes
# bench/results/<timestamp>/{results.csv,summary.md,chart.png}. TPCH_DATA=dir skips the data script,
# TPCH_QUERIES=dir replaces tpch/queries. OFFHEAP=256m gives every engine (vanilla Spark included)
# that off-heap pool instead of 4g; summary.md's Spill section reports the bytes each engine spilled.
SF ?= 1
OFFHEAP ?= 4g
FORMAT ?= parquet
ENGINES ?= spark,bolide,comet
ITER ?= 3
QUERIES ?=
COMET_VERSION := 1.2.0
COMET_JAR := build/bench/comet-spark-spark4.1_2.13-$(COMET_VERSION).jar
BENCH_PY := build/bench/venv/bin/python
DUCKDB_VERSION := 2.0.0

.PHONY: bench bench-tpch bench-iceberg bench-scan bench-functions bench-prep bench-demo bench-memory bench-rows test-bench-smoke
bench: bench-tpch
bench-iceberg:
	TPCH_QUERIES=bench/iceberg-queries $(MAKE) --no-print-directory bench-tpch FORMAT=iceberg
bench-tpch: $(JAR) bench-prep
	DATA="$${TPCH_DATA:-$$(bash scripts/tpch-data.sh $(SF) | tail -1)}" && \
	{ [ -d "$$DATA/lineitem" ] || { echo "no TPC-H data in '$$DATA'" >&2; exit 1; }; } && \
	$(BENCH_PY) scripts/bench-tpch.py --sf $(SF) --engines $(ENGINES) --iter $(ITER) --queries-list "$(QUERIES)" --offheap $(OFFHEAP) \
	  --data "$$DATA" --queries "$${TPCH_QUERIES:-tpch/queries}" --classpath build/bench/classpath.txt \
	  --bolide-jar $(JAR) --comet-jar $(COMET_JAR) --comet-version $(COMET_VERSION) \
	  --format $(FORMAT) --out bench/results/$$(date +%Y%m%d-%H%M%S)
	@ln -sfn "$$(ls -1d bench/results/2* | tail -1 | xargs basename)" bench/results/latest
	@echo "results in bench/results/latest -> $$(readlink bench/results/latest)"

# What turning a native block's output into Spark rows costs: Spark's no-op writer over 8 lineitem
# columns, Bolide on and off alternated in one spark-shell (bench/rows/rows.scala; the Spark
# distribution of scripts/spark-dist.sh): `make bench-rows [SF=1] [RUNS=5]`.
bench-rows: $(JAR)
	SPARK_HOME="$$(bash scripts/spark-dist.sh | tail -1)" && \
	DATA="$${TPCH_DATA:-$$(bash scripts/tpch-data.sh $(SF) | tail -1)}" && \
	out=bench/results/rows-$$(date +%Y%m%d-%H%M%S) && mkdir -p $$out && \
	TPCH_DATA="$$DATA" RUNS=$${RUNS:-5} "$$SPARK_HOME/bin/spark-shell" --master 'local[2]' --driver-memory 4g \
	  --jars $(JAR) --conf spark.plugins=org.apache.spark.sql.bolide.BolidePlugin \
	  --conf spark.memory.offHeap.enabled=true --conf spark.memory.offHeap.size=2g --conf spark.ui.enabled=false --conf spark.ui.showConsoleProgress=false \
	  -I bench/rows/rows.scala > $$out/log.txt 2>&1 && \
	sed -n 's/^.*RESULT //p' $$out/log.txt | tee $$out/summary.md

# Single-thread CPU of lineitem's full decode, Q1 and Q6: Bolide's Go engine alone (the captured
# native blocks, replayed by native/cmd/replay), DuckDB from PyPI (threads=1), and Spark, Bolide and
# Comet at local[1] (scripts/bench-scan.py): `make bench-scan [SF=1] [ITER=3]`.
bench-scan: $(JAR) bench-prep
	cd native && go build -o $(CURDIR)/build/bench/replay ./cmd/replay
	@$(BENCH_PY) -c 'import duckdb, sys; sys.exit(duckdb.__version__ != "$(DUCKDB_VERSION)")' 2>/dev/null || \
	  $(BENCH_PY) -m pip install -q duckdb==$(DUCKDB_VERSION)
	DATA="$$(bash scripts/tpch-data.sh $(SF) | tail -1)" && \
	$(BENCH_PY) scripts/bench-scan.py --sf $(SF) --iter $(ITER) --data "$$DATA" \
	  --classpath build/bench/classpath.txt --bolide-jar $(JAR) --comet-jar $(COMET_JAR) \
	  --comet-version $(COMET_VERSION) --replay build/bench/replay --out bench/results/scan-$$(date +%Y%m%d-%H%M%S)
	@ln -sfn "$$(ls -1d bench/results/scan-2* | tail -1 | xargs basename)" bench/results/scan-latest
	@echo "results in bench/results/scan-latest -> $$(readlink bench/results/scan-latest)"

# 30 common functions (string, date, decimal, cast) over 10 million rows, vanilla Spark against
# Bolide (issue 11's speed goal): `make bench-functions [FN_ROWS=10000000] [ENGINES=spark,bolide] [ITER=3]`.
# The table is written once with DuckDB (scripts/functions-data.py) under data/functions/.
FN_ROWS ?= 10000000
bench-functions: ENGINES = spark,bolide
bench-functions: $(JAR) bench-prep
	@$(BENCH_PY) -c 'import duckdb, sys; sys.exit(duckdb.__version__ != "$(DUCKDB_VERSION)")' 2>/dev/null || \
	  $(BENCH_PY) -m pip install -q duckdb==$(DUCKDB_VERSION)
	@[ -f data/functions/$(FN_ROWS)/_COMPLETE ] || $(BENCH_PY) scripts/functions-data.py data/functions/$(FN_ROWS) $(FN_ROWS)
	$(BENCH_PY) scripts/bench-tpch.py --sf 1 --engines $(ENGINES) --iter $(ITER) --queries-list "" --offheap $(OFFHEAP) \
	  --data data/functions/$(FN_ROWS) --queries bench/function-queries --classpath build/bench/classpath.txt \
	  --bolide-jar $(JAR) --comet-jar $(COMET_JAR) --comet-version $(COMET_VERSION) \
	  --format parquet --out bench/results/functions-$$(date +%Y%m%d-%H%M%S)
	@ln -sfn "$$(ls -1d bench/results/functions-2* | tail -1 | xargs basename)" bench/results/functions-latest
	@echo "results in bench/results/functions-latest -> $$(readlink bench/results/functions-latest)"

# An executor's peak RSS against its budget (heap + off-heap pool), Bolide on and off: one JVM per
# engine and pool size over TPC-H queries that use memory (scripts/measure-rss.sh, docs/tuning.md
# "Sizing an executor"): `make bench-memory [SF=1] [HEAP=2g] [POOLS=512m,2g] [MEM_QUERIES=q1,q9,q18,q21,groupby-highcard]`.
# Writes bench/results/memory-<timestamp>/summary.md.
bench-memory: ENGINES = spark,bolide
bench-memory: $(JAR) bench-prep
	SF=$(SF) ENGINES=$(ENGINES) bash scripts/measure-rss.sh

# What every benchmark needs once: the bench driver compiled, Spark's classpath, Comet's JAR when
# comet is among the engines (or for bench-scan), and a Python venv with matplotlib.
bench-prep:
	@mkdir -p build/bench
	mvn -B -q -f bench/pom.xml compile
	@if [ ! -s build/bench/classpath.txt ] || [ bench/pom.xml -nt build/bench/classpath.txt ]; then \
	  mvn -B -q -f bench/pom.xml dependency:build-classpath -Dmdep.outputFile=$(CURDIR)/build/bench/classpath.txt >/dev/null; fi
	@if [[ ",$(ENGINES),$(MAKECMDGOALS)," == *,comet,* || ",$(MAKECMDGOALS)," == *bench-scan* ]] && [ ! -s $(COMET_JAR) ]; then \
	  mvn -B -q -f bench/pom.xml dependency:copy -Dartifact=org.apache.datafusion:comet-spark-spark4.1_2.13:$(COMET_VERSION) \
	    -DoutputDirectory=$(CURDIR)/build/bench; fi
	@test -x $(BENCH_PY) || python3 -m venv build/bench/venv
	@$(BENCH_PY) -c 'import matplotlib' 2>/dev/null || $(BENCH_PY) -m pip install -q matplotlib

# The smoke test of the benchmark (part of `make test`): SF 0.01, one iteration, all three engines;
# fails unless the three output files are there and every Bolide answer equals Spark's.
test-bench-smoke:
	$(MAKE) --no-print-directory bench SF=0.01 ITER=1 ENGINES=spark,bolide,comet QUERIES=
	python3 scripts/check-bench-results.py bench/results/latest
