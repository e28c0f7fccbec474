#!/usr/bin/env bash
# Fault: PostgreSQL stopped and started under load.
#
# What it does: builds the server and the driver, starts a throwaway
# PostgreSQL cluster of its own (port $FAULT_PGPORT, default 55433), runs
# the server on it, and lets the driver (scripts/faults/driver) send a
# bounded load: keyed createDebt calls and queries from several workers,
# and /readyz every 100 ms. Under that load the cluster is stopped
# (pg_ctl stop -m fast, then -m immediate, i.e. a crash; $1 sets the
# modes, default fast,immediate,fast,immediate), left down for 3 s and
# started again.
#
# Checked: while the database is down /readyz answers 503 and every request
# fails fast with 503 (no 500, no hang: the slowest failure is printed and
# must be under 2 s), the process stays alive; after the database returns
# the first request succeeds within 5 s (printed per outage); the writes
# that failed are resent with their keys, and every acknowledged write is
# in the database, once. Exits 1 if a guarantee is broken, 2 if the script
# could not run.
#
# Usage: scripts/faults/restart-postgres.sh [modes]   (about 30 s; needs
# PostgreSQL binaries and, as root, the "postgres" OS user; see lib.sh). It
# stops everything it starts, also on failure or Ctrl-C.
. "$(dirname "$0")/lib.sh"
modes="${1:-fast,immediate,fast,immediate}"
fault_setup
echo "== PostgreSQL stopped and started under load (modes $modes)"
start=$SECONDS
fault_driver pgrestart --pg-ctl "$(fault_pgctl_cmd)" --modes "$modes"
echo "== done in $((SECONDS - start)) s"
