package seed

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"iter"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
	"github.com/debtql/debtql/internal/store"
)

// Tables are DebtQL's tables, children first: the order in which they are
// emptied. (The tables of other applications in the database are never
// touched.) A reset empties the audit trail too: it replaces the whole
// data set, and debt ids start again at 1, so old events would otherwise
// join new debts' timelines.
var Tables = []string{
	"audit_event_records", "audit_events",
	"payments", "fees", "debt_steps", "debt_invoices", "debt_counts", "debts", "invoice_articles", "invoices", "debtors",
	"idempotency_records", "api_keys", "clients",
}

// dataTables are the tables a reset empties whole: all but the API keys and
// the clients, which follow them.
var dataTables = Tables[:len(Tables)-2]

// sequences are the tables whose integer ids the seed sets explicitly.
var sequences = []string{"invoice_articles", "debts", "debt_invoices", "payments"}

// ErrNotEmpty is returned when the database already has clients and the
// seed was not asked to reset it.
var ErrNotEmpty = errors.New("the database already has clients")

// Options are how to seed, beyond what to generate.
type Options struct {
	// Reset deletes the clients and every row that belongs to them (their
	// CLIENT keys and the audit trail included; ADMIN keys are kept) before
	// seeding; without it a database with clients is refused with
	// ErrNotEmpty.
	Reset bool
	// Progress, when set, receives a line per table loaded.
	Progress io.Writer
}

// TableCount is the number of rows of one table after seeding.
type TableCount struct {
	Table string
	Rows  int64
}

// Outcomes counts the debts by their state at the as-of date.
type Outcomes struct {
	DemandSent, DemandExpired, PaidInFull, Withdrawn int
	PartlyPaid                                       int // open debts with payments
}

// Summary is what a seed did.
type Summary struct {
	Dialect string
	Config  Config
	// Deleted is the number of clients and API keys that Reset deleted.
	DeletedClients, DeletedKeys int64
	Counts                      []TableCount
	HotClientID                 string
	HotClientNumber             int
	HotClientName               string
	HotDebts                    int
	Debts                       Outcomes
	Elapsed                     time.Duration
}

// Run migrates the database and loads the data cfg describes, all in one
// transaction: PostgreSQL by COPY (then ANALYZE), SQLite by batched INSERTs.
func Run(ctx context.Context, db *store.DB, cfg Config, opts Options) (*Summary, error) {
	start := time.Now()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		return nil, err
	}
	g := newGenerator(cfg)
	hot := g.client(1)
	sum := &Summary{
		Dialect: db.Dialect, Config: cfg,
		HotClientID: hot.id, HotClientNumber: hot.number, HotClientName: hot.name,
		HotDebts: g.hotCount(cfg.Debts),
	}
	tables := g.tables()
	// Tally the debts' outcomes as they stream past (on the loading
	// goroutine: tap runs in order).
	now := collection.Now{Today: cfg.AsOf, Location: stockholm}
	for n, t := range tables {
		if t.name == "debts" {
			tables[n].tap = func(row []any) { tally(&sum.Debts, row, now) }
		}
	}
	var err error
	if db.IsPostgres() {
		var suffixes table
		for n, t := range tables {
			if t.name == "debtors" {
				suffixes, tables[n].tap = g.nameSuffixes(t.cols)
			}
		}
		err = loadPostgres(ctx, db, tables, suffixes, opts, sum)
	} else {
		err = loadSQLite(ctx, db, tables, opts, sum)
	}
	if err != nil {
		return nil, err
	}
	if db.IsPostgres() {
		if _, err := db.SQL.ExecContext(ctx, "ANALYZE "+strings.Join(Tables, ", ")); err != nil {
			return nil, fmt.Errorf("seed: analyzing: %w", err)
		}
	}
	for _, name := range loadOrder(tables) {
		var n int64
		if err := db.SQL.QueryRowContext(ctx, "SELECT count(*) FROM "+name).Scan(&n); err != nil {
			return nil, fmt.Errorf("seed: counting %s: %w", name, err)
		}
		sum.Counts = append(sum.Counts, TableCount{Table: name, Rows: n})
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// tally counts a debts row (the columns of the debts table) by its state.
func tally(o *Outcomes, row []any, now collection.Now) {
	p := collection.ProjectDebt(collection.DebtFacts{
		Charged:      collection.Money(row[9].(int64)),
		Paid:         collection.Money(row[4].(int64)),
		Withdrawn:    row[5] != nil,
		CreatedAt:    row[1].(time.Time),
		DemandSentAt: row[10].(time.Time),
	}, now)
	switch p.Under {
	case collection.SubWithdrawn:
		o.Withdrawn++
	case collection.SubPaidInFull:
		o.PaidInFull++
	case collection.SubDemandSent:
		o.DemandSent++
	case collection.SubDemandExpired:
		o.DemandExpired++
	}
	if p.Main == collection.StageCollection && p.Payment == collection.PartiallyPaid {
		o.PartlyPaid++
	}
}

func loadOrder(tables []table) []string {
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.name
	}
	return names
}

