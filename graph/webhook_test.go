package graph_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/server"
	"github.com/debtql/debtql/internal/webhook"
)

// The webhooks of api.md §12 through the API: endpoints, signed deliveries
// verified by a receiver written as docs/webhooks.md tells receivers to,
// the delivery log, retries, tenancy and URL safety.

// verifyWebhook is the receiver's check of docs/webhooks.md ("Verifying in
// Go"), written from the Standard Webhooks specification, not with
// DebtQL's code: the timestamp within 5 minutes, then HMAC-SHA256 of
// "id.timestamp.body" with the base64 key after whsec_, compared in
// constant time with each v1 signature.
func verifyWebhook(secret string, h http.Header, body []byte, now time.Time) error {
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("bad timestamp %q", ts)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return fmt.Errorf("timestamp %s too far from now", ts)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, s := range strings.Split(sigs, " ") {
		if hmac.Equal([]byte(s), []byte(want)) {
			return nil
		}
	}
	return fmt.Errorf("no signature matches")
}

// received is one delivery a receiver took.
type received struct {
	ID   string
	Body map[string]any
	Raw  []byte
}

// receiver is a webhook receiver on httptest: it verifies every request
// (the test fails on one that does not verify) and answers with answer's
// status and body.
type receiver struct {
	URL    string
	ready  chan struct{} // closed once the secret is known
	secret string
	mu     sync.Mutex
	got    chan received
	answer func(n int) (int, string)
	n      int
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{got: make(chan received, 1000), ready: make(chan struct{}), answer: func(int) (int, string) { return 204, "" }}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		// A delivery may come before the test has read the secret from
		// the endpoint's creation.
		select {
		case <-r.ready:
		case <-time.After(20 * time.Second):
		}
		r.mu.Lock()
		secret, answer := r.secret, r.answer
		r.n++
		n := r.n
		r.mu.Unlock()
		if err := verifyWebhook(secret, req.Header, body, time.Now()); err != nil {
			t.Errorf("delivery does not verify: %v", err)
			w.WriteHeader(400)
			return
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			t.Errorf("delivery is not JSON: %s", body)
		}
		status, text := answer(n)
		w.WriteHeader(status)
		_, _ = io.WriteString(w, text)
		r.got <- received{ID: req.Header.Get("webhook-id"), Body: m, Raw: body}
	}))
	t.Cleanup(srv.Close)
	r.URL = srv.URL + "/hooks"
	return r
}

func (r *receiver) setSecret(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secret = s
	close(r.ready)
}

func (r *receiver) next(t *testing.T) received {
	t.Helper()
	select {
	case g := <-r.got:
		return g
	case <-time.After(20 * time.Second):
		t.Fatal("no delivery came")
		return received{}
	}
}

const createEndpoint = `mutation($c: UUID, $in: WebhookEndpointInput!) {
  createWebhookEndpoint(clientId: $c, input: $in) { secret endpoint { id url description operations createdAt client { id } } }
}`

type createdEndpoint struct {
	CreateWebhookEndpoint struct {
		Secret   string
		Endpoint struct {
			ID, URL     string
			Description *string
			Operations  []string
			Client      *struct{ ID string }
		}
	}
}

// endpointFor registers r for clientID (nil: every client's) with c.
func endpointFor(t *testing.T, c *apitest.Caller, r *receiver, clientID any, ops ...string) string {
	t.Helper()
	in := apitest.Vars{"url": r.URL}
	if ops != nil {
		in["operations"] = ops
	}
	var out createdEndpoint
	c.Do(t, createEndpoint, apitest.Vars{"c": clientID, "in": in}).OK(t, &out)
	r.setSecret(out.CreateWebhookEndpoint.Secret)
	return out.CreateWebhookEndpoint.Endpoint.ID
}

const deliveriesQuery = `query($e: UUID!) { webhookDeliveries(endpointId: $e, first: 100) { totalCount
  nodes { id eventId status nextAttemptAt createdAt endpoint { id } attempts { at httpStatus error responseBody } } } }`

