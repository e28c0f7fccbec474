#!/usr/bin/env bash
# DebtQL side by side with PostGraphile 5 and the SQL limit (issue 5,
# docs/performance.md). Uses the shared harness in ../shared/bench.
#
#   scripts/bench.sh setup   once: bench cluster, its data, PostGraphile, and a
#                            seeded `debtql` database in the same cluster. What it
#                            starts (cluster, PostGraphile) keeps running.
#   scripts/bench.sh [run]   build DebtQL, start it on the seeded database, create an
#                            API key, check every operation's first answer against
#                            PostGraphile's, load each operation on both (interleaved),
#                            run the pgbench SQL limit for Q1, print the ratios. It
#                            stops the DebtQL server it started and revokes its key.
#
# Settings (environment): REPS (1) repetitions, OPS (all) operations to load,
# BENCH_DURATION / BENCH_CONNECTIONS / BENCH_THREADS / BENCH_WARMUP (shared load
# shape: 15 s, 16, 2, 3 s), POOL (16) DebtQL's PostgreSQL pool, PORT (8088),
# BENCH (../shared/bench), OUT (a results directory; default bench/results/<stamp>).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BENCH="${BENCH:-$ROOT/../shared/bench}"
BENCH="$(cd "$BENCH" && pwd)"
. "$BENCH/env.sh"
# env.sh exports the anchor's database; DebtQL has its own in the same cluster.
DEBTQL_DB="${DEBTQL_DB:-debtql}"
DEBTQL_URL_DB="postgres://${PGUSER}@${PGHOST}:${PGPORT}/${DEBTQL_DB}"
PORT="${PORT:-8088}"
POOL="${POOL:-16}"
REPS="${REPS:-1}"
OURS="$ROOT/bench/queries/debtql"
EXTRA="$ROOT/bench/queries/postgraphile-extra"
PGLQ="$BENCH/queries/postgraphile"
ALL_OPS="q1 claims q4 page1 page200 cursor1 cursor200 search_name search_number"
# Operations of DebtQL alone (no PostGraphile peer): compared with q1.
OURS_ONLY=" claims "
OPS="${OPS:-$ALL_OPS}"

log() { printf '%s %s\n' "$(date -u +%T)" "$*" >&2; }

# same_open_debts: do the hot client's open debts in DebtQL's database (not
# withdrawn, paid less than the original: mainStatus COLLECTION) number as many
# as the anchor's main_status = 2 (17,405), as debtql seed --scale bench makes
# them? Q1's answers must be the same rows.
same_open_debts() {
  local ours anchor
  ours="$(psql -XAtd "$DEBTQL_DB" -c "SELECT count(*) FROM debts WHERE client_id = '$HOT_CLIENT_ID' AND withdrawn_at IS NULL AND paid_amount < original_amount" 2>/dev/null || true)"
  anchor="$(psql -XAtc "SELECT count(*) FROM debts WHERE client_id = '$HOT_CLIENT_ID' AND main_status = 2")"
  [ -n "$ours" ] && [ "$ours" = "$anchor" ]
}

setup() {
  command -v wrk >/dev/null || { echo "install wrk first: apt-get install -y wrk jq" >&2; exit 1; }
  "$BENCH/pg.sh" init
  "$BENCH/pg.sh" start
  if [ "$(psql -XAtc "SELECT count(*) FROM pg_database WHERE datname = 'debtbench'" postgres)" = 0 ] ||
     [ "$(psql -XAtc "SELECT to_regclass('public.debts') IS NOT NULL" 2>/dev/null)" != t ]; then
    "$BENCH/load_data.sh"
  fi
  [ -d "$BENCH/postgraphile/node_modules" ] || "$BENCH/pgl.sh" install
  "$BENCH/pgl.sh" start
  if [ "$(psql -XAtc "SELECT count(*) FROM pg_database WHERE datname = '$DEBTQL_DB'" postgres)" = 0 ]; then
    createdb "$DEBTQL_DB"
  fi
  (cd "$ROOT" && go build -o "$tmp/debtql" ./cmd/debtql)
  local reset=""
  if [ "$(psql -XAtd "$DEBTQL_DB" -c "SELECT to_regclass('public.clients') IS NOT NULL AND EXISTS (SELECT 1 FROM clients)")" = t ]; then
    # Seeded before the seed's open debts were the anchor's main_status = 2: seed again.
    if ! same_open_debts; then log "$DEBTQL_DB: the hot client's open debts are not the anchor's: seeding again (--reset)"; reset=--reset; fi
  else
    reset=new
  fi
  if [ -n "$reset" ]; then
    "$tmp/debtql" seed --scale bench --database-url "$DEBTQL_URL_DB" $([ "$reset" = --reset ] && echo --reset)
    psql -Xqd "$DEBTQL_DB" -c "VACUUM (FREEZE, ANALYZE)"
  fi
  log "ready: cluster on $PGPORT (debtbench, $DEBTQL_DB), PostGraphile on $PGL_URL"
}

