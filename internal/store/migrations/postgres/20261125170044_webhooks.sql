-- Create "webhook_endpoints" table
CREATE TABLE "webhook_endpoints" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "client_id" uuid NULL, "url" character varying NOT NULL, "description" character varying NULL, "operations" jsonb NULL, "secret" character varying NOT NULL, PRIMARY KEY ("id"));
-- Create index "webhookendpoint_client_id_created_at" to table: "webhook_endpoints"
CREATE INDEX "webhookendpoint_client_id_created_at" ON "webhook_endpoints" ("client_id", "created_at");
-- Create "webhook_deliveries" table
CREATE TABLE "webhook_deliveries" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "client_id" uuid NULL, "event_id" bigint NOT NULL, "status" character varying NOT NULL DEFAULT 'PENDING', "attempts" jsonb NULL, "next_attempt_at" timestamptz NULL, "endpoint_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "webhook_deliveries_webhook_endpoints_deliveries" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create index "webhookdelivery_endpoint_id_created_at_id" to table: "webhook_deliveries"
CREATE INDEX "webhookdelivery_endpoint_id_created_at_id" ON "webhook_deliveries" ("endpoint_id", "created_at", "id");
-- Create index "webhookdelivery_next_attempt_at" to table: "webhook_deliveries"
CREATE INDEX "webhookdelivery_next_attempt_at" ON "webhook_deliveries" ("next_attempt_at") WHERE ((status)::text = 'PENDING'::text);
