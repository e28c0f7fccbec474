package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// Delivery is a queued delivery claimed for sending: where, with which
// secret, the event's id (webhook-id) and the body (the event as JSON).
type Delivery struct {
	ID      string
	URL     string
	Secret  string
	EventID int
	Body    []byte
}

// Attempt is the outcome of one attempt.
type Attempt struct {
	At           time.Time
	HTTPStatus   int
	Error        string
	ResponseBody string
}

// Delivered reports whether the receiver took it: a 2xx.
func (a Attempt) Delivered() bool { return a.HTTPStatus >= 200 && a.HTTPStatus < 300 }

// Queue is the deliveries' queue (the ledger keeps it in the database).
// Claim takes up to n due deliveries for the lease: no other sender takes
// them until it passes (a sender that dies before recording lets another
// retry after it). Record writes an attempt's outcome and the delivery's
// next step (NextAttempt).
type Queue interface {
	ClaimDeliveries(ctx context.Context, n int, lease time.Duration) ([]Delivery, error)
	RecordAttempt(ctx context.Context, id string, a Attempt) error
}

// Lease is how long a claimed delivery is the claimer's: well beyond
// Timeout, so that two senders never send one delivery at once.
const Lease = time.Minute

// RetryFor is how long a delivery is retried after it was queued.
const RetryFor = 24 * time.Hour

// delays are the waits after each failed attempt; the last repeats.
var delays = []time.Duration{30 * time.Second, 2 * time.Minute, 10 * time.Minute, 30 * time.Minute, time.Hour}

// NextAttempt is when to try a delivery queued at queued again after its
// attempts-th failed attempt at now, or false when it is to be given up
// (24 hours after it was queued).
func NextAttempt(queued time.Time, attempts int, now time.Time) (time.Time, bool) {
	d := delays[min(max(attempts-1, 0), len(delays)-1)]
	next := now.Add(d)
	if !next.Before(queued.Add(RetryFor)) {
		if now.Before(queued.Add(RetryFor)) {
			// One last attempt at the end of the day.
			return queued.Add(RetryFor), true
		}
		return time.Time{}, false
	}
	return next, true
}

// MaxResponseBody is how much of a receiver's answer is kept.
const MaxResponseBody = 1024

// Dispatcher sends the queue's due deliveries: when woken, and every Poll.
type Dispatcher struct {
	Queue   Queue
	Policy  Policy
	Workers int
	Poll    time.Duration
	Logger  *slog.Logger
	// Now is the clock of the signatures' timestamps; time.Now when nil.
	Now func() time.Time

	client *http.Client
	wake   chan struct{}
	once   sync.Once
}

func (d *Dispatcher) init() {
	d.once.Do(func() {
		d.wake = make(chan struct{}, 1)
		d.client = d.Policy.Client()
		if d.Workers <= 0 {
			d.Workers = 16
		}
		if d.Poll <= 0 {
			d.Poll = time.Second
		}
		if d.Logger == nil {
			d.Logger = slog.Default()
		}
		if d.Now == nil {
			d.Now = time.Now
		}
	})
}

// Wake asks the dispatcher to look at the queue now. It never blocks.
func (d *Dispatcher) Wake() {
	d.init()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run sends deliveries until ctx ends.
func (d *Dispatcher) Run(ctx context.Context) {
	d.init()
	tick := time.NewTicker(d.Poll)
	defer tick.Stop()
	for {
		for d.round(ctx) {
		}
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
		case <-tick.C:
		}
	}
}

// round claims a batch and sends it, and reports whether the batch was
// full (more may be due).
func (d *Dispatcher) round(ctx context.Context) bool {
	batch := d.Workers * 4
	due, err := d.Queue.ClaimDeliveries(ctx, batch, Lease)
	if err != nil {
		if ctx.Err() == nil {
			d.Logger.Warn("webhooks: claiming deliveries failed", "error", err.Error())
		}
		return false
	}
	work := make(chan Delivery)
	var wg sync.WaitGroup
	for range min(d.Workers, len(due)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for del := range work {
				a := d.Send(ctx, del)
				// Recorded even when ctx ends: the attempt happened.
				rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				if err := d.Queue.RecordAttempt(rctx, del.ID, a); err != nil {
					d.Logger.Warn("webhooks: recording an attempt failed; it is retried after its lease", "delivery", del.ID, "error", err.Error())
				}
				cancel()
			}
		}()
	}
	for _, del := range due {
		work <- del
	}
	close(work)
	wg.Wait()
	return len(due) == batch && ctx.Err() == nil
}

// Send makes one attempt of a delivery: POST with the signature headers,
// at most Timeout, to an address the policy allows.
func (d *Dispatcher) Send(ctx context.Context, del Delivery) Attempt {
	d.init()
	at := d.Now().UTC()
	a := Attempt{At: at.Truncate(time.Microsecond)}
	if err := d.Policy.CheckURL(ctx, del.URL); err != nil {
		a.Error = "URL refused: " + err.Error()
		return a
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, del.URL, bytes.NewReader(del.Body))
	if err != nil {
		a.Error = err.Error()
		return a
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "DebtQL-Webhooks/1")
	if err := Headers(req.Header, del.Secret, strconv.Itoa(del.EventID), at, del.Body); err != nil {
		a.Error = err.Error()
		return a
	}
	resp, err := d.client.Do(req)
	if err != nil {
		a.Error = describe(err)
		return a
	}
	defer resp.Body.Close()
	a.HTTPStatus = resp.StatusCode
	body, _ := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBody))
	for !utf8.Valid(body) && len(body) > 0 {
		body = body[:len(body)-1]
	}
	a.ResponseBody = string(body)
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if !a.Delivered() {
		a.Error = fmt.Sprintf("the receiver answered %d", resp.StatusCode)
	}
	return a
}

// describe names a failed request's cause without the URL (which the log
// and the delivery already name).
func describe(err error) string {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if errors.Is(err, errNotPublic) {
			return errNotPublic.Error()
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return "no answer within 10 s"
		}
		if inner := ue.Unwrap(); inner != nil {
			return inner.Error()
		}
	}
	return err.Error()
}
