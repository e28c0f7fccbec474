-- audit_event_notify: every transaction that appends to the audit trail
-- announces it on the channel debtql_audit (events.Channel) when it
-- commits, whoever writes it. Each DebtQL process LISTENs on it to wake
-- its event feed (subscriptions, webhooks); the trail itself stays the
-- truth, so a notification carries nothing and one lost costs at most the
-- feed's safety poll. One per statement (and PostgreSQL folds equal
-- notifications of one transaction into one). Written by hand.
CREATE FUNCTION "debtql_audit_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('debtql_audit', '');
  RETURN NULL;
END
$$;
CREATE TRIGGER "audit_events_notify" AFTER INSERT ON "audit_events"
  FOR EACH STATEMENT EXECUTE FUNCTION "debtql_audit_notify"();
