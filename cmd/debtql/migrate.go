package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/debtql/debtql/internal/store"
)

const migrateUsage = `Usage:
  debtql migrate status                       list applied and pending migrations
  debtql migrate up [--baseline VERSION]      apply the pending migrations

PostgreSQL's schema is migrated by versioned SQL files embedded in the
binary (internal/store/migrations/postgres), each applied once, in its own
transaction, under an advisory lock, and recorded in the table
debtql_schema_migrations. "debtql serve" applies them at start unless
--migrate=false. The embedded SQLite is migrated automatically (ent's
automatic migration) and has no versions.

--baseline VERSION adopts a database created by the automatic migration of
an earlier DebtQL (tables, no migration history): the files up to VERSION
are recorded as applied without running them, the rest are applied.

Flags:
`

// migrateCommand shows or applies the schema migrations.
func migrateCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		c        config
		baseline string
	)
	fs, sub, args, done, err := subcommand("debtql migrate", migrateUsage, args, stdout, stderr, &c)
	if done {
		return err
	}
	if sub == "up" {
		fs.StringVar(&baseline, "baseline", "", "on a database without migration history, record the files up to VERSION as applied without running them")
	}
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return err
	}
	if (sub != "up" && sub != "status") || fs.NArg() != 0 {
		if sub != "up" && sub != "status" {
			fmt.Fprintf(stderr, "unknown migrate command %q\n\n", sub)
		}
		fs.Usage()
		return errUsage
	}
	if _, err := c.logger(stderr); err != nil {
		return err
	}
	db, err := store.Open(ctx, c.dsn())
	if err != nil {
		return err
	}
	defer db.Close()
	if !db.IsPostgres() {
		if sub == "up" {
			if _, err := db.MigrateUp(ctx, store.MigrateOptions{Baseline: baseline}); err != nil {
				return err
			}
			fmt.Fprintln(stdout, "SQLite: schema brought up to date by automatic migration (SQLite has no versioned migrations)")
			return nil
		}
		fmt.Fprintln(stdout, "SQLite is migrated automatically at start; versioned migrations are PostgreSQL's")
		return nil
	}
	if sub == "up" {
		rep, err := db.MigrateUp(ctx, store.MigrateOptions{Baseline: baseline})
		if rep != nil {
			for _, f := range rep.Baselined {
				fmt.Fprintf(stdout, "baseline  %s (recorded, not run)\n", f)
			}
			for _, f := range rep.Applied {
				fmt.Fprintf(stdout, "applied   %s\n", f)
			}
			for _, f := range rep.Unknown {
				fmt.Fprintf(stdout, "unknown   %s (applied by a newer DebtQL)\n", f)
			}
		}
		if err != nil {
			return err
		}
		if len(rep.Applied) == 0 && len(rep.Baselined) == 0 {
			fmt.Fprintln(stdout, "the schema is up to date")
		}
		return nil
	}
	st, err := store.Status(ctx, db.SQL, nil)
	if err != nil {
		return err
	}
	printStatus(stdout, st)
	return nil
}

// printStatus lists every migration with its state, oldest first.
func printStatus(w io.Writer, st *store.MigrationStatus) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STATE\tMIGRATION\tAPPLIED AT")
	for _, a := range st.Applied {
		state := "applied"
		switch {
		case a.Baseline:
			state = "baseline"
		case contains(st.Unknown, a.Version+"_"+a.Name+".sql"):
			state = "unknown"
		}
		fmt.Fprintf(tw, "%s\t%s_%s.sql\t%s\n", state, a.Version, a.Name, a.AppliedAt.UTC().Format(time.RFC3339))
	}
	for _, p := range st.Pending {
		fmt.Fprintf(tw, "pending\t%s\t\n", p)
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "%d applied, %d pending\n", len(st.Applied), len(st.Pending))
	if len(st.Unknown) > 0 {
		fmt.Fprintf(w, "%d applied migrations are unknown to this binary: the database was migrated by a newer DebtQL\n", len(st.Unknown))
	}
	if len(st.Changed) > 0 {
		fmt.Fprintf(w, "CHANGED after they were applied (refused by up): %v\n", st.Changed)
	}
	if len(st.Unversioned) > 0 {
		fmt.Fprintf(w, "The schema has tables but no migration history (created by the automatic migration of an earlier DebtQL): see `debtql migrate --help`, --baseline\n")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
