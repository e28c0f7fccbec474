-- debtor_name_suffixes: every suffix of every debtor's name_key, so that a
-- count of the debtors whose name contains a term is a range of one btree
-- (the suffixes that start with the term), read from the index alone,
-- instead of a trigram bitmap and a recheck of every candidate's row.
-- A name_key contains k exactly when one of its suffixes starts with k.
-- Written by hand: the table is not ent's (an ent schema needs an id
-- column, this table needs none); the comparison with ent/schema inspects
-- and changes ent's tables only, so it leaves this one alone.
--
-- The database keeps it, in the transaction of every change to debtors,
-- whoever makes it: DebtQL, the COPY of `debtql seed`, an operator's SQL.
-- Inserts and deletes are handled once per statement from their transition
-- table; an update only when it changes name_key or client_id; TRUNCATE of
-- debtors empties it too.
CREATE TABLE "debtor_name_suffixes" (
  "client_id" uuid NOT NULL,
  "suffix" text COLLATE "C" NOT NULL,
  "debtor_id" uuid NOT NULL,
  PRIMARY KEY ("client_id", "suffix", "debtor_id")
);
COMMENT ON TABLE "debtor_name_suffixes" IS
  'Every suffix of debtors.name_key, kept by triggers on debtors: the count of a NAME search. Not to be written by hand.';
CREATE FUNCTION "debtql_name_suffixes_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "debtor_name_suffixes" ("client_id", "suffix", "debtor_id")
  SELECT n."client_id", substr(n."name_key", i), n."id"
    FROM "new_debtors" AS n, generate_series(1, char_length(n."name_key")) AS i;
  RETURN NULL;
END
$$;
CREATE FUNCTION "debtql_name_suffixes_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "debtor_name_suffixes" AS s
   USING (SELECT o."client_id", substr(o."name_key", i) AS "suffix", o."id"
            FROM "old_debtors" AS o, generate_series(1, char_length(o."name_key")) AS i) AS o
   WHERE s."client_id" = o."client_id" AND s."suffix" = o."suffix" AND s."debtor_id" = o."id";
  RETURN NULL;
END
$$;
CREATE FUNCTION "debtql_name_suffixes_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "debtor_name_suffixes"
   WHERE "client_id" = OLD."client_id" AND "debtor_id" = OLD."id"
     AND "suffix" IN (SELECT substr(OLD."name_key", i) FROM generate_series(1, char_length(OLD."name_key")) AS i);
  INSERT INTO "debtor_name_suffixes" ("client_id", "suffix", "debtor_id")
  SELECT NEW."client_id", substr(NEW."name_key", i), NEW."id"
    FROM generate_series(1, char_length(NEW."name_key")) AS i;
  RETURN NULL;
END
$$;
CREATE FUNCTION "debtql_name_suffixes_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE "debtor_name_suffixes";
  RETURN NULL;
END
$$;
CREATE TRIGGER "debtors_name_suffixes_insert" AFTER INSERT ON "debtors"
  REFERENCING NEW TABLE AS "new_debtors" FOR EACH STATEMENT EXECUTE FUNCTION "debtql_name_suffixes_insert"();
CREATE TRIGGER "debtors_name_suffixes_delete" AFTER DELETE ON "debtors"
  REFERENCING OLD TABLE AS "old_debtors" FOR EACH STATEMENT EXECUTE FUNCTION "debtql_name_suffixes_delete"();
CREATE TRIGGER "debtors_name_suffixes_update" AFTER UPDATE OF "client_id", "name_key" ON "debtors"
  FOR EACH ROW
  WHEN (OLD."client_id" <> NEW."client_id" OR OLD."name_key" <> NEW."name_key")
  EXECUTE FUNCTION "debtql_name_suffixes_update"();
CREATE TRIGGER "debtors_name_suffixes_truncate" AFTER TRUNCATE ON "debtors"
  FOR EACH STATEMENT EXECUTE FUNCTION "debtql_name_suffixes_truncate"();
-- The debtors already there. Creating the triggers above locked debtors
-- against writes until this migration commits, so none is missed or
-- written twice.
INSERT INTO "debtor_name_suffixes" ("client_id", "suffix", "debtor_id")
SELECT d."client_id", substr(d."name_key", i), d."id"
  FROM "debtors" AS d, generate_series(1, char_length(d."name_key")) AS i;
