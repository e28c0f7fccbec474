#!/usr/bin/env bash
# (Re)create the anchor's database at a scale: schema.sql, data.sql,
# VACUUM (FREEZE, ANALYZE), then the row counts and the fingerprints that
# show the load is the one every figure was measured on.
#
#   bench/load_data.sh [SCALE]     SCALE 1 (default) -> debtbench, s -> debtbench<s>
#
# Scale 1 fingerprints: debtors 2b0b13cb969eba55de4f961fad626674,
# debts 3d6081975a1d2bd77b9cb33e85682aef. It drops the database first.
set -euo pipefail
. "$(dirname "$0")/env.sh"

scale="${1:-${SCALE:-1}}"
[[ "$scale" =~ ^[0-9]+$ ]] || { echo "load_data.sh: the scale is a whole number, not $scale" >&2; exit 2; }
db="$(anchor_db "$scale")"
loopback_only "postgres://$PGUSER@$PGHOST:$PGPORT/$db"
q() { psql -X -q -v ON_ERROR_STOP=1 "$@" </dev/null; }

start=$SECONDS
q -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)"
# C.UTF-8 everywhere: the ORDER BY name of the searches must sort alike on
# every machine.
q -d postgres -c "CREATE DATABASE $db TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'"
q -d "$db" -f "$BENCH_DIR/schema.sql"
echo "$db: schema created; loading scale $scale"
q -d "$db" -v scale="$scale" -f "$BENCH_DIR/data.sql" >/dev/null
echo "$db: rows in after $(( SECONDS - start )) s; VACUUM (FREEZE, ANALYZE)"
q -d "$db" -c "VACUUM (FREEZE, ANALYZE)"
echo "$db: loaded in $(( SECONDS - start )) s"

psql -X -v ON_ERROR_STOP=1 -P pager=off -d "$db" </dev/null <<SQL
SELECT 'clients' AS "table", count(*) FROM clients
UNION ALL SELECT 'debtors', count(*) FROM debtors
UNION ALL SELECT 'debts', count(*) FROM debts
UNION ALL SELECT 'debts of the hot client', count(*) FROM debts WHERE client_id = '$HOT_CLIENT_ID'
UNION ALL SELECT 'hot debts with main_status = 2', count(*) FROM debts WHERE client_id = '$HOT_CLIENT_ID' AND main_status = 2
UNION ALL SELECT 'hot debtors named ILIKE %ander%', count(*) FROM debtors WHERE client_id = '$HOT_CLIENT_ID' AND name ILIKE '%ander%'
UNION ALL SELECT 'debt_invoices', count(*) FROM debt_invoices
UNION ALL SELECT 'payments', count(*) FROM payments
UNION ALL SELECT 'invoices', count(*) FROM invoices
UNION ALL SELECT 'invoice_articles', count(*) FROM invoice_articles;
-- The same on every load of the same scale.
SELECT md5(string_agg(id::text || name || identification_number, ',' ORDER BY id)) AS debtors_fingerprint FROM debtors;
SELECT md5(string_agg(id || ':' || main_status || ':' || original_amount || ':' || paid_amount, ',' ORDER BY id)) AS debts_fingerprint FROM debts;
SELECT pg_size_pretty(pg_database_size(current_database())) AS size;
SQL