type deliveryLog struct {
	WebhookDeliveries struct {
		TotalCount int
		Nodes      []struct {
			ID, Status    string
			EventID       int
			NextAttemptAt *string
			Endpoint      struct{ ID string }
			Attempts      []struct {
				At           string
				HTTPStatus   *int
				Error        *string
				ResponseBody *string
			}
		}
	}
}

// deliveriesUntil reads the endpoint's log until done accepts it.
func deliveriesUntil(t *testing.T, c *apitest.Caller, endpointID string, done func(deliveryLog) bool) deliveryLog {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var l deliveryLog
		c.Do(t, deliveriesQuery, apitest.Vars{"e": endpointID}).OK(t, &l)
		if done(l) {
			return l
		}
		if time.Now().After(deadline) {
			t.Fatalf("the delivery log never reached the state wanted: %+v", l)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func allDelivered(n int) func(deliveryLog) bool {
	return func(l deliveryLog) bool {
		if l.WebhookDeliveries.TotalCount != n {
			return false
		}
		for _, d := range l.WebhookDeliveries.Nodes {
			if d.Status != "DELIVERED" {
				return false
			}
		}
		return true
	}
}

func TestWebhookEndpointsManaged(t *testing.T) {
	env := apitest.New(t)
	clientA, callerA := env.ClientCaller(t, "Hooks A")
	clientB, _ := env.ClientCaller(t, "Hooks B")
	r := newReceiver(t)
	var out createdEndpoint
	callerA.Do(t, createEndpoint, apitest.Vars{"in": apitest.Vars{"url": r.URL, "description": "ERP", "operations": []string{"createDebt"}}}).OK(t, &out)
	created := out.CreateWebhookEndpoint
	r.setSecret(created.Secret)
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(created.Secret, "whsec_"))
	if !strings.HasPrefix(created.Secret, "whsec_") || err != nil || len(key) < 24 {
		t.Fatalf("secret %q: want whsec_ and the base64 of at least 24 bytes", created.Secret)
	}
	if created.Endpoint.Client == nil || created.Endpoint.Client.ID != clientA || fmt.Sprint(created.Endpoint.Operations) != "[createDebt]" {
		t.Fatalf("endpoint %+v", created.Endpoint)
	}
	// The secret is never shown again: no field holds it.
	callerA.Do(t, `{ webhookEndpoints { id secret } }`, nil).Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
	var list struct{ WebhookEndpoints []struct{ ID, URL string } }
	callerA.Do(t, `{ webhookEndpoints { id url } }`, nil).OK(t, &list)
	if len(list.WebhookEndpoints) != 1 || list.WebhookEndpoints[0].ID != created.Endpoint.ID {
		t.Fatalf("A's endpoints %+v", list)
	}
	// Another client's: FORBIDDEN; another client's endpoint: NOT_FOUND.
	callerA.Do(t, `query($c: UUID) { webhookEndpoints(clientId: $c) { id } }`, apitest.Vars{"c": clientB}).Refused(t, http.StatusForbidden, "FORBIDDEN", "")
	callerA.Do(t, createEndpoint, apitest.Vars{"c": clientB, "in": apitest.Vars{"url": r.URL}}).Refused(t, http.StatusForbidden, "FORBIDDEN", "")
	idB := endpointFor(t, env.Admin(), newReceiver(t), clientB)
	callerA.Do(t, `mutation($id: UUID!) { deleteWebhookEndpoint(id: $id) { id } }`, apitest.Vars{"id": idB}).Refused(t, http.StatusNotFound, "NOT_FOUND", "")
	callerA.Do(t, deliveriesQuery, apitest.Vars{"e": idB}).Refused(t, http.StatusNotFound, "NOT_FOUND", "")
	// Input rules, every broken field at once.
	resp := callerA.Do(t, createEndpoint, apitest.Vars{"in": apitest.Vars{"url": "ftp://example.com/x", "operations": []string{"createDebt", "noSuchThing"}}})
	if resp.Status != http.StatusBadRequest || !strings.Contains(string(resp.Body), `"input.url"`) || !strings.Contains(string(resp.Body), `"input.operations.1"`) {
		t.Fatalf("bad input: %s", resp)
	}
	// Update replaces; delete answers the endpoint as it was.
	var upd struct {
		UpdateWebhookEndpoint struct {
			URL         string
			Description *string
			Operations  []string
		}
	}
	callerA.Do(t, `mutation($id: UUID!, $in: WebhookEndpointInput!) { updateWebhookEndpoint(id: $id, input: $in) { url description operations } }`,
		apitest.Vars{"id": created.Endpoint.ID, "in": apitest.Vars{"url": r.URL + "/v2"}}).OK(t, &upd)
	if upd.UpdateWebhookEndpoint.URL != r.URL+"/v2" || upd.UpdateWebhookEndpoint.Description != nil || upd.UpdateWebhookEndpoint.Operations != nil {
		t.Fatalf("updated %+v", upd)
	}
	callerA.Do(t, `mutation($id: UUID!) { deleteWebhookEndpoint(id: $id) { id } }`, apitest.Vars{"id": created.Endpoint.ID}).OK(t, nil)
	callerA.Do(t, `{ webhookEndpoints { id url } }`, nil).OK(t, &list)
	if len(list.WebhookEndpoints) != 0 {
		t.Fatalf("after deletion: %+v", list)
	}
	// ADMIN with no clientId lists every endpoint.
	env.Admin().Do(t, `{ webhookEndpoints { id url } }`, nil).OK(t, &list)
	if len(list.WebhookEndpoints) != 1 || list.WebhookEndpoints[0].ID != idB {
		t.Fatalf("ADMIN's list %+v", list)
	}
}

func TestWebhookDeliveredSignedAndLogged(t *testing.T) {
	env := apitest.New(t)
	clientID, caller := env.ClientCaller(t, "Delivered AB")
	r := newReceiver(t)
	endpointID := endpointFor(t, caller, r, nil, "createDebt", "addDebtPayment")
	debtID, itemID := paymentDebtOf(t, env, clientID, "W-1", "100.00")
	caller.Do(t, addPayment, apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID, "25.00")}).OK(t, nil)
	// An operation it does not want: no delivery.
	caller.Do(t, `mutation($c: UUID!, $in: WithdrawDebtInput!) { withdrawDebt(clientId: $c, input: $in) { id } }`,
		apitest.Vars{"c": clientID, "in": apitest.Vars{"id": debtID}}).OK(t, nil)
	got := map[string]received{}
	for range 2 {
		g := r.next(t)
		got[g.Body["operation"].(string)] = g
	}
	debt, pay := got["createDebt"], got["addDebtPayment"]
	if debt.ID == "" || pay.ID == "" || debt.ID != fmt.Sprint(debt.Body["id"]) {
		t.Fatalf("deliveries %+v", got)
	}
	if debt.Body["clientId"] != clientID || debt.Body["role"] != "ADMIN" || debt.Body["apiKeyId"] != nil {
		t.Fatalf("createDebt by an ADMIN key, as the client sees it: %s", debt.Raw)
	}
	records, _ := pay.Body["records"].([]any)
	if len(records) != 3 || !strings.Contains(string(pay.Raw), `"paidAmount":"25.00"`) || !strings.Contains(string(pay.Raw), `"paymentStatus":"PARTIALLY_PAID"`) {
		t.Fatalf("payment's body: %s", pay.Raw)
	}
	l := deliveriesUntil(t, caller, endpointID, allDelivered(2))
	for _, d := range l.WebhookDeliveries.Nodes {
		if len(d.Attempts) != 1 || d.Attempts[0].HTTPStatus == nil || *d.Attempts[0].HTTPStatus != 204 || d.Attempts[0].Error != nil || d.NextAttemptAt != nil {
			t.Fatalf("delivery %+v", d)
		}
	}
	select {
	case g := <-r.got:
		t.Fatalf("a delivery of an operation the endpoint does not want: %s", g.Raw)
	default:
	}
}

