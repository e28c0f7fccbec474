#!/usr/bin/env bash
# Fault: kill -9 of the DebtQL server while webhook deliveries are queued
# and sent (docs/webhooks.md, docs/decisions.md "Events").
#
# What it does: builds the server and the driver, starts a throwaway
# PostgreSQL cluster of its own, runs the server on it, registers a webhook
# endpoint (every event of one client) on a receiver inside the driver that
# verifies each signature and answers slowly, and lets workers create debts
# with Idempotency-Key headers (resent until answered) while the server is
# killed with SIGKILL at random moments ($1 cycles, default 4) and
# restarted.
#
# Checked: every audit event of the client has its delivery queued (in the
# transaction of the change), every one reaches the receiver with a valid
# signature (deliveries cut off by a kill go again after their one-minute
# lease), none fails. Prints a summary; exits 1 if a guarantee is broken, 2
# if the script could not run.
#
# Usage: scripts/faults/kill-webhooks.sh [cycles]   (about 1–2 minutes: the
# leases of deliveries cut off must pass; needs PostgreSQL binaries and, as
# root, the "postgres" OS user; see lib.sh). It stops everything it starts.
. "$(dirname "$0")/lib.sh"
cycles="${1:-4}"
fault_setup
echo "== kill -9 while webhooks are queued and sent ($cycles kills)"
start=$SECONDS
fault_driver webhooks --cycles "$cycles"
echo "== done in $((SECONDS - start)) s"
