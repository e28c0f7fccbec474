package server_test

import (
	"context"
	"time"

	"bytes"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/debtql/debtql/ent/apikey"
	"github.com/debtql/debtql/internal/auth"

	"github.com/debtql/debtql/internal/apitest"
)

func clientCount(t *testing.T, env *apitest.Env) int {
	t.Helper()
	var out struct{ Clients struct{ TotalCount int } }
	env.Admin().Do(t, `{ clients { totalCount } }`, nil).OK(t, &out)
	return out.Clients.TotalCount
}

func TestIdempotencyKeyReplaysTheFirstResponse(t *testing.T) {
	env := apitest.New(t)
	vars := apitest.Vars{"input": apitest.ClientInput("Once AB")}
	first := env.Admin().Do(t, apitest.CreateClientMutation, vars, "Idempotency-Key", "create-once-1")
	first.OK(t, nil)
	second := env.Admin().Do(t, apitest.CreateClientMutation, vars, "Idempotency-Key", "create-once-1")
	if second.Status != first.Status || !bytes.Equal(second.Body, first.Body) {
		t.Fatalf("the retry answered\n%s\nnot the first response\n%s", second, first)
	}
	if n := clientCount(t, env); n != 1 {
		t.Fatalf("the retry did the work again: %d clients", n)
	}

	t.Run("another request with the key is CONFLICT", func(t *testing.T) {
		other := apitest.Vars{"input": apitest.ClientInput("Other AB")}
		env.Admin().Do(t, apitest.CreateClientMutation, other, "Idempotency-Key", "create-once-1").
			Refused(t, http.StatusConflict, "CONFLICT", "")
		if n := clientCount(t, env); n != 1 {
			t.Fatalf("%d clients", n)
		}
	})
	t.Run("another API key has its own keys", func(t *testing.T) {
		_, secret := env.NewKey(t, "ADMIN", "")
		env.As(secret).Do(t, apitest.CreateClientMutation, vars, "Idempotency-Key", "create-once-1").OK(t, nil)
		if n := clientCount(t, env); n != 2 {
			t.Fatalf("%d clients, want 2", n)
		}
	})
	t.Run("refusals are replayed too, without running again", func(t *testing.T) {
		bad := apitest.Vars{"input": apitest.ClientInput("", apitest.Vars{"countryCode": "XX"})}
		r1 := env.Admin().Do(t, apitest.CreateClientMutation, bad, "Idempotency-Key", "bad-1")
		r1.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.name")
		r2 := env.Admin().Do(t, apitest.CreateClientMutation, bad, "Idempotency-Key", "bad-1")
		if r2.Status != r1.Status || !bytes.Equal(r2.Body, r1.Body) {
			t.Fatalf("replayed refusal differs:\n%s\n%s", r1, r2)
		}
	})
	t.Run("a keyed failure does not half-write", func(t *testing.T) {
		before := clientCount(t, env)
		r := env.Admin().Do(t, `mutation($a: ClientInput!, $b: ClientInput!) { a: createClient(input: $a) { id } b: createClient(input: $b) { id } }`,
			apitest.Vars{"a": apitest.ClientInput("Half A"), "b": apitest.ClientInput("Half B", apitest.Vars{"email": "x"})}, "Idempotency-Key", "half-1")
		r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.email")
		if n := clientCount(t, env); n != before {
			t.Fatalf("a refused keyed mutation wrote: %d clients, want %d", n, before)
		}
	})
}

func TestIdempotencyKeyFormat(t *testing.T) {
	env := apitest.New(t)
	vars := apitest.Vars{"input": apitest.ClientInput("Key AB")}
	for name, key := range map[string]string{"empty": "", "too long": strings.Repeat("k", 256),
		"a tab": "key\tone", "not UTF-8": "key\xff", "a noncharacter": "key\uffff"} {
		t.Run(name, func(t *testing.T) {
			h := http.Header{"Content-Type": {"application/json"}, "Idempotency-Key": {key}}
			body := []byte(`{"query":` + quote(apitest.CreateClientMutation) + `,"variables":{"input":{}}}`)
			env.Admin().Send(t, apitest.Request{Header: h, Body: body}).Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
		})
	}
	env.Admin().Do(t, apitest.CreateClientMutation, vars, "Idempotency-Key", strings.Repeat("k", 255)).OK(t, nil)
	// Characters, not bytes: 255 of two bytes each.
	other := apitest.Vars{"input": apitest.ClientInput("Nyckel AB")}
	env.Admin().Do(t, apitest.CreateClientMutation, other, "Idempotency-Key", strings.Repeat("ö", 255)).OK(t, nil)
	if n := clientCount(t, env); n != 2 {
		t.Fatalf("%d clients", n)
	}
}

