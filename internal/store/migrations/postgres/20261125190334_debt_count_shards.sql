-- debt_counts in shards: a client's counts are the sum of up to 16 rows
-- (client_id, shard) instead of one row, so that concurrent writers of one
-- client (hand-overs, payments that close a debt, withdrawals) update
-- different rows and do not wait for each other's commit on the client's
-- single row. A transaction writes the shard of its transaction id
-- (pg_current_xact_id() % 16): always the same row of a client within one
-- transaction, and transactions begun one after the other spread over the
-- rows. A shard's row may hold negative numbers (a debt counted in one
-- shard, closed in another); only the sum over a client's rows means
-- anything, and every reader sums (ledger.keptDebtTotal, store.DebtCounts).
-- The table is no longer ent's (an ent schema needs a one-column key);
-- the comparison with ent/schema leaves it alone. SQLite keeps one row per
-- client (store.sqliteDebtCounts): its writers run one at a time anyway.
--
-- The rows already here become shard 0: their sums are unchanged.
ALTER TABLE "debt_counts" ADD COLUMN "shard" smallint NOT NULL DEFAULT 0;
ALTER TABLE "debt_counts" DROP CONSTRAINT "debt_counts_pkey", ADD PRIMARY KEY ("client_id", "shard");
COMMENT ON TABLE "debt_counts" IS
  'Per client and shard: debts, open debts, open debts in LEGAL, kept by triggers on debts; a client''s counts are the sums over its rows. Not to be written by hand.';
CREATE OR REPLACE FUNCTION "debtql_debt_counts_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "debt_counts" AS t ("client_id", "shard", "debts", "open_debts", "legal_debts")
  SELECT "client_id", (pg_current_xact_id()::text::bigint % 16)::smallint, count(*),
         count(*) FILTER (WHERE "withdrawn_at" IS NULL AND "paid_amount" < "charged_amount"),
         count(*) FILTER (WHERE ("withdrawn_at" IS NULL AND "paid_amount" < "charged_amount") AND "payment_order_applied_at" IS NOT NULL)
    FROM "new_debts" GROUP BY "client_id"
  ON CONFLICT ("client_id", "shard") DO UPDATE
    SET "debts" = t."debts" + excluded."debts", "open_debts" = t."open_debts" + excluded."open_debts",
        "legal_debts" = t."legal_debts" + excluded."legal_debts";
  RETURN NULL;
END
$$;
CREATE OR REPLACE FUNCTION "debtql_debt_counts_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "debt_counts" AS t ("client_id", "shard", "debts", "open_debts", "legal_debts")
  SELECT "client_id", (pg_current_xact_id()::text::bigint % 16)::smallint, -count(*),
         -count(*) FILTER (WHERE "withdrawn_at" IS NULL AND "paid_amount" < "charged_amount"),
         -count(*) FILTER (WHERE ("withdrawn_at" IS NULL AND "paid_amount" < "charged_amount") AND "payment_order_applied_at" IS NOT NULL)
    FROM "old_debts" GROUP BY "client_id"
  ON CONFLICT ("client_id", "shard") DO UPDATE
    SET "debts" = t."debts" + excluded."debts", "open_debts" = t."open_debts" + excluded."open_debts",
        "legal_debts" = t."legal_debts" + excluded."legal_debts";
  RETURN NULL;
END
$$;
CREATE OR REPLACE FUNCTION "debtql_debt_counts_update"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  this_shard smallint := (pg_current_xact_id()::text::bigint % 16)::smallint;
  was_open int := (OLD."withdrawn_at" IS NULL AND OLD."paid_amount" < OLD."charged_amount")::int;
  is_open int := (NEW."withdrawn_at" IS NULL AND NEW."paid_amount" < NEW."charged_amount")::int;
  was_legal int := ((OLD."withdrawn_at" IS NULL AND OLD."paid_amount" < OLD."charged_amount") AND OLD."payment_order_applied_at" IS NOT NULL)::int;
  is_legal int := ((NEW."withdrawn_at" IS NULL AND NEW."paid_amount" < NEW."charged_amount") AND NEW."payment_order_applied_at" IS NOT NULL)::int;
BEGIN
  IF OLD."client_id" = NEW."client_id" THEN
    INSERT INTO "debt_counts" AS t ("client_id", "shard", "debts", "open_debts", "legal_debts")
    VALUES (NEW."client_id", this_shard, 0, is_open - was_open, is_legal - was_legal)
    ON CONFLICT ("client_id", "shard") DO UPDATE
      SET "open_debts" = t."open_debts" + excluded."open_debts", "legal_debts" = t."legal_debts" + excluded."legal_debts";
  ELSE
    INSERT INTO "debt_counts" AS t ("client_id", "shard", "debts", "open_debts", "legal_debts")
    VALUES (OLD."client_id", this_shard, -1, -was_open, -was_legal), (NEW."client_id", this_shard, 1, is_open, is_legal)
    ON CONFLICT ("client_id", "shard") DO UPDATE
      SET "debts" = t."debts" + excluded."debts", "open_debts" = t."open_debts" + excluded."open_debts",
          "legal_debts" = t."legal_debts" + excluded."legal_debts";
  END IF;
  RETURN NULL;
END
$$;
