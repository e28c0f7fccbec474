-- debt_counts (ent/schema/debtcount.go) is kept by the database, in the
-- transaction of every change to debts, whoever makes it: DebtQL, the COPY
-- of `debtql seed`, an operator's SQL. A debt is open when it is neither
-- withdrawn nor paid in full: collection.OpenCondition, which every
-- "withdrawn_at IS NULL AND paid_amount < original_amount" below repeats.
-- TRUNCATE fires none of these triggers: `debtql seed --reset` empties
-- debt_counts with debts.
--
-- Inserts and deletes are counted once per statement from its transition
-- table (one row per client however many debts a COPY loads); an update
-- fires only when it opens or closes a debt (or moves it to another
-- client), not on every payment.
CREATE FUNCTION "debtql_debt_counts_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "debt_counts" AS t ("client_id", "debts", "open_debts")
  SELECT "client_id", count(*),
         count(*) FILTER (WHERE "withdrawn_at" IS NULL AND "paid_amount" < "original_amount")
    FROM "new_debts" GROUP BY "client_id"
  ON CONFLICT ("client_id") DO UPDATE
    SET "debts" = t."debts" + excluded."debts", "open_debts" = t."open_debts" + excluded."open_debts";
  RETURN NULL;
END
$$;
CREATE FUNCTION "debtql_debt_counts_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "debt_counts" AS t SET "debts" = t."debts" - o."n", "open_debts" = t."open_debts" - o."open"
    FROM (SELECT "client_id", count(*) AS "n",
                 count(*) FILTER (WHERE "withdrawn_at" IS NULL AND "paid_amount" < "original_amount") AS "open"
            FROM "old_debts" GROUP BY "client_id") AS o
   WHERE t."client_id" = o."client_id";
  RETURN NULL;
END
$$;
CREATE FUNCTION "debtql_debt_counts_update"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  was_open int := (OLD."withdrawn_at" IS NULL AND OLD."paid_amount" < OLD."original_amount")::int;
  is_open int := (NEW."withdrawn_at" IS NULL AND NEW."paid_amount" < NEW."original_amount")::int;
BEGIN
  IF OLD."client_id" = NEW."client_id" THEN
    UPDATE "debt_counts" SET "open_debts" = "open_debts" + is_open - was_open WHERE "client_id" = NEW."client_id";
  ELSE
    UPDATE "debt_counts" SET "debts" = "debts" - 1, "open_debts" = "open_debts" - was_open
     WHERE "client_id" = OLD."client_id";
    INSERT INTO "debt_counts" AS t ("client_id", "debts", "open_debts") VALUES (NEW."client_id", 1, is_open)
    ON CONFLICT ("client_id") DO UPDATE
      SET "debts" = t."debts" + 1, "open_debts" = t."open_debts" + excluded."open_debts";
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER "debts_count_insert" AFTER INSERT ON "debts"
  REFERENCING NEW TABLE AS "new_debts" FOR EACH STATEMENT EXECUTE FUNCTION "debtql_debt_counts_insert"();
CREATE TRIGGER "debts_count_delete" AFTER DELETE ON "debts"
  REFERENCING OLD TABLE AS "old_debts" FOR EACH STATEMENT EXECUTE FUNCTION "debtql_debt_counts_delete"();
CREATE TRIGGER "debts_count_update" AFTER UPDATE OF "client_id", "original_amount", "paid_amount", "withdrawn_at" ON "debts"
  FOR EACH ROW
  WHEN (OLD."client_id" <> NEW."client_id"
        OR (OLD."withdrawn_at" IS NULL AND OLD."paid_amount" < OLD."original_amount")
           <> (NEW."withdrawn_at" IS NULL AND NEW."paid_amount" < NEW."original_amount"))
  EXECUTE FUNCTION "debtql_debt_counts_update"();
-- The debts already there. Creating the triggers above locked debts against
-- writes until this migration commits, so none is missed or counted twice.
INSERT INTO "debt_counts" ("client_id", "debts", "open_debts")
SELECT "client_id", count(*), count(*) FILTER (WHERE "withdrawn_at" IS NULL AND "paid_amount" < "original_amount")
  FROM "debts" GROUP BY "client_id";
