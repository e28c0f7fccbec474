// Package apitest starts the real DebtQL server on httptest over a real
// database and speaks GraphQL to it over HTTP. Every API test uses it.
//
// The database is PostgreSQL at DATABASE_URL (default
// postgres://postgres@127.0.0.1:5432/postgres): each test package gets a
// throwaway database, and each Env a fresh schema in it, so tests never see
// each other's rows. Outside CI, when PostgreSQL does not answer, the tests
// run on SQLite with a notice; with CI=true PostgreSQL is required.
// DEBTQL_TEST_DB=sqlite selects SQLite on purpose.
package apitest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/server"
	"github.com/debtql/debtql/internal/store"
	"github.com/debtql/debtql/internal/webhook"
)

// DefaultDatabaseURL is where the tests look for PostgreSQL.
const DefaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/postgres"

// AdminKey is the bootstrap ADMIN secret of every Env.
const AdminKey = "dq_test-admin-key-000000000000000000000000000"

// backend is the database the package's tests run on.
type backend struct {
	postgres bool
	// baseURL is the package's throwaway PostgreSQL database.
	baseURL string
	dbName  string
	adminDB string
}

var (
	pkgBackend *backend
	setupOnce  sync.Once
	setupErr   error
)

// Main runs a test package: it creates the package's throwaway database
// before the tests and drops it after. Call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	if pkgBackend != nil && pkgBackend.postgres {
		if err := dropDatabase(pkgBackend); err != nil {
			fmt.Fprintln(os.Stderr, "apitest: dropping the test database:", err)
		}
	}
	os.Exit(code)
}

func setup() (*backend, error) {
	setupOnce.Do(func() {
		pkgBackend, setupErr = chooseBackend()
	})
	return pkgBackend, setupErr
}

func chooseBackend() (*backend, error) {
	if strings.EqualFold(os.Getenv("DEBTQL_TEST_DB"), "sqlite") {
		return &backend{}, nil
	}
	dsn := os.Getenv("DATABASE_URL")
	if dsn == "" {
		dsn = DefaultDatabaseURL
	}
	b, err := createDatabase(dsn)
	if err == nil {
		return b, nil
	}
	if os.Getenv("CI") == "true" {
		return nil, fmt.Errorf("apitest: PostgreSQL is required in CI and does not answer at %s: %w", redactURL(dsn), err)
	}
	fmt.Fprintf(os.Stderr, "\n*** apitest: PostgreSQL does not answer at %s (%v);\n*** running the API tests on SQLite instead. Set DATABASE_URL to test PostgreSQL.\n\n", redactURL(dsn), err)
	return &backend{}, nil
}

func createDatabase(dsn string) (*backend, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		return nil, err
	}
	name := "debtql_test_" + filepath.Base(mustWD()) + "_" + randomHex(4)
	name = strings.NewReplacer("-", "_", ".", "_").Replace(strings.ToLower(name))
	if _, err := db.ExecContext(ctx, `CREATE DATABASE "`+name+`"`); err != nil {
		return nil, fmt.Errorf("creating database %s: %w", name, err)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return nil, err
	}
	u.Path = "/" + name
	// The extensions the schema needs, once per database in public, where
	// every test's schema finds them (withSearchPath); migrating inside a
	// test's schema would otherwise create them there, out of the other
	// tests' sight.
	ext, err := sql.Open("pgx", u.String())
	if err != nil {
		return nil, err
	}
	defer ext.Close()
	for _, e := range store.PostgresExtensions {
		if _, err := ext.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS "+e+" SCHEMA public"); err != nil {
			return nil, fmt.Errorf("creating extension %s in %s: %w", e, name, err)
		}
	}
	return &backend{postgres: true, baseURL: u.String(), dbName: name, adminDB: dsn}, nil
}

func dropDatabase(b *backend) error {
	db, err := sql.Open("pgx", b.adminDB)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec(`DROP DATABASE IF EXISTS "` + b.dbName + `" WITH (FORCE)`)
	return err
}