func TestIdempotencyUnderConcurrentRetries(t *testing.T) {
	env := apitest.New(t)
	vars := apitest.Vars{"input": apitest.ClientInput("Race AB")}
	const n = 10
	var wg sync.WaitGroup
	statuses := make([]int, n)
	bodies := make([][]byte, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := env.Admin().Do(t, apitest.CreateClientMutation, vars, "Idempotency-Key", "race-1")
			statuses[i], bodies[i] = r.Status, r.Body
		}()
	}
	wg.Wait()
	var ok []byte
	for i := range n {
		switch statuses[i] {
		case http.StatusOK:
			if ok != nil && !bytes.Equal(ok, bodies[i]) {
				t.Errorf("two different successes:\n%s\n%s", ok, bodies[i])
			}
			ok = bodies[i]
		case http.StatusConflict: // still running: the caller retries later
		default:
			t.Errorf("unexpected answer %d %s", statuses[i], bodies[i])
		}
	}
	if ok == nil {
		t.Fatal("no request succeeded")
	}
	if c := clientCount(t, env); c != 1 {
		t.Fatalf("concurrent retries created %d clients", c)
	}
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func TestIdempotencyRecordsExpireAfter24Hours(t *testing.T) {
	env := apitest.New(t)
	ctx := auth.System(context.Background())
	key, err := env.DB.Ent.APIKey.Query().Where(apikey.RoleEQ(apikey.RoleADMIN)).Only(ctx)
	if err != nil {
		t.Fatal(err)
	}
	old := env.DB.Ent.IdempotencyRecord.Create().
		SetAPIKeyID(key.ID).SetKey("old-key").SetRequestHash("some other request").
		SetStatus(200).SetContentType("application/json").SetBody([]byte(`{"data":{}}`)).
		SetCreatedAt(time.Now().Add(-25 * time.Hour))
	if _, err := old.Save(ctx); err != nil {
		t.Fatal(err)
	}
	// An expired key is free again: the request runs, it is not a conflict.
	env.Admin().Do(t, apitest.CreateClientMutation, apitest.Vars{"input": apitest.ClientInput("Fresh AB")}, "Idempotency-Key", "old-key").OK(t, nil)
	if n := clientCount(t, env); n != 1 {
		t.Fatalf("%d clients", n)
	}

	if _, err := env.DB.Ent.IdempotencyRecord.Create().
		SetAPIKeyID(key.ID).SetKey("stale").SetRequestHash("x").
		SetStatus(200).SetContentType("application/json").SetBody([]byte(`{}`)).
		SetCreatedAt(time.Now().Add(-25 * time.Hour)).Save(ctx); err != nil {
		t.Fatal(err)
	}
	n, err := env.Server.PruneIdempotencyRecords(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("pruned %d records (%v), want the 1 stale one", n, err)
	}
	left, err := env.DB.Ent.IdempotencyRecord.Query().Count(ctx)
	if err != nil || left != 1 {
		t.Fatalf("%d records left (%v), want the fresh one", left, err)
	}
}

// TestFailuresOfOursAreNotReplayed: a keyed mutation that fails on the
// server's side after its work began (here: its table is briefly away)
// records nothing, so the retry with the same key does the work.
func TestFailuresOfOursAreNotReplayed(t *testing.T) {
	env := apitest.New(t)
	vars := apitest.Vars{"input": apitest.ClientInput("Retry AB")}
	if _, err := env.DB.SQL.Exec("ALTER TABLE clients RENAME TO clients_away"); err != nil {
		t.Fatal(err)
	}
	env.Admin().Do(t, apitest.CreateClientMutation, vars, "Idempotency-Key", "retry-1").
		Refused(t, http.StatusInternalServerError, "INTERNAL", "")
	if _, err := env.DB.SQL.Exec("ALTER TABLE clients_away RENAME TO clients"); err != nil {
		t.Fatal(err)
	}
	env.Admin().Do(t, apitest.CreateClientMutation, vars, "Idempotency-Key", "retry-1").OK(t, nil)
	if n := clientCount(t, env); n != 1 {
		t.Fatalf("%d clients after the retry, want 1", n)
	}
}

// Retries sent after the first request has finished are replays, however
// many arrive at once: none may be told that the first is "still running"
// because another retry holds the key's lock while it reads the record.
func TestIdempotentRetriesAfterTheFirstFinishedAllReplay(t *testing.T) {
	env := apitest.New(t)
	vars := apitest.Vars{"input": apitest.ClientInput("Replayed AB")}
	first := env.Admin().Do(t, apitest.CreateClientMutation, vars, "Idempotency-Key", "after-1")
	first.OK(t, nil)
	const n = 20
	var wg sync.WaitGroup
	answers := make([]*apitest.Response, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = env.Admin().Do(t, apitest.CreateClientMutation, vars, "Idempotency-Key", "after-1")
		}()
	}
	wg.Wait()
	for i, r := range answers {
		if r.Status != first.Status || !bytes.Equal(r.Body, first.Body) {
			t.Errorf("retry %d answered %d %s, not the first response %d %s", i, r.Status, r.Body, first.Status, first.Body)
		}
	}
	if c := clientCount(t, env); c != 1 {
		t.Fatalf("the retries created %d clients", c)
	}
}
