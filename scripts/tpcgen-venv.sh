#!/usr/bin/env bash
# The data generators' Python tools, installed once from PyPI and cached:
#
#   scripts/tpcgen-venv.sh         # prints the venv directory (bin/tpcgen-cli, bin/python)
#
# tpcgen-cli (the TPC-H and TPC-DS generator of datafusion-contrib/tpcgen-rs: prebuilt wheels for
# manylinux x86-64 and aarch64, no Rust toolchain) and pyarrow (for scripts/tpch-check-q1.py), in
# a venv at $BOLIDE_TOOLS/tpcgen-cli-<version>/ (default ~/.cache/bolide/tools: outside the
# checkout, so fresh clones on the same machine, CI's among them, reuse it; seconds to install).
# Callers hold their own lock; this one serializes installs.
set -euo pipefail

GENERATOR=tpcgen-cli
GENERATOR_VERSION=4.0.0
PYARROW_VERSION=26.0.1
PINS="$GENERATOR==$GENERATOR_VERSION pyarrow==$PYARROW_VERSION"
BASE=${BOLIDE_TOOLS:-$HOME/.cache/bolide/tools}
TOOLS=$BASE/$GENERATOR-$GENERATOR_VERSION

installed() { [ "$(cat "$TOOLS/.installed" 2>/dev/null)" = "$PINS" ] && [ -x "$TOOLS/bin/python" ] && [ -x "$TOOLS/bin/$GENERATOR" ]; }

if ! installed; then
  mkdir -p "$BASE"
  exec 8>"$BASE/.$GENERATOR.lock"
  flock 8
  if ! installed; then
    if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
      echo "python3 with venv and pip is needed (Debian: python3 python3-venv python3-pip), or run .ci/run" >&2
      exit 1
    fi
    echo "installing $PINS from PyPI into $TOOLS (once)" >&2
    start=$SECONDS
    rm -rf "$TOOLS.tmp"
    python3 -m venv "$TOOLS.tmp"
    # The venv is complete once .installed lists the pins (written last, then the folder is moved
    # into place). Only bin/python and the generator binary are run from it: pip's own scripts
    # name the tmp folder.
    # shellcheck disable=SC2086  # PINS is a list of requirements
    "$TOOLS.tmp/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=:all: $PINS >&2
    echo "$PINS" >"$TOOLS.tmp/.installed"
    rm -rf "$TOOLS" && mv "$TOOLS.tmp" "$TOOLS"
    echo "installed $GENERATOR in $((SECONDS - start)) s" >&2
  fi
fi
echo "$TOOLS"
