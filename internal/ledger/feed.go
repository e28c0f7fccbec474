package ledger

import (
	"context"
	"fmt"

	"entgo.io/ent/dialect/sql"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/apikey"
	"github.com/debtql/debtql/ent/auditevent"
	"github.com/debtql/debtql/ent/auditeventrecord"
	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/scalar"
)

// The event feed: the audit trail read as a stream, for subscriptions and
// webhooks (api.md §12). Event ids are drawn before their transaction
// commits, so ids do not arrive in id order: a transaction that drew id 5
// may commit after one that drew id 6. A reader that had delivered 6 and
// resumed "after 6" would never see 5. The feed therefore delivers an
// event only once it is final, and in an order that no later commit can
// insert into:
//
//   - PostgreSQL: each event row holds the 64-bit id of the transaction
//     that wrote it (xact, a column default). An event is final once its
//     xact is below the xmin of the reader's snapshot (no transaction that
//     old is still running, so every event it wrote is visible now and no
//     other will appear), and the feed's order is (xact, id). Every event
//     not yet final has an xact at or above that xmin, so it sorts after
//     everything delivered: the order only grows at its end.
//   - SQLite: writers take the database's write lock when they begin
//     (BEGIN IMMEDIATE) and ids are drawn under it, so events commit in id
//     order, every visible event is final, and the order is the id.
//
// docs/decisions.md (Events) has the reasoning and its costs.

// Position is a place in the feed: an event's (xact, id); the zero value
// is before the first event (PostgreSQL's transaction ids are above 2).
type Position struct {
	Xact int64
	ID   int
}

// Less orders positions as the feed does.
func (p Position) Less(q Position) bool {
	return p.Xact < q.Xact || p.Xact == q.Xact && p.ID < q.ID
}

// PositionOf is the position of an event read from the feed.
func PositionOf(e *ent.AuditEvent) Position {
	var x int64
	if e.Xact != nil {
		x = *e.Xact
	}
	return Position{Xact: x, ID: int(e.ID)}
}

// FeedFilter narrows the feed: to one client's events, to one debt's.
type FeedFilter struct {
	ClientID *string
	// AllClients is an ADMIN's feed of every client's events (and of
	// events of no client); otherwise ClientID must be set.
	AllClients bool
	// DebtID keeps the events that touched the debt.
	DebtID *int
}

// horizon is the PostgreSQL condition that an event is final: its
// transaction ended before the statement's snapshot was taken.
const horizon = "(pg_snapshot_xmin(pg_current_snapshot()))::text::bigint"

// final restricts a query of audit events to the final ones, after the
// position after (excluded) and up to until (included) when it is set.
func (s *Service) final(after Position, until *Position) func(*sql.Selector) {
	return func(sel *sql.Selector) {
		x, id := sel.C(auditevent.FieldXact), sel.C(auditevent.FieldID)
		if !s.store.IsPostgres() {
			sel.Where(sql.GT(id, after.ID))
			if until != nil {
				sel.Where(sql.LTE(id, until.ID))
			}
			return
		}
		sel.Where(sql.P(func(b *sql.Builder) {
			b.WriteString(x).WriteString(" < ").WriteString(horizon)
		}))
		sel.Where(sql.P(func(b *sql.Builder) {
			b.WriteString("(").WriteString(x).WriteString(", ").WriteString(id).WriteString(") > (").
				Arg(after.Xact).WriteString(", ").Arg(after.ID).WriteString(")")
		}))
		if until != nil {
			sel.Where(sql.P(func(b *sql.Builder) {
				b.WriteString("(").WriteString(x).WriteString(", ").WriteString(id).WriteString(") <= (").
					Arg(until.Xact).WriteString(", ").Arg(until.ID).WriteString(")")
			}))
		}
	}
}

// FeedAfter reads up to limit final events after the position after (and
// up to until, when set) that match filter, in the feed's order, with
// their records. It runs with the caller's viewer: a CLIENT's tenant filter
// applies under it, whatever the filter says. Callers that serve many
// viewers at once read with auth.System and filter each event themselves
// (Matches).
func (s *Service) FeedAfter(ctx context.Context, after Position, until *Position, filter FeedFilter, limit int) ([]*ent.AuditEvent, error) {
	q := s.orm.AuditEvent.Query().Where(s.final(after, until))
	if !filter.AllClients {
		if filter.ClientID == nil {
			return nil, fmt.Errorf("ledger: a feed of no client")
		}
		q.Where(auditevent.ClientID(*filter.ClientID))
	}
	if filter.DebtID != nil {
		q.Where(touchesDebt(*filter.DebtID))
	}
	if s.store.IsPostgres() {
		q.Order(auditevent.ByXact(), auditevent.ByID())
	} else {
		q.Order(auditevent.ByID())
	}
	return q.Limit(limit).
		WithRecords(func(rq *ent.AuditEventRecordQuery) { rq.Order(auditeventrecord.ByID()) }).
		All(ctx)
}

