package server_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/server"
)

// lockedBuffer is a log sink that concurrent requests may write to.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestLogsHoldNoSecrets: the log of requests with keys (accepted, refused,
// unknown, and the one that creates a key and answers its secret) holds
// neither the secrets, nor their hashes, nor the Authorization header.
func TestLogsHoldNoSecrets(t *testing.T) {
	var logs lockedBuffer
	env := apitest.NewWith(t, func(o *server.Options) {
		o.Logger = slog.New(server.NewLogHandler(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	})
	clientID, _ := env.NewClient(t, "Secrets AB")
	_, secret := env.NewKey(t, "CLIENT", clientID)
	client := env.As(secret)
	client.Do(t, `{ viewer { role } }`, nil, "X-Request-Id", "req-secret-ok").OK(t, nil)
	client.Do(t, `{ apiKeys { totalCount } }`, nil).Refused(t, http.StatusForbidden, "FORBIDDEN", "")
	client.Do(t, `{ nope }`, nil).Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
	wrong := "dq_" + strings.Repeat("x", 43)
	env.As(wrong).Do(t, `{ viewer { role } }`, nil).Refused(t, http.StatusUnauthorized, "UNAUTHENTICATED", "")
	env.As("not-a-bearer-token").Send(t, apitest.Request{Header: http.Header{"Content-Type": {"application/json"}, "Authorization": {"Basic " + secret}},
		Body: []byte(`{"query":"{ viewer { role } }"}`)})
	env.Admin().Do(t, `mutation { revokeApiKey(id: "00000000-0000-0000-0000-000000000000") { id } }`, nil).
		Refused(t, http.StatusNotFound, "NOT_FOUND", "")

	out := logs.String()
	if !strings.Contains(out, "req-secret-ok") || strings.Count(out, "msg=request") < 8 {
		t.Fatalf("the requests were not logged (the test would prove nothing):\n%s", out)
	}
	for what, s := range map[string]string{
		"the ADMIN secret":         apitest.AdminKey,
		"the CLIENT secret":        secret,
		"an unknown secret":        wrong,
		"the ADMIN secret's hash":  auth.HashSecret(apitest.AdminKey),
		"the CLIENT secret's hash": auth.HashSecret(secret),
		"the Authorization header": "Authorization",
		"a bearer token":           "Bearer",
		"the not-a-bearer-token":   "not-a-bearer-token",
	} {
		if strings.Contains(out, s) {
			t.Errorf("the log holds %s:\n%s", what, out)
		}
	}
}

// TestKeyedCreateApiKeyStoresNoSecret: the idempotency record of a keyed
// createApiKey does not hold the secret; a retry gets CONFLICT and no
// second key.
func TestKeyedCreateApiKeyStoresNoSecret(t *testing.T) {
	env := apitest.New(t)
	create := `mutation { createApiKey(input: {name: "ops", role: ADMIN}) { secret apiKey { id } } }`
	var out struct{ CreateApiKey struct{ Secret string } }
	env.Admin().Do(t, create, nil, "Idempotency-Key", "key-1").OK(t, &out)
	if out.CreateApiKey.Secret == "" {
		t.Fatal("no secret in the first answer")
	}
	rows, err := env.DB.SQL.Query("SELECT body FROM idempotency_records")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	records := 0
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			t.Fatal(err)
		}
		records++
		if strings.Contains(body, out.CreateApiKey.Secret) {
			t.Errorf("an idempotency record holds the secret: %s", body)
		}
	}
	if records != 1 {
		t.Errorf("%d idempotency records, want 1", records)
	}
	retry := env.Admin().Do(t, create, nil, "Idempotency-Key", "key-1")
	retry.Refused(t, http.StatusConflict, "CONFLICT", "")
	if strings.Contains(string(retry.Body), out.CreateApiKey.Secret) {
		t.Errorf("the retry shows the secret: %s", retry.Body)
	}
	var keys struct{ TotalCount int }
	env.Admin().Do(t, `{ apiKeys { totalCount } }`, nil).Field(t, "apiKeys", &keys)
	if keys.TotalCount != 2 {
		t.Errorf("%d keys, want 2 (bootstrap and ops: the retry created none)", keys.TotalCount)
	}
}
