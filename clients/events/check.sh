#!/usr/bin/env bash
# Checks DebtQL's events with the reference clients (docs/frontend.md,
# docs/webhooks.md): builds debtql, starts it on a throwaway database with
# insecure webhook URLs allowed (the receiver listens on 127.0.0.1 over
# http), then check.mjs subscribes with graphql-ws, makes changes, resumes
# with after, and verifies the webhook deliveries with standardwebhooks.
# Installs the pinned packages of package-lock.json (npm ci). Cleans up what
# it started and created, whatever happens.
#
# The database: PostgreSQL when DATABASE_URL is set (a new database next to
# the one it names, dropped at the end; CI sets it), else the embedded
# SQLite in a temporary directory. Runs from any directory; CI runs it from
# .ci/run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

die() { echo "check.sh: $*" >&2; exit 1; }
command -v go >/dev/null || die "Go is not installed"
command -v node >/dev/null || die "Node.js is not installed (need Node 20 or later)"
command -v npm >/dev/null || die "npm is not installed"
node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)' ||
  die "Node $(node --version) is too old: graphql-ws 6 needs Node 20 or later"
echo "node $(node --version), npm $(npm --version)"

tmp="$(mktemp -d -t debtql-events.XXXXXX)"
server_pid=""
database=""
cleanup() {
  status=$?
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [ "$status" -ne 0 ] && [ -s "$tmp/debtql.log" ]; then
    echo "--- the last lines of debtql's log" >&2
    tail -n 40 "$tmp/debtql.log" >&2
  fi
  if [ -n "$database" ]; then
    psql -Xq "$DATABASE_URL" -c "DROP DATABASE IF EXISTS \"$database\" WITH (FORCE)" >/dev/null 2>&1 ||
      echo "check.sh: could not drop the database $database" >&2
  fi
  rm -rf "$tmp"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The pinned packages.
(cd "$here" && npm ci --no-audit --no-fund)

echo "building debtql"
(cd "$root" && go build -o "$tmp/debtql" ./cmd/debtql)

args=()
if [ -n "${DATABASE_URL:-}" ]; then
  command -v psql >/dev/null || die "psql is not installed (DATABASE_URL is set: the check runs on PostgreSQL)"
  database="debtql_events_$$"
  psql -Xq "$DATABASE_URL" -c "CREATE DATABASE \"$database\"" >/dev/null ||
    die "could not create a database at DATABASE_URL"
  base="${DATABASE_URL%%\?*}"
  query=""
  [ "$base" != "$DATABASE_URL" ] && query="?${DATABASE_URL#*\?}"
  args+=(--database-url "${base%/*}/$database$query")
  echo "database: PostgreSQL, database $database"
else
  args+=(--sqlite "$tmp/debtql.db")
  echo "database: SQLite in $tmp"
fi

# A free port on the loopback, and a random ADMIN key of 43 characters.
port="$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')"
admin_key="dq_$(node -e 'console.log(require("crypto").randomBytes(32).toString("base64url"))')"
url="http://127.0.0.1:$port"

ADMIN_API_KEY="$admin_key" DATABASE_URL="" DEBTQL_WEBHOOK_ALLOW_INSECURE=true "$tmp/debtql" serve --addr "127.0.0.1:$port" "${args[@]}" \
  --log-format text >"$tmp/debtql.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do
  curl_ok=$(node -e "fetch('$url/readyz').then(r => console.log(r.status), () => console.log(0))")
  [ "$curl_ok" = 200 ] && break
  kill -0 "$server_pid" 2>/dev/null || die "debtql exited at start"
  sleep 0.2
done
[ "$curl_ok" = 200 ] || die "debtql did not become ready at $url in 20 s"
echo "debtql serves $url"

export DEBTQL_URL="$url" ADMIN_KEY="$admin_key"
node "$here/check.mjs"
