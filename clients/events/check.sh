#!/usr/bin/env bash
# Checks DebtQL's events with the reference clients (docs/frontend.md,
# docs/webhooks.md): starts debtql on a throwaway database
# (clients/serve-debtql.sh) with insecure webhook URLs allowed (the receiver
# listens on 127.0.0.1 over http), then check.mjs subscribes with
# graphql-ws, makes changes, resumes with after, and verifies the webhook
# deliveries with standardwebhooks. Runs from any directory; CI runs it
# from .ci/run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
check_name=events
node_needs="graphql-ws 6"
serve_env=(DEBTQL_WEBHOOK_ALLOW_INSECURE=true)
# shellcheck source=../serve-debtql.sh
. "$here/../serve-debtql.sh"

node "$here/check.mjs"
