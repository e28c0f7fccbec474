-- Create index "debtor_email_trgm" to table: "debtors"
CREATE INDEX "debtor_email_trgm" ON "debtors" USING gin ("client_id", "email_key" gin_trgm_ops);
-- Create index "debtor_identification_trgm" to table: "debtors"
CREATE INDEX "debtor_identification_trgm" ON "debtors" USING gin ("client_id", "identification_key" gin_trgm_ops);
-- Create index "debtor_name_trgm" to table: "debtors"
CREATE INDEX "debtor_name_trgm" ON "debtors" USING gin ("client_id", "name_key" gin_trgm_ops);
-- Create index "debt_client_id_id" to table: "debts"
CREATE INDEX "debt_client_id_id" ON "debts" ("client_id", "id");
