-- audit_notify_after_commit: the NOTIFY of audit_event_notify leaves the
-- writing transaction. PostgreSQL serialises the commits of transactions
-- that called NOTIFY, and every payment appends to the audit trail, so the
-- trigger capped payments per second (docs/performance.md). Each DebtQL
-- process now sends the notification itself after its commits, one for
-- any number of commits that came while the last was sent
-- (server.startEvents); writers outside DebtQL are read by the feed's
-- safety poll. Written by hand.
DROP TRIGGER "audit_events_notify" ON "audit_events";
DROP FUNCTION "debtql_audit_notify"();
