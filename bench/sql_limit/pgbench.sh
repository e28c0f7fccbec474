#!/usr/bin/env bash
# The SQL limit: pgbench runs one script (the statements a perfect server
# would send for an operation) at the GraphQL load's concurrency, and
# prints tps and the p50 and p99 of its transactions.
#
#   bench/sql_limit/pgbench.sh SCRIPT.sql [-d SECONDS] [-c CLIENTS] [-j THREADS] [-l LABEL] [-o TSV]
#
# Prepared statements (-M prepared), as pgx's statement cache sends them.
# Every script gets client_id (the hot client), main_status=2 and
# pattern='%ander%'; one that uses them, the first Q1 page's debt_ids and
# debtor_ids.
# The database is $PGDATABASE (debtbench).
set -euo pipefail
. "$(dirname "$0")/../env.sh"

script="${1:?usage: pgbench.sh SCRIPT.sql [-d s] [-c n] [-j n] [-l label] [-o tsv]}"; shift
dur="$BENCH_DURATION" clients="$BENCH_CONNECTIONS" jobs="$BENCH_THREADS" label="" out=""
while getopts "d:c:j:l:o:" opt; do
  case "$opt" in d) dur="$OPTARG" ;; c) clients="$OPTARG" ;; j) jobs="$OPTARG" ;; l) label="$OPTARG" ;; o) out="$OPTARG" ;; *) exit 2 ;; esac
done
label="${label:-sql:$(basename "$script" .sql)}"
loopback_only "postgres://$PGUSER@$PGHOST:$PGPORT/$PGDATABASE"

# The page's ids only for a script that uses them (the anchor's columns:
# a script of DebtQL's statements runs on DebtQL's database).
ids=()
if grep -q ':debt_ids\|:debtor_ids' "$script"; then
  page="SELECT id, debtor_id FROM debts WHERE client_id = '$HOT_CLIENT_ID' AND main_status = 2 ORDER BY id DESC LIMIT 51"
  ids=(-D debt_ids="$(psql -XAt -c "SELECT array_agg(id) FROM ($page) p" </dev/null)"
       -D debtor_ids="$(psql -XAt -c "SELECT array_agg(debtor_id) FROM ($page) p" </dev/null)")
fi

logs="$(mktemp -d /tmp/bench-pgbench.XXXXXX)"
trap 'rm -rf "$logs"' EXIT
raw="$("$PG_BIN/pgbench" -n -M prepared -c "$clients" -j "$jobs" -T "$dur" \
  -D client_id="$HOT_CLIENT_ID" -D main_status=2 -D pattern='%ander%' \
  "${ids[@]}" \
  -l --log-prefix="$logs/tx" -f "$script" 2>&1 </dev/null)" || { echo "$raw" >&2; exit 1; }

tps="$(sed -nE 's/^tps = ([0-9.]+).*/\1/p' <<<"$raw" | head -1)"
failed="$(sed -nE 's/^number of failed transactions: ([0-9]+).*/\1/p' <<<"$raw")"
# The per-transaction log: client, transaction, latency in µs, ...
read -r n p50 p99 < <(cat "$logs"/tx* | awk '{print $3}' | sort -n |
  awk '{a[NR] = $1} END {i = int(NR * 0.50); if (i < 1) i = 1; j = int(NR * 0.99); if (j < 1) j = 1; printf "%d %.2f %.2f\n", NR, a[i] / 1000, a[j] / 1000}')
printf '   %-28s tps=%-9s p50=%-8s p99=%-8s transactions=%s failed=%s\n' "$label" "$tps" "${p50}ms" "${p99}ms" "$n" "${failed:-0}"

if [ -n "$out" ]; then
  [ -s "$out" ] || printf 'time\tlabel\tscript\tduration_s\tclients\ttps\tp50_ms\tp99_ms\ttransactions\tfailed\n' >"$out"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$label" "$(basename "$script")" \
    "$dur" "$clients" "$tps" "$p50" "$p99" "$n" "${failed:-0}" >>"$out"
fi
