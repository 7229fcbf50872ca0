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

.PHONY: all native jar test test-go test-jvm demo bench docs clean lint

all: $(JAR)

native: $(NATIVE_LIB)

$(NATIVE_LIB): $(GO_SOURCES)
	@mkdir -p $(NATIVE_DIR)
	cd native && go build -buildmode=c-shared -trimpath -o ../$(NATIVE_LIB) ./jni
	@rm -f $(NATIVE_DIR)/libbolide.h

$(JAR): $(NATIVE_LIB) $(SCALA_SOURCES)
	@mkdir -p dist
	$(MVN) -DskipTests package
	cp spark/target/bolide-spark4.1_2.13-$(VERSION).jar $(JAR)
	@echo "built $(JAR)"

jar: $(JAR)

lint:
	@test -z "$$(gofmt -l native)" || { echo "gofmt needed:"; gofmt -l native; exit 1; }
	cd native && go vet ./...

test-go: lint
	cd native && go test -race -count=1 ./...

test-jvm: $(NATIVE_LIB)
	mvn -B -ntp -f spark/pom.xml test

test: test-go test-jvm

# Builds the jar, writes the demo's dataset (once, under data/), runs the demo queries with Bolide
# off and on through Spark local mode, prints plans, checks answers, prints times.
demo: $(JAR)
	bash scripts/run-demo.sh

# The speed check of the foundation: the demo queries over 20M rows (median of 5 after a warm-up,
# Bolide off and on in one process), peak RSS per engine in separate processes, the JNI boundary
# cost per batch, and the Go micro-benchmarks (compare runs with benchstat).
bench: $(JAR)
	BOLIDE_BOUNDARY_BENCH=1 BOLIDE_DEMO_RSS=1 BOLIDE_DEMO_ROWS=$${ROWS:-20000000} \
	  BOLIDE_DEMO_RUNS=$${RUNS:-5} bash scripts/run-demo.sh
	cd native && go test -run '^$$' -bench . -benchmem ./... | tee ../build/go-bench.txt

docs: $(JAR)
	bash scripts/gen-docs.sh

clean:
	rm -rf build dist spark/target
