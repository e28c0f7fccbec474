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
