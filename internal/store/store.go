// Package store opens DebtQL's database, embedded SQLite or PostgreSQL,
// behind one ent client, and brings its schema up to date. It is the only
// package that knows which database is in use.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver "pgx"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	_ "modernc.org/sqlite" // pure-Go SQLite driver "sqlite"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/migrate"
	_ "github.com/debtql/debtql/ent/runtime" // defaults and hooks of ent/schema
	"github.com/debtql/debtql/internal/collection"
)

// DefaultSQLitePath is the embedded database used when no DATABASE_URL is set.
const DefaultSQLitePath = "./debtql.db"

// DB is an open database: ent over it and the pool under it. (Ent, not
// Client: in DebtQL a client is a creditor.)
type DB struct {
	Ent     *ent.Client
	SQL     *sql.DB
	Dialect string
	dsn     string
	wrap    func(dialect.Driver) dialect.Driver
	observe func(context.Context, string)
}

// Option changes how Open sets the database up.
type Option func(*options)

type options struct {
	wrap    func(dialect.Driver) dialect.Driver
	observe func(context.Context, string)
}

// WithDriver wraps the ent driver every query goes through, e.g. to count
// the SQL statements of a request (the statement-count tests do).
func WithDriver(wrap func(dialect.Driver) dialect.Driver) Option {
	return func(o *options) { o.wrap = wrap }
}

// ObservePipelines tells observe of each statement sent in a pipeline
// (BeginPiped, PipedTx.AtCommit), which no ent driver sees; BEGIN, COMMIT
// and ROLLBACK are not statements of the work and are left out, as the
// statement-count tests (which count the others with WithDriver's) leave
// them out.
func ObservePipelines(observe func(ctx context.Context, query string)) Option {
	return func(o *options) { o.observe = observe }
}

