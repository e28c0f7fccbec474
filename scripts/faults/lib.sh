# Shared by the fault scripts (sourced, not run): a throwaway PostgreSQL
# cluster of its own, the server and driver binaries, and a trap that stops
# everything started here. Never touches the system PostgreSQL (5432) nor
# the benchmark cluster (55432).
#
# Settings (environment):
#   FAULT_PGPORT  port of the throwaway cluster (default 55433; must be free)
#   FAULT_PGBIN   PostgreSQL binaries (default: /usr/lib/postgresql/<newest>/bin)
#   FAULT_PORT    port of the DebtQL server under test (default 18090; must be free)
#   FAULT_KEEP=1  keep the temporary directory (logs, cluster) for inspection
#   FAULT_TIME_LIMIT  overall limit in seconds (default 300)

set -euo pipefail

FAULT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
FAULT_PGPORT="${FAULT_PGPORT:-55433}"
FAULT_PORT="${FAULT_PORT:-18090}"
FAULT_TIME_LIMIT="${FAULT_TIME_LIMIT:-300}"
PG_OS_USER="${PG_OS_USER:-postgres}"
if [ -z "${FAULT_PGBIN:-}" ]; then
  FAULT_PGBIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)"
fi
export PATH="$PATH:/usr/local/go/bin"

fault_die() { printf '\nFAULT SCRIPT ERROR: %s\n' "$*" >&2; exit 2; }

# as_pg runs a command as the cluster's owner: PostgreSQL refuses to run as
# root, so as root it runs as $PG_OS_USER.
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u "$PG_OS_USER" -- "$@"; else "$@"; fi
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# fault_setup makes the temporary directory, checks the ports, installs the
# trap, builds the binaries and starts the cluster with a database "debtql".
fault_setup() {
  [ -x "$FAULT_PGBIN/initdb" ] || fault_die "no PostgreSQL binaries in '$FAULT_PGBIN' (set FAULT_PGBIN)"
  command -v go >/dev/null || fault_die "Go is not installed"
  [ "$FAULT_PGPORT" != 5432 ] && [ "$FAULT_PGPORT" != 55432 ] || fault_die "FAULT_PGPORT must not be the system or benchmark cluster's port"
  port_free "$FAULT_PGPORT" || fault_die "port $FAULT_PGPORT is in use (set FAULT_PGPORT)"
  port_free "$FAULT_PORT" || fault_die "port $FAULT_PORT is in use (set FAULT_PORT)"

  FAULT_DIR="$(mktemp -d /tmp/debtql-faults.XXXXXX)"
  chmod 755 "$FAULT_DIR"
  PGDATA_FAULT="$FAULT_DIR/pg"
  FAULT_PIDFILE="$FAULT_DIR/server.pid"
  trap fault_cleanup EXIT
  trap 'exit 130' INT TERM

  echo "== building the server and the driver into $FAULT_DIR"
  (cd "$FAULT_ROOT" && go build -o "$FAULT_DIR/debtql" ./cmd/debtql && go build -o "$FAULT_DIR/driver" ./scripts/faults/driver)

  echo "== throwaway PostgreSQL cluster on 127.0.0.1:$FAULT_PGPORT ($FAULT_PGBIN)"
  mkdir -p "$PGDATA_FAULT" "$FAULT_DIR/sock"
  touch "$FAULT_DIR/postgres.log"
  if [ "$(id -u)" = 0 ]; then chown "$PG_OS_USER" "$PGDATA_FAULT" "$FAULT_DIR/sock" "$FAULT_DIR/postgres.log"; fi
  chmod 700 "$PGDATA_FAULT"
  # trust on loopback only, for a cluster thrown away at exit
  as_pg "$FAULT_PGBIN/initdb" -D "$PGDATA_FAULT" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  cat >>"$PGDATA_FAULT/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $FAULT_PGPORT
unix_socket_directories = '$FAULT_DIR/sock'
max_connections = 60
shared_buffers = 64MB
# durability as in production: fsync and synchronous_commit stay on
logging_collector = off
CONF
  fault_pg start -w -t 30 -l "$FAULT_DIR/postgres.log" >/dev/null
  "$FAULT_PGBIN/psql" -h 127.0.0.1 -p "$FAULT_PGPORT" -U postgres -d postgres -qAtc "CREATE DATABASE debtql" >/dev/null
  FAULT_DSN="postgres://postgres@127.0.0.1:$FAULT_PGPORT/debtql"
}

# fault_pg runs pg_ctl on the throwaway cluster.
fault_pg() { as_pg "$FAULT_PGBIN/pg_ctl" -D "$PGDATA_FAULT" "$@"; }

# fault_pgctl_cmd is the same, as one command line for the driver.
fault_pgctl_cmd() {
  if [ "$(id -u)" = 0 ]; then
    echo "runuser -u $PG_OS_USER -- $FAULT_PGBIN/pg_ctl -D $PGDATA_FAULT -l $FAULT_DIR/postgres.log"
  else
    echo "$FAULT_PGBIN/pg_ctl -D $PGDATA_FAULT -l $FAULT_DIR/postgres.log"
  fi
}

# fault_driver runs the driver with the common flags, bounded in time.
fault_driver() {
  local sub="$1"; shift
  timeout --kill-after=10 "$FAULT_TIME_LIMIT" "$FAULT_DIR/driver" "$sub" \
    --server-bin "$FAULT_DIR/debtql" --dsn "$FAULT_DSN" --addr "127.0.0.1:$FAULT_PORT" \
    --server-log "$FAULT_DIR/server.log" --pid-file "$FAULT_PIDFILE" \
    --time-limit "$((FAULT_TIME_LIMIT - 15))s" "$@"
}

# fault_cleanup stops the server (by its recorded pid) and the cluster, and
# removes the temporary directory unless FAULT_KEEP=1.
fault_cleanup() {
  local rc=$?
  set +e
  if [ -n "${FAULT_PIDFILE:-}" ] && [ -s "$FAULT_PIDFILE" ]; then
    local pid; pid="$(cat "$FAULT_PIDFILE")"
    if kill -0 "$pid" 2>/dev/null && grep -q debtql "/proc/$pid/cmdline" 2>/dev/null; then kill -9 "$pid"; fi
  fi
  if [ -n "${PGDATA_FAULT:-}" ] && [ -f "$PGDATA_FAULT/postmaster.pid" ]; then
    fault_pg stop -m immediate -w -t 30 >/dev/null 2>&1
  fi
  if [ -n "${FAULT_DIR:-}" ] && [ -d "$FAULT_DIR" ]; then
    if [ "${FAULT_KEEP:-}" = 1 ] || [ "$rc" != 0 ]; then
      echo "(kept $FAULT_DIR: server.log, postgres.log)"
    else
      rm -rf "$FAULT_DIR"
    fi
  fi
  exit "$rc"
}
