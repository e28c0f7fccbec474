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
// how many there were.
func (h *Hub) read(ctx context.Context) (int, error) {
	total := 0
	for {
		h.mu.Lock()
		pos := h.pos
		h.mu.Unlock()
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
		h.pos = ledger.PositionOf(evs[len(evs)-1])
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

// Subscription is a subscriber's stream of events.
type Subscription struct {
	// Events are the subscriber's events in the feed's order, none twice;
	// the channel closes when the subscription ends (Err says why).
	Events <-chan *ent.AuditEvent
	mu     sync.Mutex
	err    error
}

// Err is why the subscription ended: nil when its context ended, ErrSlow
// (wrapped, with the last event sent) when the subscriber fell behind, or
// the error of reading the trail.
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// subscriber is one subscription's place in the hub: the events the hub
// read for it that it has not taken yet.
type subscriber struct {
	filter ledger.FeedFilter
	buffer int
	mu     sync.Mutex
	queue  []*ent.AuditEvent
	more   chan struct{} // signalled when the queue grows
	full   chan struct{} // closed when the backlog overflowed
	once   sync.Once
}

// offer queues a read's events for the subscriber, those it wants, without
// waiting (under the hub's lock). A subscriber that still holds more than
// its buffer from earlier reads when new events come is too slow: it has
// not kept up between two reads of the feed. (One read's events may be
// more than the buffer; they are let in, so that a burst does not drop a
// client that keeps up: the backlog is bounded by the buffer plus one
// read.)
func (s *subscriber) offer(evs []*ent.AuditEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	added := false
	for _, e := range evs {
		if !s.filter.Matches(e) {
			continue
		}
		if !added && len(s.queue) > s.buffer {
			s.once.Do(func() { close(s.full) })
			return
		}
		s.queue = append(s.queue, e)
		added = true
	}
	if added {
		select {
		case s.more <- struct{}{}:
		default:
		}
	}
}

// take empties the queue.
func (s *subscriber) take() []*ent.AuditEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queue
	s.queue = nil
	return q
}

// register adds a subscriber, whose inbox gets the events after the
// position it answers.
func (h *Hub) register(filter ledger.FeedFilter) (*subscriber, ledger.Position) {
	s := &subscriber{filter: filter, buffer: h.opts.Buffer, more: make(chan struct{}, 1), full: make(chan struct{})}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.subs[s] = struct{}{}
	return s, h.pos
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
	s, head := h.register(filter)
	if after == nil && head.Less(cursor) {
		head = cursor
	}
	out := make(chan *ent.AuditEvent)
	sub := &Subscription{Events: out}
	go func() {
		defer close(out)
		err := h.stream(ctx, s, cursor, head, out)
		if errors.Is(err, ErrSlow) {
			disconnect(ctx, err)
		}
		sub.mu.Lock()
		sub.err = err
		sub.mu.Unlock()
	}()
	return sub, nil
}

// stream sends the subscriber its events after cursor: those up to head
// from the trail, then those of its inbox. When the inbox overflows while
// the trail is read (a long catch-up), the subscriber registers again and
// reads on from the trail; when it overflows while live events wait for
// the client, the client is too slow and the subscription ends.
func (h *Hub) stream(ctx context.Context, s *subscriber, cursor, head ledger.Position, out chan<- *ent.AuditEvent) error {
	defer func() { h.unregister(s) }()
	slow := func() error {
		return fmt.Errorf("%w: more than %d events waited to be sent; resubscribe with after: %d", ErrSlow, h.opts.Buffer, cursor.ID)
	}
	for {
		for cursor.Less(head) {
			evs, err := h.svc.FeedAfter(ctx, cursor, &head, s.filter, batch)
			if err != nil {
				return quiet(ctx, err)
			}
			for _, e := range evs {
				select {
				case out <- e:
					cursor = ledger.PositionOf(e)
				case <-ctx.Done():
					return nil
				}
			}
			if len(evs) < batch {
				break
			}
		}
		select {
		case <-s.full:
			h.unregister(s)
			s, head = h.register(s.filter)
			continue
		default:
		}
		break
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.full:
			return slow()
		case <-s.more:
		}
		for _, e := range s.take() {
			if !cursor.Less(ledger.PositionOf(e)) {
				continue
			}
			select {
			case out <- e:
				cursor = ledger.PositionOf(e)
			case <-ctx.Done():
				return nil
			case <-s.full:
				return slow()
			}
		}
	}
}

// quiet drops the error of a subscription whose context ended.
func quiet(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// Subscribers is how many subscriptions the hub serves now (for tests
// that must know a subscription has started before they make changes).
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}
