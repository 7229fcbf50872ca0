#!/usr/bin/env bash
# A Spark distribution (a Spark home with bin/ and jars/), downloaded and unpacked once and cached:
#
#   scripts/spark-dist.sh          # prints the Spark home directory as its last stdout line
#
# The cluster suite (spark/src/test/scala/.../cluster/ClusterSuite.scala) needs one: the executors of
# Spark's local-cluster master are separate JVMs that a worker launches with the jars of
# $SPARK_HOME/jars. The only network sources are PyPI, Maven Central, Debian and the Go proxy, so the
# distribution is PyPI's pyspark source distribution of exactly the Spark version spark/pom.xml
# compiles against (pyspark-<version>.tar.gz, ~455 MB, with the distribution's bin/, jars/ and
# sbin/ under deps/). It is fetched with `pip download --no-deps` (pip's own HTTP cache may serve a
# repeat download); only those three folders and pyspark's version file are unpacked, to
# data/spark/spark-<version>/ (~460 MB), and the tarball is deleted. The version is checked twice:
# pyspark/version.py and the spark-core jar's name must both say spark/pom.xml's spark.version.
# A second run finds the _COMPLETE marker and only prints the directory.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

VERSION=$(sed -n 's:.*<spark.version>\(.*\)</spark.version>.*:\1:p' spark/pom.xml | head -1)
[[ $VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "cannot read spark.version from spark/pom.xml (got '$VERSION')" >&2; exit 1; }

OUT=$ROOT/data/spark/spark-$VERSION
MARKER=$OUT/_COMPLETE

# The unpacked home is Spark $VERSION: pyspark's version file and the spark-core jar agree on it.
check() {
  local dir=$1
  [ -x "$dir/bin/spark-class" ] || { echo "no bin/spark-class in $dir" >&2; return 1; }
  ls "$dir/jars/spark-core_"*"-$VERSION.jar" >/dev/null 2>&1 ||
    { echo "no spark-core jar of version $VERSION in $dir/jars: $(ls "$dir/jars" | grep spark-core || true)" >&2; return 1; }
  local v
  v=$(sed -n "s/^__version__[^\"']*[\"']\([^\"']*\)[\"'].*/\1/p" "$dir/python-version.py" 2>/dev/null)
  [ "$v" = "$VERSION" ] || { echo "pyspark version in $dir is '$v', expected $VERSION" >&2; return 1; }
  [ "$(ls "$dir/jars"/*.jar | wc -l)" -gt 100 ] || { echo "too few jars in $dir/jars" >&2; return 1; }
}

if [ -f "$MARKER" ] && check "$OUT"; then echo "$OUT"; exit 0; fi

mkdir -p "$ROOT/data/spark"
# One download at a time (a make target and the JVM suite may race).
exec 9>"$ROOT/data/spark/.lock"
flock 9
if [ -f "$MARKER" ] && check "$OUT"; then echo "$OUT"; exit 0; fi

command -v python3 >/dev/null && python3 -m pip --version >/dev/null 2>&1 ||
  { echo "python3 with pip is needed to download pyspark==$VERSION from PyPI" >&2; exit 1; }

DL=$ROOT/data/spark/download-$VERSION
TMP=$OUT.tmp
# A download left by an interrupted run is reused (pip checks it against PyPI's hash).
rm -rf "$TMP" "$OUT"
mkdir -p "$DL" "$TMP"
echo "downloading pyspark==$VERSION (the Spark $VERSION distribution, ~455 MB) from PyPI into $DL" >&2
start=$SECONDS
python3 -m pip download --quiet --disable-pip-version-check --no-deps --no-binary=:all: \
  --dest "$DL" "pyspark==$VERSION" >&2
SDIST=$DL/pyspark-$VERSION.tar.gz
[ -f "$SDIST" ] || { echo "pip downloaded no $SDIST: $(ls "$DL")" >&2; exit 1; }
echo "downloaded $(du -h "$SDIST" | cut -f1) in $((SECONDS - start)) s; unpacking" >&2
# The sdist keeps the distribution's parts under deps/ (setup.py links them into pyspark/ when it
# builds a wheel): deps/bin, deps/jars and deps/sbin become the Spark home's bin, jars and sbin.
# Naming a directory extracts everything under it.
tar -xzf "$SDIST" -C "$TMP" --strip-components=2 \
  "pyspark-$VERSION/deps/bin" "pyspark-$VERSION/deps/jars" "pyspark-$VERSION/deps/sbin" \
  "pyspark-$VERSION/pyspark/version.py"
mv "$TMP/version.py" "$TMP/python-version.py"
chmod +x "$TMP"/bin/* 2>/dev/null || true
check "$TMP" || { echo "the unpacked distribution in $TMP is not Spark $VERSION (left there)" >&2; exit 1; }
printf 'source pyspark==%s (PyPI sdist)\nversion %s\nseconds %s\n' \
  "$VERSION" "$VERSION" "$((SECONDS - start))" >"$TMP/_COMPLETE"
mv "$TMP" "$OUT"
rm -rf "$DL"
echo "Spark $VERSION in $OUT ($(du -sh "$OUT" | cut -f1), $((SECONDS - start)) s)" >&2
echo "$OUT"
