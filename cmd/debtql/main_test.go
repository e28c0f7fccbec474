package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is an io.Writer safe for concurrent use: the server writes its
// logs from many goroutines while the test reads them.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuffer) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}

// cleanEnv clears every environment variable the commands read, so that the
// tests never reach a PostgreSQL database, a developer's SQLite file or
// their ADMIN_API_KEY. TZ is left alone: the tests pass --tz where it matters.
func cleanEnv(t *testing.T) {
	t.Helper()
	for _, name := range []string{
		"DATABASE_URL", "DEBTQL_SQLITE_PATH", "ADMIN_API_KEY", "PORT",
		"LOG_LEVEL", "LOG_FORMAT", "DEBTQL_INTROSPECTION", "DEBTQL_METRICS_ADDR", "DEBTQL_MIGRATE",
		"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER",
	} {
		t.Setenv(name, "")
	}
}

// dbPath is a fresh SQLite file in the test's temporary directory.
func dbPath(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "debtql.db")
}

// runCLI runs the command line synchronously and returns what it wrote.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	err = run(ctx, args, &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestHelpPrintsUsage(t *testing.T) {
	cleanEnv(t)
	for _, arg := range []string{"--help", "-h", "help"} {
		t.Run(arg, func(t *testing.T) {
			stdout, stderr, err := runCLI(t, arg)
			if err != nil {
				t.Fatalf("run(%s) = %v, want nil", arg, err)
			}
			for _, want := range []string{
				"debtql [serve] [flags]",
				"apikey create --role ADMIN|CLIENT [--client UUID] --name NAME",
				"apikey list",
				"apikey revoke ID",
				"serve --help",
			} {
				if !strings.Contains(stdout, want) {
					t.Errorf("usage lacks %q:\n%s", want, stdout)
				}
			}
			if stderr != "" {
				t.Errorf("help wrote to stderr: %q", stderr)
			}
		})
	}
}

func TestServeHelpListsEveryFlagWithItsEnvironmentVariable(t *testing.T) {
	cleanEnv(t)
	for _, args := range [][]string{{"serve", "--help"}, {"serve", "-h"}, {"--help=true"}, {"help", "serve"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			path := dbPath(t)
			if args[0] != "help" {
				args = append(args, "--sqlite", path)
			}
			// Help is an answer: on stdout, and success (exit status 0).
			usage, stderr, err := runCLI(t, args...)
			if err != nil {
				t.Fatalf("err = %v, want nil", err)
			}
			if stderr != "" {
				t.Errorf("serve --help wrote to stderr: %q", stderr)
			}
			stderr = usage
			for _, want := range []string{
				"Usage: debtql [serve] [flags]",
				"PORT", "DATABASE_URL", "TZ", "LOG_LEVEL", "LOG_FORMAT",
				"DEBTQL_SQLITE_PATH", "ADMIN_API_KEY", "DEBTQL_INTROSPECTION",
			} {
				if !strings.Contains(stderr, want) {
					t.Errorf("serve --help lacks %q:\n%s", want, stderr)
				}
			}
			// Every flag's entry names its environment variable.
			flags := flagEntries(stderr)
			names := []string{"addr", "database-url", "sqlite", "tz", "log-level", "log-format", "introspection",
				"max-depth", "max-complexity", "max-root-fields", "max-document-bytes", "max-response-fields", "max-response-bytes",
				"rate-limit", "rate-burst", "auth-failure-limit", "auth-failure-burst", "request-timeout", "cors-origins", "metrics-addr", "migrate",
				"payment-order-fee", "payment-order-application-fee",
				"subscription-buffer", "webhook-allow-insecure", "webhook-workers"}
			for _, name := range names {
				entry, ok := flags[name]
				if !ok {
					t.Errorf("serve --help does not list -%s:\n%s", name, stderr)
					continue
				}
				if !strings.Contains(entry, "env ") {
					t.Errorf("-%s does not name its environment variable: %q", name, entry)
				}
			}
			if len(flags) != len(names) {
				t.Errorf("serve --help lists %d flags, want %d: %v", len(flags), len(names), flags)
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("--help touched the database file (stat: %v)", err)
			}
		})
	}
}

// flagEntries splits flag.PrintDefaults output into one entry per flag.
func flagEntries(usage string) map[string]string {
	entries := map[string]string{}
	var name string
	for _, line := range strings.Split(usage, "\n") {
		if strings.HasPrefix(line, "  -") {
			name, _, _ = strings.Cut(strings.TrimPrefix(line, "  -"), " ")
			entries[name] = line
			continue
		}
		if name != "" && strings.HasPrefix(line, "    \t") {
			entries[name] += "\n" + line
			continue
		}
		name = "" // the flags' list ended
	}
	return entries
}

