package server_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/debtql/debtql/internal/apitest"
)

func apqBody(query, hash string) []byte {
	body := map[string]any{"extensions": map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hash}}}
	if query != "" {
		body["query"] = query
	}
	b, _ := json.Marshal(body)
	return b
}

// TestAutomaticPersistedQueries follows Apollo's protocol: a hash alone is
// PERSISTED_QUERY_NOT_FOUND until the document has been sent with it once.
func TestAutomaticPersistedQueries(t *testing.T) {
	env := apitest.New(t)
	q := `{ viewer { role } }`
	sum := sha256.Sum256([]byte(q))
	hash := hex.EncodeToString(sum[:])
	h := http.Header{"Content-Type": {"application/json"}}

	r := env.Admin().Send(t, apitest.Request{Header: h, Body: apqBody("", hash)})
	r.Refused(t, http.StatusBadRequest, "PERSISTED_QUERY_NOT_FOUND", "")
	env.Admin().Send(t, apitest.Request{Header: h, Body: apqBody(q, hash)}).OK(t, nil)
	r = env.Admin().Send(t, apitest.Request{Header: h, Body: apqBody("", hash)})
	r.OK(t, nil)
	if string(r.Data) != `{"viewer":{"role":"ADMIN"}}` {
		t.Errorf("persisted query answered %s", r.Data)
	}
	// A document whose hash does not match is refused.
	env.Admin().Send(t, apitest.Request{Header: h, Body: apqBody(`{ viewer { apiKey { id } } }`, hash)}).
		Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
}

// A persisted query belongs to the API key that registered it: another key
// (even of the same role) sending the hash alone is told it is unknown.
func TestPersistedQueriesArePerAPIKey(t *testing.T) {
	env := apitest.New(t)
	q := `{ viewer { role apiKey { name } } }`
	sum := sha256.Sum256([]byte(q))
	hash := hex.EncodeToString(sum[:])
	h := http.Header{"Content-Type": {"application/json"}}
	env.Admin().Send(t, apitest.Request{Header: h, Body: apqBody(q, hash)}).OK(t, nil)
	env.Admin().Send(t, apitest.Request{Header: h, Body: apqBody("", hash)}).OK(t, nil)

	_, other := env.NewKey(t, "ADMIN", "")
	env.As(other).Send(t, apitest.Request{Header: h, Body: apqBody("", hash)}).
		Refused(t, http.StatusBadRequest, "PERSISTED_QUERY_NOT_FOUND", "")
	_, client := env.ClientCaller(t, "Apq AB")
	client.Send(t, apitest.Request{Header: h, Body: apqBody("", hash)}).
		Refused(t, http.StatusBadRequest, "PERSISTED_QUERY_NOT_FOUND", "")
	// Once registered by the other key too, each key has its own entry.
	env.As(other).Send(t, apitest.Request{Header: h, Body: apqBody(q, hash)}).OK(t, nil)
	env.As(other).Send(t, apitest.Request{Header: h, Body: apqBody("", hash)}).OK(t, nil)
}
