-- webhook_queue_per_statement: the webhook queue's trigger runs once per
-- statement over the events it appended (a transition table) instead of
-- once per event. A hand-over appends an event per debt in one statement
-- (createDebts: up to 500, a group of createDebt calls: up to 16), and a
-- call of the trigger's function each cost about 18 µs even when no
-- endpoint exists (docs/performance.md, "Bulk hand-over"). What it queues
-- is unchanged: every event, for each endpoint that wants it (its client's,
-- or of no client; its operations null, empty or naming the event's). The
-- SQLite copy (store.sqliteWebhookQueue) stays a row trigger. Written by
-- hand.
DROP TRIGGER "audit_events_webhooks" ON "audit_events";
CREATE OR REPLACE FUNCTION "debtql_webhook_queue"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "webhook_deliveries" ("id", "created_at", "updated_at", "client_id", "event_id", "status", "attempts", "next_attempt_at", "endpoint_id")
  SELECT gen_random_uuid(), now(), now(), e."client_id", n."id", 'PENDING', '[]'::jsonb, now(), e."id"
    FROM "new_audit_events" AS n
    JOIN "webhook_endpoints" AS e
      ON (e."client_id" IS NULL OR e."client_id" = n."client_id")
     AND (jsonb_typeof(e."operations") IS DISTINCT FROM 'array' OR jsonb_array_length(e."operations") = 0 OR e."operations" ? n."operation");
  RETURN NULL;
END
$$;
CREATE TRIGGER "audit_events_webhooks" AFTER INSERT ON "audit_events"
  REFERENCING NEW TABLE AS "new_audit_events" FOR EACH STATEMENT EXECUTE FUNCTION "debtql_webhook_queue"();
