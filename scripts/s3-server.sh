#!/usr/bin/env bash
# A real S3-compatible server for tests: versitygw (github.com/versity/versitygw), an S3 gateway
# whose posix backend serves a local directory (top-level directories are buckets, files below
# them objects). Chosen because it is Go from the Go module proxy, built by the toolchain that
# builds the engine: no Docker, no Python, no download site besides the proxy CI already uses.
# (moto's server, pip-installed, is the fallback if it ever stops building.) It stays out of
# native/go.mod, whose module graph is the engine's.
#
#   scripts/s3-server.sh install       # builds the binary once, prints its path
#   S3_ACCESS_KEY=k S3_SECRET_KEY=s scripts/s3-server.sh start DIR
#                                      # serves DIR/data on 127.0.0.1:<free port>, prints the
#                                      # endpoint (also in DIR/endpoint; pid in DIR/pid, log in DIR/log,
#                                      # object metadata in DIR/meta: sidecar files, not xattrs, so
#                                      # any file system will do)
#   scripts/s3-server.sh stop DIR      # stops the server started with DIR
#
# The credentials are the gateway's root account; they go to it through its environment, never
# its command line (which ps shows). The binary is cached in $BOLIDE_TOOLS/versitygw-<version>/
# (default ~/.cache/bolide/tools, outside the checkout, so worktrees and fresh clones share it;
# about a minute to build once). native/objstore's tests run `install` and start the binary
# themselves.
set -euo pipefail

VERSION=v1.8.0
BASE=${BOLIDE_TOOLS:-$HOME/.cache/bolide/tools}
TOOLS=$BASE/versitygw-$VERSION
BIN=$TOOLS/versitygw

install() {
  [ -x "$BIN" ] && return
  mkdir -p "$BASE"
  # In a subshell, so the lock's descriptor is not inherited by a gateway started afterwards.
  (
    flock 8
    [ -x "$BIN" ] && exit 0
    command -v go >/dev/null || { echo "s3-server.sh: go is needed to build versitygw" >&2; exit 1; }
    echo "building versitygw $VERSION from the Go module proxy into $TOOLS (once)" >&2
    start=$SECONDS
    rm -rf "$TOOLS.tmp" && mkdir -p "$TOOLS.tmp"
    # Outside any module (go install pkg@version ignores the current one anyway), with the
    # caller's GOFLAGS cleared: -mod=... is refused in this mode.
    if ! (cd "$TOOLS.tmp" && GOFLAGS= GOWORK=off GOBIN="$TOOLS.tmp" nice -n 19 \
        go install -trimpath -ldflags='-s -w' "github.com/versity/versitygw/cmd/versitygw@$VERSION" >&2); then
      echo "s3-server.sh: could not build versitygw $VERSION (is the Go module proxy reachable? GOPROXY=$(go env GOPROXY))" >&2
      rm -rf "$TOOLS.tmp"
      exit 1
    fi
    rm -rf "$TOOLS" && mv "$TOOLS.tmp" "$TOOLS"
    echo "built versitygw in $((SECONDS - start)) s" >&2
  ) 8>"$BASE/.versitygw.lock"
}

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start() {
  local dir=${1:?usage: s3-server.sh start DIR}
  : "${S3_ACCESS_KEY:?S3_ACCESS_KEY (the root access key id) is needed}"
  : "${S3_SECRET_KEY:?S3_SECRET_KEY (the root secret key) is needed}"
  install
  mkdir -p "$dir/data" "$dir/meta"
  dir=$(cd "$dir" && pwd)
  if [ -f "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
    echo "s3-server.sh: a server of $dir runs already (pid $(cat "$dir/pid"))" >&2
    exit 1
  fi
  local attempt port pid
  for attempt in 1 2 3 4 5; do
    # A random port nobody listens on; if another process takes it first, the gateway exits and
    # the next attempt picks another.
    port=$((20000 + RANDOM % 40000))
    listening "$port" && continue
    ROOT_ACCESS_KEY_ID=$S3_ACCESS_KEY ROOT_SECRET_ACCESS_KEY=$S3_SECRET_KEY \
      "$BIN" --port "127.0.0.1:$port" --quiet posix --sidecar "$dir/meta" "$dir/data" >"$dir/log" 2>&1 &
    pid=$!
    for _ in $(seq 100); do
      kill -0 "$pid" 2>/dev/null || break
      if listening "$port"; then
        sleep 0.1
        if kill -0 "$pid" 2>/dev/null; then
          echo "$pid" >"$dir/pid"
          echo "http://127.0.0.1:$port" | tee "$dir/endpoint"
          return
        fi
      fi
      sleep 0.1
    done
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  echo "s3-server.sh: versitygw did not start; its log ($dir/log):" >&2
  cat "$dir/log" >&2
  exit 1
}

stop() {
  local dir=${1:?usage: s3-server.sh stop DIR}
  [ -f "$dir/pid" ] || return 0
  local pid
  pid=$(cat "$dir/pid")
  if kill "$pid" 2>/dev/null; then
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$dir/pid" "$dir/endpoint"
}

case "${1:-}" in
  install) install; echo "$BIN" ;;
  start) start "${2:-}" ;;
  stop) stop "${2:-}" ;;
  *) echo "usage: s3-server.sh install | start DIR | stop DIR" >&2; exit 2 ;;
esac
