.PHONY: up test build bench

# Run the whole stack with embedded defaults (SQLite, in ./.sigil), from bin/sigil: built on the first run, and again
# only when the sources change (README: Start-up).
up: build
	bin/sigil up

# Run the whole test suite: it installs and starts what it needs (PostgreSQL, npm packages).
test:
	bash scripts/test.sh

# cgo off: no C compiler runs (libsecp256k1 and the dev chain database's zstd would be compiled, 23 % of a first
# build's CPU: docs/benchmarks/2026-12-01-platform.md), and the binary is the one the Dockerfile builds. go build
# relinks only when something changed.
build:
	CGO_ENABLED=0 go build -o bin/sigil ./cmd/sigil

bench:
	go run ./cmd/sigil bench
