package main

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/debtql/debtql/internal/server"
)

// `debtql schema` prints, offline, exactly what a running server hands out
// at GET /graphql/schema.graphql.
func TestSchemaCommandPrintsWhatTheServerServes(t *testing.T) {
	cleanEnv(t)
	stdout, stderr, err := runCLI(t, "schema")
	if err != nil || stderr != "" {
		t.Fatalf("debtql schema: err %v, stderr %q", err, stderr)
	}
	// The server package's tests check that this is schema.graphqls.
	if stdout != server.SDL() || !strings.Contains(stdout, "type Query {") {
		t.Errorf("debtql schema printed %d bytes, not the %d of the schema", len(stdout), len(server.SDL()))
	}

	key := "test-admin-key-" + strings.Repeat("k", 25)
	t.Setenv("ADMIN_API_KEY", key)
	s := startServer(t, dbPath(t))
	get := func(key string) (int, string) {
		req, err := http.NewRequest(http.MethodGet, s.base+"/graphql/schema.graphql", nil)
		if err != nil {
			t.Fatal(err)
		}
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := s.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(b)
	}
	if status, body := get(key); status != http.StatusOK || body != stdout {
		t.Errorf("GET /graphql/schema.graphql = %d and %d bytes, want 200 and the %d bytes of debtql schema", status, len(body), len(stdout))
	}
	if status, body := get(""); status != http.StatusUnauthorized || strings.Contains(body, "type Query") {
		t.Errorf("without a key: %d %.100s, want 401 without the schema", status, body)
	}
}

func TestSchemaCommandTakesNoArguments(t *testing.T) {
	cleanEnv(t)
	stdout, stderr, err := runCLI(t, "schema", "extra")
	if !errors.Is(err, errUsage) || stdout != "" || !strings.Contains(stderr, "Usage: debtql schema") {
		t.Errorf("debtql schema extra: err %v, stdout %d bytes, stderr %q", err, len(stdout), stderr)
	}
	stdout, stderr, err = runCLI(t, "schema", "--help")
	if err != nil || stderr != "" || !strings.Contains(stdout, "GET /graphql/schema.graphql") {
		t.Errorf("debtql schema --help: err %v, stdout %d bytes, stderr %q", err, len(stdout), stderr)
	}
}
