package server

import (
	"context"
	"time"

	"github.com/debtql/debtql/graph"
	"github.com/debtql/debtql/internal/events"
)

// startEvents starts the subscriptions' hub and what wakes it: PostgreSQL's
// notifications of commits to the audit trail by any replica, or, on
// SQLite (one process), the ledger's own commits. Close stops them and
// closes the subscription connections.
func (s *Server) startEvents(opts Options, resolver *graph.Resolver) {
	eo := opts.Events
	if eo.Logger == nil {
		eo.Logger = s.log
	}
	hub := events.New(s.ledger, eo)
	s.hub = hub
	resolver.UseEvents(hub)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 2)
	go func() { defer func() { done <- struct{}{} }(); hub.Run(ctx) }()
	if opts.DB.IsPostgres() {
		go func() {
			defer func() { done <- struct{}{} }()
			opts.DB.ListenAudit(ctx, hub.Wake, time.Second, s.log)
		}()
	} else {
		s.ledger.OnEventsCommitted(hub.Wake)
		done <- struct{}{}
	}
	previous := s.close
	s.close = func() {
		s.sockets.Range(func(k, _ any) bool {
			k.(*wsState).end(closeGoingAway, "the server is shutting down; reconnect and resume with after")
			return true
		})
		cancel()
		<-done
		<-done
		previous()
	}
}

// Events is the server's subscription hub (for tests and benchmarks that
// subscribe without a socket).
func (s *Server) Events() *events.Hub { return s.hub }
