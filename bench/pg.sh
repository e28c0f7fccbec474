#!/usr/bin/env bash
# The benchmark's own PostgreSQL 15 cluster, on 127.0.0.1:55432 only.
#
#   bench/pg.sh init      create it in $PGDATA_BENCH (/tmp/benchpg)
#   bench/pg.sh start     start it and wait until it takes connections
#   bench/pg.sh stop      fast shutdown
#   bench/pg.sh status
#   bench/pg.sh destroy   stop it and delete its directory
#
# A cluster of its own keeps the figures free of the system cluster's
# settings and load, and lets the settings below be tuned for measuring.
set -euo pipefail
. "$(dirname "$0")/env.sh"
# The cluster listens on 127.0.0.1 whatever PGHOST says; the other scripts
# connect to PGHOST, so it must be that address too.
loopback_only "postgres://$PGUSER@$PGHOST:$PGPORT/postgres"

ctl() { as_pg "$PG_BIN/pg_ctl" -D "$PGDATA_BENCH" "$@"; }

init() {
  if [ -f "$PGDATA_BENCH/PG_VERSION" ]; then echo "cluster exists in $PGDATA_BENCH"; return; fi
  mkdir -p "$PGDATA_BENCH" "$PGSOCK_BENCH"
  touch "$PGLOG_BENCH"
  if [ "$(id -u)" = 0 ]; then chown "$PG_OS_USER" "$PGDATA_BENCH" "$PGSOCK_BENCH" "$PGLOG_BENCH"; fi
  chmod 700 "$PGDATA_BENCH"
  # Trust authentication is safe only because the cluster listens on
  # loopback and holds generated data; bench is its superuser.
  as_pg "$PG_BIN/initdb" -D "$PGDATA_BENCH" -U "$PGUSER" --auth=trust \
    --encoding=UTF8 --locale=C.UTF-8 --no-sync >/dev/null
  cat >>"$PGDATA_BENCH/postgresql.conf" <<CONF

# bench/pg.sh
listen_addresses = '127.0.0.1'
port = $PGPORT
unix_socket_directories = '$PGSOCK_BENCH'
max_connections = 200
# The 1x data (about 1 GB with both servers' databases) stays in the buffer
# cache on the 2-core, 23 GiB machine, so reads measure CPU, not the disk.
shared_buffers = 2GB
effective_cache_size = 8GB
work_mem = 16MB
maintenance_work_mem = 512MB
random_page_cost = 1.1
effective_io_concurrency = 200
# No checkpoint in the middle of a 15 s run.
max_wal_size = 8GB
checkpoint_timeout = 30min
# A compiled plan would only slow the short statements measured here.
jit = off
# fsync and synchronous_commit stay on: a write's figure includes its WAL flush.
logging_collector = off
log_min_duration_statement = -1
# Every autovacuum and autoanalyze in the cluster's log, with its time (as
# the checkpoints are), so that a repetition's latency tail can be matched
# against the maintenance that ran during it.
log_autovacuum_min_duration = 0
CONF
  echo "created $PGDATA_BENCH ($PGHOST:$PGPORT, superuser $PGUSER)"
}

start() {
  [ -f "$PGDATA_BENCH/PG_VERSION" ] || init
  if ctl status >/dev/null 2>&1; then echo "running (pid $(head -1 "$PGDATA_BENCH/postmaster.pid"))"; return; fi
  ctl -l "$PGLOG_BENCH" -w -t 60 start >/dev/null
  echo "started PostgreSQL pid $(head -1 "$PGDATA_BENCH/postmaster.pid") on $PGHOST:$PGPORT"
}

stop() {
  if [ ! -f "$PGDATA_BENCH/postmaster.pid" ]; then echo "not running"; return; fi
  local pid; pid="$(head -1 "$PGDATA_BENCH/postmaster.pid")"
  ctl -m fast -w -t 60 stop >/dev/null
  echo "stopped PostgreSQL pid $pid"
}

case "${1:-}" in
  init) init ;;
  start) start ;;
  stop) stop ;;
  status) ctl status || true ;;
  destroy) stop; rm -rf "$PGDATA_BENCH" "$PGSOCK_BENCH"; echo "deleted $PGDATA_BENCH" ;;
  *) sed -n '2,8p' "$0" >&2; exit 2 ;;
esac
