package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"ariga.io/atlas/sql/migrate"
	entsql "entgo.io/ent/dialect/sql"
	"entgo.io/ent/dialect/sql/schema"

	entmigrate "github.com/debtql/debtql/ent/migrate"
)

// The versioned migrations of PostgreSQL: SQL files named VERSION_NAME.sql
// in Atlas's format, with Atlas's integrity file atlas.sum, embedded in the
// binary. They are generated from the ent schema by
// `go run ./internal/store/migrategen NAME` (see docs/operations.md).
//
//go:embed migrations/postgres
var migrationsFS embed.FS

// MigrationsPath is the folder of the migration files in the source tree.
const MigrationsPath = "internal/store/migrations/postgres"

// RevisionTable records the migrations applied to a PostgreSQL schema.
const RevisionTable = "debtql_schema_migrations"

// Migrations returns the embedded migration folder. It does not validate
// it; ApplyMigrations and MigrationStatus do.
func Migrations() (*migrate.MemDir, error) {
	sub, err := fs.Sub(migrationsFS, "migrations/postgres")
	if err != nil {
		return nil, err
	}
	return DirFromFS(sub)
}

// DirFromFS copies the files of fsys (a migration folder) into an Atlas
// in-memory folder.
func DirFromFS(fsys fs.FS) (*migrate.MemDir, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	dir := &migrate.MemDir{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, err
		}
		if err := dir.WriteFile(e.Name(), b); err != nil {
			return nil, err
		}
	}
	return dir, nil
}

// ValidateMigrations refuses a migration folder whose files do not match
// its atlas.sum: a file edited, added or removed without regenerating the
// sum.
func ValidateMigrations(dir migrate.Dir) error {
	err := migrate.Validate(dir)
	if err == nil {
		return nil
	}
	var ce *migrate.ChecksumError
	switch {
	case errors.As(err, &ce):
		return fmt.Errorf("store: the migration folder does not match its atlas.sum (%s %s): "+
			"it was changed by hand; refusing to migrate. A developer regenerates the sum with "+
			"`go run ./internal/store/migrategen hash` after reviewing the change", ce.File, ce.Reason)
	case errors.Is(err, migrate.ErrChecksumNotFound):
		return fmt.Errorf("store: the migration folder has no atlas.sum; refusing to migrate " +
			"(`go run ./internal/store/migrategen hash` writes it)")
	default:
		return fmt.Errorf("store: validating the migration folder: %w", err)
	}
}

// AppliedMigration is a row of the revision table.
type AppliedMigration struct {
	Version   string
	Name      string
	Hash      string
	AppliedAt time.Time
	// Baseline marks a migration recorded as applied without running it
	// (MigrateOptions.Baseline).
	Baseline bool
}

// MigrationStatus compares a database with a migration folder.
type MigrationStatus struct {
	// Applied are the migrations recorded in the database, oldest first.
	Applied []AppliedMigration
	// Pending are the folder's files not applied yet, in order.
	Pending []string
	// Unknown are applied versions the folder does not have: the database
	// was migrated by a newer DebtQL.
	Unknown []string
	// Changed are applied files whose content differs from when they ran.
	Changed []string
	// Unversioned is set when the schema has tables but no migration
	// history: it was created by ent's automatic migration (an earlier
	// DebtQL), see MigrateOptions.Baseline.
	Unversioned []string
}

// MigrateOptions change ApplyMigrations.
type MigrateOptions struct {
	// Dir is the migration folder; the embedded one when nil.
	Dir migrate.Dir
	// Baseline, on a database without migration history, records the
	// folder's files up to this version as applied without running them,
	// then applies the rest. It is for databases created by ent's
	// automatic migration of the DebtQL release that the baseline file
	// describes.
	Baseline string
}

// MigrationReport tells what ApplyMigrations did.
type MigrationReport struct {
	// Applied are the files run, in order.
	Applied []string
	// Baselined are the files recorded without running them.
	Baselined []string
	// Unknown are applied versions newer than this binary knows.
	Unknown []string
}

// advisoryLockSQL names the lock that serialises migrations of one schema:
// two replicas starting at once wait for each other instead of both
// applying. Schemas of one database (the tests') do not wait for each other.
const advisoryLockSQL = "SELECT pg_advisory_lock(hashtextextended('debtql migrations ' || current_schema(), 0))"
const advisoryUnlockSQL = "SELECT pg_advisory_unlock(hashtextextended('debtql migrations ' || current_schema(), 0))"

// fileHash is the SHA-256 of a migration file, recorded when it is applied.
func fileHash(f migrate.File) string {
	sum := sha256.Sum256(f.Bytes())
	return base64.StdEncoding.EncodeToString(sum[:])
}

