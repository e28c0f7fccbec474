package webhook_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/webhook"
)

// The Standard Webhooks specification's example: secret, message id,
// timestamp and payload, and the signature it gives.
func TestSignMatchesTheSpecification(t *testing.T) {
	const (
		secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
		id     = "msg_p5jXN8AQM9LWM0D4loKWxJek"
		ts     = 1614265330
		body   = `{"test": 2432232314}`
		want   = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
	)
	got, err := webhook.Sign(secret, id, ts, []byte(body))
	if err != nil || got != want {
		t.Fatalf("Sign = %q, %v; want %q", got, err, want)
	}
	h := http.Header{}
	if err := webhook.Headers(h, secret, id, time.Unix(ts, 0), []byte(body)); err != nil {
		t.Fatal(err)
	}
	if err := webhook.Verify(secret, h, []byte(body), time.Unix(ts, 0).Add(4*time.Minute)); err != nil {
		t.Fatalf("within 5 minutes: %v", err)
	}
	if err := webhook.Verify(secret, h, []byte(body), time.Unix(ts, 0).Add(6*time.Minute)); !errors.Is(err, webhook.ErrSignature) {
		t.Fatalf("6 minutes late: %v", err)
	}
	if err := webhook.Verify(secret, h, []byte(body+" "), time.Unix(ts, 0)); !errors.Is(err, webhook.ErrSignature) {
		t.Fatalf("changed body: %v", err)
	}
}

func TestSecretsAreLongAndDistinct(t *testing.T) {
	a, _ := webhook.NewSecret()
	b, _ := webhook.NewSecret()
	if a == b || len(a) != len("whsec_")+44 {
		t.Fatalf("secrets %q %q", a, b)
	}
}

func TestRetrySchedule(t *testing.T) {
	queued := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	now := queued
	var waits []time.Duration
	for n := 1; ; n++ {
		next, ok := webhook.NextAttempt(queued, n, now)
		if !ok {
			break
		}
		waits = append(waits, next.Sub(now))
		now = next
		if n > 100 {
			t.Fatal("retried for ever")
		}
	}
	if waits[0] > time.Minute {
		t.Errorf("first retry after %s; want within a minute", waits[0])
	}
	for i, w := range waits {
		if w > time.Hour || (i > 0 && i < len(waits)-1 && w < waits[i-1]) {
			t.Errorf("wait %d is %s after %s: want growing, at most an hour", i, w, waits[i-1])
		}
	}
	if last := now.Sub(queued); last != webhook.RetryFor {
		t.Errorf("last attempt %s after queueing; want %s", last, webhook.RetryFor)
	}
}

func TestPublicAddresses(t *testing.T) {
	for addr, public := range map[string]bool{
		"8.8.8.8": true, "2001:4860:4860::8888": true,
		"127.0.0.1": false, "10.0.0.1": false, "172.16.0.1": false, "192.168.1.1": false,
		"169.254.169.254": false, "100.64.0.1": false, "0.0.0.0": false, "::1": false,
		"fe80::1": false, "fd00::1": false, "::ffff:127.0.0.1": false, "224.0.0.1": false,
	} {
		if got := webhook.Public(netip.MustParseAddr(addr)); got != public {
			t.Errorf("Public(%s) = %v", addr, got)
		}
	}
}

// At delivery, the address dialled is checked again: a name that resolved
// to a public address when the endpoint was made and to a private one now
// is refused (here, a receiver on loopback).
func TestDeliveryRefusesLoopbackWhenDialling(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(200) }))
	defer srv.Close()
	_, err := webhook.Policy{}.Client().Get(srv.URL)
	if err == nil {
		t.Fatal("the delivery client connected to loopback")
	}
	d := &webhook.Dispatcher{Policy: webhook.Policy{}}
	a := d.Send(context.Background(), webhook.Delivery{URL: srv.URL, Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", EventID: 1, Body: []byte("{}")})
	if a.Delivered() || a.Error == "" {
		t.Fatalf("attempt %+v", a)
	}
}
