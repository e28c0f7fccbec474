package main

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/debtql/debtql/internal/seed"
)

func TestSeedSmallThenRefuseThenReset(t *testing.T) {
	cleanEnv(t)
	path := dbPath(t)
	stdout, stderr, err := runCLI(t, "seed", "--sqlite", path, "--as-of", "2026-03-15")
	if err != nil {
		t.Fatalf("seed: %v\nstderr:\n%s", err, stderr)
	}
	for _, want := range []string{
		"Seeded sqlite3 in ", "seed 1, as of 2026-03-15",
		"clients  3", "debtors  60", "debts  60", "debt_invoices  120", "payments  75", "invoices  40", "invoice_articles  120",
		"Hot client: 1001 Sundsvall Energi AB, id ea182032-d9e4-fed4-59be-cfc110ca2cf8 (30 debtors and debts)",
		"DEMAND_SENT", "DEMAND_EXPIRED", "PAID_IN_FULL", "WITHDRAWN",
	} {
		if !strings.Contains(squeeze(stdout), want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "Seeding sqlite3 (scale small, seed 1, as of 2026-03-15)") || !strings.Contains(stderr, "debt_invoices") {
		t.Errorf("no progress on stderr:\n%s", stderr)
	}

	stdout, _, err = runCLI(t, "seed", "--sqlite", path, "--quiet")
	if !errors.Is(err, seed.ErrNotEmpty) || !strings.Contains(err.Error(), "--reset") || exitCode(err) != 1 {
		t.Fatalf("seeding a seeded database: err = %v, want ErrNotEmpty naming --reset (exit 1)", err)
	}
	if stdout != "" {
		t.Errorf("a refused seed printed a summary: %s", stdout)
	}

	stdout, stderr, err = runCLI(t, "seed", "--sqlite", path, "--reset", "--quiet",
		"--clients", "2", "--debts", "10", "--invoices", "4", "--payments", "12", "--hot-share", "0.3", "--seed", "7")
	if err != nil {
		t.Fatalf("seed --reset: %v\nstderr:\n%s", err, stderr)
	}
	if stderr != "" {
		t.Errorf("--quiet wrote to stderr: %s", stderr)
	}
	for _, want := range []string{"Deleted the previous data (3 clients, 0 API keys).", "seed 7,",
		"clients  2", "debtors  10", "invoices  4", "invoice_articles  12", "payments  12", "(3 debtors and debts)"} {
		if !strings.Contains(squeeze(stdout), want) {
			t.Errorf("summary after --reset lacks %q:\n%s", want, stdout)
		}
	}
}

// squeeze collapses runs of spaces to two, so that the aligned table reads
// "clients  3" whatever the column widths.
func squeeze(s string) string {
	for strings.Contains(s, "   ") {
		s = strings.ReplaceAll(s, "   ", "  ")
	}
	return s
}

func TestSeedRefusesBadFlagsBeforeTouchingTheDatabase(t *testing.T) {
	cleanEnv(t)
	for _, args := range [][]string{
		{"--scale", "huge"},
		{"--hot-share", "2"},
		{"--clients", "0"},
		{"--debts", "10", "--payments", "1000"},
		{"--as-of", "22/11/2026"},
		{"extra"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			path := dbPath(t)
			_, stderr, err := runCLI(t, append([]string{"seed", "--sqlite", path}, args...)...)
			if err == nil {
				t.Fatalf("seed %v succeeded", args)
			}
			if args[0] == "extra" && !errors.Is(err, errUsage) {
				t.Errorf("a stray argument: err = %v, want errUsage\n%s", err, stderr)
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused command line touched the database (stat: %v)", err)
			}
		})
	}
}

func TestSeedHelp(t *testing.T) {
	cleanEnv(t)
	path := dbPath(t)
	// Help is an answer: on stdout, and success (exit status 0).
	usage, stderr, err := runCLI(t, "seed", "--help", "--sqlite", path)
	if err != nil {
		t.Fatalf("seed --help = %v, want nil", err)
	}
	if stderr != "" {
		t.Errorf("seed --help wrote to stderr: %q", stderr)
	}
	stderr = usage
	flags := flagEntries(stderr)
	for _, name := range []string{"scale", "clients", "debts", "invoices", "payments", "hot-share", "seed", "as-of", "reset", "quiet", "database-url", "sqlite"} {
		if _, ok := flags[name]; !ok {
			t.Errorf("seed --help does not list -%s:\n%s", name, stderr)
		}
	}
	for _, name := range []string{"database-url", "sqlite"} {
		if !strings.Contains(flags[name], "env ") {
			t.Errorf("-%s does not name its environment variable: %q", name, flags[name])
		}
	}
	for _, want := range []string{"small", "bench", "ea182032-d9e4-fed4-59be-cfc110ca2cf8", "--reset"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("seed --help lacks %q", want)
		}
	}
	stdout, _, _ := runCLI(t, "--help")
	if !strings.Contains(stdout, "debtql seed") {
		t.Errorf("the usage does not list seed:\n%s", stdout)
	}
}