// ApplyMigrations brings a PostgreSQL schema up to date with a migration
// folder. It refuses a folder that does not match its atlas.sum, a
// database whose applied files have changed, and a database with tables but
// no migration history (unless opts.Baseline). It holds an advisory lock
// throughout, and applies each pending file in its own transaction with
// its revision row, so a failure leaves the files before it applied and
// nothing of the failing one.
func ApplyMigrations(ctx context.Context, db *sql.DB, opts MigrateOptions) (*MigrationReport, error) {
	files, err := migrationFiles(opts.Dir)
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: migrating: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, advisoryLockSQL); err != nil {
		return nil, fmt.Errorf("store: taking the migration lock: %w", err)
	}
	defer func() {
		// A fresh context: the lock must go even when ctx was cancelled
		// (and closing the connection releases it anyway).
		unlockCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _ = conn.ExecContext(unlockCtx, advisoryUnlockSQL)
	}()
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+RevisionTable+` (
	version    text PRIMARY KEY,
	name       text NOT NULL,
	hash       text NOT NULL,
	applied_at timestamptz NOT NULL DEFAULT now(),
	baseline   boolean NOT NULL DEFAULT false
)`); err != nil {
		return nil, fmt.Errorf("store: creating the revision table %s: %w", RevisionTable, err)
	}
	st, err := status(ctx, conn, files)
	if err != nil {
		return nil, err
	}
	report := &MigrationReport{Unknown: st.Unknown}
	var pending []migrate.File
	switch {
	case len(st.Changed) > 0:
		return nil, fmt.Errorf("store: migration files were changed after they were applied to this database: %s; "+
			"an applied migration must never change: restore it and add a new migration instead", strings.Join(st.Changed, ", "))
	case len(st.Unversioned) > 0 && opts.Baseline == "":
		return nil, unversionedError(st.Unversioned, files)
	case opts.Baseline != "" && len(st.Applied) > 0:
		return nil, fmt.Errorf("store: --baseline is only for a database without migration history, and this one has %d applied migrations", len(st.Applied))
	case opts.Baseline != "" && len(st.Unversioned) == 0:
		// Nothing here was made by an earlier DebtQL: recording files as
		// applied would leave an empty schema that later files cannot
		// build on. Plain `migrate up` creates the schema.
		return nil, errors.New("store: --baseline is for a database that an earlier DebtQL created (it has DebtQL's tables), and this one has none: run `debtql migrate up` without --baseline")
	case opts.Baseline != "":
		n := -1
		for i, f := range files {
			if f.Version() == opts.Baseline {
				n = i
			}
		}
		if n < 0 {
			return nil, fmt.Errorf("store: --baseline %s is not the version of a migration file (%s)", opts.Baseline, versions(files))
		}
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return nil, err
		}
		for _, f := range files[:n+1] {
			if err := recordRevision(ctx, tx, f, true); err != nil {
				_ = tx.Rollback()
				return nil, err
			}
			report.Baselined = append(report.Baselined, f.Name())
		}
		if err := tx.Commit(); err != nil {
			return nil, fmt.Errorf("store: recording the baseline: %w", err)
		}
		pending = files[n+1:]
	default:
		pending = pendingFiles(files, st)
	}
	for _, f := range pending {
		if err := applyFile(ctx, conn, f); err != nil {
			return report, err
		}
		report.Applied = append(report.Applied, f.Name())
	}
	return report, nil
}

// applyFile runs one migration file and records it, in one transaction.
func applyFile(ctx context.Context, conn *sql.Conn, f migrate.File) error {
	stmts, err := f.StmtDecls()
	if err != nil {
		return fmt.Errorf("store: reading migration %s: %w", f.Name(), err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: migration %s: %w", f.Name(), err)
	}
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s.Text); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("store: migration %s failed at line %d and was rolled back: %w", f.Name(), lineOf(f.Bytes(), s.Pos), err)
		}
	}
	if err := recordRevision(ctx, tx, f, false); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: migration %s: committing: %w", f.Name(), err)
	}
	return nil
}

func recordRevision(ctx context.Context, tx *sql.Tx, f migrate.File, baseline bool) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+RevisionTable+` (version, name, hash, baseline) VALUES ($1, $2, $3, $4)`,
		f.Version(), f.Desc(), fileHash(f), baseline); err != nil {
		return fmt.Errorf("store: recording migration %s: %w", f.Name(), err)
	}
	return nil
}

func lineOf(b []byte, pos int) int {
	if pos > len(b) {
		pos = len(b)
	}
	return 1 + strings.Count(string(b[:pos]), "\n")
}

// Status compares the database with a migration folder (the embedded one
// when dir is nil). It changes nothing; without a revision table every
// file is pending.
func Status(ctx context.Context, db *sql.DB, dir migrate.Dir) (*MigrationStatus, error) {
	files, err := migrationFiles(dir)
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return status(ctx, conn, files)
}

