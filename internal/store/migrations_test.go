package store_test

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"ariga.io/atlas/sql/migrate"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/store"
)

// emptyDatabase opens a fresh, empty PostgreSQL database (skipped on
// SQLite): Atlas's replay wants a database to itself.
func emptyDatabase(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", apitest.PostgresDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// emptySchema opens a fresh, empty PostgreSQL schema (skipped on SQLite).
func emptySchema(t *testing.T) (*sql.DB, string) {
	t.Helper()
	dsn := apitest.PostgresSchema(t)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db, dsn
}

// embedded copies the embedded migration folder, for a test to change.
func embedded(t *testing.T) *migrate.MemDir {
	t.Helper()
	dir, err := store.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func files(t *testing.T, dir migrate.Dir) []migrate.File {
	t.Helper()
	fs, err := dir.Files()
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// withFile is dir plus (or with a replaced) file name, re-hashed when
// rehash is set.
func withFile(t *testing.T, dir migrate.Dir, name, content string, rehash bool) *migrate.MemDir {
	t.Helper()
	out := &migrate.MemDir{}
	for _, f := range files(t, dir) {
		if err := out.WriteFile(f.Name(), f.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	if sum, err := fsRead(dir, migrate.HashFileName); err == nil {
		_ = out.WriteFile(migrate.HashFileName, sum)
	}
	if err := out.WriteFile(name, []byte(content)); err != nil {
		t.Fatal(err)
	}
	if rehash {
		if err := store.HashMigrations(out); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func fsRead(dir migrate.Dir, name string) ([]byte, error) {
	f, err := dir.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

func tables(t *testing.T, db *sql.DB) []string {
	t.Helper()
	return apitest.Strings(t, db, `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1`)
}

// TestMigrationsMatchEntSchema is CI's guard: the migration folder,
// replayed on an empty schema, must equal the ent schema.
func TestMigrationsMatchEntSchema(t *testing.T) {
	dev := emptyDatabase(t)
	dir := embedded(t)
	before := len(files(t, dir))
	err := store.DiffMigrations(context.Background(), dev, dir, "drift")
	if errors.Is(err, migrate.ErrNoPlan) {
		return
	}
	if err != nil {
		t.Fatalf("diffing the migration folder against the ent schema: %v", err)
	}
	var missing string
	for _, f := range files(t, dir)[before:] {
		missing += string(f.Bytes())
	}
	t.Fatalf("the ent schema (ent/schema) and the migration folder (%s) disagree.\n"+
		"Regenerate the migration and commit it:\n\n    go run ./internal/store/migrategen <name_of_the_change>\n\n"+
		"(see docs/operations.md, Migrations). The folder lacks:\n%s", store.MigrationsPath, missing)
}

// TestDriftIsDetected shows that the guard above can fail: a folder that
// lacks an index of the ent schema yields a migration creating it.
func TestDriftIsDetected(t *testing.T) {
	dev := emptyDatabase(t)
	dir := embedded(t)
	first := files(t, dir)[0]
	lines := strings.Split(strings.TrimRight(string(first.Bytes()), "\n"), "\n")
	dropped := lines[len(lines)-1] // the last statement: an index
	if !strings.HasPrefix(dropped, "CREATE ") || !strings.Contains(dropped, "INDEX") {
		t.Fatalf("expected the initial migration to end with an index, got %q", dropped)
	}
	short := withFile(t, dir, first.Name(), strings.Join(lines[:len(lines)-1], "\n")+"\n", true)
	before := len(files(t, short))
	if err := store.DiffMigrations(context.Background(), dev, short, "drift"); err != nil {
		t.Fatalf("want a new migration, got %v", err)
	}
	added := files(t, short)[before:]
	if len(added) != 1 || !strings.Contains(string(added[0].Bytes()), strings.TrimSuffix(dropped, ";")) {
		t.Fatalf("want one migration with %q, got %d files: %v", dropped, len(added), added)
	}
	if tb := tables(t, dev); len(tb) != 0 {
		t.Errorf("the dev schema is left with tables %v", tb)
	}
}

func TestApplyMigrationsAndStatus(t *testing.T) {
	ctx := context.Background()
	db, _ := emptySchema(t)
	all := files(t, embedded(t))

	st, err := store.Status(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Applied) != 0 || len(st.Pending) != len(all) || len(st.Unversioned) != 0 {
		t.Fatalf("fresh schema: want %d pending, none applied; got %+v", len(all), st)
	}
	// A baseline of an empty schema (the wrong database) is refused, and
	// records nothing that would block the plain migration after it.
	if _, err := store.ApplyMigrations(ctx, db, store.MigrateOptions{Baseline: all[0].Version()}); err == nil ||
		!strings.Contains(err.Error(), "without --baseline") {
		t.Fatalf("baseline of an empty schema: err = %v, want a refusal", err)
	}
	rep, err := store.ApplyMigrations(ctx, db, store.MigrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Applied) != len(all) || rep.Applied[0] != all[0].Name() {
		t.Fatalf("applied %v, want every file", rep.Applied)
	}
	st, err = store.Status(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Applied) != len(all) || len(st.Pending) != 0 || st.Applied[0].Version != all[0].Version() || st.Applied[0].AppliedAt.IsZero() {
		t.Fatalf("after up: %+v", st)
	}
	// Idempotent.
	rep, err = store.ApplyMigrations(ctx, db, store.MigrateOptions{})
	if err != nil || len(rep.Applied) != 0 {
		t.Fatalf("second up: applied %v, err %v", rep, err)
	}

	// A new file is pending, then applied.
	next := withFile(t, embedded(t), "29990101000000_add_notes.sql", "CREATE TABLE notes (id bigint PRIMARY KEY);\n", true)
	st, err = store.Status(ctx, db, next)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Pending) != 1 || st.Pending[0] != "29990101000000_add_notes.sql" {
		t.Fatalf("pending %v", st.Pending)
	}
	rep, err = store.ApplyMigrations(ctx, db, store.MigrateOptions{Dir: next})
	if err != nil || len(rep.Applied) != 1 {
		t.Fatalf("applying the new file: %v %v", rep, err)
	}
	// The older binary (the embedded folder) sees a version it does not know,
	// and runs anyway.
	rep, err = store.ApplyMigrations(ctx, db, store.MigrateOptions{})
	if err != nil || len(rep.Unknown) != 1 || rep.Unknown[0] != "29990101000000_add_notes.sql" {
		t.Fatalf("older folder: %+v %v", rep, err)
	}
}

func TestTamperedFolderIsRefused(t *testing.T) {
	ctx := context.Background()
	db, _ := emptySchema(t)
	first := files(t, embedded(t))[0]
	tampered := withFile(t, embedded(t), first.Name(), string(first.Bytes())+"DROP TABLE clients;\n", false)
	for _, op := range []string{"up", "status"} {
		var err error
		if op == "up" {
			_, err = store.ApplyMigrations(ctx, db, store.MigrateOptions{Dir: tampered})
		} else {
			_, err = store.Status(ctx, db, tampered)
		}
		if err == nil || !strings.Contains(err.Error(), "does not match its atlas.sum") || !strings.Contains(err.Error(), first.Name()) ||
			!strings.Contains(err.Error(), "migrategen hash") {
			t.Errorf("%s: want the atlas.sum refusal naming %s, got %v", op, first.Name(), err)
		}
	}
	// A file added without its sum is refused too.
	added := withFile(t, embedded(t), "29990101000000_sneaky.sql", "CREATE TABLE x (id int);\n", false)
	if _, err := store.ApplyMigrations(ctx, db, store.MigrateOptions{Dir: added}); err == nil || !strings.Contains(err.Error(), "29990101000000_sneaky.sql added") {
		t.Errorf("added file: %v", err)
	}
	if tb := tables(t, db); len(tb) != 0 {
		t.Errorf("a refused folder touched the database: %v", tb)
	}
	// The embedded folder itself is intact.
	if _, err := store.Status(ctx, db, nil); err != nil {
		t.Errorf("embedded folder: %v", err)
	}
}

func TestAppliedFileChangedIsRefused(t *testing.T) {
	ctx := context.Background()
	db, _ := emptySchema(t)
	if _, err := store.ApplyMigrations(ctx, db, store.MigrateOptions{}); err != nil {
		t.Fatal(err)
	}
	first := files(t, embedded(t))[0]
	edited := withFile(t, embedded(t), first.Name(), string(first.Bytes())+"-- an afterthought\n", true)
	_, err := store.ApplyMigrations(ctx, db, store.MigrateOptions{Dir: edited})
	if err == nil || !strings.Contains(err.Error(), "changed after they were applied") {
		t.Fatalf("want a refusal, got %v", err)
	}
}

func TestFailingMigrationIsRolledBack(t *testing.T) {
	ctx := context.Background()
	db, _ := emptySchema(t)
	bad := withFile(t, embedded(t), "29990101000000_bad.sql", "CREATE TABLE half (id int);\nSELECT 1/0;\n", true)
	rep, err := store.ApplyMigrations(ctx, db, store.MigrateOptions{Dir: bad})
	if err == nil || !strings.Contains(err.Error(), "29990101000000_bad.sql failed at line 2") {
		t.Fatalf("want the failure named, got %v", err)
	}
	if len(rep.Applied) != len(files(t, embedded(t))) {
		t.Errorf("the files before the failing one: applied %v", rep.Applied)
	}
	for _, tb := range tables(t, db) {
		if tb == "half" {
			t.Error("the failing migration's table was left behind")
		}
	}
	st, err := store.Status(ctx, db, bad)
	if err != nil || len(st.Pending) != 1 {
		t.Fatalf("the failing file must stay pending: %+v %v", st, err)
	}
}

// TestConcurrentMigrationsApplyOnce: two replicas starting at once.
func TestConcurrentMigrationsApplyOnce(t *testing.T) {
	ctx := context.Background()
	_, dsn := emptySchema(t)
	const n = 3
	reports := make([]*store.MigrationReport, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := sql.Open("pgx", dsn)
			if err != nil {
				errs[i] = err
				return
			}
			defer db.Close()
			reports[i], errs[i] = store.ApplyMigrations(ctx, db, store.MigrateOptions{})
		}()
	}
	wg.Wait()
	applied := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("replica %d: %v", i, errs[i])
		}
		applied += len(reports[i].Applied)
	}
	if want := len(files(t, embedded(t))); applied != want {
		t.Fatalf("files applied in all: %d, want %d (each once)", applied, want)
	}
}

// TestUnversionedDatabase: a database made by ent's automatic migration
// (an earlier DebtQL) is refused with instructions, and --baseline adopts it.
func TestUnversionedDatabase(t *testing.T) {
	ctx := context.Background()
	_, dsn := emptySchema(t)
	d, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	// The schema an earlier release's automatic migration made: that of
	// the first migration (the current ent schema has later tables, whose
	// migrations must still apply after the baseline).
	first := files(t, embedded(t))[0]
	if _, err := d.SQL.ExecContext(ctx, string(first.Bytes())); err != nil {
		t.Fatal(err)
	}
	_, err = store.ApplyMigrations(ctx, d.SQL, store.MigrateOptions{})
	if !errors.Is(err, store.ErrUnversioned) || !strings.Contains(err.Error(), "--baseline "+first.Version()) {
		t.Fatalf("want the refusal with instructions, got %v", err)
	}
	if _, err := store.ApplyMigrations(ctx, d.SQL, store.MigrateOptions{Baseline: "123"}); err == nil || !strings.Contains(err.Error(), "not the version of a migration file") {
		t.Fatalf("unknown baseline: %v", err)
	}
	rep, err := store.ApplyMigrations(ctx, d.SQL, store.MigrateOptions{Baseline: first.Version()})
	if err != nil || len(rep.Baselined) != 1 || rep.Baselined[0] != first.Name() {
		t.Fatalf("baseline: %+v %v", rep, err)
	}
	st, err := store.Status(ctx, d.SQL, nil)
	if err != nil || len(st.Pending) != 0 || !st.Applied[0].Baseline {
		t.Fatalf("after baseline: %+v %v", st, err)
	}
	if _, err := store.ApplyMigrations(ctx, d.SQL, store.MigrateOptions{Baseline: first.Version()}); err == nil {
		t.Fatal("a second baseline must be refused")
	}
}