func TestWebhookRetriedAndLogged(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Retry AB")
	r := newReceiver(t)
	long := strings.Repeat("é", 1000) // 2000 bytes
	r.answer = func(n int) (int, string) {
		if n == 1 {
			return 503, long
		}
		return 200, "ok"
	}
	endpointID := endpointFor(t, env.Admin(), r, clientID, "createDebt")
	paymentDebtOf(t, env, clientID, "R-1", "10.00")
	first := r.next(t)
	l := deliveriesUntil(t, env.Admin(), endpointID, func(l deliveryLog) bool {
		return len(l.WebhookDeliveries.Nodes) == 1 && len(l.WebhookDeliveries.Nodes[0].Attempts) == 1
	})
	d := l.WebhookDeliveries.Nodes[0]
	a := d.Attempts[0]
	if d.Status != "PENDING" || d.NextAttemptAt == nil || a.HTTPStatus == nil || *a.HTTPStatus != 503 || a.Error == nil || a.ResponseBody == nil {
		t.Fatalf("after a 503: %+v", d)
	}
	if n := len(*a.ResponseBody); n > 1024 || n < 1000 {
		t.Fatalf("stored %d bytes of the answer; want at most 1 KiB", n)
	}
	next, _ := time.Parse(time.RFC3339Nano, *d.NextAttemptAt)
	at, _ := time.Parse(time.RFC3339Nano, a.At)
	if wait := next.Sub(at); wait <= 0 || wait > time.Minute {
		t.Fatalf("first retry %s after the attempt; want within a minute", wait)
	}
	// Retried by hand now: the same webhook-id, delivered.
	env.Admin().Do(t, `mutation($id: UUID!) { retryWebhookDelivery(id: $id) { id status } }`, apitest.Vars{"id": d.ID}).OK(t, nil)
	if again := r.next(t); again.ID != first.ID {
		t.Fatalf("retry carries webhook-id %s; the first %s", again.ID, first.ID)
	}
	l = deliveriesUntil(t, env.Admin(), endpointID, allDelivered(1))
	if n := len(l.WebhookDeliveries.Nodes[0].Attempts); n != 2 {
		t.Fatalf("%d attempts, want 2", n)
	}
}

