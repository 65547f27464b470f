#!/usr/bin/env bash
# The whole test suite, as the README's `make test` runs it: it installs and starts what the tests need by itself
# (a throwaway PostgreSQL cluster, the conformance tests' npm packages), builds the sigil binary once, runs every Go
# test on both database backends, then drives a freshly started stack with the official TypeScript SDKs.
#
# Every stage runs even when one before it failed, and adds a line to the tally: its name and how many checks ran,
# passed, failed and were skipped. The output ends with the tally and one line adding it up, so a reader (or CI) sees
# at once what the run covered; the command fails if any check did. A new stage is one line: `checks NAME COMMAND...`
# for a command that is one check, `go_tests NAME GO_TEST_ARGS...` for Go tests (each test and subtest counted).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d /tmp/sigil-test.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
  for p in "${pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  bash scripts/postgres.sh down "$work/pg" || true
  rm -rf "$work"
}
tally="$work/tally"
: >"$tally"
# record NAME RAN PASSED FAILED SKIPPED
record() { echo "$1 $2 $3 $4 $5" >>"$tally"; }
# Each stage's wall-clock seconds, beside the tally, so that a reader sees where the run's time goes.
times="$work/times"
: >"$times"
timed() { echo "$1 $2" >>"$times"; }
# checks NAME COMMAND...: a stage that is one check, passed when the command exits 0.
checks() {
  local name=$1 start=$SECONDS; shift
  if "$@"; then record "$name" 1 1 0 0; else echo "--- FAIL: $name"; record "$name" 1 0 1 0; fi
  timed "$name" $((SECONDS - start))
}
# go_tests NAME ARGS...: go test -json ARGS, printed briefly (a line a package, the output of what failed) and counted.
go_tests() {
  local name=$1 lines start=$SECONDS; shift
  lines=$(wc -l <"$tally")
  go test -json "$@" 2>&1 | python3 "$root/scripts/tally-go-test.py" "$tally" "$name" || true
  [ "$(wc -l <"$tally")" -gt "$lines" ] || record "$name" 1 0 1 0 # the counting itself failed
  timed "$name" $((SECONDS - start))
}
# node_tests NAME COMMAND...: a run of node's test runner, counted from the totals it prints last.
node_tests() {
  local name=$1 out="$work/node-$1.log" start=$SECONDS; shift
  local code=0
  "$@" 2>&1 | tee "$out" || code=$?
  python3 - "$out" "$tally" "$name" "$code" <<'PY'
import re, sys
out, tally, name, code = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
n = {}
for line in open(out, errors="replace"):
    m = re.match(r"^(?:#|\u2139) (tests|pass|fail|cancelled|skipped|todo) (\d+)$", line.strip())
    if m:
        n[m[1]] = int(m[2])
failed = n.get("fail", 0) + n.get("cancelled", 0)
if code and not failed:
    failed = 1  # the runner itself failed, or the stack under it
skipped = n.get("skipped", 0) + n.get("todo", 0)
passed = n.get("pass", 0)
open(tally, "a").write(f"{name} {passed + failed + skipped} {passed} {failed} {skipped}\n")
PY
  timed "$name" $((SECONDS - start))
}
summary() {
  [ -s "$tally" ] || return 0
  echo "==> summary"
  awk -v times="$times" -v total="$SECONDS" 'FILENAME == times { secs[$1] = $2; next }
       { printf "%-34s %6d ran %6d passed %4d failed %4d skipped %5ds\n", $1, $2, $3, $4, $5, secs[$1];
         r += $2; p += $3; f += $4; s += $5 }
       END { printf "%-34s %6d ran %6d passed %4d failed %4d skipped %5ds\n", "all stages", r, p, f, s, total;
             printf "tests: %d passed, %d failed, %d skipped\n", p, f, s }' "$times" "$tally"
}
# The tally is the last thing printed, after the clean-up's own messages.
on_exit() {
  local code=$? totals
  totals=$(summary)
  cleanup
  [ -z "$totals" ] || echo "$totals"
  exit "$code"
}
trap on_exit EXIT
failed() { awk '{ f += $4 } END { exit f > 0 ? 0 : 1 }' "$tally"; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# cgo off, as make build and the Dockerfile build the binary that ships: the tests run what is shipped, no C compiler
# runs, and every stage below (vet, staticcheck, the linux/amd64 cross-build, go test) shares one compilation of each
# package. The code that differs with cgo (libsecp256k1 through go-ethereum) has a stage of its own, as has the race
# detector, which needs cgo.
export CGO_ENABLED=0
echo "==> building sigil"
go build -o bin/sigil ./cmd/sigil
export SIGIL_BIN="$root/bin/sigil"

# --- platform stages: static checks, the five platforms, the platform-specific code's tests on linux/arm64 ---
echo "==> static checks: gofmt, go vet, staticcheck (scripts/static.sh)"
checks "static-checks" bash scripts/static.sh
echo "==> cross-building sigil and vetting every package for linux/amd64, linux/arm64, darwin/arm64, darwin/amd64, windows/amd64"
checks "cross-build-and-vet" bash scripts/crossbuild.sh
echo "==> the code that differs between platforms (durability, the data directory's lock, CPU time) tested as linux/arm64 builds it, under qemu"
# Its raw system calls differ between architectures. macOS and Windows have no emulator that runs Go 1.26 programs
# here (Debian's Wine lacks the bcryptprimitives.dll the runtime needs): their builds are vetted above.
if ! command -v qemu-aarch64-static >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user-static >/dev/null ||
    { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user-static >/dev/null; }
fi
# TestAcknowledgedWritesSurviveAKill starts its own binary again, which the kernel runs natively only: it is not here.
GOOS=linux GOARCH=arm64 CGO_ENABLED=0 go_tests "linux-arm64" -count=1 -exec qemu-aarch64-static \
  -run 'TestCountsWorkNotWaiting|TestReadsWaitForTheSyncOfWhatTheySee|TestSlowSyncsGoThroughTheScheduler|TestSyncFollowsTheLogFile|TestDataDirectoryLock' \
  ./internal/cputime ./internal/store ./internal/stack
# --- end of the platform stages ---

echo "==> starting PostgreSQL"
export SIGIL_TEST_POSTGRES_URL=$(bash scripts/postgres.sh up "$work/pg" "$(free_port)")

echo "==> installing the conformance tests' npm packages, and the wallet-kit example's"
(cd tests/compat && npm ci --no-audit --no-fund --loglevel=error)
(cd examples/wallet-kit && npm ci --no-audit --no-fund --loglevel=error)
if ! command -v chromium >/dev/null; then
  echo "==> installing Debian's chromium for the dashboard's browser test"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null
fi

echo "==> go test ./... (SQLite and PostgreSQL)"
# Go tests that check Sigil against an official SDK (webhook signatures) must find it installed above.
export SIGIL_REQUIRE_SDKS=1
# go test's default limit of 10 minutes a package is a machine-speed assumption: on a loaded 2-core machine the
# coordinator's tests alone have taken longer. An hour a package still stops a test that hangs.
#
# The packages whose goroutines share state (the store's committer, the workers, the engine, the proxy) run under the
# race detector. The coordinator's tests, the longest, run once on each backend: on PostgreSQL here, on SQLite under
# the race detector below (SIGIL_TEST_BACKENDS, internal/testdb); the engine's goroutines are the same on both.
race_packages=(./internal/store ./internal/webhook ./internal/send ./internal/authproxy)
mapfile -t plain_packages < <(go list ./... | grep -v -x -F -e "$(go list -m)/internal/coordinator" $(printf -- "-e $(go list -m)/%s " "${race_packages[@]#./}"))
go_tests "go-test" -count=1 -timeout 60m "${plain_packages[@]}"
SIGIL_TEST_BACKENDS=postgres go_tests "go-test-coordinator-postgres" -count=1 -timeout 60m ./internal/coordinator

echo "==> the race detector over the packages whose goroutines share state (the store's committer, the workers, the engine, the proxy)"
CGO_ENABLED=1 go_tests "go-test-race" -race -count=1 -timeout 60m "${race_packages[@]}"
SIGIL_TEST_BACKENDS=sqlite CGO_ENABLED=1 go_tests "go-test-race-coordinator-sqlite" -race -count=1 -timeout 60m ./internal/coordinator

echo "==> the packages whose code differs with cgo (signing and verifying secp256k1 through libsecp256k1), built with it"
CGO_ENABLED=1 go_tests "go-test-cgo" -count=1 ./internal/keys ./stamp

echo "==> fuzzing the parsers briefly"
for target in internal/policy:FuzzParse internal/policy:FuzzEval internal/jsonstrict:FuzzDecode stamp:FuzzParseAPIKeyStamp stamp:FuzzP256TableVerify internal/solana:FuzzParseTransaction internal/solana:FuzzDecodeIDL internal/bitcoin:FuzzParse internal/tron:FuzzParse; do
  # Minimizing a new input may take a minute by default, and a worker busy minimizing when the 3 s are up stops late:
  # the engine then fails with "context deadline exceeded", having fuzzed next to nothing. 1 s of it is enough here.
  fuzz() { go test -run '^$' -fuzz "^${target#*:}\$" -fuzztime 3s -fuzzminimizetime 1s "./${target%%:*}" 2>&1; }
  # On a loaded machine the fuzzing engine may time out stopping its workers ("context deadline exceeded") without
  # having found anything: that run proves nothing either way, so it runs once more. A failing input always fails.
  fuzz_once() {
    if ! out=$(fuzz); then
      if grep -q "context deadline exceeded" <<<"$out" && ! grep -q "Failing input written" <<<"$out"; then
        out=$(fuzz) || { echo "$out"; return 1; }
      else
        echo "$out"; return 1
      fi
    fi
  }
  checks "fuzz:$target" fuzz_once
done

echo "==> the packaging files: Dockerfile, docker-compose.yml, systemd unit"
checks "packaging" bash deploy/check.sh "$SIGIL_BIN"

echo "==> starting the local OIDC provider of the OAuth conformance tests"
go build -o "$work/oidcprovider" ./tests/compat/oidcprovider
"$work/oidcprovider" >"$work/oidcprovider.url" & pids+=($!)
for _ in $(seq 1 50); do [ -s "$work/oidcprovider.url" ] && break; sleep 0.1; done
export SIGIL_OIDC_PROVIDER_URL=$(head -1 "$work/oidcprovider.url")

# compat BACKEND: start a stack on that backend and run the official SDKs against it.
compat() {
  local name=$1 dburl=$2 dir="$work/stack-$1" port web_port kit_port
  port=$(free_port)
  web_port=$(free_port) # sigil demo web's, for the web login test: the coordinator allows its origin
  kit_port=$(free_port) # the wallet-kit example's, on localhost: a passkey's relying party is a host name
  # Every service of the stack listens on a port the system picks; bootstrap.json records where. Earn's reward roots
  # come every two minutes of chain time, which the Earn test jumps over; the MCP test jumps over a staking cooldown (a
  # jump of hours would put the chain past the hour-long deadline of every later sponsored batch, which the server's
  # clock sets).
  "$SIGIL_BIN" up --dir "$dir" --listen "127.0.0.1:$port" --chain-listen 127.0.0.1:0 --yield-listen 127.0.0.1:0 --chain-reward-period 2m \
    --allowed-origins "http://127.0.0.1:$web_port,http://localhost:$kit_port" \
    --authproxy-listen 127.0.0.1:0 --dashboard-listen 127.0.0.1:0 --solana-listen 127.0.0.1:0 --frames-listen 127.0.0.1:0 \
    --trusted-oidc-issuer "$SIGIL_OIDC_PROVIDER_URL" --oauth2-provider "OAUTH2_PROVIDER_X=$SIGIL_OIDC_PROVIDER_URL/token,$SIGIL_OIDC_PROVIDER_URL/2/users/me,data.id" \
    ${dburl:+--database-url "$dburl"} >"$work/up-$name.log" 2>&1 &
  local stack=$!
  pids+=($stack)
  for _ in $(seq 1 600); do
    curl -fsS --max-time 5 "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    sleep 0.1
  done
  echo "==> conformance tests with the official SDKs ($name)"
  local before
  before=$(failed && echo yes || echo no)
  node_tests "sdk-conformance-$name" env -C tests/compat SIGIL_DIR="$dir" SIGIL_WEB_PORT="$web_port" SIGIL_WALLET_KIT_PORT="$kit_port" npm test --silent
  echo "==> the agent journey: sigil demo yield ($name)"
  checks "demo-yield-$name" "$SIGIL_BIN" demo yield --dir "$dir" --cleanup
  echo "==> the agent journey, the coordinator sending: sigil demo yield --send ($name)"
  checks "demo-yield-send-$name" "$SIGIL_BIN" demo yield --dir "$dir" --cleanup --send
  echo "==> the agent journey's second chapter: sigil demo borrow ($name)"
  checks "demo-borrow-$name" "$SIGIL_BIN" demo borrow --dir "$dir" --cleanup
  # --- platform stage: the Go SDK, imported by its path from a module of its own, signs a transaction ---
  echo "==> the Go SDK from another module: tests/sdkmodule ($name)"
  checks "sdk-module-$name" env -C tests/sdkmodule SIGIL_DIR="$dir" go test -count=1 ./...
  if [ "$before" = no ] && failed; then echo "--- sigil up log ($name):"; tail -50 "$work/up-$name.log"; fi
  kill "$stack" && wait "$stack" 2>/dev/null || true
}

compat sqlite ""
compat_url="${SIGIL_TEST_POSTGRES_URL%/postgres*}/sigil_compat?sslmode=disable"
psql "$SIGIL_TEST_POSTGRES_URL" -qc "CREATE DATABASE sigil_compat" >/dev/null
compat postgres "$compat_url"
if failed; then
  echo "==> some tests failed"
  exit 1
fi
echo "==> all tests passed"
