// Package events delivers the audit trail to whoever listens (api.md
// §12): the subscriptions of the WebSocket transport, read from the event
// feed of the ledger (internal/ledger/feed.go), which is the truth. One
// Hub per process reads the feed's new events once for all its
// subscribers and hands each the events of its filter; a subscriber that
// resumes after an event id reads the events it missed from the trail
// first. Wake-ups (PostgreSQL's NOTIFY from any replica, or the ledger's
// commits in this process) only tell the hub when to read; a safety poll
// covers a wake-up lost. It knows no GraphQL and no SQL.
package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/ledger"
)

// Options configure a Hub.
type Options struct {
	// Buffer is how many events a subscriber may have waiting to be sent
	// before it is disconnected as too slow (DefaultBuffer when 0).
	Buffer int
	// Poll is the safety poll: the hub reads the feed at least this often
	// (DefaultPoll when 0).
	Poll   time.Duration
	Logger *slog.Logger
}

// Defaults of Options.
const (
	DefaultBuffer = 256
	DefaultPoll   = time.Second
)

// batch is how many events one read of the feed takes.
const batch = 500

// Hub fans the feed out to the subscribers of one process.
type Hub struct {
	svc  *ledger.Service
	opts Options
	wake chan struct{}

	ready chan struct{} // closed once pos is known
	reads atomic.Int64  // reads of new events (Reads)
	mu    sync.Mutex
	pos   ledger.Position // the last position read
	subs  map[*subscriber]struct{}
}

// New returns a hub reading svc's feed; Run starts it.
func New(svc *ledger.Service, opts Options) *Hub {
	if opts.Buffer <= 0 {
		opts.Buffer = DefaultBuffer
	}
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Hub{svc: svc, opts: opts, wake: make(chan struct{}, 1), ready: make(chan struct{}), subs: map[*subscriber]struct{}{}}
}

// Wake tells the hub that the trail may have grown. It never blocks.
func (h *Hub) Wake() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// Run reads the feed until ctx ends: when woken, and at least every Poll.
// After a wake-up that found nothing new (an event committed but not yet
// final, because an older transaction still runs), it reads again soon.
func (h *Hub) Run(ctx context.Context) {
	ctx = ledger.Background(auth.System(ctx))
	for {
		pos, err := h.svc.FeedHead(ctx)
		if err == nil {
			h.pos = pos
			close(h.ready)
			break
		}
		h.opts.Logger.Warn("event feed: cannot read the trail's head; trying again", "error", err.Error())
		select {
		case <-ctx.Done():
			return
		case <-time.After(h.opts.Poll):
		}
	}
	timer := time.NewTimer(h.opts.Poll)
	defer timer.Stop()
	soon := 0 // quick re-reads left after a wake-up that found nothing
	for {
		woken := false
		select {
		case <-ctx.Done():
			return
		case <-h.wake:
			woken = true
		case <-timer.C:
		}
		n, err := h.read(ctx)
		if err != nil && ctx.Err() == nil {
			h.opts.Logger.Warn("event feed: reading the trail failed; trying again", "error", err.Error())
		}
		switch {
		case woken && n == 0:
			soon = 5
		case n > 0:
			soon = 0
		}
		next := h.opts.Poll
		if soon > 0 {
			soon--
			next = min(next, 20*time.Millisecond<<(4-soon))
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(next)
	}
}

// read hands the feed's new final events to the subscribers and answers
// how many there were. With no subscriber it reads nothing: the first to
// come moves the hub's position to its own start (register), so that what
// was written meanwhile is never read for no one. (Under a hand-over of
// 500 debts, the read of their events and records was a seventh of the
// database's time for the batch.)
func (h *Hub) read(ctx context.Context) (int, error) {
	total := 0
	for {
		h.mu.Lock()
		pos, idle := h.pos, len(h.subs) == 0
		h.mu.Unlock()
		if idle {
			return total, nil
		}
		h.reads.Add(1)
		evs, err := h.svc.FeedAfter(ctx, pos, nil, ledger.FeedFilter{AllClients: true}, batch)
		if err != nil {
			return total, err
		}
		if len(evs) == 0 {
			return total, nil
		}
		h.mu.Lock()
		for s := range h.subs {
			s.offer(evs)
		}
		if last := ledger.PositionOf(evs[len(evs)-1]); h.pos.Less(last) {
			// (A subscriber that registered during the read may have
			// moved it further.)
			h.pos = last
		}
		h.mu.Unlock()
		total += len(evs)
		if len(evs) < batch {
			return total, nil
		}
	}
}

// ErrSlow ends a subscription whose events were not taken as fast as they
// came: more than Options.Buffer waited.
var ErrSlow = errors.New("slow consumer")

// TooSlow is ErrSlow for a subscriber that had more than buffer events
// waiting, with the reason a client is told (the hub's and the
// transport's, which bounds what waits for a socket the same way).
func TooSlow(buffer int) error {
	return fmt.Errorf("%w: more than %d events waited to be sent; resubscribe with after: the last id received", ErrSlow, buffer)
}

// Buffer is how many events a subscriber may have waiting (Options.Buffer,
// or its default).
func (h *Hub) Buffer() int { return h.opts.Buffer }

// Subscription is a subscriber's stream of events.
type Subscription struct {
	// Events are the subscriber's events in the feed's order, none twice;
	// the channel closes when the subscription ends by itself (Err says
	// why); when its context ends, it is simply no longer fed.
	Events <-chan *ent.AuditEvent
	s      *subscriber
}

// Err is why the subscription ended: nil while it runs or when its context
// ended, ErrSlow (wrapped, with the last event sent) when the subscriber
// fell behind, or the error of reading the trail.
func (s *Subscription) Err() error {
	s.s.mu.Lock()
	defer s.s.mu.Unlock()
	return s.s.err
}

// directCap is how many events the channel of a subscription holds: the
// hub sends into it without waiting while it has room.
const directCap = 8

// subscriber is one subscription's place in the hub. An idle subscriber
// costs no goroutine: the hub sends new events into its channel directly
// while there is room and nothing waits before them. Events that find the
// channel full wait in the queue, and a drainer goroutine, which exists only
// while the queue holds events (and, first, while a subscription that
// resumed reads the trail), sends them on as the client takes them.
type subscriber struct {
	filter  ledger.FeedFilter
	buffer  int
	out     chan *ent.AuditEvent
	deliver func(*ent.AuditEvent) bool // instead of out (Attach): always through the drainer

	// Under mu (the hub offers under its own lock and then this one).
	mu       sync.Mutex
	cursor   ledger.Position   // the last position sent or queued
	queue    []*ent.AuditEvent // waiting for the drainer, in order
	draining bool              // a drainer runs: new events go to the queue
	ended    bool              // no longer fed
	closed   bool              // out is closed
	err      error
	slow     func(error) // ends the subscriber as too slow (outside mu)
	restart  func()      // starts a drainer for the queue (under mu)
}

// offer hands the subscriber a read's events, those it wants and has not
// had, without waiting (under the hub's lock). A subscriber that still has
// more than its buffer waiting from earlier reads when new events come is
// too slow: it has not kept up between two reads of the feed. (One read's
// events may be more than the buffer; they are let in, so that a burst does
// not drop a client that keeps up: the backlog is bounded by the buffer plus
// one read.)
func (s *subscriber) offer(evs []*ent.AuditEvent) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	checked := false
	for _, e := range evs {
		p := ledger.PositionOf(e)
		if !s.filter.Matches(e) || !s.cursor.Less(p) {
			continue
		}
		if !checked {
			checked = true
			if len(s.queue) > s.buffer {
				err := TooSlow(s.buffer)
				s.mu.Unlock()
				s.slow(err)
				return
			}
		}
		s.cursor = p
		if !s.draining {
			if s.deliver == nil {
				select {
				case s.out <- e:
					continue
				default:
				}
			}
			s.draining = true
			s.restart()
		}
		s.queue = append(s.queue, e)
	}
	s.mu.Unlock()
}