# ---- run ----------------------------------------------------------------

server_pid=""; key_id=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
  fi
  if [ -n "$key_id" ]; then
    "$tmp/debtql" apikey revoke --database-url "$DEBTQL_URL_DB" "$key_id" >/dev/null 2>&1 || true
  fi
  rm -rf "$tmp"
}

# body FILE.graphql -> the JSON request body (variables from FILE.vars.json)
body() {
  local v="${1%.graphql}.vars.json"
  if [ -f "$v" ]; then jq -c -n --rawfile q "$1" --slurpfile v "$v" '{query: $q, variables: $v[0]}'
  else jq -c -n --rawfile q "$1" '{query: $q}'; fi
}
ask_ours() { body "$1" | curl -sS -m 30 "http://127.0.0.1:$PORT/graphql" -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' --data-binary @-; }
ask_pgl() { body "$1" | curl -sS -m 30 "$PGL_URL" -H 'Content-Type: application/json' --data-binary @-; }

# The anchor's file of an operation: Q1-Q4 are the shared ones.
pgl_file() { case "$1" in q1|q4) echo "$PGLQ/$1.graphql" ;; *) echo "$EXTRA/$1.graphql" ;; esac; }

# Cursor of row 9,950 of the deep-page list on both servers, for page 200 by cursor.
write_cursors() {
  local c
  c="$(jq -c -n --arg id "$HOT_CLIENT_ID" '{clientId: $id, page: 199, rowsPerPage: 50}' |
       jq -c -n --rawfile q "$OURS/page200.graphql" --slurpfile v /dev/stdin '{query: $q, variables: $v[0]}' |
       curl -sS "http://127.0.0.1:$PORT/graphql" -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' --data-binary @- |
       jq -r '.data.debts.pageInfo.endCursor')"
  jq -n --arg id "$HOT_CLIENT_ID" --arg c "$c" '{clientId: $id, first: 50, after: $c}' >"$OURS/cursor200.vars.json"
  c="$(jq -c -n --arg id "$HOT_CLIENT_ID" '{clientId: $id, first: 50, offset: 9900}' |
       jq -c -n --rawfile q "$EXTRA/page200.graphql" --slurpfile v /dev/stdin '{query: $q, variables: $v[0]}' |
       curl -sS "$PGL_URL" -H 'Content-Type: application/json' --data-binary @- | jq -r '.data.allDebts.pageInfo.endCursor')"
  jq -n --arg id "$HOT_CLIENT_ID" --arg c "$c" '{clientId: $id, first: 50, after: $c}' >"$EXTRA/cursor200.vars.json"
}