// execer is what prepare needs of a transaction on either database.
type execer interface {
	exec(ctx context.Context, query string) error
	count(ctx context.Context, table string) (int64, error)
}

// prepare refuses a database with clients unless opts.Reset, and with it
// empties DebtQL's tables.
func prepare(ctx context.Context, x execer, opts Options, sum *Summary, postgres bool) error {
	clients, err := x.count(ctx, "clients")
	if err != nil {
		return err
	}
	if clients > 0 && !opts.Reset {
		return fmt.Errorf("%w (%d): seeding adds to an empty database only; --reset deletes the clients and every row that belongs to them (%s; ADMIN keys are kept) first",
			ErrNotEmpty, clients, strings.Join(dataTables, ", "))
	}
	if !opts.Reset {
		return nil
	}
	keys, err := x.count(ctx, "api_keys WHERE role = 'CLIENT'")
	if err != nil {
		return err
	}
	sum.DeletedClients, sum.DeletedKeys = clients, keys
	if postgres {
		// No CASCADE: a foreign table that refers to ours makes this fail
		// rather than be emptied too.
		if err := x.exec(ctx, "TRUNCATE TABLE "+strings.Join(dataTables, ", ")+" RESTART IDENTITY"); err != nil {
			return err
		}
	} else {
		for _, t := range dataTables {
			if err := x.exec(ctx, "DELETE FROM "+t); err != nil {
				return err
			}
		}
	}
	// ADMIN keys survive a reset: they belong to the operator, not to the
	// data. CLIENT keys go with their clients.
	if err := x.exec(ctx, "DELETE FROM api_keys WHERE role = 'CLIENT'"); err != nil {
		return err
	}
	if err := x.exec(ctx, "DELETE FROM clients"); err != nil {
		return err
	}
	if postgres {
		return nil
	}
	// AUTOINCREMENT counters restart too (the table exists once an
	// AUTOINCREMENT table does, which ent's migration creates).
	return x.exec(ctx, "DELETE FROM sqlite_sequence WHERE name IN ('"+strings.Join(dataTables, "', '")+"')")
}

func progress(opts Options, name string, rows int64, since time.Time) {
	if opts.Progress != nil {
		fmt.Fprintf(opts.Progress, "  %-17s %10d rows  %6.1fs\n", name, rows, time.Since(since).Seconds())
	}
}

// ---------------------------------------------------------------- PostgreSQL

type pgExecer struct{ tx pgx.Tx }

func (x pgExecer) exec(ctx context.Context, query string) error {
	_, err := x.tx.Exec(ctx, query)
	return err
}

func (x pgExecer) count(ctx context.Context, table string) (int64, error) {
	var n int64
	err := x.tx.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n)
	return n, err
}

// loadPostgres copies the tables in with COPY, on one pgx connection taken
// from the pool, in one transaction, and moves the id sequences past the
// ids it set. The debtors' name suffixes, which a trigger would make from
// the debtors' COPY, are copied in last from suffixes (nameSuffixes),
// with that trigger off until then.
func loadPostgres(ctx context.Context, db *store.DB, tables []table, suffixes table, opts Options, sum *Summary) error {
	tables = append(slices.Clip(tables), suffixes)
	conn, err := db.SQL.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(driverConn any) error {
		sc, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("seed: the PostgreSQL driver is %T, not pgx", driverConn)
		}
		tx, err := sc.Conn().Begin(ctx)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback(ctx) }()
		if err := prepare(ctx, pgExecer{tx}, opts, sum, true); err != nil {
			return err
		}
		restore, err := dropSecondary(ctx, tx, loadOrder(tables), derivedTables)
		if err != nil {
			return err
		}
		for _, trigger := range loadTriggers {
			if _, err := tx.Exec(ctx, "ALTER TABLE debtors DISABLE TRIGGER "+trigger); err != nil {
				return err
			}
		}
		for _, t := range tables {
			started := time.Now()
			names := make([]string, len(t.cols))
			for i, c := range t.cols {
				names[i] = c.name
			}
			src := newCopySource(t)
			n, err := tx.CopyFrom(ctx, pgx.Identifier{t.name}, names, src)
			src.stop()
			if err != nil {
				return fmt.Errorf("seed: copying %s: %w", t.name, err)
			}
			progress(opts, t.name, n, started)
		}
		for _, trigger := range loadTriggers {
			if _, err := tx.Exec(ctx, "ALTER TABLE debtors ENABLE TRIGGER "+trigger); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, loadedVersions); err != nil {
			return fmt.Errorf("seed: writing the debtors' versions: %w", err)
		}
		started := time.Now()
		for _, stmt := range restore {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("seed: restoring an index or foreign key (%s): %w", stmt, err)
			}
		}
		progress(opts, "indexes and keys", int64(len(restore)), started)
		for _, t := range sequences {
			q := fmt.Sprintf("SELECT setval(pg_get_serial_sequence('%s', 'id'), COALESCE((SELECT max(id) FROM %s), 0) + 1, false)", t, t)
			if _, err := tx.Exec(ctx, q); err != nil {
				return fmt.Errorf("seed: moving the id sequence of %s: %w", t, err)
			}
		}
		return tx.Commit(ctx)
	})
}

