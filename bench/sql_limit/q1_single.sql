-- Q1 in one round trip, the least a server could send: the page (51 rows,
-- the 51st tells hasNextPage) of the hot client's debts with main_status =
-- 2, newest first, joined to their debtors, each with its debt invoices as
-- JSON, and the total count (an InitPlan: run once).
-- pgbench variables: client_id, main_status.
SELECT p.id, p.main_status, p.under_status, p.payment_status, p.original_amount, p.paid_amount, p.created_at,
       dr.name, dr.identification_number,
       (SELECT json_agg(json_build_object('invoice_number', di.invoice_number, 'amount', di.amount) ORDER BY di.id)
          FROM debt_invoices di WHERE di.debt_id = p.id) AS invoices,
       (SELECT count(*) FROM debts c WHERE c.client_id = :client_id::uuid AND c.main_status = :main_status::smallint) AS total_count
FROM (SELECT d.id, d.main_status, d.under_status, d.payment_status, d.original_amount, d.paid_amount, d.created_at, d.debtor_id
        FROM debts d
       WHERE d.client_id = :client_id::uuid AND d.main_status = :main_status::smallint
       ORDER BY d.id DESC
       LIMIT 51) p
JOIN debtors dr ON dr.id = p.debtor_id
ORDER BY p.id DESC;
