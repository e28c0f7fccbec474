package graph_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/events"
	"github.com/debtql/debtql/internal/ledger"
	"github.com/debtql/debtql/internal/server"
)

// The subscriptions of api.md §12 over a real WebSocket
// (graphql-transport-ws): authentication in connection_init, tenancy,
// resuming after an event id, debtChanged, replicas and revoked keys.

const subscribeEvents = `subscription($c: UUID, $after: Int) {
  auditEvents(clientId: $c, after: $after) { id operation clientId apiKeyId records { recordType recordId } }
}`

type wsEvent struct {
	AuditEvents struct {
		ID        int
		Operation string
		ClientID  *string
		APIKeyID  *string
		Records   []struct{ RecordType, RecordID string }
	}
}

// subscribed waits until env's hub serves n subscriptions: a subscription
// without after starts when the server has registered it, which the
// protocol does not acknowledge.
func subscribed(t *testing.T, env *apitest.Env, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for env.Server.Events().Subscribers() < n {
		if time.Now().After(deadline) {
			t.Fatalf("the server serves %d subscriptions, not %d", env.Server.Events().Subscribers(), n)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// nextNewEvent reads the next event of subscription id that is not the
// client's creation: a subscription without after starts at the trail's
// final head, which an event committed just before it may not have reached
// yet (another transaction of the database server still ran), and such an
// event is then sent (at least once, never skipped).
func nextNewEvent(t *testing.T, s *apitest.Socket, id string) wsEvent {
	t.Helper()
	for {
		if e := nextEvent(t, s, id); e.AuditEvents.Operation != "createClient" && e.AuditEvents.Operation != "createApiKey" {
			return e
		}
	}
}

// nextEvent reads the next event of subscription id.
func nextEvent(t *testing.T, s *apitest.Socket, id string) wsEvent {
	t.Helper()
	var e wsEvent
	s.Data(t, id, &e)
	return e
}

func TestSubscriptionRefusesMissingAndBadKeys(t *testing.T) {
	env := apitest.New(t)
	s, code, reason := env.Dial(t, "")
	if s != nil || code != 4401 {
		t.Fatalf("no key: socket %v, close %d %q; want 4401", s != nil, code, reason)
	}
	s, code, reason = env.Dial(t, "dq_not-a-key")
	if s != nil || code != 4401 || !strings.Contains(reason, "not valid") {
		t.Fatalf("bad key: socket %v, close %d %q; want 4401 naming the key", s != nil, code, reason)
	}
	// A header on the upgrade is checked like the payload's.
	s, code, _ = env.Dial(t, apitest.AdminKey, "Authorization", "Bearer dq_not-a-key")
	if s != nil || code != 4401 {
		t.Fatalf("bad header with a good payload: socket %v, close %d; want 4401", s != nil, code)
	}
	// A good header alone is enough (clients that can send one).
	s, _, _ = env.Dial(t, "", "Authorization", "Bearer "+apitest.AdminKey)
	if s == nil {
		t.Fatal("a good Authorization header on the upgrade was refused")
	}
}

// Over HTTP a subscription is refused at once, naming the WebSocket.
func TestSubscriptionOverHTTPIsRefused(t *testing.T) {
	env := apitest.New(t)
	r := env.Admin().Do(t, subscribeEvents, nil)
	r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
	if !strings.Contains(string(r.Body), "WebSocket") {
		t.Fatalf("refusal does not name the WebSocket: %s", r.Body)
	}
}

func TestSubscriptionAuditEventsLiveThenResume(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Events AB")
	s, _, _ := env.Dial(t, apitest.AdminKey)
	s.Subscribe(t, "1", subscribeEvents, apitest.Vars{"c": clientID})
	subscribed(t, env, 1)
	// Subscriptions start "now" (nextNewEvent): three changes are sent.
	debtID, itemID := paymentDebtOf(t, env, clientID, "E-1", "100.00")
	env.Admin().Do(t, addPayment, apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID, "10.00")}).OK(t, nil)
	env.Admin().Do(t, addPayment, apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID, "20.00")}).OK(t, nil)
	var got []wsEvent
	for range 3 {
		got = append(got, nextNewEvent(t, s, "1"))
	}
	ops := []string{got[0].AuditEvents.Operation, got[1].AuditEvents.Operation, got[2].AuditEvents.Operation}
	if fmt.Sprint(ops) != "[createDebt addDebtPayment addDebtPayment]" {
		t.Fatalf("operations %v", ops)
	}
	for i, e := range got {
		if e.AuditEvents.ClientID == nil || *e.AuditEvents.ClientID != clientID || len(e.AuditEvents.Records) == 0 {
			t.Errorf("event %d: %+v", i, e.AuditEvents)
		}
		if i > 0 && e.AuditEvents.ID <= got[i-1].AuditEvents.ID {
			t.Errorf("ids out of order: %d after %d", e.AuditEvents.ID, got[i-1].AuditEvents.ID)
		}
	}
	// A second subscription resumes after the first event: the trail's
	// events after it, then the live ones, none twice.
	s.Subscribe(t, "2", subscribeEvents, apitest.Vars{"c": clientID, "after": got[0].AuditEvents.ID})
	if a, b := nextEvent(t, s, "2").AuditEvents.ID, nextEvent(t, s, "2").AuditEvents.ID; a != got[1].AuditEvents.ID || b != got[2].AuditEvents.ID {
		t.Fatalf("resumed with %d, %d; want %d, %d", a, b, got[1].AuditEvents.ID, got[2].AuditEvents.ID)
	}
	env.Admin().Do(t, addPayment, apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID, "1.00")}).OK(t, nil)
	live1, live2 := nextEvent(t, s, "1"), nextEvent(t, s, "2")
	if live1.AuditEvents.ID != live2.AuditEvents.ID || live1.AuditEvents.ID <= got[2].AuditEvents.ID {
		t.Fatalf("live event %d and %d after %d", live1.AuditEvents.ID, live2.AuditEvents.ID, got[2].AuditEvents.ID)
	}
	// after: 0 is the whole trail of the client, from its creation.
	s.Subscribe(t, "3", subscribeEvents, apitest.Vars{"c": clientID, "after": 0})
	if e := nextEvent(t, s, "3"); e.AuditEvents.Operation != "createClient" {
		t.Fatalf("after 0 began with %s", e.AuditEvents.Operation)
	}
	s.Stop(t, "1")
	s.Stop(t, "2")
	s.Stop(t, "3")
}

