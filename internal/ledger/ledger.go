// Package ledger holds DebtQL's use cases: creating and changing clients,
// debtors, invoices, debts, payments and API keys. Each takes a plain Actor
// and plain inputs, runs in a transaction of its own (or joins the one its
// caller began), writes its audit event in it, and answers domain values
// and typed errors (internal/apierr). Its read side (lists.go) builds the
// queries of the lists. It knows no GraphQL: the resolvers translate
// arguments into calls and results into answers, and the command line or
// a job can call the same functions. docs/architecture.md shows where it
// stands.
package ledger

import (
	"context"
	"time"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/apikey"
	"github.com/debtql/debtql/ent/creditor"
	"github.com/debtql/debtql/ent/intercept"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
	"github.com/debtql/debtql/internal/store"
	"github.com/debtql/debtql/internal/webhook"
)

// Actor is who does a use case: the API key and its role, the client of a
// CLIENT key, and the request (for the audit trail).
type Actor struct {
	KeyID     string
	KeyName   string
	Role      apikey.Role
	ClientID  string // a CLIENT key's client; "" for ADMIN
	RequestID string
}

// ActorOf is the actor of a request's viewer.
func ActorOf(v *auth.Viewer, requestID string) Actor {
	if v == nil {
		return Actor{RequestID: requestID}
	}
	return Actor{KeyID: v.Key.ID, KeyName: v.Key.Name, Role: v.Role(), ClientID: v.ClientID(), RequestID: requestID}
}

// scope returns ctx acting as a: the tenant filter under every query and
// the authorization checks read the actor from it.
func (a Actor) scope(ctx context.Context) context.Context {
	if v := auth.ViewerFrom(ctx); v != nil && v.Key.ID == a.KeyID {
		return ctx
	}
	key := &ent.APIKey{ID: a.KeyID, Name: a.KeyName, Role: a.Role}
	if a.ClientID != "" {
		id := a.ClientID
		key.ClientID = &id
	}
	return auth.WithViewer(ctx, &auth.Viewer{Key: key})
}

// Clock tells the use cases what time it is, and in which zone "today" is,
// since statuses are evaluated at the current date. Tests set Now to a
// fixed instant.
type Clock struct {
	Now      func() time.Time
	Location *time.Location
}

// At is the moment statuses are evaluated at: today in the service's time
// zone.
func (c Clock) At() collection.Now {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	loc := c.Location
	if loc == nil {
		loc = time.Local
	}
	return collection.Now{Today: scalar.DateOf(now().In(loc)), Location: loc}
}

// Service runs the use cases. It is built once and carries no request
// state.
type Service struct {
	orm   *ent.Client
	clock Clock
	// store is the database under orm, for what ent does not do: the
	// locks of a transaction (Lock, LockKeys, LockRows), the piped
	// transactions of grouped createDebt calls (handOverPiped), and its
	// dialect (IsPostgres: the event feed orders by writing transaction,
	// then id, where SQLite orders by id alone; the webhook queue locks
	// rows with SKIP LOCKED).
	store *store.DB
	// booker books payments: with one statement on PostgreSQL, grouped
	// when they run alone; with ent's statements on SQLite.
	booker booker
	// payments books together the payments on one debt that arrive while
	// one is being booked (queuedBooker).
	payments *paymentGroups
	// handovers hands over together the createDebt calls of one client
	// and key that arrive while one is handed over (CreateDebt).
	handovers *handoverGroups
	// accruing remembers the debts that bear interest, whose payments
	// the engine books (bookAccruing).
	accruing *accruingDebts
	// paymentOrder is what the payment-order step charges.
	paymentOrder collection.PaymentOrderAmounts
	// factsQuery reads the claim facts of debts in one statement, in the
	// database's SQL (claimFactsStatement).
	factsQuery factsQuery
	// handoverInOne: a hand-over writes its rows with one statement
	// (insertHandover; PostgreSQL), not one insert a table through ent.
	handoverInOne bool
	// committed, when set, is called after a transaction that appended to
	// the audit trail commits: the in-process wake-up of the event feed
	// (SQLite; PostgreSQL's NOTIFY wakes every replica).
	committed func()
	// webhookPolicy is the rule of webhook URLs (UseWebhookPolicy).
	webhookPolicy webhook.Policy
	// searchTotals remembers the totals of debtor searches (DebtorList;
	// PostgreSQL, whose triggers keep the debtors' versions).
	searchTotals *searchTotals
}

