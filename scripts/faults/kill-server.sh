#!/usr/bin/env bash
# Fault: kill -9 of the DebtQL server in the middle of a stream of createDebt
# and addDebtPayment calls sent with Idempotency-Key headers.
#
# What it does: builds the server and the driver (go build -o into a temp
# dir), starts a throwaway PostgreSQL cluster of its own (port
# $FAULT_PGPORT, default 55433), runs the server on it, and lets the driver
# (scripts/faults/driver) stream keyed calls from several workers: each
# worker creates a debt (two items, one with a payment made before
# hand-over) and books payments on it. Meanwhile the server is killed with
# SIGKILL at random moments ($1 cycles, default 5) and restarted. Every
# call that got no answer (refused, reset, 503, or 409 "still running") is
# resent with its key until it gets one; afterwards every third answered
# call is resent too and must be replayed identically.
#
# Checked, through SQL and the API: each debt and payment exists exactly
# once, no debt lacks its items, stored paid amounts equal the payments,
# nothing acknowledged is lost. Prints a summary; exits 1 if a guarantee is
# broken, 2 if the script could not run.
#
# Usage: scripts/faults/kill-server.sh [cycles]       (about 30 s; needs
# PostgreSQL binaries and, as root, the "postgres" OS user; see lib.sh for
# the settings). It stops everything it starts, also on failure or Ctrl-C.
. "$(dirname "$0")/lib.sh"
cycles="${1:-5}"
fault_setup
echo "== kill -9 under a stream of keyed mutations ($cycles kills)"
start=$SECONDS
fault_driver kill --cycles "$cycles"
echo "== done in $((SECONDS - start)) s"
