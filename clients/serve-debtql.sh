# Sourced by the real-client checks (clients/*/check.sh): checks Go and
# Node 20 or later, installs the check's pinned packages (npm ci in its
# folder), builds debtql and starts it on a throwaway database with a random
# ADMIN key, and cleans up what it started and created when the check ends,
# whatever happens. The database: PostgreSQL when DATABASE_URL is set (a new
# database next to the one it names, dropped at the end; CI sets it), else
# the embedded SQLite in a temporary directory.
#
# The check sets before sourcing: here (its folder), check_name (for
# temporary names), node_needs (what needs Node 20, for the message), and
# optionally serve_env (an array of VAR=value for the server). Afterwards
# DEBTQL_URL and ADMIN_KEY are exported and tmp is a temporary directory.
root="$(cd "$here/../.." && pwd)"

die() { echo "check.sh: $*" >&2; exit 1; }
command -v go >/dev/null || die "Go is not installed"
command -v node >/dev/null || die "Node.js is not installed (need Node 20 or later)"
command -v npm >/dev/null || die "npm is not installed"
node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)' ||
  die "Node $(node --version) is too old: $node_needs needs Node 20 or later"
echo "node $(node --version), npm $(npm --version)"

tmp="$(mktemp -d -t "debtql-$check_name.XXXXXX")"
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
  database="debtql_${check_name}_$$"
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

env ADMIN_API_KEY="$admin_key" DATABASE_URL="" "${serve_env[@]}" "$tmp/debtql" serve --addr "127.0.0.1:$port" "${args[@]}" \
  --log-format text >"$tmp/debtql.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do
  ready=$(node -e "fetch('$url/readyz').then(r => console.log(r.status), () => console.log(0))")
  [ "$ready" = 200 ] && break
  kill -0 "$server_pid" 2>/dev/null || die "debtql exited at start"
  sleep 0.2
done
[ "$ready" = 200 ] || die "debtql did not become ready at $url in 20 s"
echo "debtql serves $url"

export DEBTQL_URL="$url" ADMIN_KEY="$admin_key"