// New returns the service over the database. Its dialect picks the
// payment booker, here and nowhere else.
func New(db *store.DB, clock Clock) *Service {
	s := &Service{orm: db.Ent, store: db, clock: clock, accruing: &accruingDebts{},
		paymentOrder: collection.DefaultPaymentOrderAmounts}
	s.payments = s.newPaymentGroups()
	s.handovers = s.newHandoverGroups()
	db.Ent.Debt.Intercept(intercept.TraverseDebt(loadClaimColumns))
	if db.IsPostgres() {
		s.handoverInOne = true
		s.booker = queuedBooker{pgBooker{s}}
		s.factsQuery = pgFactsQuery
		s.searchTotals = newSearchTotals()
	} else {
		s.booker = plainBooker{s}
		s.factsQuery = sqliteFactsQuery
	}
	return s
}

// SetPaymentOrderAmounts sets what the payment-order step charges (the
// configuration's amounts; collection.DefaultPaymentOrderAmounts until
// set). It is for set-up, before the service serves.
func (s *Service) SetPaymentOrderAmounts(a collection.PaymentOrderAmounts) { s.paymentOrder = a }

// OnEventsCommitted calls wake after every transaction of this process
// that appended to the audit trail commits. Set it before serving.
func (s *Service) OnEventsCommitted(wake func()) { s.committed = wake }

// Clock is the service's clock.
func (s *Service) Clock() Clock { return s.clock }

// db is the ent client of the use case: its transaction when there is one,
// else the shared client.
func (s *Service) db(ctx context.Context) *ent.Client {
	if c := ent.FromContext(ctx); c != nil {
		return c
	}
	return s.orm
}

// ClientExists answers NOT_FOUND for a client id that does not exist: an
// operation under an unknown client is NOT_FOUND. Authorize first: a
// CLIENT key naming another client is FORBIDDEN whether or not it exists.
func (s *Service) ClientExists(ctx context.Context, clientID string) error {
	ok, err := s.db(ctx).Creditor.Query().Where(creditor.ID(clientID)).Exist(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return noClient(clientID)
	}
	return nil
}

// noClient refuses a client id that names no client.
func noClient(clientID string) error {
	return apierr.New(apierr.NotFound, "client %s does not exist", clientID)
}

// clientFor authorizes the actor of ctx for clientID and reads the client:
// forClient's check and the client's row in one statement, for a use case
// that needs the row (a hand-over reads the client's terms).
func (s *Service) clientFor(ctx context.Context, clientID string) (*ent.Creditor, error) {
	if err := auth.AuthorizeClient(ctx, clientID); err != nil {
		return nil, err
	}
	c, err := s.db(ctx).Creditor.Get(ctx, clientID)
	if ent.IsNotFound(err) {
		return nil, noClient(clientID)
	}
	return c, err
}

// forClient authorizes the actor of ctx for clientID and checks that the
// client exists.
func (s *Service) forClient(ctx context.Context, clientID string) error {
	if err := auth.AuthorizeClient(ctx, clientID); err != nil {
		return err
	}
	return s.ClientExists(ctx, clientID)
}

// inTx runs work in the transaction of ctx when its caller began one (the
// server does, for a mutation operation and its idempotency record), else
// in a transaction of its own, committed when work succeeds and rolled
// back when it fails.
func inTx[T any](ctx context.Context, s *Service, work func(ctx context.Context) (T, error)) (T, error) {
	if ent.TxFromContext(ctx) != nil {
		return work(ctx)
	}
	tx, err := s.orm.Tx(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	return runTx(ctx, tx, work)
}

// runTx runs work in tx, which it commits when work succeeds and rolls
// back when it fails.
func runTx[T any](ctx context.Context, tx *ent.Tx, work func(ctx context.Context) (T, error)) (T, error) {
	var zero T
	defer func() {
		if p := recover(); p != nil {
			_ = tx.Rollback()
			panic(p)
		}
	}()
	v, err := work(ent.NewTxContext(ent.NewContext(ctx, tx.Client()), tx))
	if err != nil {
		_ = tx.Rollback()
		return zero, err
	}
	if err := tx.Commit(); err != nil {
		return zero, err
	}
	// An entity read or written in the transaction would send its later
	// queries (its edges) to the closed transaction: hand it back bound to
	// the client.
	if u, ok := any(v).(interface{ Unwrap() T }); ok {
		v = u.Unwrap()
	}
	return v, nil
}

type aloneKey struct{}

// Alone marks the context of a use case that its caller runs without a
// transaction because the ledger commits its work by itself (graph.RunsAlone
// decides which): addDebtPayment then books on PostgreSQL with one
// statement that commits by itself, and createDebt hands over in a
// transaction of its own, shared with the calls grouped with it.
func Alone(ctx context.Context) context.Context {
	return context.WithValue(ctx, aloneKey{}, true)
}

func alone(ctx context.Context) bool {
	v, _ := ctx.Value(aloneKey{}).(bool)
	return v
}