func TestSubscriptionTenancy(t *testing.T) {
	env := apitest.New(t)
	clientA, callerA := env.ClientCaller(t, "Tenant A")
	clientB, callerB := env.ClientCaller(t, "Tenant B")
	keyA := callerKey(t, env, clientA)
	s, _, _ := env.Dial(t, keyA)
	// Another client's events: FORBIDDEN, and the socket stays open.
	s.Subscribe(t, "other", subscribeEvents, apitest.Vars{"c": clientB})
	if m := s.Next(t, "other"); m.Type != "error" || !strings.Contains(string(m.Payload), "FORBIDDEN") {
		t.Fatalf("subscribing to another client's events: %s %s", m.Type, m.Payload)
	}
	// A CLIENT key's feed with no clientId is its own client's.
	s.Subscribe(t, "own", subscribeEvents, nil)
	subscribed(t, env, 1)
	// B is busy; then A makes one change. A's first event is its own.
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			callerB.Do(t, createPaymentDebt, createPaymentDebtVars(clientB, fmt.Sprintf("B-%d", i), "50.00")).OK(t, nil)
		}()
	}
	wg.Wait()
	callerA.Do(t, createPaymentDebt, createPaymentDebtVars(clientA, "A-1", "70.00")).OK(t, nil)
	e := nextNewEvent(t, s, "own")
	if e.AuditEvents.ClientID == nil || *e.AuditEvents.ClientID != clientA || e.AuditEvents.Operation != "createDebt" {
		t.Fatalf("A received %+v", e.AuditEvents)
	}
	// Resuming from the start of the trail shows A's events only.
	s.Subscribe(t, "all", subscribeEvents, apitest.Vars{"after": 0})
	for {
		e := nextEvent(t, s, "all")
		if *e.AuditEvents.ClientID != clientA {
			t.Fatalf("A received an event of %s: %+v", *e.AuditEvents.ClientID, e.AuditEvents)
		}
		if e.AuditEvents.Operation == "createDebt" {
			break
		}
	}
	for _, m := range s.Pending() {
		if strings.Contains(string(m.Payload), clientB) {
			t.Fatalf("A received something of B: %s", m.Payload)
		}
	}
	// An ADMIN key's event on A's data hides the key from A.
	env.Admin().Do(t, createPaymentDebt, createPaymentDebtVars(clientA, "A-2", "70.00")).OK(t, nil)
	if e := nextEvent(t, s, "own"); e.AuditEvents.APIKeyID != nil {
		t.Fatalf("A sees the ADMIN key %s", *e.AuditEvents.APIKeyID)
	}
}

