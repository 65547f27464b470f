.PHONY: up test build bench

# Run the whole stack with embedded defaults (SQLite, in ./.sigil).
up:
	go run ./cmd/sigil up

# Run the whole test suite: it installs and starts what it needs (PostgreSQL, npm packages).
test:
	bash scripts/test.sh

build:
	go build -o bin/sigil ./cmd/sigil

bench:
	go run ./cmd/sigil bench