func migrationFiles(dir migrate.Dir) ([]migrate.File, error) {
	if dir == nil {
		d, err := Migrations()
		if err != nil {
			return nil, fmt.Errorf("store: reading the embedded migrations: %w", err)
		}
		dir = d
	}
	if err := ValidateMigrations(dir); err != nil {
		return nil, err
	}
	files, err := dir.Files()
	if err != nil {
		return nil, fmt.Errorf("store: reading the migration folder: %w", err)
	}
	return files, nil
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func status(ctx context.Context, q querier, files []migrate.File) (*MigrationStatus, error) {
	st := &MigrationStatus{}
	var exists bool
	if err := scanOne(ctx, q, &exists, `SELECT to_regclass(quote_ident(current_schema()) || '.`+RevisionTable+`') IS NOT NULL`); err != nil {
		return nil, fmt.Errorf("store: reading migration status: %w", err)
	}
	if exists {
		rows, err := q.QueryContext(ctx, `SELECT version, name, hash, applied_at, baseline FROM `+RevisionTable+` ORDER BY version`)
		if err != nil {
			return nil, fmt.Errorf("store: reading %s: %w", RevisionTable, err)
		}
		for rows.Next() {
			var a AppliedMigration
			if err := rows.Scan(&a.Version, &a.Name, &a.Hash, &a.AppliedAt, &a.Baseline); err != nil {
				rows.Close()
				return nil, err
			}
			st.Applied = append(st.Applied, a)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	byVersion := make(map[string]migrate.File, len(files))
	for _, f := range files {
		byVersion[f.Version()] = f
	}
	applied := make(map[string]bool, len(st.Applied))
	for _, a := range st.Applied {
		applied[a.Version] = true
		f, ok := byVersion[a.Version]
		switch {
		case !ok:
			st.Unknown = append(st.Unknown, a.Version+"_"+a.Name+".sql")
		case !a.Baseline && fileHash(f) != a.Hash:
			st.Changed = append(st.Changed, f.Name())
		}
	}
	for _, f := range files {
		if !applied[f.Version()] {
			st.Pending = append(st.Pending, f.Name())
		}
	}
	if len(st.Applied) == 0 {
		rows, err := q.QueryContext(ctx, `SELECT table_name FROM information_schema.tables
WHERE table_schema = current_schema() AND table_name <> $1 ORDER BY table_name`, RevisionTable)
		if err != nil {
			return nil, fmt.Errorf("store: listing tables: %w", err)
		}
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				rows.Close()
				return nil, err
			}
			st.Unversioned = append(st.Unversioned, name)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return st, nil
}

func scanOne(ctx context.Context, q querier, dest any, query string, args ...any) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := rows.Scan(dest); err != nil {
		return err
	}
	return rows.Err()
}

func pendingFiles(files []migrate.File, st *MigrationStatus) []migrate.File {
	pending := make(map[string]bool, len(st.Pending))
	for _, p := range st.Pending {
		pending[p] = true
	}
	var out []migrate.File
	for _, f := range files {
		if pending[f.Name()] {
			out = append(out, f)
		}
	}
	return out
}

func versions(files []migrate.File) string {
	v := make([]string, len(files))
	for i, f := range files {
		v[i] = f.Version()
	}
	return strings.Join(v, ", ")
}

// ErrUnversioned is the refusal of a database with tables but no migration
// history.
var ErrUnversioned = errors.New("the database has tables but no migration history")

func unversionedError(tables []string, files []migrate.File) error {
	first := "VERSION"
	if len(files) > 0 {
		first = files[0].Version()
	}
	shown := tables
	if len(shown) > 5 {
		shown = append(shown[:5:5], "…")
	}
	return fmt.Errorf("store: %w (tables %s; no %s table). If it was created by the automatic migration of an earlier DebtQL, "+
		"start that DebtQL release once more so its schema is complete, take a backup, then run "+
		"`debtql migrate up --baseline %s` once: it records the first migration as applied without running it and applies the rest. "+
		"Otherwise point DATABASE_URL at an empty database or schema (see docs/operations.md, Schema migration)",
		ErrUnversioned, strings.Join(shown, ", "), RevisionTable, first)
}

// DiffMigrations replays the folder dir on the clean PostgreSQL database
// dev (its current schema must be empty; it is left empty), compares the
// result with the ent schema, and writes the difference into dir as a new
// migration file NAME (and updates atlas.sum). It returns
// migrate.ErrNoPlan when the folder already matches the ent schema.
func DiffMigrations(ctx context.Context, dev *sql.DB, dir migrate.Dir, name string) error {
	m, err := schema.NewMigrate(entsql.OpenDB(dialectPostgres, dev),
		schema.WithDir(dir),
		schema.WithMigrationMode(schema.ModeReplay),
		schema.WithDialect(dialectPostgres),
		schema.WithFormatter(migrate.DefaultFormatter),
		schema.WithForeignKeys(true),
		schema.WithErrNoPlan(true),
	)
	if err != nil {
		return fmt.Errorf("store: preparing the diff: %w", err)
	}
	return m.NamedDiff(ctx, name, entmigrate.Tables...)
}

// HashMigrations rewrites dir's atlas.sum from its files: after a
// migration file was written or edited by hand.
func HashMigrations(dir migrate.Dir) error {
	sum, err := dir.Checksum()
	if err != nil {
		return err
	}
	return migrate.WriteSumFile(dir, sum)
}
