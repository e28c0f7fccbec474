package main

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/store"
)

func TestMain(m *testing.M) { apitest.Main(m) }

func initialMigration(t *testing.T) string {
	t.Helper()
	dir, err := store.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	files, err := dir.Files()
	if err != nil || len(files) == 0 {
		t.Fatalf("no embedded migrations: %v", err)
	}
	return files[0].Name()
}

// TestMigrateStatusAndUp runs the migrate subcommands on an empty
// PostgreSQL schema, and serve --migrate=false before and after.
func TestMigrateStatusAndUp(t *testing.T) {
	dsn := apitest.PostgresSchema(t)
	cleanEnv(t)
	first := initialMigration(t)
	row := func(state string) *regexp.Regexp {
		return regexp.MustCompile(`(?m)^` + state + `\s+` + regexp.QuoteMeta(first))
	}

	stdout, stderr, err := runCLI(t, "migrate", "status", "--database-url", dsn)
	if err != nil {
		t.Fatalf("migrate status: %v\n%s", err, stderr)
	}
	if !row("pending").MatchString(stdout) || !strings.Contains(stdout, "0 applied, ") {
		t.Fatalf("status on an empty schema:\n%s", stdout)
	}

	_, err = runServeError(t, "--database-url", dsn, "--migrate=false")
	if err == nil || !strings.Contains(err.Error(), "pending migration") || !strings.Contains(err.Error(), "debtql migrate up") {
		t.Fatalf("serve --migrate=false with pending migrations: %v", err)
	}

	stdout, stderr, err = runCLI(t, "migrate", "up", "--database-url", dsn)
	if err != nil {
		t.Fatalf("migrate up: %v\n%s", err, stderr)
	}
	if !row("applied").MatchString(stdout) {
		t.Fatalf("up:\n%s", stdout)
	}
	stdout, _, err = runCLI(t, "migrate", "status", "--database-url", dsn)
	if err != nil || !row("applied").MatchString(stdout) || !strings.Contains(stdout, " 0 pending") || strings.Contains(stdout, "pending  ") {
		t.Fatalf("status after up (%v):\n%s", err, stdout)
	}
	stdout, _, err = runCLI(t, "migrate", "up", "--database-url", dsn)
	if err != nil || !strings.Contains(stdout, "the schema is up to date") {
		t.Fatalf("second up (%v):\n%s", err, stdout)
	}

	// The migrated schema serves; apikey (which migrates too) works on it.
	if _, stderr, err := runCLI(t, "apikey", "list", "--database-url", dsn); err != nil {
		t.Fatalf("apikey list after migrate up: %v\n%s", err, stderr)
	}
}

func TestMigrateUsage(t *testing.T) {
	cleanEnv(t)
	for _, args := range [][]string{{"migrate"}, {"migrate", "down"}, {"migrate", "status", "extra"}} {
		if _, _, err := runCLI(t, args...); !errors.Is(err, errUsage) {
			t.Errorf("%q: want a usage error, got %v", args, err)
		}
	}
	// SQLite has no versions: status says so, up migrates automatically.
	path := dbPath(t)
	stdout, _, err := runCLI(t, "migrate", "up", "--sqlite", path)
	if err != nil || !strings.Contains(stdout, "automatic migration") {
		t.Errorf("up on SQLite (%v): %s", err, stdout)
	}
	if _, _, err := runCLI(t, "migrate", "up", "--baseline", "1", "--sqlite", path); err == nil {
		t.Error("--baseline on SQLite must be refused")
	}
}