func TestWebhookTenancy(t *testing.T) {
	env := apitest.New(t)
	clientA, callerA := env.ClientCaller(t, "Tenant Hooks A")
	clientB, callerB := env.ClientCaller(t, "Tenant Hooks B")
	ra, radmin := newReceiver(t), newReceiver(t)
	endpointFor(t, callerA, ra, nil, "createDebt")
	adminEndpoint := endpointFor(t, env.Admin(), radmin, nil, "createDebt")
	callerB.Do(t, createPaymentDebt, createPaymentDebtVars(clientB, "B-1", "50.00")).OK(t, nil)
	callerA.Do(t, createPaymentDebt, createPaymentDebtVars(clientA, "A-1", "50.00")).OK(t, nil)
	if g := ra.next(t); g.Body["clientId"] != clientA {
		t.Fatalf("A's endpoint received %s", g.Raw)
	}
	clients := map[any]bool{}
	for range 2 {
		clients[radmin.next(t).Body["clientId"]] = true
	}
	if !clients[clientA] || !clients[clientB] {
		t.Fatalf("the ADMIN's endpoint of every client received %v", clients)
	}
	// The ADMIN endpoint's log is not a client's.
	callerA.Do(t, deliveriesQuery, apitest.Vars{"e": adminEndpoint}).Refused(t, http.StatusNotFound, "NOT_FOUND", "")
	deliveriesUntil(t, env.Admin(), adminEndpoint, allDelivered(2))
	select {
	case g := <-ra.got:
		t.Fatalf("A's endpoint received more: %s", g.Raw)
	default:
	}
}

