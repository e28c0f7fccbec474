package graph_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	coderws "github.com/coder/websocket"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/server"
)

// The rules of graphql-transport-ws that the server enforces, each with
// its close code, and operations other than subscriptions over the socket.

func TestWebSocketProtocolRules(t *testing.T) {
	env := apitest.NewWith(t, func(o *server.Options) { o.WebSocketInitTimeout = 300 * time.Millisecond })
	auth := []byte(`{"type":"connection_init","payload":{"Authorization":"Bearer ` + apitest.AdminKey + `"}}`)
	write := func(s *apitest.Socket, typ coderws.MessageType, msg string) {
		t.Helper()
		if err := s.Conn().Write(context.Background(), typ, []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	closed := func(name string, s *apitest.Socket, code int, text string) {
		t.Helper()
		got, reason := s.Closed(t)
		if got != code || !strings.Contains(reason, text) {
			t.Errorf("%s: closed with %d %q; want %d naming %q", name, got, reason, code, text)
		}
	}
	for _, c := range []struct {
		name  string
		steps []string // messages after an acknowledged connection_init
		code  int
		text  string
	}{
		{"unknown type", []string{`{"type":"start","id":"1"}`}, 4400, "Invalid message type"},
		{"not JSON", []string{`{"type":`}, 4400, "Invalid message"},
		{"second init", []string{string(auth)}, 4429, "Too many initialisation requests"},
		{"subscribe without id", []string{`{"type":"subscribe","payload":{"query":"{ __typename }"}}`}, 4400, "needs an id"},
		{"id in use", []string{
			`{"type":"subscribe","id":"a","payload":{"query":"subscription { auditEvents { id } }"}}`,
			`{"type":"subscribe","id":"a","payload":{"query":"subscription { auditEvents { id } }"}}`,
		}, 4409, "Subscriber for a already exists"},
	} {
		s, _, _ := env.Dial(t, apitest.AdminKey)
		for _, m := range c.steps {
			write(s, coderws.MessageText, m)
		}
		closed(c.name, s, c.code, c.text)
	}

	s := env.DialRaw(t, []string{"graphql-transport-ws"})
	write(s, coderws.MessageText, `{"type":"subscribe","id":"1","payload":{"query":"subscription { auditEvents { id } }"}}`)
	closed("subscribe before connection_init", s, 4401, "Unauthorized")

	s = env.DialRaw(t, []string{"graphql-transport-ws"})
	write(s, coderws.MessageBinary, string(auth))
	closed("binary message", s, 4400, "text")

	s = env.DialRaw(t, []string{"graphql-transport-ws"})
	closed("no connection_init", s, 4408, "Connection initialisation timeout")

	s = env.DialRaw(t, []string{"graphql-ws"})
	closed("the legacy subprotocol", s, 4406, "Subprotocol not acceptable")

	// A ping is answered; the socket stays open for what follows.
	s, _, _ = env.Dial(t, apitest.AdminKey)
	write(s, coderws.MessageText, `{"type":"ping"}`)
	// A subscription that does not validate: an error message for it, and
	// the socket stays open.
	s.Subscribe(t, "bad", `subscription { auditEvents { noSuchField } }`, nil)
	if m := s.Next(t, "bad"); m.Type != "error" || !strings.Contains(string(m.Payload), "noSuchField") {
		t.Fatalf("invalid subscription: %s %s", m.Type, m.Payload)
	}
	s.Send(t, apitest.Message{ID: "nopayload", Type: "subscribe"})
	if m := s.Next(t, "nopayload"); m.Type != "error" || !strings.Contains(string(m.Payload), "BAD_USER_INPUT") {
		t.Fatalf("subscribe without a payload: %s %s", m.Type, m.Payload)
	}
	// A query over the socket: its answer, then complete.
	s.Subscribe(t, "q", `query { apiKeys { totalCount } }`, nil)
	var q struct{ APIKeys struct{ TotalCount int } }
	s.Data(t, "q", &q)
	if q.APIKeys.TotalCount < 1 {
		t.Fatalf("query over the socket: %+v", q)
	}
	if m := s.Next(t, "q"); m.Type != "complete" {
		t.Fatalf("after the query's answer: %s %s", m.Type, m.Payload)
	}
	// The id of a completed operation may be used again.
	s.Subscribe(t, "q", `query { apiKeys { totalCount } }`, nil)
	s.Data(t, "q", &q)
}

// Subscriptions of one key with the same operation and variables share one
// run: one subscription of the hub for all of them, each event's answer
// made once. A subscription that joins later gets the events after its own
// start, never one from before it; one that leaves does not end the others'.
func TestSubscriptionsShareARun(t *testing.T) {
	env := apitest.New(t)
	clientID, caller := env.ClientCaller(t, "Shared AB")
	other, _ := env.NewClient(t, "Shared Other AB")
	key := callerKey(t, env, clientID)
	a, _, _ := env.Dial(t, key)
	b, _, _ := env.Dial(t, key)
	a.Subscribe(t, "1", subscribeEvents, nil)
	subscribed(t, env, 1)
	caller.Do(t, createPaymentDebt, createPaymentDebtVars(clientID, "SH-1", "10.00")).OK(t, nil)
	first := nextNewEvent(t, a, "1")

	b.Subscribe(t, "2", subscribeEvents, nil)
	members(t, env, 1, 2)
	if n := env.Server.Events().Subscribers(); n != 1 {
		t.Fatalf("two subscriptions of one operation hold %d subscriptions of the hub", n)
	}
	caller.Do(t, createPaymentDebt, createPaymentDebtVars(clientID, "SH-2", "10.00")).OK(t, nil)
	second := nextNewEvent(t, a, "1")
	if e := nextNewEvent(t, b, "2"); e.AuditEvents.ID != second.AuditEvents.ID || e.AuditEvents.ID == first.AuditEvents.ID {
		t.Fatalf("the later subscriber got %d first; want %d (not %d, from before it started)", e.AuditEvents.ID, second.AuditEvents.ID, first.AuditEvents.ID)
	}

	// Other variables, another key: runs of their own.
	c, _, _ := env.Dial(t, apitest.AdminKey)
	c.Subscribe(t, "3", subscribeEvents, apitest.Vars{"c": other})
	c.Subscribe(t, "4", subscribeEvents, apitest.Vars{"c": clientID})
	members(t, env, 3, 4)

	// The first subscriber leaves; the run goes on for the second.
	a.Stop(t, "1")
	members(t, env, 3, 3)
	caller.Do(t, createPaymentDebt, createPaymentDebtVars(clientID, "SH-3", "10.00")).OK(t, nil)
	if e := nextNewEvent(t, b, "2"); e.AuditEvents.ID <= second.AuditEvents.ID {
		t.Fatalf("after the first left, the second got %d", e.AuditEvents.ID)
	}
	if e := nextNewEvent(t, c, "4"); e.AuditEvents.ID <= second.AuditEvents.ID {
		t.Fatalf("the ADMIN key's run got %d", e.AuditEvents.ID)
	}
	// The last member's leaving ends the run and its hub subscription.
	b.Stop(t, "2")
	c.Stop(t, "3")
	c.Stop(t, "4")
	members(t, env, 0, 0)
	deadline := time.Now().Add(5 * time.Second)
	for env.Server.Events().Subscribers() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the hub still serves %d subscriptions after every run ended", env.Server.Events().Subscribers())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// members waits until the sockets' subscriptions are runs shared by
// members.
func members(t *testing.T, env *apitest.Env, runs, members int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r, m := env.Server.Subscriptions()
		if r == runs && m == members {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d runs with %d members; want %d with %d", r, m, runs, members)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// An idle subscription costs one goroutine (its connection's reader) and
// nothing more: no goroutine per subscription, none per connection
// besides the reader (docs/performance.md, "Events").
func TestIdleSubscriptionsCostOneGoroutineEach(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Idle AB")
	settle := func() int {
		var n int
		for range 50 {
			n = runtime.NumGoroutine()
			time.Sleep(20 * time.Millisecond)
			if runtime.NumGoroutine() == n {
				break
			}
		}
		return n
	}
	debtID, _ := paymentDebtOf(t, env, clientID, "IDLE-1", "10.00")
	before := settle()
	const sockets = 40
	for range sockets {
		s, _, _ := env.Dial(t, apitest.AdminKey)
		s.Subscribe(t, "1", subscribeEvents, apitest.Vars{"c": clientID})
		s.Subscribe(t, "2", subscribeDebt, apitest.Vars{"c": clientID, "id": debtID})
	}
	members(t, env, 2, 2*sockets)
	// The test's own sockets cost one reading goroutine each; the server's
	// connections one each; the shared run, none while idle: 80 here,
	// where gqlgen's transport (one a subscription, two a connection) cost
	// 200. It reads 81 alone; the slack is for the process's other
	// goroutines (idle HTTP connections, timers, the pool), which added 15
	// once in CI on a loaded 2-core machine.
	const slack = 30
	if grew := settle() - before; grew > 2*sockets+slack {
		t.Fatalf("%d idle subscriptions on %d sockets added %d goroutines; want at most %d", 2*sockets, sockets, grew, 2*sockets+slack)
	}
}

// A socket whose client stops reading is closed once more than its buffer
// of events waits behind a write the client does not take: 1008 with a
// reason naming where to resume. The other subscriber of the same run, and
// the writers, go on.
func TestSubscriptionSlowSocketIsClosed(t *testing.T) {
	const buffer = 3
	env := apitest.NewWith(t, func(o *server.Options) { o.Events.Buffer = buffer })
	clientID, _ := env.NewClient(t, "Slow Socket AB")
	// Large answers (a few KiB each), so that a few fill the connection.
	var q strings.Builder
	q.WriteString("subscription($c: UUID) { auditEvents(clientId: $c) { id operation")
	for i := range 200 {
		fmt.Fprintf(&q, " a%d: operation", i)
	}
	q.WriteString(" } }")
	fast, _, _ := env.Dial(t, apitest.AdminKey)
	fast.Subscribe(t, "1", q.String(), apitest.Vars{"c": clientID})
	members(t, env, 1, 1)

	// The slow client: a receive buffer of 2 KiB, and no reads.
	dialer := &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var err error
		if cerr := c.Control(func(fd uintptr) {
			err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 2048)
		}); cerr != nil {
			return cerr
		}
		return err
	}}
	// Its connection to the same server through a listener that sets
	// small send buffers (the kernel's would hold megabytes).
	small := httptest.NewUnstartedServer(env.Server)
	small.Listener = smallSendBuffers{small.Listener}
	small.Start()
	defer small.Close()
	ctx := context.Background()
	slow, _, err := coderws.Dial(ctx, "ws"+strings.TrimPrefix(small.URL, "http")+"/graphql", &coderws.DialOptions{
		Subprotocols: []string{"graphql-transport-ws"},
		HTTPClient:   &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer slow.CloseNow()
	slow.SetReadLimit(1 << 20)
	send := func(m string) {
		if err := slow.Write(ctx, coderws.MessageText, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"type":"connection_init","payload":{"Authorization":"Bearer ` + apitest.AdminKey + `"}}`)
	if _, m, err := slow.Read(ctx); err != nil || !strings.Contains(string(m), "connection_ack") {
		t.Fatalf("connection_ack: %s %v", m, err)
	}
	p, _ := json.Marshal(map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{"query": q.String(), "variables": map[string]any{"c": clientID}}})
	send(string(p))
	members(t, env, 1, 2)

	// One change at a time, each delivered (to the fast subscriber) before
	// the next: a burst that arrives before any write began is queued
	// whole (a client that keeps up is not dropped for a burst), so the
	// events must come while the slow client's write is stuck.
	const changes = 60
	for i := range changes {
		paymentDebtOf(t, env, clientID, fmt.Sprintf("SS-%d", i), "10.00")
		if e := nextNewEvent(t, fast, "1"); e.AuditEvents.Operation != "createDebt" {
			t.Fatalf("the fast subscriber got %+v", e.AuditEvents)
		}
	}
	// Now the slow client reads: what was sent before the server gave up,
	// then the close.
	got := 0
	rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for {
		_, _, err := slow.Read(rctx)
		if err != nil {
			var ce coderws.CloseError
			if !errors.As(err, &ce) || ce.Code != 1008 || !strings.Contains(ce.Reason, "slow consumer") || !strings.Contains(ce.Reason, "resubscribe with after") {
				t.Fatalf("the slow client ended with %v", err)
			}
			break
		}
		got++
	}
	t.Logf("the slow client received %d of %d events", got, changes)
	if got >= changes {
		t.Fatalf("the slow client received all %d events; it should have been closed", got)
	}
	members(t, env, 1, 1)
}

// smallSendBuffers gives the connections it accepts a send buffer of 4 KiB.
type smallSendBuffers struct{ net.Listener }

func (l smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

// A server that shuts down closes every socket with 1001 and a reason that
// says to reconnect and resume, members of shared runs included.
func TestSubscriptionSocketsCloseOnShutdown(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Shutdown AB")
	a, _, _ := env.Dial(t, apitest.AdminKey)
	b, _, _ := env.Dial(t, apitest.AdminKey)
	a.Subscribe(t, "1", subscribeEvents, apitest.Vars{"c": clientID})
	b.Subscribe(t, "1", subscribeEvents, apitest.Vars{"c": clientID})
	members(t, env, 1, 2)
	env.Server.Close()
	for _, s := range []*apitest.Socket{a, b} {
		if code, reason := s.Closed(t); code != 1001 || !strings.Contains(reason, "resume with after") {
			t.Fatalf("closed with %d %q; want 1001 asking to resume", code, reason)
		}
	}
	members(t, env, 0, 0)
}

// A subscription that resumes after an event the running one has passed
// does not join it: it reads what it missed in a run of its own.
func TestResumingSubscriptionDoesNotJoinARunAhead(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Resume Share AB")
	var ids []int
	s0, _, _ := env.Dial(t, apitest.AdminKey)
	s0.Subscribe(t, "0", subscribeEvents, apitest.Vars{"c": clientID})
	subscribed(t, env, 1)
	for i := range 3 {
		paymentDebtOf(t, env, clientID, fmt.Sprintf("RS-%d", i), "10.00")
		ids = append(ids, nextNewEvent(t, s0, "0").AuditEvents.ID)
	}
	s0.Stop(t, "0")
	members(t, env, 0, 0)
	vars := apitest.Vars{"c": clientID, "after": ids[0]}
	a, _, _ := env.Dial(t, apitest.AdminKey)
	a.Subscribe(t, "1", subscribeEvents, vars)
	for _, want := range ids[1:] {
		if got := nextEvent(t, a, "1").AuditEvents.ID; got != want {
			t.Fatalf("first resumed subscription got %d, want %d", got, want)
		}
	}
	b, _, _ := env.Dial(t, apitest.AdminKey)
	b.Subscribe(t, "1", subscribeEvents, vars)
	for _, want := range ids[1:] {
		if got := nextEvent(t, b, "1").AuditEvents.ID; got != want {
			t.Fatalf("second resumed subscription got %d, want %d", got, want)
		}
	}
	members(t, env, 2, 2)
	// Both go on live.
	paymentDebtOf(t, env, clientID, "RS-live", "10.00")
	if x, y := nextEvent(t, a, "1").AuditEvents.ID, nextEvent(t, b, "1").AuditEvents.ID; x != y || x <= ids[2] {
		t.Fatalf("live event %d and %d after %d", x, y, ids[2])
	}
}

// The hub reads the trail only while someone listens: changes made with no
// subscription cost no read of their events, and the first subscription
// afterwards gets the events that come after it.
func TestIdleHubReadsNothing(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Idle Hub AB")
	hub := env.Server.Events()
	time.Sleep(100 * time.Millisecond) // the wake-ups of the set-up's changes
	before := hub.Reads()
	for i := range 5 {
		paymentDebtOf(t, env, clientID, fmt.Sprintf("IH-%d", i), "10.00")
	}
	time.Sleep(300 * time.Millisecond) // well past the wake-ups' 25 ms
	if n := hub.Reads() - before; n != 0 {
		t.Fatalf("the hub read the trail %d times with no subscription", n)
	}
	s, _, _ := env.Dial(t, apitest.AdminKey)
	s.Subscribe(t, "1", subscribeEvents, apitest.Vars{"c": clientID})
	subscribed(t, env, 1)
	live, _ := paymentDebtOf(t, env, clientID, "IH-live", "10.00")
	// The live debt's event comes. (One of the five before may come first
	// if it was not yet final when the subscription started: at least
	// once, never less; see nextNewEvent.)
	for found, n := false, 0; !found; n++ {
		if n == 6 {
			t.Fatalf("no event of the live debt %d among the first 6", live)
		}
		for _, r := range nextNewEvent(t, s, "1").AuditEvents.Records {
			found = found || r.RecordType == "DEBT" && r.RecordID == strconv.Itoa(live)
		}
	}
	if hub.Reads() == before {
		t.Fatal("the hub did not read the trail for its subscriber")
	}
}
