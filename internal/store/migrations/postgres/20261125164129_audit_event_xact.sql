-- Modify "audit_events" table
ALTER TABLE "audit_events" ADD COLUMN "xact" bigint NULL DEFAULT ((pg_current_xact_id())::text)::bigint;
-- Create index "auditevent_client_id_xact_id" to table: "audit_events"
CREATE INDEX "auditevent_client_id_xact_id" ON "audit_events" ("client_id", "xact", "id");
-- Create index "auditevent_xact_id" to table: "audit_events"
CREATE INDEX "auditevent_xact_id" ON "audit_events" ("xact", "id");