// register adds a subscriber; the hub offers it the events after the
// position it answers (its own), and the subscriber's cursor moves there if
// it was before: what lies between is the drainer's to read from the trail.
// The first subscriber of an idle hub, whose position stood still while no
// one listened, moves the hub's position to its own start when that is
// further.
func (h *Hub) register(s *subscriber) ledger.Position {
	h.mu.Lock()
	defer h.mu.Unlock()
	s.mu.Lock()
	if len(h.subs) == 0 && h.pos.Less(s.cursor) {
		h.pos = s.cursor
	}
	if s.cursor.Less(h.pos) {
		s.cursor = h.pos
	}
	s.mu.Unlock()
	h.subs[s] = struct{}{}
	return h.pos
}

func (h *Hub) unregister(s *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.subs, s)
}

// Subscribe streams filter's events until ctx ends: with after nil, those
// that become final from now on; with after, first those after the event
// of that id, read from the trail with ctx's viewer (so the tenant filter
// applies to them too), then the new ones, in the feed's order, none twice.
// The caller authorizes the filter.
//
// When ctx carries a Plan (WithPlan), Subscribe only settles where the
// subscription starts, records it in the plan and answers the plan's
// channel: the caller starts it with Attach, or leaves it.
func (h *Hub) Subscribe(ctx context.Context, filter ledger.FeedFilter, after *int) (*Subscription, error) {
	select {
	case <-h.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	// "From now" is the trail's head as the database has it, which the
	// hub may not have read yet; the events up to it are skipped.
	var cursor ledger.Position
	var err error
	if after != nil {
		cursor, err = h.svc.FeedResume(ctx, *after)
	} else {
		cursor, err = h.svc.FeedHead(ctx)
	}
	if err != nil {
		return nil, err
	}
	if p := planFrom(ctx); p != nil && !p.set {
		p.filter, p.start, p.set = filter, cursor, true
		return &Subscription{Events: p.Events, s: &subscriber{}}, nil
	}
	s := h.attach(ctx, filter, cursor, nil)
	return &Subscription{Events: s.out, s: s}, nil
}

// A Plan lets a transport settle a subscription before it runs: the
// resolver's Subscribe records where the subscription starts and hands on
// the plan's Events, which the transport fills itself, one event at a time
// (it runs the subscription's selection once for an event and sends the
// answer to every subscriber of the same operation; see Attach).
type Plan struct {
	// Events is what Subscribe answers as the subscription's channel.
	Events chan *ent.AuditEvent
	filter ledger.FeedFilter
	start  ledger.Position
	set    bool
}

type planKey struct{}

// WithPlan makes the Subscribe of ctx record its subscription in p
// instead of starting it.
func WithPlan(ctx context.Context, p *Plan) context.Context {
	return context.WithValue(ctx, planKey{}, p)
}

func planFrom(ctx context.Context) *Plan {
	p, _ := ctx.Value(planKey{}).(*Plan)
	return p
}

// Start is where the planned subscription starts: the position after
// which its events come; false when no subscription was planned (the
// resolver refused it).
func (p *Plan) Start() (ledger.Position, bool) { return p.start, p.set }

// Attach starts a planned subscription until ctx ends: deliver gets its
// events in the feed's order, none twice, one call at a time on a
// goroutine of the hub's that exists while events wait (so an idle
// subscription costs none); deliver answers false to stop. A subscription
// whose events wait beyond the hub's buffer ends as too slow, through
// ctx's disconnect (WithDisconnect).
func (h *Hub) Attach(ctx context.Context, p *Plan, deliver func(*ent.AuditEvent) bool) {
	h.attach(ctx, p.filter, p.start, deliver)
}

// attach registers a subscriber of filter after cursor: into a channel of
// its own, or into deliver when given.
func (h *Hub) attach(ctx context.Context, filter ledger.FeedFilter, cursor ledger.Position, deliver func(*ent.AuditEvent) bool) *subscriber {
	s := &subscriber{filter: filter, buffer: h.opts.Buffer, cursor: cursor, deliver: deliver}
	if deliver == nil {
		s.out = make(chan *ent.AuditEvent, directCap)
	}
	s.slow = func(err error) {
		if s.end(err) {
			// Maybe under the hub's lock (offer): leave it on its own.
			go h.unregister(s)
			disconnect(ctx, err)
		}
	}
	s.restart = func() { go h.drain(ctx, s, ledger.Position{}, ledger.Position{}, false) }
	// While the trail is read (a resumed subscription), the hub's events
	// wait in the queue; the drainer reads the trail up to where the hub
	// was when it registered, then sends the queue.
	s.draining = true
	from := cursor
	head := h.register(s)
	go h.drain(ctx, s, from, head, from.Less(head))
	context.AfterFunc(ctx, func() {
		h.unregister(s)
		s.end(nil)
	})
	return s
}

// end marks the subscriber ended (with err, when it ends by itself) and,
// for an error, closes its channel: at once when no drainer runs (the hub
// sends under mu), else when the drainer stops. It reports whether this
// call ended it.
func (s *subscriber) end(err error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return false
	}
	s.ended, s.err, s.queue = true, err, nil
	if !s.draining {
		s.closeOut()
	}
	return true
}