// callerKey creates another CLIENT key of clientID and answers its secret.
func callerKey(t *testing.T, env *apitest.Env, clientID string) string {
	t.Helper()
	_, secret := env.NewKey(t, "CLIENT", clientID)
	return secret
}

func TestSubscriptionEndsWhenItsKeyIsRevoked(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Revoked AB")
	keyID, secret := env.NewKey(t, "CLIENT", clientID)
	s, _, _ := env.Dial(t, secret)
	s.Subscribe(t, "1", subscribeEvents, nil)
	subscribed(t, env, 1)
	env.Admin().Do(t, `mutation($id: UUID!) { revokeApiKey(id: $id) { id } }`, apitest.Vars{"id": keyID}).OK(t, nil)
	code, reason := s.Closed(t)
	if code != 4401 || !strings.Contains(reason, "revoked") {
		t.Fatalf("closed with %d %q; want 4401 naming the revocation", code, reason)
	}
}

const subscribeDebt = `subscription($c: UUID!, $id: Int!) { debtChanged(clientId: $c, id: $id) { id paidAmount remainingAmount paymentStatus withdrawnAt events { operation } } }`

func TestSubscriptionDebtChanged(t *testing.T) {
	env := apitest.New(t)
	clientID, caller := env.ClientCaller(t, "Debt Watch AB")
	debtID, itemID := paymentDebtOf(t, env, clientID, "D-1", "100.00")
	other, _ := paymentDebtOf(t, env, clientID, "D-2", "100.00")
	s, _, _ := env.Dial(t, callerKey(t, env, clientID))
	// Unknown debt: NOT_FOUND; the socket stays open.
	s.Subscribe(t, "x", subscribeDebt, apitest.Vars{"c": clientID, "id": 999999})
	if m := s.Next(t, "x"); m.Type != "error" || !strings.Contains(string(m.Payload), "NOT_FOUND") {
		t.Fatalf("unknown debt: %s %s", m.Type, m.Payload)
	}
	s.Subscribe(t, "d", subscribeDebt, apitest.Vars{"c": clientID, "id": debtID})
	subscribed(t, env, 1)
	// A payment on another debt is not this debt's change.
	caller.Do(t, addPayment, apitest.Vars{"c": clientID, "i": paymentInput(other, other, "5.00")})
	caller.Do(t, addPayment, apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID, "40.00")}).OK(t, nil)
	var d struct {
		DebtChanged struct {
			ID                                         int
			PaidAmount, RemainingAmount, PaymentStatus string
			WithdrawnAt                                *string
			Events                                     []struct{ Operation string }
		}
	}
	for i := 0; d.DebtChanged.PaidAmount != "40.00"; i++ {
		if i == 4 {
			t.Fatalf("no debtChanged shows the payment; the last: %+v", d.DebtChanged)
		}
		s.Data(t, "d", &d)
	}
	if d.DebtChanged.ID != debtID || d.DebtChanged.RemainingAmount != "60.00" {
		t.Fatalf("debtChanged %+v", d.DebtChanged)
	}
	caller.Do(t, `mutation($c: UUID!, $in: WithdrawDebtInput!) { withdrawDebt(clientId: $c, input: $in) { id } }`,
		apitest.Vars{"c": clientID, "in": apitest.Vars{"id": debtID}}).OK(t, nil)
	// Read afresh for each event, nested fields (loaders) included. (An
	// event that committed just before the subscription, such as the debt's
	// creation, may come too: at least once; so read until the withdrawal.)
	for i := 0; d.DebtChanged.WithdrawnAt == nil; i++ {
		if i == 4 {
			t.Fatalf("no debtChanged shows the withdrawal; the last: %+v", d.DebtChanged)
		}
		s.Data(t, "d", &d)
	}
	if d.DebtChanged.ID != debtID || len(d.DebtChanged.Events) != 3 {
		t.Fatalf("debtChanged after withdrawal %+v", d.DebtChanged)
	}
}

