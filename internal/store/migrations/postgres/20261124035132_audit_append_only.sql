-- The audit trail is append-only below the API as well: no role, DebtQL's
-- own included, can change or delete an event or its records. (ent's hook
-- refuses it in our code; this refuses it to everything else that speaks
-- SQL.) Row triggers do not fire on TRUNCATE, which `debtql seed --reset`
-- uses to empty a development or benchmark database with its data.
CREATE FUNCTION "debtql_audit_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the audit trail is append-only: % on % is refused', TG_OP, TG_TABLE_NAME
    USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER "audit_events_append_only" BEFORE UPDATE OR DELETE ON "audit_events"
  FOR EACH ROW EXECUTE FUNCTION "debtql_audit_append_only"();
CREATE TRIGGER "audit_event_records_append_only" BEFORE UPDATE OR DELETE ON "audit_event_records"
  FOR EACH ROW EXECUTE FUNCTION "debtql_audit_append_only"();