// closeOut closes the channel of a subscriber that ended by itself (under
// mu, by its last sender).
func (s *subscriber) closeOut() {
	if s.ended && s.err != nil && !s.closed && s.out != nil {
		s.closed = true
		close(s.out)
	}
}

// drain is the drainer: first, for a resumed subscription, the trail's
// events after from up to head (read with ctx's viewer); then the queue,
// until it is empty, when the drainer ends and the hub sends directly again.
func (h *Hub) drain(ctx context.Context, s *subscriber, from, head ledger.Position, catchUp bool) {
	stop := func() {
		s.mu.Lock()
		s.draining = false
		s.closeOut()
		s.mu.Unlock()
	}
	send := func(e *ent.AuditEvent) bool {
		if s.deliver != nil {
			return ctx.Err() == nil && s.deliver(e)
		}
		select {
		case s.out <- e:
			return true
		case <-ctx.Done():
			return false
		}
	}
	if catchUp {
		cursor := from
		for cursor.Less(head) {
			evs, err := h.svc.FeedAfter(ctx, cursor, &head, s.filter, batch)
			if err != nil {
				stop()
				if ctx.Err() == nil {
					s.slow(err)
				}
				return
			}
			for _, e := range evs {
				if !send(e) {
					stop()
					return
				}
				cursor = ledger.PositionOf(e)
			}
			if len(evs) < batch {
				break
			}
		}
	}
	for {
		s.mu.Lock()
		q := s.queue
		s.queue = nil
		if len(q) == 0 || s.ended {
			s.draining = false
			s.closeOut()
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		for _, e := range q {
			if !send(e) {
				stop()
				return
			}
		}
	}
}

// Reads is how many times the hub has read new events from the trail (for
// tests: an idle hub reads none).
func (h *Hub) Reads() int64 { return h.reads.Load() }

// Subscribers is how many subscriptions the hub serves now (for tests
// that must know a subscription has started before they make changes).
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}
