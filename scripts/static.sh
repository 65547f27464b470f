#!/usr/bin/env bash
# The static checks of the test command, each clean or failing: gofmt, go vet, and staticcheck at a pinned version,
# fetched through the Go module proxy (its checksum verified against go.sum's database, as any module's). staticcheck
# runs for this machine's platform, and for macOS and Windows over the packages that have files of their own there.
set -euo pipefail
cd "$(dirname "$0")/.."

staticcheck_version=v0.8.2

files=$(git ls-files -co --exclude-standard '*.go' | grep -v '/node_modules/')
unformatted=$(gofmt -l $files)
if [ -n "$unformatted" ]; then
  echo "gofmt: not formatted (run gofmt -w on them):"
  echo "$unformatted"
  exit 1
fi

go vet ./...
(cd tests/sdkmodule && go vet ./...)

tools="${XDG_CACHE_HOME:-$HOME/.cache}/sigil-tools/staticcheck-$staticcheck_version"
if [ ! -x "$tools/staticcheck" ]; then
  GOBIN="$tools" go install "honnef.co/go/tools/cmd/staticcheck@$staticcheck_version"
fi
"$tools/staticcheck" ./...
# The packages with files for some platforms only, checked as macOS and Windows build them.
platform_packages=$(git ls-files '*_linux.go' '*_unix.go' '*_windows.go' '*_darwin.go' '*_other.go' '*_other_test.go' |
  xargs -n1 dirname | sort -u | sed 's|^|./|')
for goos in darwin windows; do
  GOOS=$goos GOARCH=amd64 CGO_ENABLED=0 "$tools/staticcheck" $platform_packages
done
# The code that builds only with cgo (libsecp256k1 through go-ethereum), when the test command turned cgo off.
if [ "$(go env CGO_ENABLED)" = 0 ] && command -v gcc >/dev/null; then
  CGO_ENABLED=1 "$tools/staticcheck" ./internal/keys ./stamp
fi
