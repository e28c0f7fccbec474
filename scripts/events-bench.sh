#!/usr/bin/env bash
# Events benchmark (docs/performance.md, "Events"): one debtql process with
# 1,000 idle subscriptions (resident memory per subscription), the latency
# from an event's creation to its arrival at every subscriber at 200
# changes a second, and how fast one process sends 3,000 queued webhook
# deliveries to a local receiver. Builds debtql and the driver
# (scripts/events-bench), runs them on a throwaway database on DATABASE_URL's
# server (default the local PostgreSQL), and drops it at the end.
#
#   scripts/events-bench.sh [driver flags]   e.g. --subscriptions 500 --rate 100
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
url="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
tmp="$(mktemp -d -t debtql-events-bench.XXXXXX)"
db="debtql_events_bench_$$"
cleanup() {
  psql -Xq "$url" -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
(cd "$root" && go build -o "$tmp/debtql" ./cmd/debtql && go build -o "$tmp/bench" ./scripts/events-bench)
psql -Xq "$url" -c "CREATE DATABASE \"$db\"" >/dev/null
base="${url%%\?*}"
ulimit -n 8192 2>/dev/null || true
"$tmp/bench" --server-bin "$tmp/debtql" --dsn "${base%/*}/$db" --server-log "$tmp/server.log" "$@"
