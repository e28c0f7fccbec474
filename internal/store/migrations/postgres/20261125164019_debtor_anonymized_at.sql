-- Modify "debtors" table
ALTER TABLE "debtors" ADD COLUMN "anonymized_at" timestamptz NULL;