func TestSubscriptionAcrossReplicas(t *testing.T) {
	env := apitest.New(t)
	replica := env.Replica(t, nil)
	clientID, _ := env.NewClient(t, "Replicas AB")
	s, _, _ := replica.Dial(t, apitest.AdminKey)
	s.Subscribe(t, "1", subscribeEvents, apitest.Vars{"c": clientID})
	subscribed(t, replica, 1)
	paymentDebtOf(t, env, clientID, "R-1", "10.00")
	if e := nextNewEvent(t, s, "1"); e.AuditEvents.Operation != "createDebt" {
		t.Fatalf("replica received %+v", e.AuditEvents)
	}
}

// A subscriber that does not take its events is dropped once its buffer
// is full, with a reason naming where to resume, while another subscriber
// and the writers go on.
func TestSubscriptionSlowConsumerIsDisconnected(t *testing.T) {
	const buffer = 3
	env := apitest.NewWith(t, func(o *server.Options) { o.Events.Buffer = buffer })
	clientID, _ := env.NewClient(t, "Slow AB")
	fast, _, _ := env.Dial(t, apitest.AdminKey)
	fast.Subscribe(t, "1", subscribeEvents, apitest.Vars{"c": clientID})
	subscribed(t, env, 1)

	var mu sync.Mutex
	var ended error
	endedCh := make(chan struct{})
	ctx, cancel := context.WithCancel(events.WithDisconnect(context.Background(), func(err error) {
		mu.Lock()
		ended = err
		mu.Unlock()
		close(endedCh)
	}))
	defer cancel()
	slow, err := env.Server.Events().Subscribe(ctx, ledger.FeedFilter{ClientID: &clientID}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Changes, one after another, until the slow subscriber is dropped: it
	// is once more than its buffer waits when the hub reads new events.
	// The hub reads when woken, on its own time: under load the changes
	// may run well ahead of it, so the bound is time, not a count.
	n := 0
	deadline := time.Now().Add(20 * time.Second)
	for dropped := false; !dropped; n++ {
		if time.Now().After(deadline) {
			t.Fatalf("%d events in 20 s and the slow subscriber is still there", n)
		}
		paymentDebtOf(t, env, clientID, fmt.Sprintf("S-%d", n), "10.00")
		select {
		case <-endedCh:
			dropped = true
		case <-time.After(5 * time.Millisecond):
		}
	}
	if n <= buffer {
		t.Fatalf("dropped after %d events, within its buffer of %d", n, buffer)
	}
	// The other subscriber got every one.
	for range n {
		if e := nextNewEvent(t, fast, "1"); e.AuditEvents.Operation != "createDebt" {
			t.Fatalf("fast subscriber got %+v", e.AuditEvents)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !errors.Is(ended, events.ErrSlow) || !strings.Contains(ended.Error(), "resubscribe with after") {
		t.Fatalf("the slow subscriber ended with %v", ended)
	}
	// Its channel closes; what waited in it is gone.
	for range slow.Events {
	}
	if !errors.Is(slow.Err(), events.ErrSlow) {
		t.Fatalf("Err %v", slow.Err())
	}
}

// The hard part of "no gaps": ids are drawn before commit, so a
// transaction that drew a smaller id can commit after one that drew a
// larger id. Here T-late takes its transaction id first, T-early then
// draws event id a, T-late draws b > a and commits; a subscriber receives
// b and resumes after it; then T-early commits, and the resumed
// subscription must still get a. A feed of "id > last id" would lose it.
func TestEventFeedNoGapWhenCommitsAreOutOfIDOrder(t *testing.T) {
	env := apitest.New(t)
	if !env.Postgres {
		t.Skip("SQLite's writers commit in id order (one at a time)")
	}
	clientID, _ := env.NewClient(t, "Out Of Order AB")
	ctx := context.Background()
	var before int
	if err := env.DB.SQL.QueryRowContext(ctx, "SELECT max(id) FROM audit_events").Scan(&before); err != nil {
		t.Fatal(err)
	}
	insert := func(tx *sql.Tx, op string) int {
		t.Helper()
		var id int
		err := tx.QueryRowContext(ctx, `INSERT INTO audit_events (created_at, client_id, api_key_id, api_key_name, role, operation, request_id)
			VALUES (now(), $1, gen_random_uuid(), 'test', 'ADMIN', $2, '') RETURNING id`, clientID, op).Scan(&id)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	late, err := env.DB.SQL.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = late.Rollback() }()
	if _, err := late.ExecContext(ctx, "SELECT pg_current_xact_id()"); err != nil {
		t.Fatal(err)
	}
	early, err := env.DB.SQL.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = early.Rollback() }()
	a := insert(early, "createDebt")
	b := insert(late, "addDebtPayment")
	if a >= b {
		t.Fatalf("ids %d, %d: the test needs a < b", a, b)
	}
	if err := late.Commit(); err != nil {
		t.Fatal(err)
	}
	s, _, _ := env.Dial(t, apitest.AdminKey)
	s.Subscribe(t, "first", subscribeEvents, apitest.Vars{"c": clientID, "after": before})
	if e := nextEvent(t, s, "first"); e.AuditEvents.ID != b {
		t.Fatalf("first event %d, want %d (the one committed)", e.AuditEvents.ID, b)
	}
	s.Stop(t, "first")
	s.Subscribe(t, "resumed", subscribeEvents, apitest.Vars{"c": clientID, "after": b})
	if err := early.Commit(); err != nil {
		t.Fatal(err)
	}
	if e := nextEvent(t, s, "resumed"); e.AuditEvents.ID != a {
		t.Fatalf("after resuming at %d, got %d; want %d, committed later with a smaller id", b, e.AuditEvents.ID, a)
	}
}

// The other order: T-early takes its transaction id and draws a first, T-late
// draws b and commits first. b is not sent before a: the feed holds it until
// T-early ends, then sends a, b.
func TestEventFeedHoldsALaterIDUntilTheEarlierCommits(t *testing.T) {
	env := apitest.New(t)
	if !env.Postgres {
		t.Skip("SQLite's writers commit in id order (one at a time)")
	}
	clientID, _ := env.NewClient(t, "Held AB")
	ctx := context.Background()
	var before int
	if err := env.DB.SQL.QueryRowContext(ctx, "SELECT max(id) FROM audit_events").Scan(&before); err != nil {
		t.Fatal(err)
	}
	s, _, _ := env.Dial(t, apitest.AdminKey)
	s.Subscribe(t, "1", subscribeEvents, apitest.Vars{"c": clientID, "after": before})
	begin := func() *sql.Tx {
		tx, err := env.DB.SQL.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = tx.Rollback() })
		return tx
	}
	insert := func(tx *sql.Tx) int {
		var id int
		err := tx.QueryRowContext(ctx, `INSERT INTO audit_events (created_at, client_id, api_key_id, api_key_name, role, operation, request_id)
			VALUES (now(), $1, gen_random_uuid(), 'test', 'ADMIN', 'createDebt', '') RETURNING id`, clientID).Scan(&id)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	early, late := begin(), begin()
	a := insert(early)
	b := insert(late)
	if err := late.Commit(); err != nil {
		t.Fatal(err)
	}
	// b is committed; a subscriber that resumes now gets nothing before a
	// is final: its first event is a.
	s.Subscribe(t, "2", subscribeEvents, apitest.Vars{"c": clientID, "after": before})
	if err := early.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"1", "2"} {
		if x, y := nextEvent(t, s, id).AuditEvents.ID, nextEvent(t, s, id).AuditEvents.ID; x != a || y != b {
			t.Fatalf("subscription %s got %d, %d; want %d, %d", id, x, y, a, b)
		}
	}
}
