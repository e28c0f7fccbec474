-- Modify "debts" table
ALTER TABLE "debts" ADD COLUMN "last_payment_on" date NULL;
-- Fill it from the payments (hand-written): a claim read from the kept
-- amounts (Service.Claim) trusts it.
UPDATE "debts" SET "last_payment_on" = p."last" FROM (SELECT "debt_id", max("transaction_date") AS "last" FROM "payments" GROUP BY "debt_id") AS p WHERE p."debt_id" = "debts"."id";