func TestAPIKeyHelp(t *testing.T) {
	cleanEnv(t)
	stdout, stderr, err := runCLI(t, "apikey", "--help")
	if err != nil {
		t.Fatalf("apikey --help = %v, want nil", err)
	}
	if stderr != "" {
		t.Errorf("apikey --help wrote to stderr: %q", stderr)
	}
	for _, want := range []string{"debtql apikey create", "debtql apikey list", "debtql apikey revoke", "-sqlite", "DATABASE_URL"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("apikey --help lacks %q:\n%s", want, stdout)
		}
	}

	// Without a subcommand the command line is unusable: usage on stderr.
	_, stderr, err = runCLI(t, "apikey")
	if !errors.Is(err, errUsage) {
		t.Fatalf("apikey without a subcommand = %v, want errUsage", err)
	}
	if !strings.Contains(stderr, "debtql apikey create") {
		t.Errorf("apikey without a subcommand prints no usage:\n%s", stderr)
	}
}

func TestUnknownCommand(t *testing.T) {
	cleanEnv(t)
	stdout, stderr, err := runCLI(t, "frobnicate", "--sqlite", dbPath(t))
	if !errors.Is(err, errUsage) {
		t.Fatalf("err = %v, want errUsage", err)
	}
	if got := exitCode(err); got != 2 {
		t.Errorf("exitCode = %d, want 2", got)
	}
	if !strings.Contains(stderr, `unknown command "frobnicate"`) {
		t.Errorf("stderr lacks the unknown command:\n%s", stderr)
	}
	if !strings.Contains(stderr, "apikey create") {
		t.Errorf("stderr lacks the usage:\n%s", stderr)
	}
	if stdout != "" {
		t.Errorf("stdout = %q, want nothing", stdout)
	}
}

func TestServeRejectsPositionalArguments(t *testing.T) {
	cleanEnv(t)
	path := dbPath(t)
	for _, args := range [][]string{
		{"serve", "--sqlite", path, "extra"},
		{"--sqlite", path, "extra"},
		{"serve", "serve", "--sqlite", path},
	} {
		_, stderr, err := runCLI(t, args...)
		if !errors.Is(err, errUsage) {
			t.Errorf("run(%q) = %v, want errUsage", args, err)
		}
		if !strings.Contains(stderr, "Usage: debtql [serve] [flags]") {
			t.Errorf("run(%q) prints no usage:\n%s", args, stderr)
		}
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a rejected command line touched the database file (stat: %v)", err)
	}
}

func TestServeRejectsUnknownFlag(t *testing.T) {
	cleanEnv(t)
	_, stderr, err := runCLI(t, "serve", "--no-such-flag")
	if err == nil || errors.Is(err, flag.ErrHelp) {
		t.Fatalf("err = %v, want a flag error", err)
	}
	if !strings.Contains(stderr, "no-such-flag") {
		t.Errorf("stderr does not name the flag:\n%s", stderr)
	}
}

func TestExitCode(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{errUsage, 2},
		{fmt.Errorf("wrapped: %w", errUsage), 2},
		{errors.New("boom"), 1},
	} {
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

// The payment-order amounts: a value that is no amount, or one out of
// range, stops the start with an error naming it.
func TestServeRefusesBadPaymentOrderAmounts(t *testing.T) {
	for _, tt := range []struct {
		env, value, flag, want string
	}{
		{"DEBTQL_PAYMENT_ORDER_FEE", "trehundra", "", "DEBTQL_PAYMENT_ORDER_FEE"},
		{"DEBTQL_PAYMENT_ORDER_APPLICATION_FEE", "10000.01", "", "applicationFee"},
		{"", "", "--payment-order-fee=-1", "fee"},
		{"", "", "--payment-order-fee=1.234", "payment-order-fee"},
	} {
		t.Run(tt.env+tt.flag, func(t *testing.T) {
			cleanEnv(t)
			if tt.env != "" {
				t.Setenv(tt.env, tt.value)
			}
			args := []string{"serve", "--sqlite", dbPath(t), "--addr", "127.0.0.1:0"}
			if tt.flag != "" {
				args = append(args, tt.flag)
			}
			_, stderr, err := runCLI(t, args...)
			if err == nil || !strings.Contains(err.Error()+stderr, tt.want) {
				t.Fatalf("serve with %s%s=%s: err %v, stderr %q; want an error naming %s", tt.env, tt.flag, tt.value, err, stderr, tt.want)
			}
		})
	}
}
