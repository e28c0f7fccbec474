package graph

import (
	"context"
	"sort"

	"github.com/99designs/gqlgen/graphql"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/ledger"
)

// auditEvents lists the audit trail, newest first: every client's for an
// ADMIN key, its own client's for a CLIENT key (the tenant filter keeps
// the rest out; a filter naming another client is FORBIDDEN).
func (r *Resolver) auditEvents(ctx context.Context, filter *ledger.AuditEventFilter, args ledger.Page) (*ent.AuditEventConnection, error) {
	if filter != nil && filter.ClientID != nil {
		if err := auth.AuthorizeClient(ctx, *filter.ClientID); err != nil {
			return nil, err
		}
	}
	l, err := r.ledger.AuditEventList(ctx, filter, args, isMutation)
	if err != nil {
		return nil, err
	}
	conn, err := l.Query.Page(ctx, l.Paging, ent.WithAuditEventOrder(l.Order))
	if err != nil {
		return nil, err
	}
	for _, e := range conn.Edges {
		l.TagCursors(&e.Cursor)
	}
	return conn, nil
}

// isMutation reports whether name is an operation the trail records: a
// field of the Mutation type, or debtorDataExport (an access to personal
// data, recorded like a change).
func isMutation(name string) bool {
	m := parsedSchema.Mutation
	return m != nil && m.Fields.ForName(name) != nil || name == ledger.OpDebtorDataExport
}

// debtEvents are a debt's events: eager-loaded with the debt when ent
// loaded it (entgql loads edges under the field's alias), else batched with
// the other debts the loaders found.
func (r *Resolver) debtEvents(ctx context.Context, d *ent.Debt) ([]*ent.AuditEvent, error) {
	if fc := graphql.GetFieldContext(ctx); fc != nil && fc.Field.Alias != "" {
		if events, err := d.NamedEvents(fc.Field.Alias); err == nil {
			return events, nil
		}
	}
	if events, err := d.Edges.EventsOrErr(); err == nil {
		return events, nil
	}
	return r.loaders(ctx).debtEvents.get(ctx, d)
}

// eventRecords are an event's records: eager-loaded under the field's
// alias (entgql) or without one (the debt events loader), else queried.
func eventRecords(ctx context.Context, e *ent.AuditEvent) ([]*ent.AuditEventRecord, error) {
	if fc := graphql.GetFieldContext(ctx); fc != nil && fc.Field.Alias != "" {
		if records, err := e.NamedRecords(fc.Field.Alias); err == nil {
			return records, nil
		}
	}
	if records, err := e.Edges.RecordsOrErr(); err == nil {
		return records, nil
	}
	return e.QueryRecords().All(ctx)
}

// sortEvents puts events oldest first (ids grow with time).
func sortEvents(events []*ent.AuditEvent) []*ent.AuditEvent {
	sort.Slice(events, func(i, j int) bool { return events[i].ID < events[j].ID })
	return events
}

// sortRecords puts an event's records in the order they were written.
func sortRecords(records []*ent.AuditEventRecord) []*ent.AuditEventRecord {
	sort.Slice(records, func(i, j int) bool { return records[i].ID < records[j].ID })
	return records
}

// showsKey reports whether the viewer may see which key made an event: an
// ADMIN key always, a CLIENT key for events of CLIENT keys (its client's
// own), not the agency's ADMIN keys.
func showsKey(ctx context.Context, e *ent.AuditEvent) bool {
	v := auth.ViewerFrom(ctx)
	return v != nil && ledger.ShowsAPIKey(v.Role(), e)
}
