package store

import (
	"context"
	"log/slog"
	"time"
)

// AuditChannel is the channel on which PostgreSQL announces every commit
// that appended to the audit trail (the migration audit_event_notify).
const AuditChannel = "debtql_audit"

// AuditListenerName is the application_name of the event feed's listening
// connection (pg_stat_activity).
const AuditListenerName = "debtql event feed"

// ListenAudit calls heard for every notification on AuditChannel, and once
// each time its connection (one of its own, outside the pool) starts
// listening, since notifications sent while it was not may have been
// missed; until ctx ends, connecting again after retry when the connection
// fails. On SQLite it returns at once: there is no channel.
func (d *DB) ListenAudit(ctx context.Context, heard func(), retry time.Duration, log *slog.Logger) {
	if !d.IsPostgres() {
		return
	}
	for ctx.Err() == nil {
		err := d.listenAuditOnce(ctx, heard)
		if ctx.Err() != nil {
			return
		}
		log.Warn("event feed: its notification connection failed; the feed polls until it is back", "error", err.Error())
		select {
		case <-ctx.Done():
			return
		case <-time.After(retry):
		}
	}
}

func (d *DB) listenAuditOnce(ctx context.Context, heard func()) error {
	conn, err := d.Connect(ctx)
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, "SET application_name = '"+AuditListenerName+"'"); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+AuditChannel); err != nil {
		return err
	}
	heard()
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		heard()
	}
}

// NotifyAudit announces on AuditChannel that the audit trail grew: each
// process sends it after its own commits (outside the writing
// transaction), so that the other replicas' feeds read the trail at once.
func (d *DB) NotifyAudit(ctx context.Context) error {
	if !d.IsPostgres() {
		return nil
	}
	_, err := d.SQL.ExecContext(ctx, "SELECT pg_notify($1, '')", AuditChannel)
	return err
}