# Compare the first answers: the debt lists (Q1 and the deep pages) must show
# the same debt ids and totalCount on both servers (debtql seed keeps the
# benchmark's ids, and its open debts are the benchmark's main_status = 2); the
# searches compare counts only (names are generated differently).
check() {
  local op o p fails=0
  for op in $OPS; do
    o="$(ask_ours "$OURS/$op.graphql")"
    if ! jq -e '.data and (.errors == null)' >/dev/null <<<"$o"; then echo "check $op: DebtQL answered ${o:0:300}" >&2; fails=1; continue; fi
    if [[ "$OURS_ONLY" == *" $op "* ]]; then
      printf '  %-14s ours %s debts, the first owing %s\n' "$op" "$(jq -r '.data.debts.edges | length' <<<"$o")" \
        "$(jq -r '.data.debts.edges[0].node.claim.total.outstanding' <<<"$o")"
      continue
    fi
    p="$(ask_pgl "$(pgl_file "$op")")"
    if ! jq -e '.data and (.errors == null)' >/dev/null <<<"$p"; then echo "check $op: PostGraphile answered ${p:0:300}" >&2; fails=1; continue; fi
    case "$op" in
      q4)
        printf '  %-14s ours debt %s item %s amount %s | anchor debt %s item %s amount %s\n' "$op" \
          "$(jq -r '.data.addDebtPayment.debt.id' <<<"$o")" "$(jq -r '.data.addDebtPayment.invoice.id' <<<"$o")" "$(jq -r '.data.addDebtPayment.amount' <<<"$o")" \
          "$(jq -r '.data.createPayment.payment.debtId' <<<"$p")" "$(jq -r '.data.createPayment.payment.debtInvoiceId' <<<"$p")" "$(jq -r '.data.createPayment.payment.amount' <<<"$p")" ;;
      search_*)
        printf '  %-14s ours %s rows of %s | anchor %s rows of %s (names are generated differently: counts, not ids, compare)\n' "$op" \
          "$(jq '.data.debtors.nodes | length' <<<"$o")" "$(jq '.data.debtors.totalCount' <<<"$o")" \
          "$(jq '.data.allDebtors.nodes | length' <<<"$p")" "$(jq '.data.allDebtors.totalCount' <<<"$p")" ;;
      *)
        # Q1 too: debtql seed --scale bench makes the open debts (COLLECTION) exactly
        # the anchor's main_status = 2 (internal/seed, BenchOpen).
        local oi pi same
        oi="$(jq -c '[.data.debts.edges[].node.id]' <<<"$o")"; pi="$(jq -c '[.data.allDebts.edges[].node.rowId]' <<<"$p")"
        same="same ids"; [ "$oi" = "$pi" ] || { same="DIFFERENT ids"; fails=1; }
        if [ "$(jq '.data.debts.totalCount' <<<"$o")" != "$(jq '.data.allDebts.totalCount' <<<"$p")" ]; then
          same="$same, DIFFERENT totalCount"; fails=1
        fi
        printf '  %-14s ours %s debts, %s items, totalCount %s, ids %s..%s | anchor %s debts, %s items, totalCount %s, ids %s..%s: %s\n' "$op" \
          "$(jq '.data.debts.edges | length' <<<"$o")" "$(jq '[.data.debts.edges[].node.invoices[]] | length' <<<"$o")" "$(jq '.data.debts.totalCount' <<<"$o")" \
          "$(jq '.data.debts.edges[0].node.id' <<<"$o")" "$(jq '.data.debts.edges[-1].node.id' <<<"$o")" \
          "$(jq '.data.allDebts.edges | length' <<<"$p")" "$(jq '[.data.allDebts.edges[].node.debtInvoicesByDebtId.nodes[]] | length' <<<"$p")" "$(jq '.data.allDebts.totalCount' <<<"$p")" \
          "$(jq '.data.allDebts.edges[0].node.rowId' <<<"$p")" "$(jq '.data.allDebts.edges[-1].node.rowId' <<<"$p")" "$same" ;;
    esac
  done
  return $fails
}

# Q4 adds payments on both sides: put both databases back as they were.
ours_q4_state=""
reset_payments() {
  psql -Xq -v ON_ERROR_STOP=1 -c "DELETE FROM payments WHERE id > 150000" \
    -c "SELECT setval(pg_get_serial_sequence('payments', 'id'), 150000)" -c "VACUUM payments" >/dev/null
  psql -Xqd "$DEBTQL_DB" -v ON_ERROR_STOP=1 >/dev/null <<SQL
BEGIN;
DELETE FROM payments WHERE id > 150000;
UPDATE debts SET paid_amount = (SELECT coalesce(sum(amount), 0) FROM payments WHERE debt_id = debts.id) WHERE id = 199996;
UPDATE debt_invoices SET paid_amount = (SELECT coalesce(sum(amount), 0) FROM payments WHERE debt_invoice_id = debt_invoices.id) WHERE debt_id = 199996;
DELETE FROM idempotency_records;
COMMIT;
SELECT setval(pg_get_serial_sequence('payments', 'id'), 150000);
VACUUM payments; VACUUM debts; VACUUM debt_invoices;
SQL
  psql -Xqc CHECKPOINT >/dev/null
}

