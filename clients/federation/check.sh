#!/usr/bin/env bash
# Checks DebtQL as an Apollo Federation v2 subgraph (docs/federation.md):
# starts debtql on a throwaway database (clients/serve-debtql.sh), seeds a
# client with a CLIENT key and debts through the API (seed.mjs), then
# composes DebtQL's SDL with a second subgraph and queries the supergraph
# through Apollo Gateway (check.mjs). npm warns (EBADENGINE) that
# @whatwg-node/promise-helpers, which @apollo/server pulls in through
# @graphql-tools, asks for Node 22; the check runs on Node 20. Runs from any
# directory; CI runs it from .ci/run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
check_name=federation
node_needs="Apollo Server 5"
serve_env=()
# shellcheck source=../serve-debtql.sh
. "$here/../serve-debtql.sh"

node "$here/seed.mjs" "$tmp/seed.json"
node "$here/check.mjs" "$tmp/seed.json"