// Open opens the database named by url: a postgres:// or postgresql:// URL
// selects PostgreSQL through pgx; anything else is a SQLite file path (or a
// file: URI). It does not migrate; see Migrate.
func Open(ctx context.Context, dsn string, opts ...Option) (*DB, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	var (
		db   *sql.DB
		err  error
		kind string
	)
	switch {
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		kind = dialectPostgres
		db, err = sql.Open("pgx", dsn)
		if err == nil {
			n := poolSize()
			db.SetMaxOpenConns(n)
			// As many idle as open: at a steady load the pool keeps its
			// connections instead of closing and reopening them.
			db.SetMaxIdleConns(n)
			db.SetConnMaxIdleTime(5 * time.Minute)
		}
	default:
		kind = dialectSQLite
		db, err = sql.Open("sqlite", sqliteDSN(dsn))
		if err == nil {
			// One writer at a time is SQLite's nature; readers share the
			// file through WAL.
			db.SetMaxOpenConns(8)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("store: opening %s database: %w", kind, err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("store: connecting to the %s database: %w", kind, redact(err, dsn))
	}
	traced := newTracedDriver(entsql.OpenDB(kind, db))
	var drv dialect.Driver = traced
	if kind == dialectPostgres {
		drv = patternDriver{traced}
	}
	if o.wrap != nil {
		drv = o.wrap(drv)
	}
	return &DB{Ent: ent.NewClient(ent.Driver(drv)), SQL: db, Dialect: kind, dsn: dsn, wrap: o.wrap, observe: o.observe}, nil
}

// DefaultPoolSize is the most PostgreSQL connections a server opens, unless
// DEBTQL_DB_MAX_CONNS says otherwise.
const DefaultPoolSize = 20

// poolSize is DEBTQL_DB_MAX_CONNS when it is a positive number, else
// DefaultPoolSize.
func poolSize() int {
	if n, err := strconv.Atoi(os.Getenv("DEBTQL_DB_MAX_CONNS")); err == nil && n > 0 {
		return n
	}
	return DefaultPoolSize
}

// Connect opens a PostgreSQL connection of its own, outside the pool (to
// LISTEN on, say); the caller closes it.
func (d *DB) Connect(ctx context.Context) (*pgx.Conn, error) {
	if !d.IsPostgres() || d.dsn == "" {
		return nil, errors.New("store: Connect needs a PostgreSQL DB made by Open")
	}
	conn, err := pgx.Connect(ctx, d.dsn)
	if err != nil {
		return nil, redact(err, d.dsn)
	}
	return conn, nil
}

// PoolSize is the most connections the pool opens.
func (d *DB) PoolSize() int { return d.SQL.Stats().MaxOpenConnections }

const (
	dialectPostgres = dialect.Postgres
	dialectSQLite   = dialect.SQLite
)

// sqliteDSN adds the settings DebtQL needs to a SQLite path: foreign keys
// on, write transactions that take the write lock at BEGIN (so two writers
// never deadlock upgrading a read lock), a busy timeout instead of an
// immediate "database is locked", and WAL so readers do not block writers.
func sqliteDSN(path string) string {
	if path == "" {
		path = DefaultSQLitePath
	}
	base := path
	if !strings.HasPrefix(base, "file:") {
		base = "file:" + base
	}
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	q := url.Values{}
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	return base + sep + q.Encode()
}

// PostgresExtensions are the extensions the PostgreSQL schema needs:
// pg_trgm for trigram (substring search) indexes, btree_gin for client_id in
// the same GIN index. The migration search_extensions creates them.
var PostgresExtensions = []string{"pg_trgm", "btree_gin"}

// Migrate brings the schema up to date: on PostgreSQL by applying the
// embedded versioned migrations (ApplyMigrations), on SQLite by ent's
// automatic migration, which only adds (tables, columns, indexes).
func (d *DB) Migrate(ctx context.Context) error {
	_, err := d.MigrateUp(ctx, MigrateOptions{})
	return err
}

// MigrateUp is Migrate with options and a report of what it did. On SQLite
// it runs ent's automatic migration, installs the debt counts' triggers and
// inserts the shipped reference rates it lacks, and reports nothing; a
// baseline is refused there.
func (d *DB) MigrateUp(ctx context.Context, opts MigrateOptions) (*MigrationReport, error) {
	if d.IsPostgres() {
		return ApplyMigrations(ctx, d.SQL, opts)
	}
	if opts.Baseline != "" {
		return nil, errors.New("store: --baseline is for PostgreSQL; SQLite is migrated automatically")
	}
	if err := sqliteCollectionProcess(ctx, d.SQL); err != nil {
		return nil, fmt.Errorf("store: adding the collection process's columns: %w", err)
	}
	if err := sqliteLastPaymentOn(ctx, d.SQL); err != nil {
		return nil, fmt.Errorf("store: adding the debts' last payment day: %w", err)
	}
	if err := d.Ent.Schema.Create(ctx, migrate.WithForeignKeys(true)); err != nil {
		return nil, fmt.Errorf("store: migrating the schema: %w", err)
	}
	if err := sqliteDebtCounts(ctx, d.SQL); err != nil {
		return nil, fmt.Errorf("store: installing the debt counts: %w", err)
	}
	if err := sqliteWebhooks(ctx, d.SQL); err != nil {
		return nil, fmt.Errorf("store: installing the webhook queue: %w", err)
	}
	if err := sqliteReferenceRates(ctx, d.SQL); err != nil {
		return nil, fmt.Errorf("store: inserting the shipped reference rates: %w", err)
	}
	return &MigrationReport{}, nil
}

// DebtCounts is the table of the kept debt counts: per client (and, on
// PostgreSQL, per shard) its debts, its open debts (neither withdrawn nor
// paid in full: collection.OpenCondition) and its open debts in stage
// LEGAL (collection.LegalConditionOf), so that a list's totalCount over all
// of a client's debts, its open ones or its closed ones is read instead of
// counted (docs/decisions.md, "Debt counts"). A client's counts are the
// sums of its rows' columns: PostgreSQL keeps up to DebtCountShards rows
// per client (a transaction writes the row of its transaction id's shard,
// so that concurrent writers of one client do not queue on one row; the
// migration debt_count_shards), SQLite one.
//
// The database keeps it, not our code: triggers on debts (the migrations
// on PostgreSQL, sqliteDebtCounts on SQLite) change it in the transaction
// of every insert, update and delete of a debt, whoever writes, so that it
// cannot drift from the rows. It is not an ent entity (its key on
// PostgreSQL is two columns) and is not part of the GraphQL schema.
const (
	DebtCounts           = "debt_counts"
	DebtCountsClientID   = "client_id"
	DebtCountsDebts      = "debts"
	DebtCountsOpenDebts  = "open_debts"
	DebtCountsLegalDebts = "legal_debts"
	// DebtCountShards is the number of rows PostgreSQL keeps per client.
	DebtCountShards = 16
)

// sqliteDebtCountsTable is debt_counts on SQLite, as ent created it when it
// was an ent entity: one row per client.
const sqliteDebtCountsTable = `CREATE TABLE IF NOT EXISTS debt_counts (client_id text NOT NULL,
  debts integer NOT NULL, open_debts integer NOT NULL, legal_debts integer NOT NULL DEFAULT 0, PRIMARY KEY (client_id))`

// sqliteDebtCountTriggers keep debt_counts on SQLite as the migrations
// debt_count_triggers and collection_process do on PostgreSQL (SQLite
// triggers are per row).
var sqliteDebtCountTriggers = []string{
	`CREATE TRIGGER debts_count_insert AFTER INSERT ON debts BEGIN
	  INSERT INTO debt_counts (client_id, debts, open_debts, legal_debts)
	  VALUES (NEW.client_id, 1, ` + collection.OpenConditionOf("NEW") + `, ` + collection.LegalConditionOf("NEW") + `)
	  ON CONFLICT (client_id) DO UPDATE SET debts = debts + 1, open_debts = open_debts + excluded.open_debts,
	    legal_debts = legal_debts + excluded.legal_debts;
	END`,
	`CREATE TRIGGER debts_count_delete AFTER DELETE ON debts BEGIN
	  UPDATE debt_counts SET debts = debts - 1, open_debts = open_debts - ` + collection.OpenConditionOf("OLD") + `,
	    legal_debts = legal_debts - ` + collection.LegalConditionOf("OLD") + `
	   WHERE client_id = OLD.client_id;
	END`,
	`CREATE TRIGGER debts_count_update AFTER UPDATE OF client_id, charged_amount, paid_amount, withdrawn_at, payment_order_applied_at ON debts
	  WHEN OLD.client_id <> NEW.client_id OR ` + collection.OpenConditionOf("OLD") + ` <> ` + collection.OpenConditionOf("NEW") + `
	    OR ` + collection.LegalConditionOf("OLD") + ` <> ` + collection.LegalConditionOf("NEW") + ` BEGIN
	  UPDATE debt_counts SET debts = debts - 1, open_debts = open_debts - ` + collection.OpenConditionOf("OLD") + `,
	    legal_debts = legal_debts - ` + collection.LegalConditionOf("OLD") + `
	   WHERE client_id = OLD.client_id;
	  INSERT INTO debt_counts (client_id, debts, open_debts, legal_debts)
	  VALUES (NEW.client_id, 1, ` + collection.OpenConditionOf("NEW") + `, ` + collection.LegalConditionOf("NEW") + `)
	  ON CONFLICT (client_id) DO UPDATE SET debts = debts + 1, open_debts = open_debts + excluded.open_debts,
	    legal_debts = legal_debts + excluded.legal_debts;
	END`,
}

// sqliteDebtCounts creates debt_counts when it is missing (a new database:
// ent does not create it) and installs its triggers on a SQLite database
// whose triggers are not these (none, or an earlier version's) and counts
// the debts already there, in one transaction, so that the counts start
// equal to the rows; with the triggers in place it does nothing.
func sqliteDebtCounts(ctx context.Context, db *sql.DB) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if _, err := tx.ExecContext(ctx, sqliteDebtCountsTable); err != nil {
		return err
	}
	installed := map[string]bool{}
	rows, err := tx.QueryContext(ctx, "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'debts_count_%'")
	if err != nil {
		return err
	}
	for rows.Next() {
		var text string
		if err := rows.Scan(&text); err != nil {
			rows.Close()
			return err
		}
		installed[text] = true
	}
	if err := rows.Close(); err != nil {
		return err
	}
	current := len(installed) == len(sqliteDebtCountTriggers)
	for _, t := range sqliteDebtCountTriggers {
		current = current && installed[t]
	}
	if current {
		return tx.Rollback()
	}
	stmts := []string{"DROP TRIGGER IF EXISTS debts_count_insert", "DROP TRIGGER IF EXISTS debts_count_delete",
		"DROP TRIGGER IF EXISTS debts_count_update", "DELETE FROM debt_counts"}
	stmts = append(stmts, sqliteDebtCountTriggers...)
	stmts = append(stmts, `INSERT INTO debt_counts (client_id, debts, open_debts, legal_debts)
	  SELECT client_id, count(*), sum(`+collection.OpenConditionOf("debts")+`), sum(`+collection.LegalConditionOf("debts")+`)
	  FROM debts GROUP BY client_id`)
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// sqliteCollectionProcess adds the debts' columns of the collection
// process to a SQLite database of an earlier version, filled as the
// PostgreSQL migration collection_process fills them, before ent's
// automatic migration (which cannot add a NOT NULL column without a
// default to a table with rows). A new or current database is left alone.
func sqliteCollectionProcess(ctx context.Context, db *sql.DB) error {
	return sqliteUpgradeDebts(ctx, db, "charged_amount",
		"ALTER TABLE debts ADD COLUMN charged_amount integer NOT NULL DEFAULT 0",
		"ALTER TABLE debts ADD COLUMN demand_sent_at datetime NOT NULL DEFAULT '1900-01-01 00:00:00+00:00'",
		"ALTER TABLE debts ADD COLUMN interest_bearing bool NOT NULL DEFAULT false",
		`UPDATE debts SET charged_amount = original_amount + coalesce((SELECT sum(f.amount) FROM fees f WHERE f.debt_id = debts.id), 0),
		   demand_sent_at = created_at,
		   interest_bearing = interest_rule = 'STATUTORY' OR EXISTS (SELECT 1 FROM debt_invoices i WHERE i.debt_id = debts.id AND i.interest_rate > 0)`)
}

// sqliteLastPaymentOn adds debts.last_payment_on to a SQLite database of
// an earlier version, filled from the payments as the PostgreSQL migration
// add_debt_last_payment_on fills it (ent's automatic migration would add
// it empty). A new or current database is left alone.
func sqliteLastPaymentOn(ctx context.Context, db *sql.DB) error {
	return sqliteUpgradeDebts(ctx, db, "last_payment_on",
		"ALTER TABLE debts ADD COLUMN last_payment_on text NULL",
		"UPDATE debts SET last_payment_on = (SELECT max(p.transaction_date) FROM payments p WHERE p.debt_id = debts.id)")
}

// sqliteUpgradeDebts runs statements in one transaction when the debts
// table exists without column: a database of the version before it.
func sqliteUpgradeDebts(ctx context.Context, db *sql.DB, column string, statements ...string) error {
	var debts, current int
	if err := db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'debts'),
	  (SELECT count(*) FROM pragma_table_info('debts') WHERE name = ?)`, column).Scan(&debts, &current); err != nil {
		return err
	}
	if debts == 0 || current == 1 {
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for _, s := range statements {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			_ = tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}

// Ping reports whether the database answers within ctx.
func (d *DB) Ping(ctx context.Context) error { return d.SQL.PingContext(ctx) }

// Close closes the client and its pool.
func (d *DB) Close() error { return d.Ent.Close() }

// IsPostgres reports whether d is PostgreSQL.
func (d *DB) IsPostgres() bool { return d.Dialect == dialectPostgres }

// redact removes a password of dsn from err's text.
func redact(err error, dsn string) error {
	u, perr := url.Parse(dsn)
	if perr != nil || u.User == nil {
		return err
	}
	if pw, ok := u.User.Password(); ok && pw != "" {
		return errors.New(strings.ReplaceAll(err.Error(), pw, "xxxxx"))
	}
	return err
}

// TryLock takes a lock named by key for the rest of tx, without waiting, and
// reports whether it got it. On PostgreSQL it is a transaction-scoped
// advisory lock; on SQLite a write transaction already excludes every other
// writer, so it always succeeds.
func (d *DB) TryLock(ctx context.Context, tx *ent.Tx, key int64) (bool, error) {
	if !d.IsPostgres() {
		return true, nil
	}
	rows, err := tx.QueryContext(ctx, "SELECT pg_try_advisory_xact_lock($1)", key)
	if err != nil {
		return false, fmt.Errorf("store: taking advisory lock: %w", err)
	}
	defer rows.Close()
	var ok bool
	if rows.Next() {
		if err := rows.Scan(&ok); err != nil {
			return false, err
		}
	}
	return ok, rows.Err()
}

// Lock takes a lock named by key for the rest of tx, waiting for it. On
// PostgreSQL it is a transaction-scoped advisory lock; on SQLite the write
// transaction already holds the only write lock.
func (d *DB) Lock(ctx context.Context, tx *ent.Tx, key int64) error {
	if !d.IsPostgres() {
		return nil
	}
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", key); err != nil {
		return fmt.Errorf("store: taking advisory lock: %w", err)
	}
	return nil
}

// LockKeys takes advisory locks for the rest of the transaction in one
// statement, in the order given: shared locks on shared first, then
// exclusive locks on exclusive. Callers give the exclusive keys sorted, so
// that two transactions wanting overlapping sets take them in the same
// order and cannot deadlock on them. SQLite has no such locks; its write
// transactions already exclude every other writer.
//
// The same statement switches bitmap scans off for the rest of the
// transaction (enable_bitmapscan, SET LOCAL). A transaction that locks keys
// looks its rows up by those keys (debtors by identification key, debts'
// invoices by number), and those lookups belong on their btree indexes.
// The debtors' trigram indexes serve equality too (pg_trgm), through
// bitmap scans only, and a cached generic plan of "identification_key IN
// ($2, ...)" took one of them on a young table, reading its pending list:
// 4–8 ms a group of 16 createDebt calls and 1.7 s a batch of 500, against
// 0.04 and 0.9 ms on the unique index (docs/performance.md, "Bulk
// hand-over").
func (d *DB) LockKeys(ctx context.Context, tx *ent.Tx, shared, exclusive []int64) error {
	if !d.IsPostgres() || len(shared)+len(exclusive) == 0 {
		return nil
	}
	p := &Pipeline{}
	d.QueueLockKeys(p, shared, exclusive)
	if err := p.RunIn(ctx, tx); err != nil {
		return fmt.Errorf("store: taking advisory locks: %w", err)
	}
	return nil
}

// QueueLockKeys queues LockKeys's statement on p (PostgreSQL): the keys,
// shared first, each with whether it is taken shared. unnest yields the
// rows in the arrays' order, and each row takes its lock before the next
// is read.
func (d *DB) QueueLockKeys(p *Pipeline, shared, exclusive []int64) {
	if len(shared)+len(exclusive) == 0 {
		return
	}
	keys := append(append(make([]int64, 0, len(shared)+len(exclusive)), shared...), exclusive...)
	modes := make([]bool, len(keys))
	for i := range shared {
		modes[i] = true
	}
	p.Exec(`SELECT set_config('enable_bitmapscan', 'off', true),
       CASE WHEN s THEN pg_advisory_xact_lock_shared(k) ELSE pg_advisory_xact_lock(k) END
  FROM unnest($1::bigint[], $2::boolean[]) AS l(k, s)`, keys, modes)
}

// LockRows makes a query lock the rows it reads until the transaction ends:
// FOR UPDATE on PostgreSQL. SQLite has no row locks; its write transactions
// (BEGIN IMMEDIATE) already exclude every other writer.
func (d *DB) LockRows(s *entsql.Selector) {
	if d.IsPostgres() {
		s.ForUpdate()
	}
}

// PoolCollector reports the connection pool's statistics to Prometheus at
// each scrape: go_sql_open_connections, go_sql_in_use_connections,
// go_sql_idle_connections, go_sql_wait_count_total,
// go_sql_wait_duration_seconds_total and more (label db_name="debtql").
func (d *DB) PoolCollector() prometheus.Collector {
	return collectors.NewDBStatsCollector(d.SQL, "debtql")
}
