// Command events-bench measures DebtQL's events (docs/performance.md,
// "Events"): one server process with many idle subscriptions (its resident
// memory per subscription), the latency from an event's creation to its
// arrival at every subscriber under a steady rate of changes, and the rate
// at which one process sends queued webhook deliveries to a local
// receiver. scripts/events-bench.sh builds it and runs it; it starts the
// debtql binary it is given on the database URL it is given (a throwaway
// database) and stops it at the end.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	coderws "github.com/coder/websocket"
)

const adminKey = "dq_events-bench-admin-key-00000000000000000"

var (
	bin      = flag.String("server-bin", "", "the debtql binary")
	dsn      = flag.String("dsn", "", "PostgreSQL URL of a throwaway database")
	addr     = flag.String("addr", "127.0.0.1:18095", "address the server listens on")
	logPath  = flag.String("server-log", "/tmp/events-bench-server.log", "the server's output")
	subs     = flag.Int("subscriptions", 1000, "concurrent subscriptions")
	rate     = flag.Int("rate", 200, "events per second during the latency run")
	duration = flag.Duration("duration", 10*time.Second, "length of the latency run")
	hooks    = flag.Int("deliveries", 3000, "webhook deliveries queued for the sending run")
	clients  = flag.Int("clients", 1, "clients the subscriptions are spread over (subscription i follows client i mod clients); each change is one client's, in turn, so each event reaches subscriptions/clients subscribers")
	outage   = flag.Duration("outage", 5*time.Minute, "how long the receiver is down in the outage run")
	distinct = flag.Bool("distinct", false, "give every subscription a selection of its own (an alias), so that none shares a run with another: every event is executed once per subscriber")
	phases   = flag.String("phases", "subscriptions,webhooks", "the runs, in order: subscriptions, webhooks, outage, replicas")
	replica  = flag.String("replica-addr", "127.0.0.1:18096", "address of the second server of the replicas run, which serves the subscriptions while the changes go to the first")
)

func main() {
	flag.Parse()
	if *bin == "" || *dsn == "" {
		fmt.Fprintln(os.Stderr, "--server-bin and --dsn are required")
		os.Exit(2)
	}
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "FAILED:", err)
		os.Exit(1)
	}
}

type server struct{ cmd *exec.Cmd }

func start(extra ...string) (*server, error) {
	return startAt(*addr, pprofAddr, extra...)
}

// startAt starts a server listening on at, with its profiler on pprof
// (none when "").
func startAt(at, pprof string, extra ...string) (*server, error) {
	log, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	args := append([]string{"serve", "--addr", at, "--database-url", *dsn, "--rate-limit", "0", "--log-level", "warn"}, extra...)
	cmd := exec.Command(*bin, args...)
	cmd.Env = append(os.Environ(), "ADMIN_API_KEY="+adminKey, "DEBTQL_WEBHOOK_ALLOW_INSECURE=true", "DEBTQL_PPROF_ADDR="+pprof)
	cmd.Stdout, cmd.Stderr = log, log
	// The server dies with the driver, however the driver ends.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get("http://" + at + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return &server{cmd}, nil
			}
		}
	}
	_ = cmd.Process.Kill()
	return nil, fmt.Errorf("the server was not ready in 30 s (see %s)", *logPath)
}

func (s *server) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	_ = s.cmd.Wait()
}

// rss is the server's resident memory in bytes.
func (s *server) rss() int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			f := strings.Fields(line)
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// pprofAddr is the server's profiler, used to force a garbage collection
// before memory is read.
const pprofAddr = "127.0.0.1:16071"

// live is the server's memory in use after a garbage collection: heap in
// use and goroutine stacks (from /metrics), and the goroutines.
func live() (heap, stacks, goroutines float64) {
	if resp, err := http.Get("http://" + pprofAddr + "/debug/pprof/heap?gc=1"); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	resp, err := http.Get("http://" + *addr + "/metrics")
	if err != nil {
		return 0, 0, 0
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		v, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "go_memstats_heap_inuse_bytes":
			heap = v
		case "go_memstats_stack_inuse_bytes":
			stacks = v
		case "go_goroutines":
			goroutines = v
		}
	}
	return heap, stacks, goroutines
}

var httpClient = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