// Env is a running DebtQL server over its own empty database.
type Env struct {
	URL    string
	DB     *store.DB
	Server *server.Server
	Clock  *Clock
	// Postgres reports whether the Env runs on PostgreSQL.
	Postgres bool
	// Statements counts the SQL statements the server sends.
	Statements *Statements
	// dsn is the database's, for a replica's own connections.
	dsn string
}

// Clock is the server's clock, which tests can set and move.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// Now returns the clock's time: the set time, or the real time when unset.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.now.IsZero() {
		return time.Now()
	}
	return c.now
}

// Set fixes the clock at t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// Stockholm is the service time zone of the tests, as of production.
var Stockholm = mustLocation("Europe/Stockholm")

// New starts a server over a fresh, migrated database with the bootstrap
// ADMIN key AdminKey, and stops it when the test ends.
func New(t testing.TB) *Env {
	t.Helper()
	return NewWith(t, nil)
}

// TestLimits are the server's default limits without the rate limits, which
// the tests' bursts of requests (and of bad keys) would trip.
func TestLimits() server.Limits {
	l := server.DefaultLimits
	l.RatePerSecond = 0
	l.AuthFailuresPerSecond = 0
	return l
}

// NewWithLimits is New with the given abuse limits.
func NewWithLimits(t testing.TB, limits server.Limits) *Env {
	t.Helper()
	return NewWith(t, func(o *server.Options) { o.Limits = &limits })
}

// NewWith is New with server options changed by configure.
func NewWith(t testing.TB, configure func(*server.Options)) *Env {
	t.Helper()
	b, err := setup()
	if err != nil {
		t.Fatal(err)
	}
	return start(t, b, configure)
}

// NewVia is NewWith on PostgreSQL with the server's database URL passed
// through via first, e.g. to reach the database through a proxy that a
// fault test can cut. It skips the test on SQLite.
func NewVia(t testing.TB, via func(dsn string) string, configure func(*server.Options)) *Env {
	t.Helper()
	b, err := setup()
	if err != nil {
		t.Fatal(err)
	}
	if !b.postgres {
		t.Skip("needs PostgreSQL")
	}
	return startVia(t, b, via, configure)
}

// NewSQLite starts a server over a fresh embedded SQLite database, whatever
// the package's backend: the smoke tests of the default database.
func NewSQLite(t testing.TB) *Env {
	t.Helper()
	return start(t, &backend{}, nil)
}

func start(t testing.TB, b *backend, configure func(*server.Options)) *Env {
	t.Helper()
	return startVia(t, b, nil, configure)
}

func startVia(t testing.TB, b *backend, via func(string) string, configure func(*server.Options)) *Env {
	t.Helper()
	ctx := context.Background()
	var dsn string
	if b.postgres {
		schema := "t_" + randomHex(6)
		admin, err := sql.Open("pgx", b.baseURL)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
			t.Fatalf("creating schema: %v", err)
		}
		_ = admin.Close()
		dsn = withSearchPath(b.baseURL, schema)
		if via != nil {
			dsn = via(dsn)
		}
	} else {
		dsn = filepath.Join(t.TempDir(), "debtql.db")
	}
	statements := &Statements{}
	db, err := store.Open(ctx, dsn, store.WithDriver(statements.wrap), store.ObservePipelines(statements.count))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	// After the test (and its server: cleanups run last first), the counts
	// the database keeps must equal the rows, whatever the test did.
	t.Cleanup(func() { checkDebtCounts(t, db.SQL) })
	if b.postgres {
		t.Cleanup(func() { checkNameSuffixes(t, db.SQL) })
	}
	if _, err := auth.Bootstrap(ctx, db.Ent, AdminKey, io.Discard); err != nil {
		t.Fatal(err)
	}
	clock := &Clock{}
	logger := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	env := &Env{DB: db, Clock: clock, Postgres: b.postgres, Statements: statements, dsn: dsn}
	env.URL, env.Server = env.serve(t, logger, configure)
	return env
}

