-- webhook_queue: every audit event is queued for the webhook endpoints that
-- want it, in the transaction that appends the event, whoever appends it
-- (every use case, the one-statement payment included): the change and its
-- deliveries commit together or not at all, so a process that dies loses
-- none. An endpoint wants an event when it is its client's (an endpoint of
-- no client, an ADMIN's, wants every event) and its operations are null,
-- empty or name the event's. The SQLite copy of this trigger is
-- store.sqliteWebhookQueue; the webhook API tests run on both. Written by
-- hand.
CREATE FUNCTION "debtql_webhook_queue"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "webhook_deliveries" ("id", "created_at", "updated_at", "client_id", "event_id", "status", "attempts", "next_attempt_at", "endpoint_id")
  SELECT gen_random_uuid(), now(), now(), e."client_id", NEW."id", 'PENDING', '[]'::jsonb, now(), e."id"
    FROM "webhook_endpoints" e
   WHERE (e."client_id" IS NULL OR e."client_id" = NEW."client_id")
     AND (jsonb_typeof(e."operations") IS DISTINCT FROM 'array' OR jsonb_array_length(e."operations") = 0 OR e."operations" ? NEW."operation");
  RETURN NULL;
END
$$;
CREATE TRIGGER "audit_events_webhooks" AFTER INSERT ON "audit_events"
  FOR EACH ROW EXECUTE FUNCTION "debtql_webhook_queue"();