func gql(ctx context.Context, query string, vars map[string]any) (json.RawMessage, error) {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+*addr+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+adminKey)
	resp, err := httpClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out struct {
		Data   json.RawMessage
		Errors []json.RawMessage
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, err
	}
	if len(out.Errors) > 0 {
		return nil, fmt.Errorf("%s", out.Errors[0])
	}
	return out.Data, nil
}

func newClient(ctx context.Context, n int) (string, error) {
	in := map[string]any{
		"name": fmt.Sprintf("Events Bench %d AB", n), "organizationNumber": "556036-0793", "adress1": "Storgatan 1", "address2": "Box 12",
		"zipCode": "111 22", "city": "Stockholm", "countryCode": "SE", "bankNumber": "5050-1055",
		"email": "faktura@example.se", "contactName": "Anna Andersson", "contactEmail": "anna@example.se", "contactPhone": "+46 8 123 456",
	}
	d, err := gql(ctx, `mutation($in: ClientInput!) { createClient(input: $in) { id } }`, map[string]any{"in": in})
	if err != nil {
		return "", err
	}
	var out struct{ CreateClient struct{ ID string } }
	return out.CreateClient.ID, json.Unmarshal(d, &out)
}

// change makes one event: a client's contact name updated (one statement
// of work, one event).
func change(ctx context.Context, clientID string, n int) error {
	in := map[string]any{
		"name": "Events Bench AB", "organizationNumber": "556036-0793", "adress1": "Storgatan 1", "address2": "Box 12",
		"zipCode": "111 22", "city": "Stockholm", "countryCode": "SE", "bankNumber": "5050-1055",
		"email": "faktura@example.se", "contactName": fmt.Sprintf("Anna %d", n), "contactEmail": "anna@example.se", "contactPhone": "+46 8 123 456",
	}
	_, err := gql(ctx, `mutation($id: UUID!, $in: ClientInput!) { updateClient(id: $id, input: $in) { id } }`, map[string]any{"id": clientID, "in": in})
	return err
}

