#!/usr/bin/env bash
# Builds sigil for every platform a developer runs it on and vets every package (tests included) as that platform
# compiles it, so that code only one platform builds cannot break another unseen. cgo is off, as a cross compiler
# would be needed for it: go-ethereum and Sigil's keys then take their pure-Go secp256k1 path, which this checks too.
set -euo pipefail
cd "$(dirname "$0")/.."

platforms=(linux/amd64 linux/arm64 darwin/arm64 darwin/amd64 windows/amd64)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for platform in "${platforms[@]}"; do
  echo "--- $platform"
  export GOOS=${platform%/*} GOARCH=${platform#*/} CGO_ENABLED=0
  # vet first: it compiles every package the build needs with the same flags (no -trimpath), so the build after it
  # only links, and the linux/arm64 tests below reuse the packages too.
  go vet ./...
  go build -o "$out/sigil-$GOOS-$GOARCH" ./cmd/sigil
done
