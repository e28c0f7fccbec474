-- The SQL limit of the hand-over, one debt per transaction (the shape of
-- createDebt from 16 connections): a new debtor, its debt and the debt's
-- two items, on the anchor's schema. Run by scripts/bench.sh handover with
-- -t transactions per client; handover_client is the client, and every
-- number the script makes starts with HO- so that the run's rows can be
-- deleted afterwards.
BEGIN;
INSERT INTO debtors (id, client_id, identification_number, name, address1, zip_code, city, country_code)
  VALUES (gen_random_uuid(), CAST(:handover_client AS uuid), 'HO-' || gen_random_uuid(), 'Debitor', 'Storgata 1', '0150', 'Oslo', 'NO')
  RETURNING id AS debtor_id \gset
INSERT INTO debts (client_id, debtor_id, original_amount)
  VALUES (CAST(:handover_client AS uuid), CAST(:debtor_id AS uuid), 1250.00)
  RETURNING id AS debt_id \gset
INSERT INTO debt_invoices (debt_id, invoice_number, invoice_date, due_date, amount)
  VALUES (:debt_id, 'HO-' || :debt_id || '-1', '2026-09-01', '2026-10-01', 500.00),
         (:debt_id, 'HO-' || :debt_id || '-2', '2026-09-01', '2026-10-01', 750.00);
COMMIT;