func run(ctx context.Context) error {
	srv, err := start()
	if err != nil {
		return err
	}
	ids := make([]string, max(*clients, 1))
	for i := range ids {
		if ids[i], err = newClient(ctx, i); err != nil {
			srv.stop()
			return err
		}
	}
	srv.stop()
	for _, phase := range strings.Split(*phases, ",") {
		switch phase {
		case "subscriptions":
			if srv, err = start(); err != nil {
				return err
			}
			err = subscriptions(ctx, srv, *addr, ids)
			srv.stop()
		case "webhooks":
			err = webhooks(ctx, ids[0])
		case "outage":
			err = receiverOutage(ctx, ids[0])
		case "replicas":
			// The changes go to the first server, the subscriptions to
			// the second: each event crosses from one replica to the
			// other through PostgreSQL (NOTIFY, then the trail).
			if srv, err = start(); err != nil {
				return err
			}
			var other *server
			if other, err = startAt(*replica, ""); err == nil {
				err = subscriptions(ctx, other, *replica, ids)
				other.stop()
			}
			srv.stop()
		default:
			err = fmt.Errorf("no run %q: subscriptions, webhooks, outage or replicas", phase)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// subscriptions opens the subscriptions, measures the memory they take,
// then sends changes at the rate for the duration and measures each
// event's latency at each subscriber.
func subscriptions(ctx context.Context, srv *server, at string, clientIDs []string) error {
	time.Sleep(time.Second)
	h0, s0, g0 := live()
	before := srv.rss()
	var mu sync.Mutex
	var latencies []time.Duration
	var received atomic.Int64
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wsURL := "ws://" + at + "/graphql"
	opened := make(chan error, *subs)
	for i := range *subs {
		go func() {
			c, _, err := coderws.Dial(ctx, wsURL, &coderws.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
			if err != nil {
				opened <- err
				return
			}
			defer c.CloseNow()
			send := func(v any) error { b, _ := json.Marshal(v); return c.Write(ctx, coderws.MessageText, b) }
			_ = send(map[string]any{"type": "connection_init", "payload": map[string]string{"Authorization": "Bearer " + adminKey}})
			if _, _, err := c.Read(ctx); err != nil { // connection_ack
				opened <- err
				return
			}
			err = send(map[string]any{"id": strconv.Itoa(i), "type": "subscribe", "payload": map[string]any{
				"query":     query(i),
				"variables": map[string]any{"c": clientIDs[i%len(clientIDs)]}}})
			opened <- err
			var local []time.Duration
			defer func() {
				mu.Lock()
				latencies = append(latencies, local...)
				mu.Unlock()
			}()
			// The readers share the 2 cores with the server: each message
			// is read into one buffer and searched for its type and
			// createdAt, without a JSON decoder.
			var buf bytes.Buffer
			for {
				_, r, err := c.Reader(ctx)
				if err != nil {
					return
				}
				buf.Reset()
				if _, err := buf.ReadFrom(r); err != nil {
					return
				}
				now := time.Now()
				data := buf.Bytes()
				switch {
				case bytes.Contains(data, []byte(`"type":"next"`)):
					at, ok := createdAt(data)
					if !ok {
						continue
					}
					local = append(local, now.Sub(at))
					received.Add(1)
				case bytes.Contains(data, []byte(`"type":"ping"`)):
					_ = send(map[string]any{"type": "pong"})
				}
			}
		}()
	}
	for range *subs {
		if err := <-opened; err != nil {
			return fmt.Errorf("opening a subscription: %w", err)
		}
	}
	time.Sleep(2 * time.Second)
	after := srv.rss()
	h1, s1, g1 := live()
	if out := os.Getenv("EVENTS_BENCH_HEAP"); out != "" {
		// The live heap with the subscriptions open, for go tool pprof.
		if resp, err := http.Get("http://" + pprofAddr + "/debug/pprof/heap"); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			_ = os.WriteFile(out, b, 0o644)
		}
	}
	if at == *addr { // the memory of the server this driver profiles
		perSub := float64(after-before) / float64(*subs)
		fmt.Printf("subscriptions: %d open (one per connection); server RSS %.1f MiB before, %.1f MiB after: %.1f KiB per idle subscription\n",
			*subs, float64(before)/(1<<20), float64(after)/(1<<20), perSub/1024)
		fmt.Printf("  in use after a GC: heap +%.1f KiB, stacks +%.1f KiB per subscription (%.1f KiB), goroutines +%.1f per subscription\n",
			(h1-h0)/float64(*subs)/1024, (s1-s0)/float64(*subs)/1024, (h1-h0+s1-s0)/float64(*subs)/1024, (g1-g0)/float64(*subs))
	}

	// The changes, at the rate, from a few workers.
	total := int(duration.Seconds() * float64(*rate))
	ticks := make(chan int)
	var wg sync.WaitGroup
	var failed atomic.Int64
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range ticks {
				if change(ctx, clientIDs[n%len(clientIDs)], n) != nil {
					failed.Add(1)
				}
			}
		}()
	}
	interval := time.Second / time.Duration(*rate)
	t0 := time.Now()
	for n := range total {
		time.Sleep(time.Until(t0.Add(time.Duration(n) * interval)))
		ticks <- n
	}
	close(ticks)
	wg.Wait()
	sent := time.Since(t0)
	// Each change reaches the subscribers of its client (all when
	// subscriptions divides evenly among the clients).
	want := int64(total-int(failed.Load())) * int64(*subs/len(clientIDs))
	for end := time.Now().Add(30 * time.Second); received.Load() < want && time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
	}
	cancel()
	time.Sleep(200 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(latencies)
	pct := func(p float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[min(len(latencies)-1, int(p*float64(len(latencies))))]
	}
	fmt.Printf("latency run: %d subscribers per client of %d; %d changes in %s (%.0f/s, %d failed), %d of %d event deliveries received\n",
		*subs/len(clientIDs), len(clientIDs), total, sent.Round(time.Millisecond), float64(total)/sent.Seconds(), failed.Load(), len(latencies), want)
	fmt.Printf("  event creation to arrival at a subscriber: p50 %s, p90 %s, p99 %s, max %s\n",
		pct(0.5).Round(time.Millisecond), pct(0.9).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), pct(1).Round(time.Millisecond))
	return nil
}

// query is subscription i's operation: the same for all, or with an alias
// of its own (--distinct).
func query(i int) string {
	if *distinct {
		return fmt.Sprintf(`subscription($c: UUID) { auditEvents(clientId: $c) { id createdAt s%d: id } }`, i)
	}
	return `subscription($c: UUID) { auditEvents(clientId: $c) { id createdAt } }`
}

// createdAt finds an auditEvents answer's createdAt in a "next" message.
func createdAt(msg []byte) (time.Time, bool) {
	const key = `"createdAt":"`
	i := bytes.Index(msg, []byte(key))
	if i < 0 {
		return time.Time{}, false
	}
	rest := msg[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, string(rest[:j]))
	return t, err == nil
}