// serve starts a server over the Env's database.
func (e *Env) serve(t testing.TB, logger *slog.Logger, configure func(*server.Options)) (string, *server.Server) {
	limits := TestLimits()
	_, isBenchmark := t.(*testing.B)
	opts := server.Options{
		DB:       e.DB,
		Logger:   logger,
		Now:      e.Clock.Now,
		Location: Stockholm,
		Limits:   &limits,
		// In tests, every query the planned path answers is compared with
		// gqlgen's answer: the whole suite checks the planned path.
		// Benchmarks measure the server as it runs in production.
		CheckPlanned: !isBenchmark,
		// The tests' webhook receivers listen on 127.0.0.1 over http.
		WebhookPolicy: webhook.Policy{AllowInsecure: true},
	}
	if configure != nil {
		configure(&opts)
	}
	handler := server.New(opts)
	t.Cleanup(handler.Close)
	if e.Postgres && opts.DB == e.DB {
		// Its API key cache answers from the start, as a server that has
		// been running does (the statement counts of the tests rely on it).
		for deadline := time.Now().Add(10 * time.Second); !handler.KeyCacheLive(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the API key cache's listener did not connect in 10 s")
			}
		}
	}
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return srv.URL, handler
}

// KeyStatements is the number of statements a request spends reading its
// API key once the key has been used: 0 on PostgreSQL, where the server's
// key cache answers (auth.KeyCache, live before an Env serves), 1 on
// SQLite.
func (e *Env) KeyStatements() int {
	if e.Postgres {
		return 0
	}
	return 1
}

// Replica starts another server over the same database, as a second
// replica behind a load balancer would be, and returns an Env that calls it.
func (e *Env) Replica(t testing.TB, configure func(*server.Options)) *Env {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	// Its own pool and ent client, as another process has: a server
	// installs its tenant filter on its client, and the event feed reads
	// through it from the start.
	db, err := store.Open(context.Background(), e.dsn, store.WithDriver(e.Statements.wrap), store.ObservePipelines(e.Statements.count))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	r := *e
	r.DB = db
	r.URL, r.Server = r.serve(t, logger, configure)
	return &r
}

