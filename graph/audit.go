package graph

import (
	"context"
	"errors"
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
	"github.com/debtql/debtql/internal/audit"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/scalar"
)

// auditRecord is a record a mutation touched, with its statuses before
// and after where it has statuses.
type auditRecord struct {
	typ           auditeventrecord.RecordType
	id            string
	before, after *audit.Statuses
}

func touched(typ auditeventrecord.RecordType, id string) auditRecord {
	return auditRecord{typ: typ, id: id}
}

func touchedInt(typ auditeventrecord.RecordType, id scalar.IntID) auditRecord {
	return auditRecord{typ: typ, id: strconv.Itoa(int(id))}
}

// auditBatch bounds the rows of one insert of event records, below the
// databases' parameter limits.
const auditBatch = 1000

// errNoAuditContext fails a mutation whose event cannot be written: a
// change without its event must not commit.
var errNoAuditContext = errors.New("audit: a change outside a mutation's transaction cannot be recorded")

// audit appends the event of the mutation field being resolved, in the
// mutation's transaction: the field's name is the operation, the viewer's
// key the actor. clientID is the client whose data changed (nil for none),
// debtID the debt whose timeline the event joins (nil for none). A
// mutation that fails after this rolls the event back with its work.
func (r *Resolver) audit(ctx context.Context, clientID *string, debtID *scalar.IntID, records ...auditRecord) error {
	a, err := r.auditActor(ctx)
	if err != nil {
		return err
	}
	if ent.TxFromContext(ctx) == nil {
		return errNoAuditContext
	}
	db := r.db(ctx)
	event, err := db.AuditEvent.Create().
		SetNillableClientID(clientID).
		SetAPIKeyID(a.keyID).
		SetAPIKeyName(a.keyName).
		SetRole(a.role).
		SetOperation(a.operation).
		SetRequestID(a.requestID).
		SetNillableDebtID(debtID).
		Save(ctx)
	if err != nil {
		return err
	}
	for start := 0; start < len(records); start += auditBatch {
		chunk := records[start:min(start+auditBatch, len(records))]
		creates := make([]*ent.AuditEventRecordCreate, len(chunk))
		for i, rec := range chunk {
			c := db.AuditEventRecord.Create().
				SetEventID(event.ID).
				SetNillableClientID(clientID).
				SetRecordType(rec.typ).
				SetRecordID(rec.id)
			if rec.before != nil {
				c.SetBefore(rec.before)
			}
			if rec.after != nil {
				c.SetAfter(rec.after)
			}
			creates[i] = c
		}
		if _, err := db.AuditEventRecord.CreateBulk(creates...).Save(ctx); err != nil {
			return err
		}
	}
	return nil
}

// auditActor is who and what an audit event records: the viewer's key,
// its role, the mutation field being resolved and the request.
type auditActor struct {
	keyID, keyName, operation, requestID string
	role                                 auditevent.Role
}

// auditActor is the actor of the mutation field being resolved, or
// errNoAuditContext outside a mutation's transaction.
func (r *Resolver) auditActor(ctx context.Context) (auditActor, error) {
	fc := graphql.GetFieldContext(ctx)
	v := auth.ViewerFrom(ctx)
	if fc == nil || fc.Object != "Mutation" || v == nil || (ent.TxFromContext(ctx) == nil && !singleStatement(ctx)) {
		return auditActor{}, errNoAuditContext
	}
	a := auditActor{keyID: v.Key.ID, keyName: v.Key.Name, role: auditevent.Role(v.Role()), operation: fc.Field.Name}
	if r.requestID != nil {
		a.requestID = r.requestID(ctx)
	}
	return a, nil
}

// auditResult appends the event of a mutation that returned v: the change
// and its event commit together or not at all.
func auditResult[T any](r *Resolver, ctx context.Context, v T, err error, clientID *string, debtID *scalar.IntID, records ...auditRecord) (T, error) {
	if err != nil {
		return v, err
	}
	if err := r.audit(ctx, clientID, debtID, records...); err != nil {
		var zero T
		return zero, err
	}
	return v, nil
}

// debtStatuses are a debt's statuses, as the API shows them now.
func (r *Resolver) debtStatuses(d *ent.Debt) *audit.Statuses {
	return audit.Debt(r.debtProjection(d), d.PaidAmount)
}

// auditEvents lists the audit trail, newest first (ADMIN).
func (r *Resolver) auditEvents(ctx context.Context, filter *AuditEventFilter, args pageArgs) (*ent.AuditEventConnection, error) {
	if err := auth.RequireAdmin(ctx); err != nil {
		return nil, err
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
