package graph

import (
	"context"
	"errors"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/internal/events"
	"github.com/debtql/debtql/internal/ledger"
	"github.com/debtql/debtql/internal/scalar"
)

// UseEvents gives the subscriptions their hub.
func (r *Resolver) UseEvents(h *events.Hub) { r.events = h }

// errNoEvents answers a subscription on a server built without a hub.
var errNoEvents = errors.New("graph: subscriptions are not served here")

// subscribeAuditEvents subscribes to the events of clientID (every client's for an
// ADMIN key when nil), after the event after when set.
func (r *Resolver) subscribeAuditEvents(ctx context.Context, clientID *string, after *int) (<-chan *ent.AuditEvent, error) {
	if r.events == nil {
		return nil, errNoEvents
	}
	filter, err := r.ledger.EventFeed(ctx, r.actor(ctx), clientID)
	if err != nil {
		return nil, err
	}
	sub, err := r.events.Subscribe(ctx, filter, after)
	if err != nil {
		return nil, err
	}
	return sub.Events, nil
}

// subscribeDebtChanged answers the debt, read with the fields the
// subscription selects, after each event that touched it.
func (r *Resolver) subscribeDebtChanged(ctx context.Context, clientID string, id int) (<-chan *ent.Debt, error) {
	if r.events == nil {
		return nil, errNoEvents
	}
	filter, err := r.ledger.DebtFeed(ctx, r.actor(ctx), clientID, id)
	if err != nil {
		return nil, err
	}
	sub, err := r.events.Subscribe(ctx, filter, nil)
	if err != nil {
		return nil, err
	}
	out := make(chan *ent.Debt)
	go func() {
		defer close(out)
		for {
			// The channel closes when the subscription ends by itself; when
			// its context ends it is only no longer fed.
			select {
			case _, ok := <-sub.Events:
				if !ok {
					return
				}
			case <-ctx.Done():
				return
			}
			q, err := r.orm.Debt.Query().Where(debt.ClientID(clientID), debt.ID(scalar.IntID(id))).CollectFields(ctx)
			if err != nil {
				return
			}
			d, err := q.Only(ctx)
			if err != nil {
				return
			}
			select {
			case out <- d:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// webhookDeliveries reads a page of an endpoint's deliveries.
func (r *Resolver) webhookDeliveries(ctx context.Context, endpointID string, args ledger.Page) (*ent.WebhookDeliveryConnection, error) {
	l, err := r.ledger.WebhookDeliveryList(ctx, r.actor(ctx), endpointID, args)
	if err != nil {
		return nil, err
	}
	conn, err := l.Query.Page(ctx, l.Paging, ent.WithWebhookDeliveryOrder(l.Order))
	if err != nil {
		return nil, err
	}
	for _, e := range conn.Edges {
		l.TagCursors(&e.Cursor)
	}
	return conn, nil
}

// webhookEndpointClient is an endpoint's client, nil for every client's.
func (r *Resolver) webhookEndpointClient(ctx context.Context, e *ent.WebhookEndpoint) (*ent.Creditor, error) {
	if e.ClientID == nil {
		return nil, nil
	}
	return r.db(ctx).Creditor.Get(ctx, *e.ClientID)
}
