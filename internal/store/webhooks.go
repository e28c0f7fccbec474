package store

import (
	"context"
	"database/sql"
)

// sqliteWebhookQueue queues webhook deliveries on SQLite as the migrations
// webhook_queue and webhook_queue_per_statement do on PostgreSQL (there
// once per statement, here once per event): in the transaction that
// appends an audit event, one PENDING delivery per endpoint that wants
// it. Times are written as the driver writes a UTC time.Time
// (time.Time.String), so that they compare as text with the times the
// senders pass; ids are random UUIDs (version 4).
const sqliteWebhookQueue = `CREATE TRIGGER IF NOT EXISTS audit_events_webhooks AFTER INSERT ON audit_events BEGIN
  INSERT INTO webhook_deliveries (id, created_at, updated_at, client_id, event_id, status, attempts, next_attempt_at, endpoint_id)
  SELECT ` + sqliteUUID + `, ` + sqliteNow + `, ` + sqliteNow + `, e.client_id, NEW.id, 'PENDING', '[]', ` + sqliteNow + `, e.id
    FROM webhook_endpoints e
   WHERE (e.client_id IS NULL OR e.client_id = NEW.client_id)
     AND (e.operations IS NULL OR json_array_length(e.operations) = 0
          OR EXISTS (SELECT 1 FROM json_each(e.operations) WHERE value = NEW.operation));
END`

// sqliteNow is the current time in the driver's text form of a UTC time.
const sqliteNow = `(strftime('%Y-%m-%d %H:%M:%f', 'now') || ' +0000 UTC')`

// sqliteUUID is a random version-4 UUID in its canonical form.
const sqliteUUID = `(lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-' ||
  substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6))))`

// sqliteWebhooks installs the queue's trigger.
func sqliteWebhooks(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, sqliteWebhookQueue)
	return err
}
