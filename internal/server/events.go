package server

import (
	"context"
	"sync"
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
	s.groups.log = s.log
	s.wsInit = opts.WebSocketInitTimeout
	if s.wsInit <= 0 {
		s.wsInit = wsInitTimeout
	}
	resolver.UseEvents(hub)
	s.ledger.UseWebhookPolicy(opts.WebhookPolicy)
	dispatcher := &webhook.Dispatcher{Queue: s.ledger, Policy: opts.WebhookPolicy, Workers: opts.WebhookWorkers, Logger: s.log}
	ctx, cancel := context.WithCancel(context.Background())
	var running sync.WaitGroup
	// Wake-ups are passed on at most once per wakeInterval: under
	// thousands of commits a second the hub and the dispatcher would
	// otherwise read the trail and the queue back to back.
	wake := paced(ctx, &running, wakeInterval, func(context.Context) {
		hub.Wake()
		dispatcher.Wake()
	})
	running.Go(func() { s.watchSockets(ctx) })
	running.Go(func() { hub.Run(ctx) })
	if opts.WebhookWorkers >= 0 {
		running.Go(func() { dispatcher.Run(ctx) })
	}
	if opts.DB.IsPostgres() {
		// After a commit of this process that appended to the trail: wake
		// this process's feed, and the other replicas by one NOTIFY sent
		// after the commit, at most one per notifyInterval (a NOTIFY
		// inside the writing transaction would serialise every writer's
		// commit; each is a transaction every replica's listener
		// handles). Writers outside DebtQL are read by the feed's safety
		// poll.
		notify := paced(ctx, &running, notifyInterval, func(ctx context.Context) {
			if err := opts.DB.NotifyAudit(ledger.Background(ctx)); err != nil && ctx.Err() == nil {
				s.log.Warn("event feed: could not notify the other replicas; they read the trail at their next poll", "error", err.Error())
			}
		})
		s.ledger.OnEventsCommitted(func() { wake(); notify() })
		running.Go(func() { opts.DB.ListenAudit(ctx, wake, time.Second, s.log) })
	} else {
		s.ledger.OnEventsCommitted(wake)
	}
	previous := s.close
	s.close = func() {
		s.sockets.Range(func(k, _ any) bool {
			k.(*wsConn).end(closeGoingAway, "the server is shutting down; reconnect and resume with after")
			return true
		})
		cancel()
		running.Wait()
		previous()
	}
}

// Events is the server's subscription hub (for tests and benchmarks that
// subscribe without a socket).
func (s *Server) Events() *events.Hub { return s.hub }

// Subscriptions reports the subscriptions the sockets run: the shared runs
// and their members (for tests).
func (s *Server) Subscriptions() (runs, members int) {
	s.groups.mu.Lock()
	defer s.groups.mu.Unlock()
	for g := range s.groups.all {
		g.mu.Lock()
		runs, members = runs+1, members+len(g.members)
		g.mu.Unlock()
	}
	return runs, members
}

// paced runs do on a goroutine of running after a poke, at most once per
// interval, until ctx ends; the poke never blocks, and the pokes that come
// while do runs or waits are one.
func paced(ctx context.Context, running *sync.WaitGroup, interval time.Duration, do func(context.Context)) (poke func()) {
	poked := make(chan struct{}, 1)
	running.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-poked:
				do(ctx)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(interval):
			}
		}
	})
	return func() {
		select {
		case poked <- struct{}{}:
		default:
		}
	}
}