// PostgresSchema returns the URL of a fresh, empty schema in the package's
// throwaway PostgreSQL database (its search_path), for tests of the
// migrations themselves. It skips the test when the package runs on SQLite.
func PostgresSchema(t testing.TB) string {
	t.Helper()
	b, err := setup()
	if err != nil {
		t.Fatal(err)
	}
	if !b.postgres {
		t.Skip("needs PostgreSQL: the versioned migrations are PostgreSQL's")
	}
	schema := "t_" + randomHex(6)
	admin, err := sql.Open("pgx", b.baseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.ExecContext(context.Background(), "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("creating schema: %v", err)
	}
	return withSearchPath(b.baseURL, schema)
}

// PostgresDatabase creates a fresh, empty PostgreSQL database for the
// test, drops it when the test ends, and returns its URL: for Atlas's
// replay of the migration folder, which wants a whole database to itself.
// It skips the test when the package runs on SQLite.
func PostgresDatabase(t testing.TB) string {
	t.Helper()
	b, err := setup()
	if err != nil {
		t.Fatal(err)
	}
	if !b.postgres {
		t.Skip("needs PostgreSQL: the versioned migrations are PostgreSQL's")
	}
	admin, err := sql.Open("pgx", b.adminDB)
	if err != nil {
		t.Fatal(err)
	}
	name := b.dbName + "_" + randomHex(3)
	if _, err := admin.ExecContext(context.Background(), `CREATE DATABASE "`+name+`"`); err != nil {
		_ = admin.Close()
		t.Fatalf("creating database %s: %v", name, err)
	}
	t.Cleanup(func() {
		defer admin.Close()
		if _, err := admin.ExecContext(context.Background(), `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`); err != nil {
			t.Errorf("dropping database %s: %v", name, err)
		}
	})
	u, err := url.Parse(b.adminDB)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

func withSearchPath(base, schema string) string {
	u, _ := url.Parse(base)
	q := u.Query()
	q.Set("search_path", schema+",public") // public: the extensions (createDatabase)
	u.RawQuery = q.Encode()
	return u.String()
}

// testWriter sends the server's warnings and errors to the test log.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func mustWD() string {
	wd, err := os.Getwd()
	if err != nil {
		return "pkg"
	}
	return wd
}

func mustLocation(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

func redactURL(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return dsn
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// debtCountsDrift lists the clients whose debt_counts rows (summed over
// the shards) differ from their debts: the count and open count against
// the rows'.
const debtCountsDrift = `SELECT coalesce(c.client_id, d.client_id), coalesce(c.debts, 0), coalesce(c.open_debts, 0),
       coalesce(d.n, 0), coalesce(d.open, 0)
  FROM (SELECT client_id, sum(debts) AS debts, sum(open_debts) AS open_debts FROM debt_counts GROUP BY client_id) c
  FULL JOIN (SELECT client_id, count(*) AS n,
                    sum(CASE WHEN ` + collection.OpenCondition + ` THEN 1 ELSE 0 END) AS open
               FROM debts GROUP BY client_id) d ON d.client_id = c.client_id
 WHERE coalesce(c.debts, 0) <> coalesce(d.n, 0) OR coalesce(c.open_debts, 0) <> coalesce(d.open, 0)`

// checkDebtCounts fails t when debt_counts has drifted from the debts.
func checkDebtCounts(t testing.TB, db *sql.DB) {
	checkDrift(t, db, "debt counts", debtCountsDrift,
		"debt_counts of client %s: %s debts, %s open; the rows: %s debts, %s open")
}

// nameSuffixesDrift lists the rows by which debtor_name_suffixes differs
// from the suffixes of the debtors' name_key: "missing" from the table, or
// "extra" in it.
const nameSuffixesDrift = `WITH want AS (
  SELECT d.client_id, substr(d.name_key, i) AS suffix, d.id AS debtor_id
    FROM debtors d, generate_series(1, char_length(d.name_key)) AS i)
(SELECT 'missing', client_id, suffix, debtor_id FROM (SELECT * FROM want EXCEPT ALL SELECT * FROM ` + store.DebtorNameSuffixes + `) m)
UNION ALL
(SELECT 'extra', client_id, suffix, debtor_id FROM (SELECT * FROM ` + store.DebtorNameSuffixes + ` EXCEPT ALL SELECT * FROM want) x)
LIMIT 10`

// checkNameSuffixes fails t when the debtors' name suffixes (PostgreSQL)
// have drifted from their names.
func checkNameSuffixes(t testing.TB, db *sql.DB) {
	checkDrift(t, db, "name suffixes", nameSuffixesDrift,
		"debtor_name_suffixes: %s row (client %s, suffix %q, debtor %s)")
}

// checkDrift fails t with one message per row of query, a drift check
// that lists what the database keeps wrongly (no row: none), each row's
// columns filling format's verbs in order. A database the test has made
// unreachable is logged, not failed.
func checkDrift(t testing.TB, db *sql.DB, what, query, format string) {
	rows, err := db.QueryContext(context.Background(), query)
	if err != nil {
		t.Logf("%s not checked: %v", what, err)
		return
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	for rows.Next() {
		values := make([]string, len(cols))
		dest := make([]any, len(cols))
		for i := range values {
			dest[i] = &values[i]
		}
		if err := rows.Scan(dest...); err != nil {
			t.Errorf("%s: %v", what, err)
			return
		}
		args := make([]any, len(values))
		for i, v := range values {
			args[i] = v
		}
		t.Errorf(format, args...)
	}
	if err := rows.Err(); err != nil {
		t.Logf("%s not checked: %v", what, err)
	}
}
