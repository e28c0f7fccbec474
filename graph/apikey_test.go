package graph_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/auth"
)

type keyOut struct {
	ID         string
	Name       string
	Role       string
	Client     *struct{ ID string }
	CreatedAt  string
	LastUsedAt *string
	RevokedAt  *string
}

const keyFields = `id name role client { id } createdAt lastUsedAt revokedAt`

func TestViewer(t *testing.T) {
	env := apitest.New(t)
	const q = `{ viewer { role client { id name } apiKey { id name role } } }`
	var admin struct {
		Role   string
		Client *struct{ ID string }
		APIKey struct{ Name, Role string } `json:"apiKey"`
	}
	env.Admin().Do(t, q, nil).Field(t, "viewer", &admin)
	if admin.Role != "ADMIN" || admin.Client != nil || admin.APIKey.Role != "ADMIN" {
		t.Errorf("ADMIN viewer is %+v", admin)
	}

	clientID, c := env.ClientCaller(t, "Viewer AB")
	var client struct {
		Role   string
		Client *struct{ ID, Name string }
	}
	c.Do(t, q, nil).Field(t, "viewer", &client)
	if client.Role != "CLIENT" || client.Client == nil || client.Client.ID != clientID || client.Client.Name != "Viewer AB" {
		t.Errorf("CLIENT viewer is %+v", client)
	}
}

func TestCreateAPIKey(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Keyed AB")
	const create = `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret apiKey { ` + keyFields + ` } } }`
	var out struct {
		Secret string
		APIKey keyOut `json:"apiKey"`
	}
	env.Admin().Do(t, create, apitest.Vars{"input": apitest.Vars{"name": " Frontend ", "role": "CLIENT", "clientId": strings.ToUpper(clientID)}}).
		Field(t, "createApiKey", &out)
	if len(out.Secret) < 43 || !strings.HasPrefix(out.Secret, "dq_") {
		t.Errorf("secret %q is not a DebtQL secret of 32 random bytes", out.Secret)
	}
	if out.APIKey.Name != "Frontend" || out.APIKey.Role != "CLIENT" || out.APIKey.Client == nil || out.APIKey.Client.ID != clientID ||
		out.APIKey.LastUsedAt != nil || out.APIKey.RevokedAt != nil || !dateTimeRE.MatchString(out.APIKey.CreatedAt) {
		t.Errorf("created key is %+v", out.APIKey)
	}

	// The secret works, and using it is recorded.
	var viewer struct{ Role string }
	env.As(out.Secret).Do(t, `{ viewer { role } }`, nil).Field(t, "viewer", &viewer)
	if viewer.Role != "CLIENT" {
		t.Errorf("the new key's viewer is %+v", viewer)
	}
	var keys struct{ Nodes []keyOut }
	env.Admin().Do(t, `{ apiKeys { nodes { `+keyFields+` } } }`, nil).Field(t, "apiKeys", &keys)
	found := false
	for _, k := range keys.Nodes {
		if k.ID == out.APIKey.ID {
			found = true
			if k.LastUsedAt == nil {
				t.Errorf("lastUsedAt not set after use: %+v", k)
			}
		}
	}
	if !found {
		t.Errorf("apiKeys does not list the new key: %+v", keys)
	}
	if strings.Contains(string(env.Admin().Do(t, `{ apiKeys { nodes { id } } }`, nil).Body), out.Secret) {
		t.Error("the secret is readable again")
	}

	for _, tc := range []struct {
		name   string
		input  apitest.Vars
		status int
		code   string
		field  string
	}{
		{"CLIENT without client", apitest.Vars{"name": "x", "role": "CLIENT"}, 400, "BAD_USER_INPUT", "input.clientId"},
		{"ADMIN with client", apitest.Vars{"name": "x", "role": "ADMIN", "clientId": clientID}, 400, "BAD_USER_INPUT", "input.clientId"},
		{"blank name", apitest.Vars{"name": "  ", "role": "ADMIN"}, 400, "BAD_USER_INPUT", "input.name"},
		{"unknown role", apitest.Vars{"name": "x", "role": "OWNER"}, 400, "BAD_USER_INPUT", ""},
		{"unknown client", apitest.Vars{"name": "x", "role": "CLIENT", "clientId": "6f1c0a47-1f7e-4bd4-9a53-000000000000"}, 404, "NOT_FOUND", ""},
		{"malformed client", apitest.Vars{"name": "x", "role": "CLIENT", "clientId": "123"}, 400, "BAD_USER_INPUT", "input.clientId"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env.Admin().Do(t, create, apitest.Vars{"input": tc.input}).Refused(t, tc.status, tc.code, tc.field)
		})
	}

	t.Run("a CLIENT key cannot manage keys", func(t *testing.T) {
		c := env.As(out.Secret)
		c.Do(t, create, apitest.Vars{"input": apitest.Vars{"name": "x", "role": "ADMIN"}}).Refused(t, http.StatusForbidden, "FORBIDDEN", "")
		c.Do(t, `{ apiKeys { totalCount } }`, nil).Refused(t, http.StatusForbidden, "FORBIDDEN", "")
		c.Do(t, `mutation($id: UUID!) { revokeApiKey(id: $id) { id } }`, apitest.Vars{"id": out.APIKey.ID}).Refused(t, http.StatusForbidden, "FORBIDDEN", "")
	})
}

