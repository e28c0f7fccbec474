package server

import (
	"context"
	"time"

	"github.com/debtql/debtql/graph"
	"github.com/debtql/debtql/internal/events"
	"github.com/debtql/debtql/internal/webhook"
)

// startEvents starts the subscriptions' hub, the webhooks' dispatcher and
// what wakes them: PostgreSQL's notifications of commits to the audit trail
// by any replica, or, on SQLite (one process), the ledger's own commits.
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
	done := make(chan struct{}, 4)
	go func() { defer func() { done <- struct{}{} }(); s.watchSockets(ctx) }()
	go func() { defer func() { done <- struct{}{} }(); hub.Run(ctx) }()
	if opts.WebhookWorkers >= 0 {
		go func() { defer func() { done <- struct{}{} }(); dispatcher.Run(ctx) }()
	} else {
		done <- struct{}{}
	}
	if opts.DB.IsPostgres() {
		go func() {
			defer func() { done <- struct{}{} }()
			opts.DB.ListenAudit(ctx, wake, time.Second, s.log)
		}()
	} else {
		s.ledger.OnEventsCommitted(wake)
		done <- struct{}{}
	}
	previous := s.close
	s.close = func() {
		s.sockets.Range(func(k, _ any) bool {
			k.(*wsState).end(closeGoingAway, "the server is shutting down; reconnect and resume with after")
			return true
		})
		cancel()
		for range 4 {
			<-done
		}
		previous()
	}
}

// Events is the server's subscription hub (for tests and benchmarks that
// subscribe without a socket).
func (s *Server) Events() *events.Hub { return s.hub }
