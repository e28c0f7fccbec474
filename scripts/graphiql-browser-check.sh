#!/usr/bin/env bash
# Checks the offline GraphiQL page of a running DebtQL server in headless
# Chromium: GraphiQL renders, the Headers editor works, and no request leaves
# the page's own origin. Writes a screenshot to /tmp/graphiql.png.
#
#   scripts/graphiql-browser-check.sh [URL]    # default http://127.0.0.1:8080/
#
# With CHECK_KEY=<API key the server accepts> it also types that key into
# the Headers tab and checks that the schema loads by itself (docs explorer,
# autocompletion) and that { viewer { role } } runs; that part writes a
# screenshot to /tmp/graphiql-auth.png (CHECK_KEY_SCREENSHOT).
#
# Uses Debian's Chromium (installed with apt-get when missing) driven by
# playwright-core from internal/server/graphiql/web; it never downloads a
# browser build of its own.
set -euo pipefail

url="${1:-http://127.0.0.1:8080/}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
web="$root/internal/server/graphiql/web"
chromium="${CHROMIUM:-/usr/bin/chromium}"

if [[ ! -x "$chromium" ]]; then
  echo "installing Debian's chromium" >&2
  sudo=""
  if [[ "$(id -u)" != 0 ]]; then sudo="sudo"; fi
  $sudo apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y chromium
fi

if [[ ! -d "$web/node_modules/playwright-core" ]]; then
  (cd "$web" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund)
fi

cd "$web"
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 CHROMIUM="$chromium" \
  node browser-check.mjs "$url" "${GRAPHIQL_SCREENSHOT:-/tmp/graphiql.png}"