// Two replicas send from one queue: every delivery once, none twice.
func TestWebhookDeliveriesSentOnceAcrossReplicas(t *testing.T) {
	env := apitest.New(t)
	env.Replica(t, nil)
	env.Replica(t, nil)
	clientID, _ := env.NewClient(t, "Replicated Hooks AB")
	r := newReceiver(t)
	endpointID := endpointFor(t, env.Admin(), r, clientID, "createDebt")
	const n = 12
	for i := range n {
		paymentDebtOf(t, env, clientID, fmt.Sprintf("P-%d", i), "10.00")
	}
	l := deliveriesUntil(t, env.Admin(), endpointID, allDelivered(n))
	for _, d := range l.WebhookDeliveries.Nodes {
		if len(d.Attempts) != 1 {
			t.Fatalf("delivery of event %d attempted %d times", d.EventID, len(d.Attempts))
		}
	}
	seen := map[string]bool{}
	for range n {
		g := r.next(t)
		if seen[g.ID] {
			t.Fatalf("event %s delivered twice", g.ID)
		}
		seen[g.ID] = true
	}
}

func TestWebhookURLSafety(t *testing.T) {
	env := apitest.NewWith(t, func(o *server.Options) { o.WebhookPolicy = webhook.Policy{} })
	for _, url := range []string{
		"http://example.com/hook",      // not https
		"https://127.0.0.1/hook",       // loopback
		"https://localhost:8443/hook",  // resolves to loopback
		"https://10.1.2.3/hook",        // private
		"https://169.254.169.254/x",    // link-local (cloud metadata)
		"https://[::1]/hook",           // loopback
		"https://[fd00::1]/hook",       // unique local
		"https://user:pw@example.com/", // credentials
	} {
		env.Admin().Do(t, createEndpoint, apitest.Vars{"in": apitest.Vars{"url": url}}).Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.url")
	}
}

// A delivery still failing 24 hours after it was queued is FAILED, with no
// next attempt; retried by hand, it gets one more attempt.
func TestWebhookFailsAfterADay(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Failing AB")
	r := newReceiver(t)
	var up atomic.Bool
	r.answer = func(int) (int, string) {
		if up.Load() {
			return 200, ""
		}
		return 500, "down"
	}
	endpointID := endpointFor(t, env.Admin(), r, clientID, "createDebt")
	paymentDebtOf(t, env, clientID, "D-1", "10.00")
	r.next(t)
	l := deliveriesUntil(t, env.Admin(), endpointID, func(l deliveryLog) bool {
		return len(l.WebhookDeliveries.Nodes) == 1 && len(l.WebhookDeliveries.Nodes[0].Attempts) == 1
	})
	id := l.WebhookDeliveries.Nodes[0].ID
	// The day passes: queued 25 hours ago, due now.
	update := "UPDATE webhook_deliveries SET created_at = ?, next_attempt_at = ? WHERE id = ?"
	if env.Postgres {
		update = "UPDATE webhook_deliveries SET created_at = $1, next_attempt_at = $2 WHERE id = $3"
	}
	if _, err := env.DB.SQL.ExecContext(context.Background(), update,
		time.Now().Add(-25*time.Hour).UTC(), time.Now().Add(-time.Second).UTC(), id); err != nil {
		t.Fatal(err)
	}
	r.next(t)
	l = deliveriesUntil(t, env.Admin(), endpointID, func(l deliveryLog) bool {
		return l.WebhookDeliveries.Nodes[0].Status == "FAILED"
	})
	if d := l.WebhookDeliveries.Nodes[0]; len(d.Attempts) != 2 || d.NextAttemptAt != nil {
		t.Fatalf("failed delivery %+v", d)
	}
	up.Store(true)
	env.Admin().Do(t, `mutation($id: UUID!) { retryWebhookDelivery(id: $id) { status } }`, apitest.Vars{"id": id}).OK(t, nil)
	r.next(t)
	deliveriesUntil(t, env.Admin(), endpointID, allDelivered(1))
}