func TestRevokeAPIKey(t *testing.T) {
	env := apitest.New(t)
	id, secret := env.NewKey(t, "ADMIN", "")
	const revoke = `mutation($id: UUID!) { revokeApiKey(id: $id) { ` + keyFields + ` } }`
	env.As(secret).Do(t, `{ viewer { role } }`, nil).OK(t, nil)

	var k keyOut
	env.Admin().Do(t, revoke, apitest.Vars{"id": id}).Field(t, "revokeApiKey", &k)
	if k.ID != id || k.RevokedAt == nil || !dateTimeRE.MatchString(*k.RevokedAt) {
		t.Errorf("revoked key is %+v", k)
	}
	env.As(secret).Do(t, `{ viewer { role } }`, nil).Refused(t, http.StatusUnauthorized, "UNAUTHENTICATED", "")
	env.Admin().Do(t, revoke, apitest.Vars{"id": id}).Refused(t, http.StatusConflict, "CONFLICT", "")
	env.Admin().Do(t, revoke, apitest.Vars{"id": "6f1c0a47-1f7e-4bd4-9a53-000000000000"}).Refused(t, http.StatusNotFound, "NOT_FOUND", "")

	// Revoked keys stay listed.
	var keys struct {
		TotalCount int
		Nodes      []keyOut
	}
	env.Admin().Do(t, `{ apiKeys { totalCount nodes { `+keyFields+` } } }`, nil).Field(t, "apiKeys", &keys)
	if keys.TotalCount != 2 || len(keys.Nodes) != 2 || keys.Nodes[0].ID != id || keys.Nodes[0].RevokedAt == nil {
		t.Errorf("apiKeys is %+v, want the revoked key first (newest) and the bootstrap key", keys)
	}
}

// TestAPIKeyCache (PostgreSQL): a key in use is answered from the server's
// cache, without a statement, and a key revoked by another process (the
// CLI, another replica, an operator's SQL: here a connection of the test's
// own) is refused as soon as its notification arrives; also when the
// cache's listening connection was lost at the moment of the revocation.
func TestAPIKeyCache(t *testing.T) {
	env := apitest.New(t)
	if !env.Postgres {
		t.Skip("the key cache listens for PostgreSQL's notifications")
	}
	ctx := context.Background()
	const viewer = `{ viewer { role } }`
	readsKeys := func() bool {
		for _, q := range env.Statements.Log() {
			if strings.Contains(q, `FROM "api_keys"`) {
				return true
			}
		}
		return false
	}
	// refusedSoon waits up to 5 s for the key to be refused.
	refusedSoon := func(t *testing.T, secret string) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			r := env.As(secret).Do(t, viewer, nil)
			if r.Status == http.StatusUnauthorized {
				r.Refused(t, http.StatusUnauthorized, "UNAUTHENTICATED", "")
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("a key revoked elsewhere is still accepted after 5 s: %s", r)
			}
		}
	}
	revokeElsewhere := func(t *testing.T, id string) {
		t.Helper()
		if _, err := env.DB.SQL.ExecContext(ctx, "UPDATE api_keys SET revoked_at = now() WHERE id = $1", id); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("cached, then revoked elsewhere", func(t *testing.T) {
		id, secret := env.NewKey(t, "ADMIN", "")
		env.As(secret).Do(t, viewer, nil).OK(t, nil)
		env.Statements.Reset()
		env.As(secret).Do(t, viewer, nil).OK(t, nil)
		if readsKeys() {
			t.Error("a key in use was read from the database again")
		}
		revokeElsewhere(t, id)
		refusedSoon(t, secret)
	})
	t.Run("revoked while the listener is cut off", func(t *testing.T) {
		id, secret := env.NewKey(t, "ADMIN", "")
		env.As(secret).Do(t, viewer, nil).OK(t, nil)
		res, err := env.DB.SQL.ExecContext(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		  WHERE datname = current_database() AND application_name = $1`, auth.ListenerName)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := res.RowsAffected(); n < 1 {
			t.Fatal("no listening connection to cut")
		}
		revokeElsewhere(t, id)
		refusedSoon(t, secret)
		// And it listens again: a key in use is cached again.
		for deadline := time.Now().Add(5 * time.Second); !env.Server.KeyCacheLive(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the key cache did not listen again within 5 s")
			}
		}
		_, other := env.NewKey(t, "ADMIN", "")
		env.As(other).Do(t, viewer, nil).OK(t, nil)
		env.Statements.Reset()
		env.As(other).Do(t, viewer, nil).OK(t, nil)
		if readsKeys() {
			t.Error("after reconnecting, a key in use was read from the database again")
		}
	})
}
