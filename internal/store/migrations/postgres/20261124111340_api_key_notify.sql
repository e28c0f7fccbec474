-- api_key_notify: every change of an API key that matters to
-- authentication (revocation, deletion, a new role, client or secret) is
-- announced on the channel debtql_api_keys (auth.KeyChannel) when it
-- commits, whoever makes it: a DebtQL replica, `debtql apikey revoke`, an
-- operator's SQL. Each DebtQL process LISTENs on it and forgets the keys it
-- had cached (auth.KeyCache), so that a revoked key is refused everywhere
-- as soon as the revocation commits. Recording a key's last use (the only
-- column changed on authentication) announces nothing. Written by hand.
CREATE FUNCTION "debtql_api_keys_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('debtql_api_keys', TG_OP);
  RETURN NULL;
END
$$;
CREATE TRIGGER "api_keys_notify" AFTER UPDATE OF "revoked_at", "role", "client_id", "secret_hash" OR DELETE ON "api_keys"
  FOR EACH STATEMENT EXECUTE FUNCTION "debtql_api_keys_notify"();
CREATE TRIGGER "api_keys_notify_truncate" AFTER TRUNCATE ON "api_keys"
  FOR EACH STATEMENT EXECUTE FUNCTION "debtql_api_keys_notify"();
