#!/usr/bin/env bash
# The whole test suite, as the README's `make test` runs it: it installs and starts what the tests need by itself
# (a throwaway PostgreSQL cluster, the conformance tests' npm packages), builds the sigil binary once, runs every Go
# test on both database backends, then drives a freshly started stack with the official TypeScript SDKs.
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
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

echo "==> building sigil"
go build -o bin/sigil ./cmd/sigil
export SIGIL_BIN="$root/bin/sigil"

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
go test -count=1 ./...

echo "==> the race detector over the packages whose goroutines share state (the store's committer, the workers, the engine, the proxy)"
go test -race -count=1 ./internal/store ./internal/webhook ./internal/send ./internal/coordinator ./internal/authproxy

echo "==> fuzzing the parsers briefly"
for target in internal/policy:FuzzParse internal/policy:FuzzEval internal/jsonstrict:FuzzDecode stamp:FuzzParseAPIKeyStamp stamp:FuzzP256TableVerify internal/solana:FuzzParseTransaction internal/solana:FuzzDecodeIDL internal/bitcoin:FuzzParse internal/tron:FuzzParse; do
  # Minimizing a new input may take a minute by default, and a worker busy minimizing when the 3 s are up stops late:
  # the engine then fails with "context deadline exceeded", having fuzzed next to nothing. 1 s of it is enough here.
  fuzz() { go test -run '^$' -fuzz "^${target#*:}\$" -fuzztime 3s -fuzzminimizetime 1s "./${target%%:*}" 2>&1; }
  # On a loaded machine the fuzzing engine may time out stopping its workers ("context deadline exceeded") without
  # having found anything: that run proves nothing either way, so it runs once more. A failing input always fails.
  if ! out=$(fuzz); then
    if grep -q "context deadline exceeded" <<<"$out" && ! grep -q "Failing input written" <<<"$out"; then
      out=$(fuzz) || { echo "$out"; exit 1; }
    else
      echo "$out"; exit 1
    fi
  fi
done

echo "==> the packaging files: Dockerfile, docker-compose.yml, systemd unit"
bash deploy/check.sh "$SIGIL_BIN"

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
  # Every service of the stack listens on a port the system picks; bootstrap.json records where.
  "$SIGIL_BIN" up --dir "$dir" --listen "127.0.0.1:$port" --chain-listen 127.0.0.1:0 --yield-listen 127.0.0.1:0 \
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
  (cd tests/compat && SIGIL_DIR="$dir" SIGIL_WEB_PORT="$web_port" SIGIL_WALLET_KIT_PORT="$kit_port" npm test --silent) || { echo "--- sigil up log ($name):"; tail -50 "$work/up-$name.log"; return 1; }
  echo "==> the agent journey: sigil demo yield ($name)"
  "$SIGIL_BIN" demo yield --dir "$dir" --cleanup || { echo "--- sigil up log ($name):"; tail -50 "$work/up-$name.log"; return 1; }
  echo "==> the agent journey, the coordinator sending: sigil demo yield --send ($name)"
  "$SIGIL_BIN" demo yield --dir "$dir" --cleanup --send || { echo "--- sigil up log ($name):"; tail -50 "$work/up-$name.log"; return 1; }
  kill "$stack" && wait "$stack" 2>/dev/null || true
}

compat sqlite ""
compat_url="${SIGIL_TEST_POSTGRES_URL%/postgres*}/sigil_compat?sslmode=disable"
psql "$SIGIL_TEST_POSTGRES_URL" -qc "CREATE DATABASE sigil_compat" >/dev/null
compat postgres "$compat_url"
echo "==> all tests passed"
