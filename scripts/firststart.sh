#!/usr/bin/env bash
# What the first start of the dev stack costs on this machine, from a clean checkout of revision REV with an empty
# module cache and an empty build cache, as a new user's first `make up` finds them:
#
#   scripts/firststart.sh REV gorun|make OUT
#
# gorun starts it as `go run ./cmd/sigil up` (the Makefile before the build went to bin/sigil), make as `make up` now
# does (`CGO_ENABLED=0 go build -o bin/sigil ./cmd/sigil`, then `bin/sigil up`). The phases are timed apart, as a
# first start runs them: the module download (what the build needs, through the module proxy), the build, the start
# until the coordinator answers /healthz; then a later start (warm caches, the same data directory) and a start of the
# built binary on a new data directory (no compile: what running a built image or a copied binary costs). Each
# phase's wall seconds, CPU seconds and megabytes go to OUT as lines of `phase wall cpu MB`.
set -euo pipefail
rev=$1 how=$2 out=$3
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/sigil-firststart.XXXXXX)
stack=
cleanup() {
  [ -z "$stack" ] || { kill "$stack" 2>/dev/null; wait "$stack" 2>/dev/null || true; }
  chmod -R u+w "$work" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

export GOMODCACHE="$work/mod" GOCACHE="$work/cache" GOFLAGS=-modcacherw GOTOOLCHAIN=local
src="$work/src"
mkdir -p "$src"
git -C "$repo" archive "$rev" | tar -x -C "$src"
cd "$src"
if [ "$how" = make ]; then export CGO_ENABLED=0; fi
: >"$out"

# timed NAME MB_DIR COMMAND...: runs COMMAND, records its wall and CPU seconds (children included) and MB_DIR's size.
timed() {
  local name=$1 dir=$2 t0 t1 c0 c1; shift 2
  cpu_seconds; c0=$cpu; t0=$(date +%s.%N)
  "$@" >"$work/$name.log" 2>&1 || { echo "$name failed:"; tail -20 "$work/$name.log"; exit 1; }
  t1=$(date +%s.%N); cpu_seconds; c1=$cpu
  echo "$name $(echo "$t1 - $t0" | bc) $(echo "$c1 - $c0" | bc) $(mb "$dir")" | tee -a "$out"
}
# cpu_seconds sets cpu to the CPU seconds this script's finished children have used (times runs in this shell: in a
# $(...) it would count a subshell's children, which are none).
cpu_seconds() {
  times >"$work/times"
  cpu=$(tail -1 "$work/times" | awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%.2f\n", u[1]*60 + u[2] + s[1]*60 + s[2] }')
}
mb() { if [ -e "$1" ]; then du -sm "$1" | cut -f1; else echo 0; fi; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# start NAME BINARY DIR: starts the stack from BINARY on data directory DIR; records the seconds until /healthz answers.
start() {
  local name=$1 bin=$2 dir=$3 port t0 t1 extra=()
  port=$(free_port)
  "$bin" up --help 2>&1 | grep -q -- -frames-listen && extra=(--frames-listen 127.0.0.1:0)
  t0=$(date +%s.%N)
  "$bin" up --dir "$dir" --listen "127.0.0.1:$port" --chain-listen 127.0.0.1:0 --yield-listen 127.0.0.1:0 \
    --authproxy-listen 127.0.0.1:0 --dashboard-listen 127.0.0.1:0 --solana-listen 127.0.0.1:0 "${extra[@]}" \
    >"$work/$name.log" 2>&1 &
  stack=$!
  until curl -fsS --max-time 5 "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; do
    kill -0 "$stack" 2>/dev/null || { echo "$name: the stack exited:"; tail -20 "$work/$name.log"; exit 1; }
    sleep 0.1
  done
  t1=$(date +%s.%N)
  echo "$name $(echo "$t1 - $t0" | bc) - $(mb "$dir")" | tee -a "$out"
  kill "$stack"; wait "$stack" 2>/dev/null || true; stack=
}

# The modules the build needs: go list loads every package sigil links, downloading the modules that hold them.
timed download "$GOMODCACHE" go list -deps ./cmd/sigil
echo "download-zips - - $(find "$GOMODCACHE/cache/download" -name '*.zip' -printf '%s\n' | awk '{ s += $1 } END { printf "%d", s / 1048576 }')" | tee -a "$out"
# go run builds the binary, caches it and runs it (sigil help, which exits at once, stands for the command here; the
# stack is then started from a copy of the same build). make builds bin/sigil.
if [ "$how" = gorun ]; then
  timed build "$GOCACHE" go run ./cmd/sigil help
  go build -o bin/sigil ./cmd/sigil
else
  timed build "$GOCACHE" go build -o bin/sigil ./cmd/sigil
fi
echo "binary - - $(mb bin/sigil)" | tee -a "$out"
start first-start bin/sigil "$work/data"
# A later start's compile, with warm caches and nothing changed: go run checks the build and runs the executable it
# cached; make's go build relinks nothing.
if [ "$how" = gorun ]; then
  timed later-build "$GOCACHE" go run ./cmd/sigil help
else
  timed later-build "$GOCACHE" go build -o bin/sigil ./cmd/sigil
fi
start later-start bin/sigil "$work/data"
start no-compile-start bin/sigil "$work/data2"
