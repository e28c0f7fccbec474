-- debtor_changes: how many times each client's debtors have changed in
-- what a search on debtors reads (client, name_key, identification_key,
-- email_key), so that a search's total counted once can be served again
-- while nothing it counts has changed (ledger's remembered search totals,
-- docs/performance.md). Kept by triggers on debtors in the transaction of
-- every change, whoever makes it, in shards as debt_counts is: a
-- transaction writes the row (client_id, pg_current_xact_id() % 16), so
-- that concurrent hand-overs of one client do not wait for each other.
--
-- A client's version is the pair (sum of "changes", max of "last_xact")
-- over its rows. Every committed change adds to the sum, so two reads of
-- the same pair saw the same debtors. "last_xact" (the 64-bit transaction
-- id, never reused) is there for the rows' removal: after a TRUNCATE of
-- this table the sums start again from zero, but any new row's "last_xact"
-- is above every earlier one, so no earlier pair comes back.
CREATE TABLE "debtor_changes" (
  "client_id" uuid NOT NULL,
  "shard" smallint NOT NULL,
  "changes" bigint NOT NULL,
  "last_xact" bigint NOT NULL,
  PRIMARY KEY ("client_id", "shard")
);
COMMENT ON TABLE "debtor_changes" IS
  'Per client and shard: changes to the searched columns of debtors, kept by triggers on debtors; a client''s version is (sum(changes), max(last_xact)). Not to be written by hand.';
-- n changes to a client's debtors, in this transaction's shard.
CREATE FUNCTION "debtql_debtor_changed"("client" uuid, "n" bigint) RETURNS void LANGUAGE sql AS $$
  INSERT INTO "debtor_changes" AS t ("client_id", "shard", "changes", "last_xact")
  VALUES ("client", (pg_current_xact_id()::text::bigint % 16)::smallint, "n", pg_current_xact_id()::text::bigint)
  ON CONFLICT ("client_id", "shard") DO UPDATE
    SET "changes" = t."changes" + excluded."changes", "last_xact" = greatest(t."last_xact", excluded."last_xact");
$$;
CREATE FUNCTION "debtql_debtor_changes_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "debtql_debtor_changed"("client_id", count(*)) FROM "changed_debtors" GROUP BY "client_id";
  RETURN NULL;
END
$$;
CREATE FUNCTION "debtql_debtor_changes_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "debtql_debtor_changed"(c, 1) FROM (SELECT DISTINCT unnest(ARRAY[OLD."client_id", NEW."client_id"]) AS c) AS clients;
  RETURN NULL;
END
$$;
-- TRUNCATE of debtors changes every client's debtors at once.
CREATE FUNCTION "debtql_debtor_changes_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "debtor_changes" SET "changes" = "changes" + 1, "last_xact" = pg_current_xact_id()::text::bigint;
  RETURN NULL;
END
$$;
CREATE TRIGGER "debtors_changes_insert" AFTER INSERT ON "debtors"
  REFERENCING NEW TABLE AS "changed_debtors" FOR EACH STATEMENT EXECUTE FUNCTION "debtql_debtor_changes_rows"();
CREATE TRIGGER "debtors_changes_delete" AFTER DELETE ON "debtors"
  REFERENCING OLD TABLE AS "changed_debtors" FOR EACH STATEMENT EXECUTE FUNCTION "debtql_debtor_changes_rows"();
CREATE TRIGGER "debtors_changes_update" AFTER UPDATE OF "client_id", "name_key", "identification_key", "email_key" ON "debtors"
  FOR EACH ROW
  WHEN (OLD."client_id" <> NEW."client_id" OR OLD."name_key" IS DISTINCT FROM NEW."name_key"
        OR OLD."identification_key" IS DISTINCT FROM NEW."identification_key" OR OLD."email_key" IS DISTINCT FROM NEW."email_key")
  EXECUTE FUNCTION "debtql_debtor_changes_update"();
CREATE TRIGGER "debtors_changes_truncate" AFTER TRUNCATE ON "debtors"
  FOR EACH STATEMENT EXECUTE FUNCTION "debtql_debtor_changes_truncate"();
-- Every client a first version. Creating the triggers above locked
-- debtors against writes until this migration commits, so no change is
-- missed before its first count.
SELECT "debtql_debtor_changed"("id", 1) FROM "clients";
