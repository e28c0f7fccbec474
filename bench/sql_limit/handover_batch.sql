-- The SQL limit of the hand-over in batches (the shape of createDebts with
-- 500 entries): 500 new debtors, their debts and two items each in one
-- transaction, on the anchor's schema. Run by scripts/bench.sh handover;
-- see handover_single.sql.
BEGIN;
WITH debtors_made AS (
  INSERT INTO debtors (id, client_id, identification_number, name, address1, zip_code, city, country_code)
  SELECT gen_random_uuid(), CAST(:handover_client AS uuid), 'HO-' || gen_random_uuid(), 'Debitor', 'Storgata 1', '0150', 'Oslo', 'NO'
    FROM generate_series(1, 500)
  RETURNING id
), debts_made AS (
  INSERT INTO debts (client_id, debtor_id, original_amount)
  SELECT CAST(:handover_client AS uuid), id, 1250.00 FROM debtors_made
  RETURNING id
)
INSERT INTO debt_invoices (debt_id, invoice_number, invoice_date, due_date, amount)
SELECT d.id, 'HO-' || d.id || '-' || k, '2026-09-01', '2026-10-01', CASE k WHEN 1 THEN 500.00 ELSE 750.00 END
  FROM debts_made d, generate_series(1, 2) AS k;
COMMIT;
