#!/usr/bin/env bash
# Starts (up DIR PORT) or stops (down DIR) a throwaway PostgreSQL cluster for the tests, installing Debian's
# postgresql package when it is missing. initdb refuses to run as root, so the cluster runs as the postgres user.
set -euo pipefail

pg_bin() {
  local initdb
  initdb=$(command -v initdb || ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n1 || true)
  if [ -z "$initdb" ]; then
    echo "postgres.sh: installing PostgreSQL from Debian's packages" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq postgresql >/dev/null
    initdb=$(ls /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n1)
  fi
  dirname "$(readlink -f "$initdb")"
}

as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "${1:-}" in
up)
  dir=$2 port=$3
  bin=$(pg_bin)
  rm -rf "$dir"; mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
  as_postgres "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 >/dev/null
  as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >/dev/null
  echo "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
  ;;
down)
  dir=$2
  bin=$(pg_bin)
  [ -d "$dir/data" ] && as_postgres "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
  ;;
*)
  echo "usage: postgres.sh up DIR PORT | down DIR" >&2; exit 2 ;;
esac