// webhooks queues deliveries with a server that sends none, then starts one
// that sends (16 workers) and times how fast the receiver gets them all.
func webhooks(ctx context.Context, clientID string) error {
	var got atomic.Int64
	seen := sync.Map{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	rec := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if _, dup := seen.LoadOrStore(r.Header.Get("webhook-id"), true); !dup {
			got.Add(1)
		}
		w.WriteHeader(204)
	})}
	go func() { _ = rec.Serve(ln) }()
	defer rec.Close()

	srv, err := start("--webhook-workers", "0")
	if err != nil {
		return err
	}
	if _, err := gql(ctx, `mutation($c: UUID, $in: WebhookEndpointInput!) { createWebhookEndpoint(clientId: $c, input: $in) { secret } }`,
		map[string]any{"c": clientID, "in": map[string]any{"url": "http://" + ln.Addr().String() + "/hooks", "operations": []string{"updateClient"}}}); err != nil {
		srv.stop()
		return err
	}
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := int(next.Add(1)); n <= *hooks; n = int(next.Add(1)) {
				_ = change(ctx, clientID, n)
			}
		}()
	}
	wg.Wait()
	srv.stop()
	t0 := time.Now()
	srv, err = start()
	if err != nil {
		return err
	}
	defer srv.stop()
	ready := time.Since(t0)
	t1 := time.Now()
	for end := time.Now().Add(120 * time.Second); got.Load() < int64(*hooks) && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
	}
	el := time.Since(t1)
	fmt.Printf("webhooks: %d deliveries queued; a sending server (16 workers, ready in %s) delivered %d in %s: %.0f deliveries/s\n",
		*hooks, ready.Round(time.Millisecond), got.Load(), el.Round(time.Millisecond), float64(got.Load())/el.Seconds())
	return nil
}

// receiverOutage makes changes while the receiver is down (its port
// refuses connections) for the outage, at one a second, then brings it
// back and waits until every delivery has arrived: the retry schedule's
// waits (30 s, 2 min, 10 min, ...) decide how long after.
func receiverOutage(ctx context.Context, clientID string) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	ln.Close() // down
	srv, err := start()
	if err != nil {
		return err
	}
	defer srv.stop()
	if _, err := gql(ctx, `mutation($c: UUID, $in: WebhookEndpointInput!) { createWebhookEndpoint(clientId: $c, input: $in) { secret } }`,
		map[string]any{"c": clientID, "in": map[string]any{"url": "http://" + addr + "/hooks", "operations": []string{"updateClient"}}}); err != nil {
		return err
	}
	t0 := time.Now()
	made := 0
	for n := 0; time.Since(t0) < *outage-time.Second; n++ {
		time.Sleep(time.Until(t0.Add(time.Duration(n) * time.Second)))
		if err := change(ctx, clientID, 1_000_000+n); err != nil {
			return err
		}
		made++
	}
	time.Sleep(time.Until(t0.Add(*outage)))
	var got, dups atomic.Int64
	seen := sync.Map{}
	if ln, err = net.Listen("tcp", addr); err != nil {
		return fmt.Errorf("bringing the receiver back on %s: %w", addr, err)
	}
	up := time.Now()
	var last atomic.Int64
	rec := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if _, dup := seen.LoadOrStore(r.Header.Get("webhook-id"), true); dup {
			dups.Add(1)
		} else {
			got.Add(1)
			last.Store(int64(time.Since(up)))
		}
		w.WriteHeader(204)
	})}
	go func() { _ = rec.Serve(ln) }()
	defer rec.Close()
	fmt.Printf("outage: the receiver was down %s; %d changes made meanwhile (one a second); it is up again\n", *outage, made)
	for end := up.Add(30 * time.Minute); got.Load() < int64(made) && time.Now().Before(end); time.Sleep(time.Second) {
	}
	fmt.Printf("  %d of %d deliveries received (%d more than once), the last %s after the receiver came back\n",
		got.Load(), made, dups.Load(), time.Duration(last.Load()).Round(time.Second))
	if got.Load() < int64(made) {
		return fmt.Errorf("%d deliveries missing 30 minutes after the receiver came back", int64(made)-got.Load())
	}
	return nil
}
