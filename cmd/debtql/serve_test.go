package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// How long the tests wait for the server: generous bounds for a loaded CI
// machine; a healthy run takes a fraction of them.
const (
	startTimeout = 10 * time.Second
	stopTimeout  = 5 * time.Second
)

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// testServer is `debtql serve` running in a goroutine.
type testServer struct {
	t      *testing.T
	base   string
	stdout *syncBuffer
	stderr *syncBuffer
	client *http.Client
	cancel context.CancelFunc
	done   chan error
	ended  bool
	err    error
}

// startServer runs `debtql serve` on path and a free loopback port, and
// waits until /healthz answers.
func startServer(t *testing.T, path string, extra ...string) *testServer {
	t.Helper()
	addr := freeAddr(t)
	args := append([]string{"serve", "--sqlite", path, "--addr", addr, "--tz", "UTC"}, extra...)
	return startServerArgs(t, "http://"+addr, args)
}

func startServerArgs(t *testing.T, base string, args []string) *testServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &testServer{
		t:      t,
		base:   base,
		stdout: &syncBuffer{},
		stderr: &syncBuffer{},
		client: &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{}},
		cancel: cancel,
		done:   make(chan error, 1),
	}
	go func() { s.done <- run(ctx, args, s.stdout, s.stderr) }()
	t.Cleanup(func() {
		if !s.ended {
			if err := s.stop(); err != nil {
				t.Errorf("serve returned %v on shutdown", err)
			}
		}
	})

	deadline := time.Now().Add(startTimeout)
	for {
		select {
		case err := <-s.done:
			s.ended, s.err = true, err
			t.Fatalf("serve %q ended before it was healthy: %v\nstderr:\n%s", args, err, s.stderr)
		default:
		}
		if resp, err := s.client.Get(base + "/healthz"); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve %q did not answer /healthz within %s\nstderr:\n%s", args, startTimeout, s.stderr)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stop cancels the server's context and returns what run returned.
func (s *testServer) stop() error {
	s.t.Helper()
	if s.ended {
		return s.err
	}
	s.cancel()
	select {
	case s.err = <-s.done:
	case <-time.After(stopTimeout):
		s.t.Fatalf("serve did not return within %s of cancellation\nstderr:\n%s", stopTimeout, s.stderr)
	}
	s.ended = true
	s.client.CloseIdleConnections()
	return s.err
}

// graphql posts query with key and returns the status and decoded body.
func (s *testServer) graphql(key, query string) (int, map[string]any) {
	s.t.Helper()
	body, err := json.Marshal(map[string]any{"query": query})
	if err != nil {
		s.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, s.base+"/graphql", bytes.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		s.t.Fatalf("POST /graphql: %v", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		s.t.Fatalf("POST /graphql answered %d with no JSON: %v\n%s", resp.StatusCode, err, raw)
	}
	return resp.StatusCode, out
}

// viewerRole asks { viewer { role } } with key: the role on 200, else "".
func (s *testServer) viewerRole(key string) (int, string) {
	s.t.Helper()
	status, out := s.graphql(key, "{ viewer { role } }")
	data, _ := out["data"].(map[string]any)
	viewer, _ := data["viewer"].(map[string]any)
	role, _ := viewer["role"].(string)
	if status == http.StatusOK && role == "" {
		s.t.Errorf("viewer query answered 200 without a role: %v", out)
	}
	return status, role
}

// logLines decodes the JSON log lines of s, skipping other text (the
// bootstrap key message).
func logLines(s string) []map[string]any {
	var lines []map[string]any
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "{") {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err == nil {
			lines = append(lines, m)
		}
	}
	return lines
}

// waitForLog waits until the server's stderr, from offset on, holds a log
// line for which match is true, and returns it.
func (s *testServer) waitForLog(offset int, match func(map[string]any) bool) map[string]any {
	s.t.Helper()
	deadline := time.Now().Add(stopTimeout)
	for {
		for _, l := range logLines(s.stderr.String()[offset:]) {
			if match(l) {
				return l
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("no matching log line within %s; stderr:\n%s", stopTimeout, s.stderr)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// runServeError runs serve with a configuration it must refuse before
// listening for long, and returns its error.
func runServeError(t *testing.T, args ...string) (stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	var out, errOut syncBuffer
	err = run(ctx, append([]string{"serve", "--addr", freeAddr(t)}, args...), &out, &errOut)
	if err == nil {
		t.Fatalf("serve %q ran until cancelled, want an error\nstderr:\n%s", args, errOut.String())
	}
	return errOut.String(), err
}

const bootstrapBanner = "No ADMIN API key existed"

func TestServeGeneratesAdminKeyOnce(t *testing.T) {
	cleanEnv(t)
	path := dbPath(t)

	s := startServer(t, path)
	boot := s.stderr.String()
	keys := uniq(secretPattern.FindAllString(boot, -1))
	if len(keys) != 1 || strings.Count(boot, bootstrapBanner) != 1 {
		t.Fatalf("first start printed keys %q (banner %d times), want one generated key\nstderr:\n%s",
			keys, strings.Count(boot, bootstrapBanner), boot)
	}
	key := keys[0]
	if s.stdout.Len() != 0 {
		t.Errorf("serve wrote to stdout: %q", s.stdout.String())
	}

	// The server logs JSON (stderr is no terminal), starting with where it listens.
	listening := s.waitForLog(0, func(l map[string]any) bool { return l["msg"] == "DebtQL is listening" })
	if listening["level"] != "INFO" || listening["database"] != "sqlite3" || listening["tz"] != "UTC" {
		t.Errorf("listening log line = %v", listening)
	}
	if addr, _ := listening["addr"].(string); "http://"+addr != s.base {
		t.Errorf("listening on %q, want %s", addr, s.base)
	}

	offset := s.stderr.Len()
	status, role := s.viewerRole(key)
	if status != http.StatusOK || role != "ADMIN" {
		t.Fatalf("viewer with the generated key = %d %q, want 200 ADMIN", status, role)
	}
	line := s.waitForLog(offset, func(l map[string]any) bool {
		return l["msg"] == "request" && l["path"] == "/graphql"
	})
	if line["status"] != float64(http.StatusOK) {
		t.Errorf("request log status = %v, want 200", line["status"])
	}
	if line["method"] != http.MethodPost {
		t.Errorf("request log method = %v, want POST", line["method"])
	}
	if _, ok := line["duration"]; !ok {
		t.Errorf("request log line lacks the duration: %v", line)
	}
	if id, _ := line["request_id"].(string); id == "" {
		t.Errorf("request log line lacks the request id: %v", line)
	}
	if after := s.stderr.String()[offset:]; strings.Contains(after, key) {
		t.Errorf("the Authorization header's key appears in the log:\n%s", after)
	}

	if status, _ := s.viewerRole(""); status != http.StatusUnauthorized {
		t.Errorf("viewer without a key = %d, want 401", status)
	}
	if status, _ := s.viewerRole("dq_" + strings.Repeat("x", 43)); status != http.StatusUnauthorized {
		t.Errorf("viewer with an unknown key = %d, want 401", status)
	}

	start := time.Now()
	if err := s.stop(); err != nil {
		t.Fatalf("serve returned %v after cancellation, want nil\nstderr:\n%s", err, s.stderr)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("graceful shutdown took %s", d)
	}
	s.waitForLog(offset, func(l map[string]any) bool { return l["msg"] == "stopped" })

	// A second start on the same file keeps the key and prints none.
	s2 := startServer(t, path)
	if out := s2.stderr.String(); strings.Contains(out, bootstrapBanner) || secretPattern.MatchString(out) {
		t.Errorf("second start printed a key:\n%s", out)
	}
	if status, role := s2.viewerRole(key); status != http.StatusOK || role != "ADMIN" {
		t.Errorf("viewer with the generated key after a restart = %d %q, want 200 ADMIN", status, role)
	}
	if err := s2.stop(); err != nil {
		t.Fatalf("second serve returned %v, want nil", err)
	}
	if out := s2.stderr.String(); strings.Contains(out, key) {
		t.Errorf("the key appears in the second server's output:\n%s", out)
	}
}

func TestServeRegistersAdminAPIKeyFromEnvironment(t *testing.T) {
	cleanEnv(t)
	path := dbPath(t)
	key := "test-admin-key-" + strings.Repeat("k", 25) // 40 characters
	t.Setenv("ADMIN_API_KEY", key)

	s := startServer(t, path)
	if status, role := s.viewerRole(key); status != http.StatusOK || role != "ADMIN" {
		t.Errorf("viewer with ADMIN_API_KEY = %d %q, want 200 ADMIN", status, role)
	}
	if err := s.stop(); err != nil {
		t.Fatalf("serve returned %v, want nil", err)
	}
	out := s.stderr.String()
	if strings.Contains(out, bootstrapBanner) || secretPattern.MatchString(out) {
		t.Errorf("a key was printed although ADMIN_API_KEY is set:\n%s", out)
	}
	if strings.Contains(out, key) {
		t.Errorf("ADMIN_API_KEY appears in the output:\n%s", out)
	}

	// Restarting with the same key is quiet; the key stays one key.
	s = startServer(t, path)
	if status, _ := s.viewerRole(key); status != http.StatusOK {
		t.Errorf("viewer with ADMIN_API_KEY after a restart = %d, want 200", status)
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	if out := s.stderr.String(); strings.Contains(out, "warning") || strings.Contains(out, bootstrapBanner) {
		t.Errorf("restart with the registered ADMIN_API_KEY printed:\n%s", out)
	}
	list, _, err := runCLI(t, "apikey", "list", "--sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(list, "bootstrap (ADMIN_API_KEY)"); n != 1 {
		t.Fatalf("list shows the ADMIN_API_KEY key %d times, want once:\n%s", n, list)
	}

	// Once revoked, ADMIN_API_KEY stops the server from starting.
	id := strings.Fields(lineWith(list, "bootstrap (ADMIN_API_KEY)"))[0]
	if _, stderr, err := runCLI(t, "apikey", "revoke", "--sqlite", path, id); err != nil {
		t.Fatalf("revoking the ADMIN_API_KEY key: %v\n%s", err, stderr)
	}
	_, err = runServeError(t, "--sqlite", path, "--tz", "UTC")
	if !strings.Contains(err.Error(), "ADMIN_API_KEY") || !strings.Contains(err.Error(), "revoked") {
		t.Errorf("serve with a revoked ADMIN_API_KEY = %v, want an error saying it is revoked", err)
	}
}

func TestServeWarnsWhenAdminAPIKeyIsNotRegistered(t *testing.T) {
	cleanEnv(t)
	path := dbPath(t)
	if _, _, err := runCLI(t, "apikey", "create", "--sqlite", path, "--role", "ADMIN", "--name", "ops"); err != nil {
		t.Fatal(err)
	}
	key := strings.Repeat("w", 40)
	t.Setenv("ADMIN_API_KEY", key)
	s := startServer(t, path)
	if out := s.stderr.String(); !strings.Contains(out, "ADMIN_API_KEY was not registered") {
		t.Errorf("no warning that ADMIN_API_KEY was not registered:\n%s", out)
	}
	if status, _ := s.viewerRole(key); status != http.StatusUnauthorized {
		t.Errorf("viewer with the unregistered ADMIN_API_KEY = %d, want 401", status)
	}
}

func TestServeRefusesShortAdminAPIKey(t *testing.T) {
	cleanEnv(t)
	t.Setenv("ADMIN_API_KEY", "0123456789")
	stderr, err := runServeError(t, "--sqlite", dbPath(t), "--tz", "UTC")
	if !strings.Contains(err.Error(), "ADMIN_API_KEY") {
		t.Errorf("err = %v, want an error about ADMIN_API_KEY", err)
	}
	if strings.Contains(stderr, "0123456789") {
		t.Errorf("the short key appears on stderr:\n%s", stderr)
	}
}

func TestServeRefusesBadConfiguration(t *testing.T) {
	cleanEnv(t)
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"tz flag", nil, []string{"--tz", "Mars/Olympus"}, "time zone"},
		{"tz env", map[string]string{"TZ": "Mars/Olympus"}, nil, "time zone"},
		{"log level flag", nil, []string{"--tz", "UTC", "--log-level", "loud"}, "log level"},
		{"log level env", map[string]string{"LOG_LEVEL": "loud"}, []string{"--tz", "UTC"}, "log level"},
		{"log format", nil, []string{"--tz", "UTC", "--log-format", "xml"}, "log format"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			_, err := runServeError(t, append([]string{"--sqlite", dbPath(t)}, tc.args...)...)
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func TestServeReportsAddressInUse(t *testing.T) {
	cleanEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = runServeError(t, "--sqlite", dbPath(t), "--tz", "UTC", "--addr", ln.Addr().String())
	if !strings.Contains(err.Error(), ln.Addr().String()) {
		t.Errorf("err = %v, want one naming the address", err)
	}
}

func TestServeListensOnPORT(t *testing.T) {
	cleanEnv(t)
	_, port, err := net.SplitHostPort(freeAddr(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PORT", port)
	s := startServerArgs(t, "http://127.0.0.1:"+port, []string{"serve", "--sqlite", dbPath(t), "--tz", "UTC"})
	listening := s.waitForLog(0, func(l map[string]any) bool { return l["msg"] == "DebtQL is listening" })
	if addr, _ := listening["addr"].(string); !strings.HasSuffix(addr, ":"+port) {
		t.Errorf("listening on %q, want port %s", addr, port)
	}
	if url, _ := listening["graphiql"].(string); url != "http://localhost:"+port+"/" {
		t.Errorf("graphiql URL = %q, want http://localhost:%s/", url, port)
	}
	if err := s.stop(); err != nil {
		t.Fatalf("serve returned %v, want nil", err)
	}
}

func TestServeAcceptsKeysManagedByTheCLI(t *testing.T) {
	cleanEnv(t)
	path := dbPath(t)
	clientID := seedClient(t, path)
	s := startServer(t, path)

	// Keys created and revoked with `apikey` while the server runs take
	// effect at once: both work on the same database.
	adminID, admin := createKey(t, path, "--role", "ADMIN", "--name", "cli admin")
	_, client := createKey(t, path, "--role", "CLIENT", "--client", clientID, "--name", "cli client")
	if status, role := s.viewerRole(admin); status != http.StatusOK || role != "ADMIN" {
		t.Errorf("viewer with a CLI ADMIN key = %d %q, want 200 ADMIN", status, role)
	}
	if status, role := s.viewerRole(client); status != http.StatusOK || role != "CLIENT" {
		t.Errorf("viewer with a CLI CLIENT key = %d %q, want 200 CLIENT", status, role)
	}
	if _, stderr, err := runCLI(t, "apikey", "revoke", "--sqlite", path, adminID); err != nil {
		t.Fatalf("revoke: %v\n%s", err, stderr)
	}
	if status, _ := s.viewerRole(admin); status != http.StatusUnauthorized {
		t.Errorf("viewer with a revoked key = %d, want 401", status)
	}

	// The list shows when a key was last used.
	list, _, err := runCLI(t, "apikey", "list", "--sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	line := lineWith(list, adminID)
	if f := strings.Fields(line); len(f) < 8 || f[len(f)-2] == "-" || f[len(f)-1] == "-" {
		t.Errorf("the used, revoked key's list line = %q, want last used and revoked times", line)
	}

	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	// The server never saw these secrets except in Authorization headers,
	// which it must not log.
	out := s.stderr.String()
	for _, k := range []string{admin, client} {
		if strings.Contains(out, k) {
			t.Errorf("an Authorization header value appears in the server's output:\n%s", out)
		}
	}
	if n := len(logLines(out)); n == 0 {
		t.Errorf("the server logged no JSON lines:\n%s", out)
	}
}

func uniq(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func TestServeRefusesUnreadableLimits(t *testing.T) {
	cleanEnv(t)
	t.Setenv("DEBTQL_RATE_LIMIT", "fast")
	_, _, err := runCLI(t, "serve", "--sqlite", dbPath(t), "--max-depth", "5")
	if err == nil || !strings.Contains(err.Error(), "DEBTQL_RATE_LIMIT") {
		t.Fatalf("err = %v, want one naming DEBTQL_RATE_LIMIT", err)
	}
	t.Setenv("DEBTQL_RATE_LIMIT", "")
	_, _, err = runCLI(t, "serve", "--sqlite", dbPath(t), "--max-depth", "-1")
	if err == nil || !strings.Contains(err.Error(), "negative") {
		t.Fatalf("err = %v, want a refusal of a negative limit", err)
	}
	_, _, err = runCLI(t, "serve", "--sqlite", dbPath(t), "--request-timeout", "90s")
	if err == nil || !strings.Contains(err.Error(), "write timeout") {
		t.Fatalf("err = %v, want a refusal of a deadline beyond the write timeout", err)
	}
}

// getStatus GETs url and returns the status and body.
func (s *testServer) getStatus(url string) (int, string) {
	s.t.Helper()
	resp, err := s.client.Get(url)
	if err != nil {
		s.t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func TestServeMetrics(t *testing.T) {
	cleanEnv(t)
	t.Run("on --addr by default, without an API key", func(t *testing.T) {
		s := startServer(t, dbPath(t))
		status, body := s.getStatus(s.base + "/metrics")
		if status != http.StatusOK || !strings.Contains(body, "go_goroutines") {
			t.Fatalf("/metrics: %d\n%s", status, body)
		}
	})
	for name, viaEnv := range map[string]bool{"--metrics-addr": false, "DEBTQL_METRICS_ADDR": true} {
		t.Run(name, func(t *testing.T) {
			metricsAddr := freeAddr(t)
			var extra []string
			if viaEnv {
				t.Setenv("DEBTQL_METRICS_ADDR", metricsAddr)
			} else {
				extra = []string{"--metrics-addr", metricsAddr}
			}
			s := startServer(t, dbPath(t), extra...)
			if status, _ := s.getStatus(s.base + "/metrics"); status != http.StatusNotFound {
				t.Errorf("/metrics on --addr: %d, want 404", status)
			}
			status, body := s.getStatus("http://" + metricsAddr + "/metrics")
			if status != http.StatusOK || !strings.Contains(body, `debtql_http_requests_total{path="/metrics",status="404"} 1`) {
				t.Errorf("/metrics on --metrics-addr: %d\n%s", status, body)
			}
			if status, _ := s.getStatus("http://" + metricsAddr + "/graphql"); status != http.StatusNotFound {
				t.Errorf("/graphql on --metrics-addr: %d, want 404", status)
			}
			if err := s.stop(); err != nil {
				t.Fatalf("serve returned %v, want nil", err)
			}
			if _, err := s.client.Get("http://" + metricsAddr + "/metrics"); err == nil {
				t.Error("the metrics listener still answers after shutdown")
			}
		})
	}
	t.Run("the same address twice", func(t *testing.T) {
		addr := freeAddr(t)
		_, err := runServeError(t, "--sqlite", dbPath(t), "--tz", "UTC", "--addr", addr, "--metrics-addr", addr)
		if !strings.Contains(err.Error(), "--metrics-addr") {
			t.Errorf("err = %v, want one naming --metrics-addr", err)
		}
	})
	t.Run("an address in use", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		_, err = runServeError(t, "--sqlite", dbPath(t), "--tz", "UTC", "--metrics-addr", ln.Addr().String())
		if !strings.Contains(err.Error(), ln.Addr().String()) {
			t.Errorf("err = %v, want one naming the address", err)
		}
	})
}