// touchesDebt keeps the events of a debt's timeline and those that name
// it among their records.
func touchesDebt(debtID int) func(*sql.Selector) {
	return func(sel *sql.Selector) {
		r := sql.Table(auditeventrecord.Table)
		sel.Where(sql.Or(
			sql.EQ(sel.C(auditevent.FieldDebtID), debtID),
			sql.Exists(sql.Select(r.C(auditeventrecord.FieldID)).From(r).Where(sql.And(
				sql.ColumnsEQ(r.C(auditeventrecord.FieldEventID), sel.C(auditevent.FieldID)),
				sql.EQ(r.C(auditeventrecord.FieldRecordType), auditeventrecord.RecordTypeDEBT.String()),
				sql.EQ(r.C(auditeventrecord.FieldRecordID), fmt.Sprint(debtID)),
			))),
		))
	}
}

// Matches reports whether an event read from the feed belongs in filter's
// feed: the same conditions as FeedAfter's, on a loaded event (its records
// loaded).
func (f FeedFilter) Matches(e *ent.AuditEvent) bool {
	if !f.AllClients && (f.ClientID == nil || e.ClientID == nil || *e.ClientID != *f.ClientID) {
		return false
	}
	if f.DebtID == nil {
		return true
	}
	if e.DebtID != nil && int(*e.DebtID) == *f.DebtID {
		return true
	}
	want := fmt.Sprint(*f.DebtID)
	for _, r := range e.Edges.Records {
		if r.RecordType == auditeventrecord.RecordTypeDEBT && r.RecordID == want {
			return true
		}
	}
	return false
}

// FeedHead is the position of the last final event: a feed that starts
// "now" starts after it.
func (s *Service) FeedHead(ctx context.Context) (Position, error) {
	ctx = auth.System(ctx)
	q := s.orm.AuditEvent.Query().Where(s.final(Position{}, nil))
	if s.store.IsPostgres() {
		q.Order(auditevent.ByXact(sql.OrderDesc()), auditevent.ByID(sql.OrderDesc()))
	} else {
		q.Order(auditevent.ByID(sql.OrderDesc()))
	}
	e, err := q.Select(auditevent.FieldID, auditevent.FieldXact).First(ctx)
	if ent.IsNotFound(err) {
		return Position{}, nil
	}
	if err != nil {
		return Position{}, err
	}
	return PositionOf(e), nil
}

// FeedResume is the position to resume after for a listener whose last
// event was id: that event's position. An id that names no event (a
// rolled-back one) resumes after the greatest id below it, and 0 from the
// start. It reads any client's event, as a position tells nothing of it.
func (s *Service) FeedResume(ctx context.Context, id int) (Position, error) {
	if id <= 0 {
		return Position{}, nil
	}
	e, err := s.orm.AuditEvent.Query().Where(auditevent.IDLTE(scalar.IntID(id))).
		Order(auditevent.ByID(sql.OrderDesc())).
		Select(auditevent.FieldID, auditevent.FieldXact).First(auth.System(ctx))
	if ent.IsNotFound(err) {
		return Position{}, nil
	}
	if err != nil {
		return Position{}, err
	}
	return PositionOf(e), nil
}

// EventFeed authorizes a's feed of clientID's events (auditEvents): a
// CLIENT key's own client when clientID is nil, FORBIDDEN for another; an
// ADMIN key's every client's when nil, else the client's, which must exist.
func (s *Service) EventFeed(ctx context.Context, a Actor, clientID *string) (FeedFilter, error) {
	ctx = a.scope(ctx)
	if clientID == nil {
		if a.Role == apikey.RoleADMIN {
			return FeedFilter{AllClients: true}, nil
		}
		own := a.ClientID
		return FeedFilter{ClientID: &own}, nil
	}
	if err := s.forClient(ctx, *clientID); err != nil {
		return FeedFilter{}, err
	}
	return FeedFilter{ClientID: clientID}, nil
}

// DebtFeed authorizes a's feed of one debt's events (debtChanged): the
// debt must be clientID's, and clientID one a may see.
func (s *Service) DebtFeed(ctx context.Context, a Actor, clientID string, debtID int) (FeedFilter, error) {
	ctx = a.scope(ctx)
	if err := s.forClient(ctx, clientID); err != nil {
		return FeedFilter{}, err
	}
	ok, err := s.orm.Debt.Query().Where(debt.ClientID(clientID), debt.ID(scalar.IntID(debtID))).Exist(ctx)
	if err != nil {
		return FeedFilter{}, err
	}
	if !ok {
		return FeedFilter{}, apierr.New(apierr.NotFound, "debt %d does not exist", debtID)
	}
	return FeedFilter{ClientID: &clientID, DebtID: &debtID}, nil
}

type backgroundKey struct{}

// Background marks ctx as the process's own work, which no request asked
// for: the event feed's reads, the webhook queue's. Tests that count a
// request's statements leave it out.
func Background(ctx context.Context) context.Context {
	return context.WithValue(ctx, backgroundKey{}, true)
}

// IsBackground reports whether ctx is marked by Background.
func IsBackground(ctx context.Context) bool {
	b, _ := ctx.Value(backgroundKey{}).(bool)
	return b
}
