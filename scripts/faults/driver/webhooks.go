package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/debtql/debtql/internal/webhook"
)

// hookRun is the fault "kill -9 of the server while it queues and sends
// webhook deliveries": workers create debts (keyed, resent until
// answered) for a client with a webhook endpoint on a receiver of the
// driver's, the server is killed at random moments and restarted, and
// afterwards every audit event of the client must have a delivery queued
// and must have reached the receiver, with a valid signature (at least
// once: a delivery cut off by a kill is sent again after its lease).
type hookRun struct {
	*common
	cycles  int
	workers int

	srv *serverProc
	cl  *client

	secret   atomic.Value // string
	mu       sync.Mutex
	received map[string]int // webhook-id → deliveries
	invalid  atomic.Int64
	inFlight atomic.Int64 // deliveries being answered (the receiver is slow on purpose)
	cutOff   atomic.Int64 // deliveries in flight when the server was killed
}

const createEndpointMutation = `mutation($c: UUID, $in: WebhookEndpointInput!) {
  createWebhookEndpoint(clientId: $c, input: $in) { secret endpoint { id } }
}`

func (h *hookRun) receiver() (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.inFlight.Add(1)
		defer h.inFlight.Add(-1)
		body, _ := io.ReadAll(r.Body)
		secret, _ := h.secret.Load().(string)
		if err := webhook.Verify(secret, r.Header, body, time.Now()); err != nil {
			h.invalid.Add(1)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		// Slow enough that kills catch deliveries in flight.
		time.Sleep(time.Duration(rand.IntN(150)) * time.Millisecond)
		h.mu.Lock()
		h.received[r.Header.Get("webhook-id")]++
		h.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/hooks", func() { _ = srv.Close() }, nil
}

func (h *hookRun) run(ctx context.Context) error {
	h.received = map[string]int{}
	h.srv = &serverProc{c: h.common}
	defer h.srv.stop()
	h.cl = newClient(h.addr)
	db, err := sql.Open("pgx", h.dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	url, closeReceiver, err := h.receiver()
	if err != nil {
		return err
	}
	defer closeReceiver()
	if err := h.srv.start(ctx); err != nil {
		return err
	}
	tag := fmt.Sprintf("W%d", time.Now().Unix())
	clientID, err := h.cl.newTestClient(ctx, "Fault Webhooks "+tag)
	if err != nil {
		return err
	}
	a := h.cl.graphql(ctx, createEndpointMutation, map[string]any{"c": clientID, "in": map[string]any{"url": url}}, "")
	if !a.ok() {
		return fmt.Errorf("createWebhookEndpoint: %s", a)
	}
	var out struct {
		CreateWebhookEndpoint struct{ Secret string } `json:"createWebhookEndpoint"`
	}
	if err := json.Unmarshal(a.data, &out); err != nil {
		return err
	}
	h.secret.Store(out.CreateWebhookEndpoint.Secret)
	fmt.Printf("webhooks under kill -9, run %s: %d workers, %d kills, client %s, receiver %s\n", tag, h.workers, h.cycles, clientID, url)

	streamCtx, stopStream := context.WithCancel(ctx)
	var created atomic.Int64
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range h.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for streamCtx.Err() == nil {
				n := int(next.Add(1))
				key := fmt.Sprintf("%s-debt-%d", tag, n)
				for ctx.Err() == nil {
					a := h.cl.graphql(ctx, createDebtMutation, map[string]any{"c": clientID, "in": debtInput(tag, n)}, key)
					if a.ok() {
						created.Add(1)
						break
					}
					if !a.retryable() {
						fmt.Printf("  unexpected answer to createDebt %d: %s\n", n, a)
						break
					}
					time.Sleep(100 * time.Millisecond)
				}
			}
		}()
	}
	for i := range h.cycles {
		time.Sleep(time.Duration(400+rand.IntN(1200)) * time.Millisecond)
		flying := h.inFlight.Load()
		h.cutOff.Add(flying)
		h.srv.kill9()
		time.Sleep(300 * time.Millisecond)
		if err := h.srv.start(ctx); err != nil {
			stopStream()
			wg.Wait()
			return fmt.Errorf("restart %d: %w", i+1, err)
		}
		fmt.Printf("  kill %d: %d debts created so far, %d deliveries in flight at the kill\n", i+1, created.Load(), flying)
	}
	stopStream()
	wg.Wait()

	// Every event of the client from the endpoint's own creation on (which
	// it receives too): queued with it, and delivered (a delivery cut off
	// by a kill goes again once its one-minute lease has passed).
	var first int
	if err := db.QueryRowContext(ctx, `SELECT id FROM audit_events WHERE client_id = $1 AND operation = 'createWebhookEndpoint'`, clientID).Scan(&first); err != nil {
		return err
	}
	var events, unqueued int
	if err := db.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE NOT EXISTS
	    (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id))
	  FROM audit_events e WHERE e.client_id = $1 AND e.id >= $2`, clientID, first).Scan(&events, &unqueued); err != nil {
		return err
	}
	start := time.Now()
	var missing []string
	for {
		rows, err := db.QueryContext(ctx, `SELECT id::text FROM audit_events WHERE client_id = $1 AND id >= $2 ORDER BY id`, clientID, first)
		if err != nil {
			return err
		}
		missing = missing[:0]
		h.mu.Lock()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				h.mu.Unlock()
				rows.Close()
				return err
			}
			if h.received[id] == 0 {
				missing = append(missing, id)
			}
		}
		h.mu.Unlock()
		rows.Close()
		if len(missing) == 0 || time.Since(start) > 150*time.Second || ctx.Err() != nil {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	var pending, failed int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE status = 'PENDING'), count(*) FILTER (WHERE status = 'FAILED')
	  FROM webhook_deliveries WHERE client_id = $1`, clientID).Scan(&pending, &failed); err != nil {
		return err
	}
	h.mu.Lock()
	distinct, again := len(h.received), 0
	for _, n := range h.received {
		again += n - 1
	}
	h.mu.Unlock()
	fmt.Printf("\nsummary: kills %d, debts created %d\n", h.cycles, created.Load())
	fmt.Printf("  events of the client (from the endpoint's creation) %d\n", events)
	fmt.Printf("  events with no delivery queued %d\n", unqueued)
	fmt.Printf("  delivered (distinct ids)      %d, after %s of waiting\n", distinct, time.Since(start).Round(time.Second))
	fmt.Printf("  delivered again (at least once) %d; in flight at a kill %d\n", again, h.cutOff.Load())
	fmt.Printf("  invalid signatures            %d\n", h.invalid.Load())
	fmt.Printf("  lost (never delivered)        %d %v\n", len(missing), missing[:min(len(missing), 10)])
	fmt.Printf("  still PENDING %d, FAILED %d\n", pending, failed)
	if unqueued != 0 || len(missing) != 0 || h.invalid.Load() != 0 || failed != 0 {
		return fmt.Errorf("guarantees broken (see the summary)")
	}
	fmt.Println("OK: every event queued with its change and delivered, signed, at least once")
	return nil
}
