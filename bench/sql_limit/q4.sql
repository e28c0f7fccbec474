-- Q4: one payment, inserted in autocommit (so its figure includes the WAL
-- flush) and returned; the debt and invoice of the GraphQL mutation.
INSERT INTO payments (debt_id, debt_invoice_id, amount, transaction_date)
VALUES (199996, 399991, 100.00, '2024-06-01')
RETURNING id, debt_id, debt_invoice_id, amount, transaction_date, booked_date, created_at;
