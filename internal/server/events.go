package server

import (
	"context"
	"time"

	"github.com/debtql/debtql/graph"
	"github.com/debtql/debtql/internal/events"
	"github.com/debtql/debtql/internal/ledger"
	"github.com/debtql/debtql/internal/webhook"
)

// startEvents starts the subscriptions' hub, the webhooks' dispatcher and
// what wakes them: the ledger's own commits to the audit trail and, on
// PostgreSQL, every replica's, announced by a NOTIFY each replica sends
// after its commits.
// Close stops them and closes the subscription connections.
func (s *Server) startEvents(opts Options, resolver *graph.Resolver) {
	eo := opts.Events
	if eo.Logger == nil {
		eo.Logger = s.log
	}
	hub := events.New(s.ledger, eo)
	s.hub = hub
	resolver.UseEvents(hub)
	s.ledger.UseWebhookPolicy(opts.WebhookPolicy)
	dispatcher := &webhook.Dispatcher{Queue: s.ledger, Policy: opts.WebhookPolicy, Workers: opts.WebhookWorkers, Logger: s.log}
	wake := func() {
		hub.Wake()
		dispatcher.Wake()
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 5)
	go func() { defer func() { done <- struct{}{} }(); s.watchSockets(ctx) }()
	go func() { defer func() { done <- struct{}{} }(); hub.Run(ctx) }()
	if opts.WebhookWorkers >= 0 {
		go func() { defer func() { done <- struct{}{} }(); dispatcher.Run(ctx) }()
	} else {
		done <- struct{}{}
	}
	if opts.DB.IsPostgres() {
		// After a commit of this process that appended to the trail: wake
		// this process's feed at once, and the other replicas by one
		// NOTIFY sent after the commit, for any number of commits that
		// came while the last was sent. (A NOTIFY inside the writing
		// transaction would serialise every writer's commit.) Writers
		// outside DebtQL are read by the feed's safety poll.
		poke := make(chan struct{}, 1)
		s.ledger.OnEventsCommitted(func() {
			wake()
			select {
			case poke <- struct{}{}:
			default:
			}
		})
		go func() {
			defer func() { done <- struct{}{} }()
			opts.DB.ListenAudit(ctx, wake, time.Second, s.log)
		}()
		go func() {
			defer func() { done <- struct{}{} }()
			bg := ledger.Background(ctx)
			for {
				select {
				case <-ctx.Done():
					return
				case <-poke:
					if err := opts.DB.NotifyAudit(bg); err != nil && ctx.Err() == nil {
						s.log.Warn("event feed: could not notify the other replicas; they read the trail at their next poll", "error", err.Error())
					}
				}
			}
		}()
	} else {
		s.ledger.OnEventsCommitted(wake)
		done <- struct{}{}
		done <- struct{}{}
	}
	previous := s.close
	s.close = func() {
		s.sockets.Range(func(k, _ any) bool {
			k.(*wsState).end(closeGoingAway, "the server is shutting down; reconnect and resume with after")
			return true
		})
		cancel()
		for range 5 {
			<-done
		}
		previous()
	}
}

// Events is the server's subscription hub (for tests and benchmarks that
// subscribe without a socket).
func (s *Server) Events() *events.Hub { return s.hub }
