// Package graph is DebtQL's GraphQL layer: the gqlgen executor generated from
// schema.graphqls, and thin resolvers that authorize, translate input and
// call ent and the rules of internal/collection.
package graph

import (
	"context"

	"entgo.io/ent/dialect/sql"

	"github.com/debtql/debtql/ent/creditor"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/auth"
	"time"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// Clock tells the resolvers what time it is, and in which zone "today" is,
// since statuses are evaluated at the current date (api.md §8). Tests set
// Now to a fixed instant.
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

// Locker serialises work that must not run twice at once (such as handing
// out the next client number) within the current transaction.
type Locker interface {
	Lock(ctx context.Context, tx *ent.Tx, key int64) error
	// LockRows makes a query lock the rows it reads for the rest of the
	// transaction (SELECT ... FOR UPDATE where the database has it).
	LockRows(s *sql.Selector)
}

// Resolver holds the dependencies of the resolvers. It is built once in
// main and carries no request state.
type Resolver struct {
	client *ent.Client
	clock  Clock
	locker Locker
	// requestID names the request of a context, for the audit trail.
	requestID func(context.Context) string
	// payments books together the payments on one debt that arrive while
	// one is being booked (PostgreSQL, without a transaction).
	payments *paymentQueues
}

// NewResolver returns the root resolver.
func NewResolver(client *ent.Client, clock Clock, locker Locker) *Resolver {
	return &Resolver{client: client, clock: clock, locker: locker, payments: &paymentQueues{}}
}

// UseRequestIDs tells the resolver how to find a request's id (the
// X-Request-Id the server gives it), which audit events record.
func (r *Resolver) UseRequestIDs(requestID func(context.Context) string) {
	r.requestID = requestID
}

// db is the ent client of the request: the mutation's transaction when there
// is one, else the shared client.
func (r *Resolver) db(ctx context.Context) *ent.Client {
	if c := ent.FromContext(ctx); c != nil {
		return c
	}
	return r.client
}

// clientExists answers NOT_FOUND for a client id that does not exist (api.md
// §2: lists and lookups under an unknown client). Authorize first: a CLIENT
// key naming another client is FORBIDDEN whether or not it exists.
func (r *Resolver) clientExists(ctx context.Context, clientID string) error {
	ok, err := r.db(ctx).Creditor.Query().Where(creditor.ID(clientID)).Exist(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return apierr.New(apierr.NotFound, "client %s does not exist", clientID)
	}
	return nil
}

// forClient authorizes the viewer for clientID and checks that it exists.
func (r *Resolver) forClient(ctx context.Context, clientID string) error {
	if err := auth.AuthorizeClient(ctx, clientID); err != nil {
		return err
	}
	return r.clientExists(ctx, clientID)
}

// listForClient authorizes the viewer for clientID and reads a list of the
// client's with list. Whether the client exists is asked only when the
// list holds no row or fails: a row of the client proves that it exists,
// and an unknown client is NOT_FOUND whatever else is wrong, as with
// forClient, at one statement fewer per page read.
func listForClient[C any](ctx context.Context, r *Resolver, clientID string, list func() (C, error), empty func(C) bool) (C, error) {
	var zero C
	if err := auth.AuthorizeClient(ctx, clientID); err != nil {
		return zero, err
	}
	conn, err := list()
	if err != nil || empty(conn) {
		if nf := r.clientExists(ctx, clientID); nf != nil {
			return zero, nf
		}
	}
	return conn, err
}

// onlyOrNil turns "not found" into null, as single-record lookups answer.
func onlyOrNil[T any](v *T, err error) (*T, error) {
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return v, err
}
