package graph

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"entgo.io/contrib/entgql"
	"github.com/99designs/gqlgen/graphql"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/auditevent"
	"github.com/debtql/debtql/ent/auditeventrecord"
	"github.com/debtql/debtql/ent/predicate"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/scalar"
)

// auditEvents lists the audit trail, newest first: every client's for an
// ADMIN key, its own client's for a CLIENT key (the tenant filter keeps
// the rest out; a filter naming another client is FORBIDDEN).
func (r *Resolver) auditEvents(ctx context.Context, filter *AuditEventFilter, args pageArgs) (*ent.AuditEventConnection, error) {
	if filter != nil && filter.ClientID != nil {
		if err := auth.AuthorizeClient(ctx, *filter.ClientID); err != nil {
			return nil, err
		}
	}
	lo := newListOrder("auditEvents", "CREATED_AT", entgql.OrderDirectionDesc, timeValue, false)
	p, err := args.paging(lo)
	if err != nil {
		return nil, err
	}
	preds, err := auditFilter(filter)
	if err != nil {
		return nil, err
	}
	conn, err := r.db(ctx).AuditEvent.Query().Where(preds...).
		Page(ctx, p, ent.WithAuditEventOrder(&ent.AuditEventOrder{Direction: entgql.OrderDirectionDesc, Field: ent.AuditEventOrderFieldCreatedAt}))
	if err != nil {
		return nil, err
	}
	for _, e := range conn.Edges {
		lo.tagCursors(&e.Cursor)
	}
	return conn, nil
}

// auditFilter builds the predicates of an AuditEventFilter.
func auditFilter(f *AuditEventFilter) ([]predicate.AuditEvent, error) {
	if f == nil {
		return nil, nil
	}
	var preds []predicate.AuditEvent
	var errs apierr.List
	if f.ClientID != nil {
		preds = append(preds, auditevent.ClientID(*f.ClientID))
	}
	if f.Record != nil {
		id, ok := canonicalRecordID(f.Record.RecordType, f.Record.RecordID)
		if !ok {
			errs.Add("filter.record.recordId", "must be the id of a %s: a UUID for clients, debtors, invoices and API keys, a positive integer for debts, debt items and payments", f.Record.RecordType)
		} else {
			preds = append(preds, auditevent.HasRecordsWith(
				auditeventrecord.RecordTypeEQ(f.Record.RecordType), auditeventrecord.RecordID(id)))
		}
	}
	if f.From != nil {
		preds = append(preds, auditevent.CreatedAtGTE(f.From.UTC()))
	}
	if f.To != nil {
		if f.From != nil && f.To.Before(*f.From) {
			errs.Add("filter.to", "must not be before filter.from")
		}
		preds = append(preds, auditevent.CreatedAtLT(f.To.UTC()))
	}
	if f.Operation != nil {
		op := strings.TrimSpace(*f.Operation)
		if !isMutation(op) {
			errs.Add("filter.operation", "must be the name of a mutation, such as createDebt")
		} else {
			preds = append(preds, auditevent.Operation(op))
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return preds, nil
}

// canonicalRecordID writes a record id as the trail stores it: a UUID in
// lower case, an integer in decimal.
func canonicalRecordID(typ auditeventrecord.RecordType, id string) (string, bool) {
	id = strings.TrimSpace(id)
	switch typ {
	case auditeventrecord.RecordTypeDEBT, auditeventrecord.RecordTypeDEBT_INVOICE, auditeventrecord.RecordTypePAYMENT:
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil || n < 1 || n > 1<<53 {
			return "", false
		}
		return strconv.FormatInt(n, 10), true
	default:
		u, err := scalar.ParseUUID(id)
		return u, err == nil
	}
}

// isMutation reports whether name is a field of the Mutation type.
func isMutation(name string) bool {
	m := parsedSchema.Mutation
	return m != nil && m.Fields.ForName(name) != nil
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
	return v != nil && (v.IsAdmin() || e.Role != auditevent.RoleADMIN)
}
