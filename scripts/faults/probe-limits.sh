#!/usr/bin/env bash
# Probe: adversarial requests against the server's limits, each measured by
# the peak resident memory of the server process that answered it.
#
# What it does: builds the server and the driver (go build -o into a temp
# dir), starts a throwaway PostgreSQL cluster of its own (port
# $FAULT_PGPORT, default 55433), and lets the driver (scripts/faults/driver,
# subcommand probe) create through the API, as ADMIN: client A with one
# debt of 1,000 items (10.00 each, each with a payment of 1.00 before
# hand-over), client B with 100 debts of 1,000 items (each debt with a
# debtor of its own, a valid personnummer; ANALYZE between batches, so
# that the set-up takes seconds), and a CLIENT key for each (createApiKey).
# Then, for each probe, three times (--repeat), it starts a FRESH server
# process (--rate-limit 0), reads its VmHWM once /readyz answers 200 (the
# idle RSS), sends the one request (30 s client timeout), reads VmHWM from
# /proc/<pid>/status after the answer (the peak), and stops the server.
# Every request body is at most 32 KB; the CLIENT key of the data's owner
# is used unless ADMIN is shown:
#   1  unpaged nesting: debt { payments { debt { payments { debt { id } } } } }
#      on the 1,000-item debt (a million rows if nothing stops it)
#   2  introspection amplification: ten aliases of __schema { types }, each
#      type's fields ten times with their args and types (about 1.5 KB)
#   3  full introspection (ADMIN): internal/server/testdata/introspection.graphql
#   4  largest page: debts(first: 100) of client B with every item
#   5  largest nested pages: debtors(first: 100) { debts(first: 100) { items } }
#   6  money wrap: createDebt with 500 items of 999999999999999.99
#   7  NUL in a search term: debts(filter: {searchTerm: "a\u0000b"}), as a
#      GraphQL escape in the document (7a) and in a variable (7b)
#   8  aliases: as many aliased debt { id invoices { id } } root fields as
#      32 KB hold (8a); then 19 aliases, each with the items and the
#      payments of the 1,000-item debt (8b, 95,057 fields: answered), and
#      20 (8c, 100,060: beyond the response budget)
#
# Prints a table (probe, key, request bytes, status, the first error's
# extensions.code, response bytes, seconds, idle and peak RSS in MiB, the
# peaks' range over the runs, what was expected) and notes each answer other than the
# expected one (a note, not a failure). Exits 1 if in any run a probe
# answered 5xx or got no answer, the server died, or its peak RSS was above
# 300 MiB (--max-peak-mib), saying which; 0 otherwise; 2 if it could not
# run (the tree does not build, no PostgreSQL, set-up failed, the time
# limit passed).
#
# Usage: scripts/faults/probe-limits.sh [driver flags]   (about a minute;
# needs PostgreSQL binaries and, as root, the "postgres" OS user; see lib.sh
# for the settings; FAULT_TIME_LIMIT bounds the whole run). The flags go to
# the driver: --repeat N, --max-peak-mib M, --debts N (client B's debts, 100),
# --items N (1,000). It stops everything it starts, also on failure or Ctrl-C.
. "$(dirname "$0")/lib.sh"
# A tree that does not build is "could not run" (2), not a failure.
(cd "$FAULT_ROOT" && go build ./cmd/debtql ./scripts/faults/driver) || fault_die "the tree does not build"
introspection="$FAULT_ROOT/internal/server/testdata/introspection.graphql"
[ -r "$introspection" ] || fault_die "no $introspection"
fault_setup
echo "== adversarial probes, one fresh server process each"
start=$SECONDS
rc=0
fault_driver probe --introspection "$introspection" "$@" || rc=$?
echo "== done in $((SECONDS - start)) s"
case "$rc" in
  0 | 1 | 2) exit "$rc" ;;
  124 | 137) fault_die "the run passed FAULT_TIME_LIMIT ($FAULT_TIME_LIMIT s)" ;;
  *) fault_die "the driver ended with status $rc" ;;
esac
