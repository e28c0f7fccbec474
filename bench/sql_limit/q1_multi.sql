-- Q1 as an ORM with eager loading sends it: the count, the page, the page's
-- debtors, the page's debt invoices, four autocommit round trips.
-- pgbench.sh passes the first page's ids (debt_ids, debtor_ids), which a
-- server would know after reading the page.
SELECT count(*) FROM debts WHERE client_id = :client_id::uuid AND main_status = :main_status::smallint;
SELECT id, client_id, debtor_id, active_status, main_status, under_status, payment_status,
       original_amount, paid_amount, withdrawn_at, withdraw_comment, created_at, updated_at
  FROM debts
 WHERE client_id = :client_id::uuid AND main_status = :main_status::smallint
 ORDER BY id DESC
 LIMIT 51;
SELECT id, name, identification_number FROM debtors WHERE id = ANY(:debtor_ids::uuid[]);
SELECT id, debt_id, invoice_number, amount FROM debt_invoices WHERE debt_id = ANY(:debt_ids::int[]) ORDER BY debt_id, id;