run() {
  command -v wrk >/dev/null || { echo "wrk missing: scripts/bench.sh setup" >&2; exit 1; }
  "$BENCH/pgl.sh" status >/dev/null 2>&1 || { echo "PostGraphile is not running: scripts/bench.sh setup" >&2; exit 1; }
  local pgl_pid; pgl_pid="$(cat "$PGL_PIDFILE")"
  OUT="${OUT:-$ROOT/bench/results/$(date -u +%Y%m%d-%H%M%S)}"; mkdir -p "$OUT"
  log "building DebtQL"
  (cd "$ROOT" && go build -o "$tmp/debtql" ./cmd/debtql)
  [ "$(psql -XAtd "$DEBTQL_DB" -c "SELECT count(*) FROM debts" 2>/dev/null)" = 200000 ] ||
    { echo "database $DEBTQL_DB is not seeded at bench scale: scripts/bench.sh setup" >&2; exit 1; }
  local out; out="$("$tmp/debtql" apikey create --role ADMIN --name "bench $(date -u +%FT%TZ)" --database-url "$DEBTQL_URL_DB" 2>&1)"
  KEY="$(tail -1 <<<"$out")"; key_id="$(sed -nE 's/^Created ADMIN key ([0-9a-f-]+).*/\1/p' <<<"$out")"
  [ -n "$KEY" ] && [ -n "$key_id" ] || { echo "could not create an API key: $out" >&2; exit 1; }
  if curl -s -o /dev/null "http://127.0.0.1:$PORT/"; then echo "port $PORT is taken: stop what listens there or set PORT" >&2; exit 1; fi
  log "starting DebtQL on $DEBTQL_DB, pool $POOL, port $PORT"
  DATABASE_URL="$DEBTQL_URL_DB" DEBTQL_DB_MAX_CONNS="$POOL" DEBTQL_RATE_LIMIT=0 LOG_FORMAT=json \
    "$tmp/debtql" serve --addr "127.0.0.1:$PORT" >"$OUT/debtql.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null && break; sleep 0.2; done
  if ! kill -0 "$server_pid" 2>/dev/null || ! curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null; then cat "$OUT/debtql.log" >&2; exit 1; fi
  local pool; pool="$(sed -nE 's/.*"pool":([0-9]+).*/\1/p' "$OUT/debtql.log" | head -1)"

  reset_payments
  same_open_debts ||
    { echo "database $DEBTQL_DB's open debts are not the anchor's main_status = 2 (an older seed): scripts/bench.sh setup seeds it again" >&2; exit 1; }
  write_cursors
  log "checking first answers"
  check | tee "$OUT/check.txt"
  reset_payments

  {
    echo "date: $(date -u +%FT%TZ)"; echo "host: $(uname -srm), $(nproc) cores"; echo "uptime: $(uptime)"
    echo "debtql: $(cd "$ROOT" && git rev-parse --short HEAD)$(cd "$ROOT" && git diff --quiet || echo '+dirty'), pool $pool, auth on (Bearer)"
    echo "postgraphile: pid $pgl_pid, pool ${PGL_POOL_MAX:-10}"
    echo "load: $BENCH_DURATION s, $BENCH_CONNECTIONS connections, $BENCH_THREADS threads, warm-up $BENCH_WARMUP s; reps $REPS"
  } | tee "$OUT/env.txt"

  local tsv="$OUT/graphql.tsv" rep op first
  for rep in $(seq 1 "$REPS"); do
    for op in $OPS; do
      # Alternate who goes first, so neither always runs on a warmer machine.
      if [ $(( rep % 2 )) = 1 ]; then first=ours; else first=anchor; fi
      for side in $first $([ $first = ours ] && echo anchor || echo ours); do
        [ $side = anchor ] && [[ "$OURS_ONLY" == *" $op "* ]] && continue
        if [ $side = ours ]; then
          "$BENCH/load.sh" -u "http://127.0.0.1:$PORT/graphql" -q "$OURS/$op.graphql" -a "Bearer $KEY" \
            -p "$server_pid" -l "debtql:$op" -o "$tsv" | tail -1
        else
          "$BENCH/load.sh" -u "$PGL_URL" -q "$(pgl_file "$op")" -p "$pgl_pid" -l "postgraphile:$op" -o "$tsv" | tail -1
        fi
        [ "$op" = q4 ] && reset_payments
      done
    done
    if [[ " $OPS " == *" q1 "* ]]; then
      "$BENCH/sql_limit/pgbench.sh" "$BENCH/sql_limit/q1_single.sql" -l sql:q1_single -o "$OUT/sql.tsv" | tail -1
    fi
  done
  echo "uptime after: $(uptime)" | tee -a "$OUT/env.txt"
  summary "$tsv" "$OUT/sql.tsv" | tee "$OUT/summary.txt"
  log "results in $OUT"
}

