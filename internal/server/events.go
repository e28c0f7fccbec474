package server

import (
	"context"
	"time"

	"github.com/debtql/debtql/graph"
	"github.com/debtql/debtql/internal/events"
	"github.com/debtql/debtql/internal/ledger"
	"github.com/debtql/debtql/internal/webhook"
)

// notifyInterval is the least time between two NOTIFYs of one process:
// the delay a change made through one replica may add before the others
// read it (their own commits wake them at once).
const notifyInterval = 50 * time.Millisecond

// wakeInterval is the least time between two wake-ups of the hub and the
// dispatcher: what a commit may wait before its event is read.
const wakeInterval = 25 * time.Millisecond

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
	// Wake-ups are passed on at most once per wakeInterval: under
	// thousands of commits a second the hub and the dispatcher would
	// otherwise read the trail and the queue back to back.
	woken := make(chan struct{}, 1)
	wake := func() {
		select {
		case woken <- struct{}{}:
		default:
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 6)
	go func() {
		defer func() { done <- struct{}{} }()
		for {
			select {
			case <-ctx.Done():
				return
			case <-woken:
				hub.Wake()
				dispatcher.Wake()
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(wakeInterval):
			}
		}
	}()
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
		// NOTIFY sent after the commit, for every commit of the last
		// notifyInterval. (A NOTIFY inside the writing
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
					// At most one NOTIFY per interval: each is a
					// transaction every replica's listener handles.
					select {
					case <-ctx.Done():
						return
					case <-time.After(notifyInterval):
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
		for range 6 {
			<-done
		}
		previous()
	}
}

// Events is the server's subscription hub (for tests and benchmarks that
// subscribe without a socket).
func (s *Server) Events() *events.Hub { return s.hub }
