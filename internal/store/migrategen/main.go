// Command migrategen writes DebtQL's PostgreSQL migrations. Run it from
// the module root; it needs a PostgreSQL server where it may create and
// drop a scratch database (it is not part of `go generate ./...`, which
// needs no database).
//
//	go run ./internal/store/migrategen NAME     write the next migration, NAME_*.sql, from the ent schema
//	go run ./internal/store/migrategen new NAME write an empty migration to fill in by hand (then: hash)
//	go run ./internal/store/migrategen hash     rewrite atlas.sum after a migration file was edited by hand
//	go run ./internal/store/migrategen check    exit 1 when the folder and the ent schema disagree
//
// NAME is lower-case letters, digits and underscores (add_audit_events).
// The difference is computed by replaying the folder on a scratch database
// (created on --dev-url's server, default $DATABASE_URL or
// postgres://postgres@127.0.0.1:5432/postgres, and dropped afterwards) and
// comparing the result with ent/schema, through Atlas's Go API.
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"time"

	"ariga.io/atlas/sql/migrate"

	"github.com/debtql/debtql/internal/store"
)

const usage = `Usage (from the module root):
  go run ./internal/store/migrategen [--dev-url URL] NAME       the next migration, generated from ent/schema
  go run ./internal/store/migrategen new NAME                   an empty migration to write by hand (then: hash)
  go run ./internal/store/migrategen hash                       rewrite atlas.sum after editing a migration by hand
  go run ./internal/store/migrategen [--dev-url URL] check      exit 1 when the folder and ent/schema disagree

Flags:
`

var validName = regexp.MustCompile(`^[a-z0-9][a-z0-9_]{0,62}$`)

func main() {
	fs := flag.NewFlagSet("migrategen", flag.ExitOnError)
	devURL := fs.String("dev-url", os.Getenv("DATABASE_URL"),
		"PostgreSQL server where a scratch database is created and dropped (default $DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres)")
	dirPath := fs.String("dir", store.MigrationsPath, "the migration folder")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	_ = fs.Parse(os.Args[1:])
	if *devURL == "" {
		*devURL = "postgres://postgres@127.0.0.1:5432/postgres"
	}
	if err := run(fs.Args(), *devURL, *dirPath); err != nil {
		fmt.Fprintln(os.Stderr, "migrategen:", err)
		os.Exit(1)
	}
}

func run(args []string, devURL, dirPath string) error {
	if len(args) == 0 {
		return errors.New("name the migration (e.g. add_audit_events), or say new NAME, hash or check; -h for help")
	}
	dir, err := migrate.NewLocalDir(dirPath)
	if err != nil {
		return fmt.Errorf("%s: %w (run from the module root, or set --dir)", dirPath, err)
	}
	ctx := context.Background()
	switch args[0] {
	case "hash":
		if err := store.HashMigrations(dir); err != nil {
			return err
		}
		fmt.Printf("rewrote %s/atlas.sum\n", dirPath)
		return nil
	case "new":
		if len(args) != 2 || !validName.MatchString(args[1]) {
			return errors.New("usage: new NAME (lower-case letters, digits and _)")
		}
		name := migrate.NewVersion() + "_" + args[1] + ".sql"
		if err := dir.WriteFile(name, []byte("-- "+args[1]+": written by hand. After editing, run: go run ./internal/store/migrategen hash\n")); err != nil {
			return err
		}
		if err := store.HashMigrations(dir); err != nil {
			return err
		}
		fmt.Printf("wrote %s/%s (empty): write its SQL, then run go run ./internal/store/migrategen hash\n", dirPath, name)
		return nil
	case "check":
		return withDevDB(ctx, devURL, func(dev *sql.DB) error {
			mem, err := store.DirFromFS(os.DirFS(dirPath))
			if err != nil {
				return err
			}
			if err := store.ValidateMigrations(mem); err != nil {
				return err
			}
			err = store.DiffMigrations(ctx, dev, mem, "check")
			if errors.Is(err, migrate.ErrNoPlan) {
				fmt.Println("the migration folder matches the ent schema")
				return nil
			}
			if err != nil {
				return err
			}
			return errors.New("the migration folder is behind the ent schema: run go run ./internal/store/migrategen NAME")
		})
	}
	if len(args) != 1 || !validName.MatchString(args[0]) {
		return fmt.Errorf("%q: a migration name is lower-case letters, digits and _ (e.g. add_audit_events)", args[0])
	}
	if err := store.ValidateMigrations(dir); err != nil {
		return err
	}
	before, err := dir.Files()
	if err != nil {
		return err
	}
	return withDevDB(ctx, devURL, func(dev *sql.DB) error {
		err := store.DiffMigrations(ctx, dev, dir, args[0])
		if errors.Is(err, migrate.ErrNoPlan) {
			fmt.Println("no changes: the migration folder already matches the ent schema")
			return nil
		}
		if err != nil {
			return err
		}
		after, err := dir.Files()
		if err != nil {
			return err
		}
		for _, f := range after[len(before):] {
			fmt.Printf("wrote %s/%s\n", dirPath, f.Name())
		}
		return nil
	})
}

// withDevDB creates a scratch database on devURL's server, calls f with
// it, and drops it.
func withDevDB(ctx context.Context, devURL string, f func(*sql.DB) error) error {
	admin, err := sql.Open("pgx", devURL)
	if err != nil {
		return err
	}
	defer admin.Close()
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := admin.PingContext(pingCtx); err != nil {
		return fmt.Errorf("the dev PostgreSQL does not answer (--dev-url or DATABASE_URL): %w", err)
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	name := "debtql_migrategen_" + hex.EncodeToString(b[:])
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE "`+name+`"`); err != nil {
		return fmt.Errorf("creating the scratch database: %w", err)
	}
	defer func() {
		if _, err := admin.ExecContext(context.Background(), `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`); err != nil {
			fmt.Fprintf(os.Stderr, "migrategen: dropping the scratch database %s: %v\n", name, err)
		}
	}()
	u, err := url.Parse(devURL)
	if err != nil {
		return err
	}
	u.Path = "/" + name
	dev, err := sql.Open("pgx", u.String())
	if err != nil {
		return err
	}
	defer dev.Close()
	return f(dev)
}
