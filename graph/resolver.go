// Package graph is DebtQL's GraphQL layer: the gqlgen executor generated from
// schema.graphqls, and thin resolvers that authorize, translate input and
// call ent and the rules of internal/collection.
package graph

import (
	"context"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/events"
	"github.com/debtql/debtql/internal/ledger"
)

// Resolver holds the dependencies of the resolvers. It is built once in
// main and carries no request state.
type Resolver struct {
	orm *ent.Client
	// ledger runs the use cases the mutations call.
	ledger *ledger.Service
	clock  ledger.Clock
	// requestID names the request of a context, for the audit trail.
	requestID func(context.Context) string
	// events serves the subscriptions (events.go).
	events *events.Hub
}

// NewResolver returns the root resolver.
func NewResolver(db *ent.Client, svc *ledger.Service) *Resolver {
	return &Resolver{orm: db, ledger: svc, clock: svc.Clock()}
}

// UseRequestIDs tells the resolver how to find a request's id (the
// X-Request-Id the server gives it), which audit events record.
func (r *Resolver) UseRequestIDs(requestID func(context.Context) string) {
	r.requestID = requestID
}

// actor is the caller of the request, for the use cases.
func (r *Resolver) actor(ctx context.Context) ledger.Actor {
	var id string
	if r.requestID != nil {
		id = r.requestID(ctx)
	}
	return ledger.ActorOf(auth.ViewerFrom(ctx), id)
}

// db is the ent client of the request: the mutation's transaction when there
// is one, else the shared one.
func (r *Resolver) db(ctx context.Context) *ent.Client {
	if c := ent.FromContext(ctx); c != nil {
		return c
	}
	return r.orm
}

// clientExists answers NOT_FOUND for a client id that does not exist (api.md
// §2: lists and lookups under an unknown client). Authorize first: a CLIENT
// key naming another client is FORBIDDEN whether or not it exists.
func (r *Resolver) clientExists(ctx context.Context, clientID string) error {
	return r.ledger.ClientExists(ctx, clientID)
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