# summary: medians per label, then the targets' ratios.
summary() {
  local tsv="$1" sql="$2"
  awk -F'\t' -v sqlfile="$sql" '
    function med(key,   n, i, j, t, a) {
      n = cnt[key]; if (n == 0) return 0
      for (i = 1; i <= n; i++) a[i] = v[key, i]
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function add(key, x) { cnt[key]++; v[key, cnt[key]] = x + 0 }
    function r(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "n/a" }
    function ok(c) { return c ? "met" : "NOT met" }
    FNR == 1 { next }
    FILENAME != sqlfile { add($2 ":rps", $6); add($2 ":p99", $9); add($2 ":rss", $13); add($2 ":cpu", $14); ops[$2] = 1; next }
    { add("sql:rps", $6); add("sql:p99", $8) }
    END {
      printf "\n%-26s %9s %9s %9s %9s\n", "operation (median)", "req/s", "p99 ms", "RSS MiB", "CPU s"
      for (o in ops) printf "%-26s %9.1f %9.1f %9d %9.1f\n", o, med(o ":rps"), med(o ":p99"), med(o ":rss"), med(o ":cpu")
      if (cnt["sql:rps"]) printf "%-26s %9.1f %9.1f\n", "sql:q1_single (pgbench)", med("sql:rps"), med("sql:p99")
      print ""
      oq1 = med("debtql:q1:rps"); pq1 = med("postgraphile:q1:rps"); sq = med("sql:rps")
      if (oq1) {
        printf "Q1 req/s ours/PostGraphile   %s  (target >= 2: %s)\n", r(oq1, pq1), ok(oq1 >= 2 * pq1)
        if (sq) printf "Q1 req/s ours/SQL limit      %s  (target >= 0.60: %s)\n", r(oq1, sq), ok(oq1 >= 0.6 * sq)
        printf "Q1 p99 ours / PostGraphile   %.1f / %.1f ms  (target ours <= anchor: %s)\n", med("debtql:q1:p99"), med("postgraphile:q1:p99"), ok(med("debtql:q1:p99") <= med("postgraphile:q1:p99"))
        printf "Q1 peak RSS ours/PostGraphile %s  (%d / %d MiB; target <= 0.5: %s)\n", r(med("debtql:q1:rss"), med("postgraphile:q1:rss")), med("debtql:q1:rss"), med("postgraphile:q1:rss"), ok(med("debtql:q1:rss") <= 0.5 * med("postgraphile:q1:rss"))
      }
      if (med("debtql:claims:rps")) printf "Q1 with claims / Q1 req/s (ours)           %s  (target >= 0.8: %s)\n", r(med("debtql:claims:rps"), oq1), ok(med("debtql:claims:rps") >= 0.8 * oq1)
      if (med("debtql:q4:rps")) printf "addDebtPayment / createPayment req/s  %s  (target >= 1: %s)\n", r(med("debtql:q4:rps"), med("postgraphile:q4:rps")), ok(med("debtql:q4:rps") >= med("postgraphile:q4:rps"))
      if (med("debtql:page200:rps")) printf "deep page by page: page 200 / page 1 req/s   ours %s, PostGraphile %s  (target ours >= 0.5: %s)\n", r(med("debtql:page200:rps"), med("debtql:page1:rps")), r(med("postgraphile:page200:rps"), med("postgraphile:page1:rps")), ok(med("debtql:page200:rps") >= 0.5 * med("debtql:page1:rps"))
      if (med("debtql:cursor200:rps")) printf "deep page by cursor: page 200 / page 1 req/s ours %s, PostGraphile %s  (target ours >= 0.5: %s)\n", r(med("debtql:cursor200:rps"), med("debtql:cursor1:rps")), r(med("postgraphile:cursor200:rps"), med("postgraphile:cursor1:rps")), ok(med("debtql:cursor200:rps") >= 0.5 * med("debtql:cursor1:rps"))
      if (med("debtql:search_name:rps")) printf "name search req/s ours/PostGraphile ILIKE   %s  (target >= 3: %s)\n", r(med("debtql:search_name:rps"), med("postgraphile:search_name:rps")), ok(med("debtql:search_name:rps") >= 3 * med("postgraphile:search_name:rps"))
      if (med("debtql:search_number:rps")) printf "number search req/s ours/PostGraphile ILIKE %s  (target >= 3: %s)\n", r(med("debtql:search_number:rps"), med("postgraphile:search_number:rps")), ok(med("debtql:search_number:rps") >= 3 * med("postgraphile:search_number:rps"))
    }' "$tsv" "$(test -s "$sql" && echo "$sql" || echo /dev/null)" 
}

tmp="$(mktemp -d /tmp/debtql-bench.XXXXXX)"
trap cleanup EXIT
trap 'exit 130' INT TERM
case "${1:-run}" in
  setup) setup ;;
  run) run ;;
  summary) summary "${2:?results dir}/graphql.tsv" "$2/sql.tsv" ;;
  *) sed -n '2,18p' "$0"; exit 2 ;;
esac