// loadTriggers are the triggers on debtors that the PostgreSQL load turns
// off for its COPY: the name suffixes' (which it loads itself, see
// nameSuffixes) and the debtors' changes' (whose trigger would hold every
// loaded debtor in its transition table; loadedVersions writes the same
// versions' worth at once).
var loadTriggers = []string{nameSuffixTrigger, "debtors_changes_insert"}

// loadedVersions gives every client a new version of its debtors
// (store.DebtorChanges), as the insert trigger would have: a change in the
// load's transaction, written by the migration debtor_changes' function.
const loadedVersions = `SELECT debtql_debtor_changed(id, 1) FROM clients`

// derivedTables are the tables that triggers fill from other tables
// (debtor_name_suffixes: every suffix of every debtor's name, 14 rows a
// debtor), which the load fills itself. Their primary keys are dropped
// during the load too: at the bench10 scale, 29 million suffixes inserted
// into their key's btree one by one took longer than the rest of the load,
// and one build of the key afterwards takes a fraction of that.
var derivedTables = []string{store.DebtorNameSuffixes}

// dropSecondary drops the foreign keys and the indexes other than primary
// keys of the tables about to be loaded, and the primary keys of the
// derived tables, and returns the statements that recreate them exactly as
// they were (from PostgreSQL's own definitions). Building an index once
// over loaded rows, and checking a foreign key with one join, is several
// times faster than maintaining them row by row. It runs in the load's
// transaction: a failed load restores them with the rest.
func dropSecondary(ctx context.Context, tx pgx.Tx, tables, derived []string) ([]string, error) {
	const ours = `(SELECT to_regclass(t) FROM unnest($1::text[]) AS t)`
	var restore, drop []string
	// Foreign keys first (to drop; to restore, last): a key of a derived
	// table may not be referred to while it is gone.
	rows, err := tx.Query(ctx, `
		SELECT format('ALTER TABLE %s DROP CONSTRAINT %I', conrelid::regclass, conname),
		       format('ALTER TABLE %s ADD CONSTRAINT %I %s', conrelid::regclass, conname, pg_get_constraintdef(oid)),
		       contype = 'f'
		FROM pg_constraint
		WHERE contype = 'f' AND conrelid IN `+ours+`
		   OR contype = 'p' AND conrelid IN (SELECT to_regclass(t) FROM unnest($2::text[]) AS t)
		ORDER BY contype = 'p', conname`, tables, derived)
	if err != nil {
		return nil, fmt.Errorf("seed: reading foreign and derived tables' keys: %w", err)
	}
	var fkeys []string
	for rows.Next() {
		var d, r string
		var foreign bool
		if err := rows.Scan(&d, &r, &foreign); err != nil {
			return nil, err
		}
		drop = append(drop, d)
		if foreign {
			fkeys = append(fkeys, r)
		} else {
			restore = append(restore, r)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Indexes that back a constraint (primary keys, unique constraints)
	// stay.
	rows, err = tx.Query(ctx, `
		SELECT format('DROP INDEX %s', i.indexrelid::regclass), pg_get_indexdef(i.indexrelid)
		FROM pg_index i
		WHERE i.indrelid IN `+ours+` AND NOT i.indisprimary
		  AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
		ORDER BY i.indexrelid::regclass::text`, tables)
	if err != nil {
		return nil, fmt.Errorf("seed: reading indexes: %w", err)
	}
	for rows.Next() {
		var d, r string
		if err := rows.Scan(&d, &r); err != nil {
			return nil, err
		}
		drop, restore = append(drop, d), append(restore, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, stmt := range drop {
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return nil, fmt.Errorf("seed: %s: %w", stmt, err)
		}
	}
	// Index builds sort, a GIN build collects its entries, and a foreign
	// key's check joins two whole tables in this memory: give them enough
	// for this transaction only.
	for _, set := range []string{"SET LOCAL maintenance_work_mem = '512MB'", "SET LOCAL work_mem = '256MB'"} {
		if _, err := tx.Exec(ctx, set); err != nil {
			return nil, err
		}
	}
	return append(restore, fkeys...), nil
}

// copySource feeds a table's rows to CopyFrom, converting UUIDs and dates
// to pgx's types.
type copySource struct {
	cols []column
	next func() ([]any, bool)
	stop func()
	row  []any
	err  error
}

func newCopySource(t table) *copySource {
	next, stop := iter.Pull(t.stream(runtime.GOMAXPROCS(0)))
	return &copySource{cols: t.cols, next: next, stop: stop}
}

func (s *copySource) Next() bool {
	row, ok := s.next()
	if !ok {
		return false
	}
	for i, c := range s.cols {
		if row[i] == nil {
			continue
		}
		switch c.kind {
		case uuidColumn:
			u, err := pgUUID(row[i].(string))
			if err != nil {
				s.err = err
				return false
			}
			row[i] = u
		case dateColumn:
			row[i] = pgtype.Date{Time: row[i].(scalar.Date).Start(time.UTC), Valid: true}
		}
	}
	s.row = row
	return true
}

func (s *copySource) Values() ([]any, error) { return s.row, nil }
func (s *copySource) Err() error             { return s.err }

func pgUUID(s string) (pgtype.UUID, error) {
	var u pgtype.UUID
	h := strings.ReplaceAll(s, "-", "")
	if len(h) != 32 {
		return u, fmt.Errorf("seed: bad UUID %q", s)
	}
	if _, err := hex.Decode(u.Bytes[:], []byte(h)); err != nil {
		return u, fmt.Errorf("seed: bad UUID %q: %w", s, err)
	}
	u.Valid = true
	return u, nil
}

// ---------------------------------------------------------------- SQLite

type sqlExecer struct{ tx *sql.Tx }

func (x sqlExecer) exec(ctx context.Context, query string) error {
	_, err := x.tx.ExecContext(ctx, query)
	return err
}

func (x sqlExecer) count(ctx context.Context, table string) (int64, error) {
	var n int64
	err := x.tx.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n)
	return n, err
}

// sqliteMaxParams stays below SQLite's limit of bound parameters per
// statement (32,766).
const sqliteMaxParams = 32000

// loadSQLite inserts the tables with multi-row INSERTs in one transaction.
func loadSQLite(ctx context.Context, db *store.DB, tables []table, opts Options, sum *Summary) error {
	tx, err := db.SQL.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := prepare(ctx, sqlExecer{tx}, opts, sum, false); err != nil {
		return err
	}
	for _, t := range tables {
		started := time.Now()
		n, err := insertBatches(ctx, tx, t)
		if err != nil {
			return fmt.Errorf("seed: inserting %s: %w", t.name, err)
		}
		progress(opts, t.name, n, started)
	}
	return tx.Commit()
}

func insertBatches(ctx context.Context, tx *sql.Tx, t table) (int64, error) {
	perBatch := min(sqliteMaxParams/len(t.cols), 1000)
	names := make([]string, len(t.cols))
	for i, c := range t.cols {
		names[i] = c.name
	}
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(t.cols)), ", ") + ")"
	statement := func(rows int) string {
		return "INSERT INTO " + t.name + " (" + strings.Join(names, ", ") + ") VALUES " +
			strings.TrimSuffix(strings.Repeat(one+", ", rows), ", ")
	}
	full, err := tx.PrepareContext(ctx, statement(perBatch))
	if err != nil {
		return 0, err
	}
	defer full.Close()
	var (
		args  = make([]any, 0, perBatch*len(t.cols))
		rows  int
		total int64
	)
	flush := func() error {
		if rows == 0 {
			return nil
		}
		var err error
		if rows == perBatch {
			_, err = full.ExecContext(ctx, args...)
		} else {
			_, err = tx.ExecContext(ctx, statement(rows), args...)
		}
		total += int64(rows)
		args, rows = args[:0], 0
		return err
	}
	for row := range t.stream(1) {
		args = append(args, row...)
		rows++
		if rows == perBatch {
			if err := flush(); err != nil {
				return total, err
			}
		}
	}
	return total, flush()
}
