# Settings of the benchmark harness, sourced by every script in bench/ and by
# scripts/bench.sh: `. bench/env.sh`. Each value may be set in the
# environment first, so a second cluster or port needs no edit.

BENCH_DIR="${BENCH_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}"

# The cluster is thrown away after the runs: it lives in /tmp and never
# shares a port or a data directory with the system's PostgreSQL (5432).
PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
PGDATA_BENCH="${PGDATA_BENCH:-/tmp/benchpg}"
PGLOG_BENCH="${PGLOG_BENCH:-/tmp/benchpg.log}"
PGSOCK_BENCH="${PGSOCK_BENCH:-/tmp/benchpg-sock}"
# PostgreSQL will not run as root; as root the cluster runs as this user
# (the Debian package creates it).
PG_OS_USER="${PG_OS_USER:-postgres}"

export PGHOST="${PGHOST:-127.0.0.1}"
export PGPORT="${PGPORT:-55432}"
export PGUSER="${PGUSER:-bench}"
# The anchor's database at scale 1; scale s > 1 lives in debtbench<s>.
export PGDATABASE="${PGDATABASE:-debtbench}"
export DATABASE_URL="${DATABASE_URL:-postgres://${PGUSER}@${PGHOST}:${PGPORT}/${PGDATABASE}}"

# PostGraphile, the anchor.
PGL_HOST="${PGL_HOST:-127.0.0.1}"
PGL_PORT="${PGL_PORT:-5678}"
PGL_URL="${PGL_URL:-http://${PGL_HOST}:${PGL_PORT}/graphql}"
PGL_PIDFILE="${PGL_PIDFILE:-/tmp/bench-postgraphile-${PGL_PORT}.pid}"
PGL_LOG="${PGL_LOG:-/tmp/bench-postgraphile-${PGL_PORT}.log}"

# One load shape for every server and for pgbench, so that their figures
# compare.
BENCH_DURATION="${BENCH_DURATION:-15}"       # seconds measured per run
BENCH_CONNECTIONS="${BENCH_CONNECTIONS:-16}" # wrk connections, pgbench clients
BENCH_THREADS="${BENCH_THREADS:-2}"          # wrk and pgbench threads
BENCH_WARMUP="${BENCH_WARMUP:-3}"            # seconds loaded, not measured, before each run

# The hot client (number 1001) holds a quarter of the rows at every scale.
# Its id is md5('client:1') read as a UUID, as data.sql and debtql seed make it.
HOT_CLIENT_ID="${HOT_CLIENT_ID:-$(printf '%s' 'client:1' | md5sum | sed -E 's/^(.{8})(.{4})(.{4})(.{4})(.{12}).*/\1-\2-\3-\4-\5/')}"

# anchor_db SCALE: the anchor's database at that scale.
anchor_db() { if [ "${1:-1}" = 1 ]; then echo debtbench; else echo "debtbench$1"; fi; }

# loopback_only URL: the harness talks to this machine only.
loopback_only() {
  case "$1" in
    http://127.*|http://localhost[:/]*|http://localhost|http://\[::1\]*|postgres://*@127.*|postgres://*@localhost[:/]*) ;;
    *) echo "refusing $1: the harness speaks to loopback addresses only" >&2; return 2 ;;
  esac
}

# as_pg runs a command as the cluster's owner.
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u "$PG_OS_USER" -- "$@"; else "$@"; fi
}