// A keyed createWebhookEndpoint stores no secret: a retry with the key is
// told that the endpoint exists (CONFLICT), and no stored answer holds the
// secret.
func TestWebhookSecretNotStoredForRetries(t *testing.T) {
	env := apitest.New(t)
	_, caller := env.ClientCaller(t, "Hooks AB")
	r := newReceiver(t)
	var out createdEndpoint
	vars := apitest.Vars{"in": apitest.Vars{"url": r.URL}}
	caller.Do(t, createEndpoint, vars, "Idempotency-Key", "hook-1").OK(t, &out)
	secret := out.CreateWebhookEndpoint.Secret
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret %q", secret)
	}
	// The endpoint may be sent events of its client meanwhile (its own
	// creation's): the receiver verifies them with its secret.
	r.setSecret(secret)
	retry := caller.Do(t, createEndpoint, vars, "Idempotency-Key", "hook-1")
	retry.Refused(t, http.StatusConflict, "CONFLICT", "")
	if body := string(retry.Body); strings.Contains(body, secret) || !strings.Contains(body, "webhookEndpoints") {
		t.Errorf("the retry answered %s", body)
	}
	var n int
	if err := env.DB.SQL.QueryRow("SELECT count(*) FROM idempotency_records WHERE body LIKE '%whsec_%'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d stored answers hold a webhook secret", n)
	}
	var list struct{ WebhookEndpoints []struct{ ID string } }
	caller.Do(t, `{ webhookEndpoints { id } }`, nil).OK(t, &list)
	if len(list.WebhookEndpoints) != 1 {
		t.Errorf("%d endpoints after a retry, want 1", len(list.WebhookEndpoints))
	}
}

// TestWebhookQueuesEveryEventOfAStatement: a createDebts of three entries
// appends its three events in one statement (on PostgreSQL the queue's
// trigger runs once for the statement); every event is queued for each
// endpoint that wants it, once, and for none that does not.
func TestWebhookQueuesEveryEventOfAStatement(t *testing.T) {
	env := apitest.New(t)
	clientID, caller := env.ClientCaller(t, "Hooks Batch")
	wants, other := newReceiver(t), newReceiver(t)
	wantsID := endpointFor(t, caller, wants, nil, "createDebts")
	otherID := endpointFor(t, caller, other, nil, "createDebt")
	var out struct{ CreateDebts []struct{ ID int } }
	createDebts(t, caller, clientID, handoverBatch(1, 3, "WH")).OK(t, &out)
	l := deliveriesUntil(t, env.Admin(), wantsID, allDelivered(3))
	events := map[int]bool{}
	for _, d := range l.WebhookDeliveries.Nodes {
		events[d.EventID] = true
	}
	if len(events) != 3 {
		t.Fatalf("deliveries of %d distinct events, want 3: %+v", len(events), l)
	}
	got := map[any]bool{}
	for range 3 {
		g := wants.next(t)
		if g.Body["operation"] != "createDebts" || g.Body["clientId"] != clientID {
			t.Errorf("delivery: %s", g.Raw)
		}
		got[g.Body["id"]] = true
	}
	if len(got) != 3 {
		t.Errorf("deliveries of %d distinct events, want 3", len(got))
	}
	var none deliveryLog
	caller.Do(t, deliveriesQuery, apitest.Vars{"e": otherID}).OK(t, &none)
	if none.WebhookDeliveries.TotalCount != 0 {
		t.Errorf("the createDebt endpoint got %d deliveries of createDebts events", none.WebhookDeliveries.TotalCount)
	}
}
