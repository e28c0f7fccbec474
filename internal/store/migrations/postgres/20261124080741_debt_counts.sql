-- Create "debt_counts" table
CREATE TABLE "debt_counts" ("client_id" uuid NOT NULL, "debts" bigint NOT NULL, "open_debts" bigint NOT NULL, PRIMARY KEY ("client_id"));
