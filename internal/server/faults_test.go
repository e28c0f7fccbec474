package server_test

// The Go side of the fault scripts (scripts/faults/, docs/reliability.md):
// a full pool, a statement past the deadline, and a database that goes
// away and comes back, each over HTTP against the real server. None of
// these asserts a duration: "does not hang" is a generous bound
// (hangBound) that a hanging request would pass by far.

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/server"
)

// hangBound is how long a request may take before the test calls it hung:
// far beyond every deadline the tests set.
const hangBound = 20 * time.Second

// boundedResult is a response, or the error of a request that did not
// complete within hangBound.
type boundedResult struct {
	status int
	code   string
	body   string
	err    error
}

// post sends a GraphQL request with the ADMIN key and a client timeout of
// hangBound, so that a server that hangs fails the test instead of
// blocking it.
func post(env *apitest.Env, query string, vars apitest.Vars, header ...string) boundedResult {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, err := http.NewRequest(http.MethodPost, env.URL+"/graphql", bytes.NewReader(body))
	if err != nil {
		return boundedResult{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+apitest.AdminKey)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := (&http.Client{Timeout: hangBound}).Do(req)
	if err != nil {
		return boundedResult{err: err}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var parsed struct {
		Errors []struct {
			Extensions struct {
				Code string `json:"code"`
			} `json:"extensions"`
		} `json:"errors"`
	}
	_ = json.Unmarshal(b, &parsed)
	out := boundedResult{status: resp.StatusCode, body: string(b)}
	if len(parsed.Errors) > 0 {
		out.code = parsed.Errors[0].Extensions.Code
	}
	return out
}

func (r boundedResult) want(t *testing.T, what string, status int, code string) {
	t.Helper()
	if r.err != nil {
		t.Fatalf("%s: no answer within %s: %v", what, hangBound, r.err)
	}
	if r.status != status || r.code != code {
		t.Fatalf("%s: %d %s, want %d %s\n%s", what, r.status, r.code, status, code, r.body)
	}
}

// postClient sends createClient for a client named name with an
// Idempotency-Key.
func postClient(env *apitest.Env, name, key string) boundedResult {
	return post(env, apitest.CreateClientMutation, apitest.Vars{"input": apitest.ClientInput(name)}, "Idempotency-Key", key)
}

// TestFullPoolAnswers503AtTheDeadline: when every connection of the pool is
// taken, a request waits for one until its deadline and then answers 503;
// it never hangs (the client gives up after hangBound, ten times the
// deadline), whether it is a query or a mutation, and the server serves
// again once connections are free.
func TestFullPoolAnswers503AtTheDeadline(t *testing.T) {
	limits := apitest.TestLimits()
	// Short enough to keep the test quick, long enough for a healthy
	// request on a loaded CI machine.
	limits.RequestTimeout = 2 * time.Second
	env := apitest.NewWithLimits(t, limits)
	post(env, `{ viewer { role } }`, nil).want(t, "before", http.StatusOK, "")

	env.DB.SQL.SetMaxOpenConns(2)
	ctx := context.Background()
	var held []*sql.Conn
	for range 2 {
		c, err := env.DB.SQL.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		t.Cleanup(func() { _ = c.Close() }) // before the server's, should the test fail
	}
	post(env, `{ clients { totalCount } }`, nil).want(t, "query with a full pool", http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
	postClient(env, "Pool AB", "pool-1").
		want(t, "mutation with a full pool", http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")

	for _, c := range held {
		_ = c.Close()
	}
	post(env, `{ clients { totalCount } }`, nil).want(t, "query after the pool freed up", http.StatusOK, "")
	// The refused mutation wrote nothing and recorded nothing: its retry
	// creates the client, once.
	postClient(env, "Pool AB", "pool-1").want(t, "retried mutation", http.StatusOK, "")
	if n := clientCount(t, env); n != 1 {
		t.Fatalf("%d clients, want 1", n)
	}
}

// waitingOnLock counts the statements of the test's database that wait for
// a lock, other than the asking one.
func waitingOnLock(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	err := db.QueryRow(`SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// waitFor polls cond every 20 ms until it holds or bound passes.
func waitFor(bound time.Duration, cond func() bool) bool {
	for end := time.Now().Add(bound); ; {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// lockClients takes an ACCESS EXCLUSIVE lock on the clients table in a
// transaction of db, until the returned function is called.
func lockClients(t *testing.T, db *sql.DB) (release func()) {
	t.Helper()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("LOCK TABLE clients IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() { once.Do(func() { _ = tx.Rollback() }) }
	t.Cleanup(release)
	return release
}

// TestRequestDeadlineCancelsTheStatement: a statement that runs past the
// request's deadline (here: it waits for a lock that another transaction
// holds) is cancelled in PostgreSQL, not merely abandoned by the server, and
// the request answers 503.
func TestRequestDeadlineCancelsTheStatement(t *testing.T) {
	limits := apitest.TestLimits()
	// Short enough to keep the test quick, long enough for a healthy
	// request on a loaded CI machine.
	limits.RequestTimeout = 2 * time.Second
	env := apitest.NewWithLimits(t, limits)
	if !env.Postgres {
		t.Skip("SQLite runs in the process: there is no server-side statement to cancel")
	}
	post(env, `{ clients { totalCount } }`, nil).want(t, "before", http.StatusOK, "")
	release := lockClients(t, env.DB.SQL)
	post(env, `{ clients { totalCount } }`, nil).want(t, "query past its deadline", http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
	// The lock is still held: a statement that was only abandoned would
	// still be waiting for it.
	if !waitFor(5*time.Second, func() bool { return waitingOnLock(t, env.DB.SQL) == 0 }) {
		t.Fatalf("the statement still waits in PostgreSQL after its request answered: it was not cancelled")
	}
	release()
	post(env, `{ clients { totalCount } }`, nil).want(t, "after", http.StatusOK, "")
}

// cutProxy forwards TCP connections to PostgreSQL until it is cut: then it
// closes every connection and refuses new ones, as a stopped database
// does, until it is restored on the same address.
type cutProxy struct {
	t      *testing.T
	addr   string
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]struct{}
}

func newCutProxy(t *testing.T) *cutProxy {
	p := &cutProxy{t: t, conns: map[net.Conn]struct{}{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr, p.ln = ln.Addr().String(), ln
	go p.serve(ln)
	t.Cleanup(p.cut)
	return p
}

// via points a database URL at the proxy and the proxy at the URL's host.
func (p *cutProxy) via(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		p.t.Fatal(err)
	}
	p.target, u.Host = u.Host, p.addr
	return u.String()
}

func (p *cutProxy) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go p.pipe(c)
	}
}

func (p *cutProxy) pipe(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = c.Close()
		return
	}
	p.mu.Lock()
	if p.ln == nil { // cut meanwhile
		p.mu.Unlock()
		_, _ = c.Close(), up.Close()
		return
	}
	p.conns[c], p.conns[up] = struct{}{}, struct{}{}
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
	<-done
	_, _ = c.Close(), up.Close()
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, up)
	p.mu.Unlock()
}

// cut closes the listener and every connection.
func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		_ = p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		_ = c.Close()
		delete(p.conns, c)
	}
}

// restore listens again on the same address.
func (p *cutProxy) restore() {
	var (
		ln  net.Listener
		err error
	)
	if !waitFor(5*time.Second, func() bool { ln, err = net.Listen("tcp", p.addr); return err == nil }) {
		p.t.Fatalf("listening again on %s: %v", p.addr, err)
	}
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go p.serve(ln)
}

// TestDatabaseDownAnswers503AndRecovers: while the database is away,
// /readyz answers 503, /healthz 200, and GraphQL requests answer 503
// SERVICE_UNAVAILABLE (never 500, never a hang), including a statement
// that was running when the database went away; when it comes back the
// server serves again by itself, with every acknowledged write present and
// nothing of the refused ones.
func TestDatabaseDownAnswers503AndRecovers(t *testing.T) {
	proxy := newCutProxy(t)
	var direct string
	limits := apitest.TestLimits()
	limits.RequestTimeout = 5 * time.Second
	env := apitest.NewVia(t, func(dsn string) string { direct = dsn; return proxy.via(dsn) },
		func(o *server.Options) { o.Limits = &limits })
	ddb, err := sql.Open("pgx", direct)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ddb.Close() })

	postClient(env, "Before AB", "before").want(t, "write before", http.StatusOK, "")

	// A statement running when the database goes away: authenticated, then
	// waiting for a lock, then its connection breaks.
	release := lockClients(t, ddb)
	running := make(chan boundedResult, 1)
	go func() { running <- postClient(env, "Running AB", "running") }()
	if !waitFor(hangBound, func() bool { return waitingOnLock(t, ddb) > 0 }) {
		t.Fatal("the mutation never reached its lock")
	}
	proxy.cut()
	(<-running).want(t, "mutation whose database went away", http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
	release()

	if r := getBounded(env, "/readyz"); r.status != http.StatusServiceUnavailable {
		t.Fatalf("/readyz with the database away: %d %v, want 503", r.status, r.err)
	}
	if r := getBounded(env, "/healthz"); r.status != http.StatusOK {
		t.Fatalf("/healthz with the database away: %d %v, want 200", r.status, r.err)
	}
	post(env, `{ clients { totalCount } }`, nil).want(t, "query with the database away", http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
	postClient(env, "During AB", "during").
		want(t, "mutation with the database away", http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")

	proxy.restore()
	var last boundedResult
	if !waitFor(hangBound, func() bool { last = post(env, `{ clients { totalCount } }`, nil); return last.status == http.StatusOK }) {
		t.Fatalf("no recovery within %s of the database's return: last answer %d %v %s", hangBound, last.status, last.err, last.body)
	}
	if r := getBounded(env, "/readyz"); r.status != http.StatusOK {
		t.Fatalf("/readyz after recovery: %d %v", r.status, r.err)
	}
	// The refused mutations wrote nothing; their retries with the same keys
	// write them once; the acknowledged one is there, once.
	// The cut-off transaction may hold its key's lock until PostgreSQL has
	// ended its backend: 409 "still running" meanwhile.
	var retry boundedResult
	waitFor(hangBound, func() bool {
		retry = postClient(env, "Running AB", "running")
		return retry.status != http.StatusConflict
	})
	retry.want(t, "retry of the running mutation", http.StatusOK, "")
	postClient(env, "During AB", "during").want(t, "retry of the refused mutation", http.StatusOK, "")
	postClient(env, "Before AB", "before").want(t, "replay of the acknowledged one", http.StatusOK, "")
	for _, name := range []string{"Before AB", "Running AB", "During AB"} {
		var n int
		if err := ddb.QueryRow("SELECT count(*) FROM clients WHERE name = $1", name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("%d clients named %s, want 1", n, name)
		}
	}
}

func getBounded(env *apitest.Env, path string) boundedResult {
	resp, err := (&http.Client{Timeout: hangBound}).Get(env.URL + path)
	if err != nil {
		return boundedResult{err: err}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return boundedResult{status: resp.StatusCode, body: string(b)}
}
