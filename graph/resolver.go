// Package graph is DebtQL's GraphQL layer: the gqlgen executor generated from
// schema.graphqls, and thin resolvers that authorize, translate input and
// call ent and the rules of internal/collection.
package graph

import (
	"context"
	"time"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/internal/scalar"
)

// Clock tells the resolvers what time it is, and in which zone "today" is,
// since statuses are evaluated at the current date (api.md §8). Tests set
// Now to a fixed instant.
type Clock struct {
	Now      func() time.Time
	Location *time.Location
}

// Today is the current date in the service's time zone.
func (c Clock) Today() scalar.Date {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	loc := c.Location
	if loc == nil {
		loc = time.Local
	}
	return scalar.DateOf(now().In(loc))
}

// Locker serialises work that must not run twice at once (such as handing
// out the next client number) within the current transaction.
type Locker interface {
	Lock(ctx context.Context, tx *ent.Tx, key int64) error
}

// Resolver holds the dependencies of the resolvers. It is built once in
// main and carries no request state.
type Resolver struct {
	client *ent.Client
	clock  Clock
	locker Locker
}

// NewResolver returns the root resolver.
func NewResolver(client *ent.Client, clock Clock, locker Locker) *Resolver {
	return &Resolver{client: client, clock: clock, locker: locker}
}

// db is the ent client of the request: the mutation's transaction when there
// is one, else the shared client.
func (r *Resolver) db(ctx context.Context) *ent.Client {
	if c := ent.FromContext(ctx); c != nil {
		return c
	}
	return r.client
}
