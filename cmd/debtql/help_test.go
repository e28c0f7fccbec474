package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/debtql/debtql/internal/buildinfo"
)

// helpCommands are every command's ways of asking for help.
var helpCommands = [][]string{
	{"--help"}, {"-h"}, {"help"},
	{"serve", "--help"}, {"serve", "-h"}, {"help", "serve"},
	{"apikey", "--help"}, {"apikey", "create", "--help"}, {"apikey", "list", "--help"}, {"apikey", "revoke", "--help"},
	{"seed", "--help"}, {"help", "seed"},
	{"migrate", "--help"}, {"migrate", "up", "--help"}, {"migrate", "status", "-h"},
	{"retention", "--help"}, {"help", "retention"},
	{"schema", "--help"},
	{"version", "--help"},
}

// Help is an answer, not an error: the usage on stdout, nothing on stderr,
// and success, whatever the command.
func TestEveryCommandsHelpSucceedsOnStdout(t *testing.T) {
	cleanEnv(t)
	for _, args := range helpCommands {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			path := dbPath(t)
			t.Setenv("DEBTQL_SQLITE_PATH", path)
			stdout, stderr, err := runCLI(t, args...)
			if err != nil {
				t.Fatalf("err = %v, want nil", err)
			}
			if !strings.Contains(stdout, "Usage") && !strings.Contains(stdout, "usage") {
				t.Errorf("no usage on stdout: %q", stdout)
			}
			if stderr != "" {
				t.Errorf("help wrote to stderr: %q", stderr)
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("help touched the database file (stat: %v)", err)
			}
		})
	}
}

// TestRunMain is not a test of its own: the exit status test runs the test
// binary again with DEBTQL_TEST_MAIN_ARGS, and this runs main with them.
func TestRunMain(t *testing.T) {
	args, ok := os.LookupEnv("DEBTQL_TEST_MAIN_ARGS")
	if !ok {
		t.Skip("runs main for TestHelpExitStatusIsZero")
	}
	os.Args = append([]string{"debtql"}, strings.Split(args, "\x1f")...)
	main()
	os.Exit(0)
}

// The process's exit status, which scripts and make see: 0 for help, 2 for
// a command line that cannot be used.
func TestHelpExitStatusIsZero(t *testing.T) {
	cleanEnv(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"serve", "--help"}, 0},
		{[]string{"seed", "--help"}, 0},
		{[]string{"apikey", "create", "--help"}, 0},
		{[]string{"migrate", "up", "--help"}, 0},
		{[]string{"version"}, 0},
		{[]string{"serve", "--no-such-flag"}, 2},
		{[]string{"frobnicate"}, 2},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			cmd := exec.Command(exe, "-test.run=^TestRunMain$")
			cmd.Env = append(os.Environ(), "DEBTQL_TEST_MAIN_ARGS="+strings.Join(tc.args, "\x1f"),
				"DEBTQL_SQLITE_PATH="+filepath.Join(t.TempDir(), "debtql.db"))
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var exitErr *exec.ExitError
			if errors.As(err, &exitErr) {
				code = exitErr.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.want {
				t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.want, stdout.String(), stderr.String())
			}
			if tc.want == 0 && stdout.Len() == 0 {
				t.Errorf("nothing on stdout; stderr:\n%s", stderr.String())
			}
		})
	}
}

// Every setting the server reads from the environment appears in serve
// --help, the ones without a flag included: the names are read from the
// code, so that a new variable cannot be left out of the help.
func TestServeHelpListsEverySetting(t *testing.T) {
	cleanEnv(t)
	usage, _, err := runCLI(t, "serve", "--help")
	if err != nil {
		t.Fatal(err)
	}
	read := regexp.MustCompile(`(?:Getenv|LookupEnv|env|envInt|envFloat|envDuration|envMoney)\("([A-Z][A-Z0-9_]*)"`)
	var names []string
	for _, glob := range []string{"*.go", "../../internal/store/*.go"} {
		files, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range read.FindAllStringSubmatch(string(src), -1) {
				if !slices.Contains(names, m[1]) {
					names = append(names, m[1])
				}
			}
		}
	}
	for _, want := range []string{"DATABASE_URL", "ADMIN_API_KEY", "DEBTQL_DB_MAX_CONNS", "DEBTQL_PPROF_ADDR", "TZ", "PORT"} {
		if !slices.Contains(names, want) {
			t.Fatalf("the scan of the code did not find %s (found %v): fix the test", want, names)
		}
	}
	for _, name := range names {
		if !strings.Contains(usage, name) {
			t.Errorf("serve --help does not name %s, which the server reads:\n%s", name, usage)
		}
	}
}

func TestVersionCommand(t *testing.T) {
	cleanEnv(t)
	for _, args := range [][]string{{"version"}, {"--version"}} {
		stdout, stderr, err := runCLI(t, args...)
		if err != nil || stderr != "" {
			t.Fatalf("%v: err %v, stderr %q", args, err, stderr)
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if len(lines) != 3 || !strings.HasPrefix(lines[0], "debtql ") || !strings.HasPrefix(lines[1], "commit: ") ||
			!strings.HasPrefix(lines[2], "go: go") {
			t.Errorf("%v printed:\n%s", args, stdout)
		}
	}
	if _, stderr, err := runCLI(t, "version", "extra"); !errors.Is(err, errUsage) || !strings.Contains(stderr, "Usage: debtql version") {
		t.Errorf("version extra: %v %q", err, stderr)
	}

	// A build without VCS stamping (-buildvcs=false) says so plainly.
	var out bytes.Buffer
	writeVersion(&out, buildinfo.Info{Version: "(devel)", Commit: buildinfo.Unknown, Go: "go1.26.0"})
	if got, want := out.String(), "debtql (devel)\ncommit: unknown\ngo: go1.26.0\n"; got != want {
		t.Errorf("writeVersion = %q, want %q", got, want)
	}
	out.Reset()
	writeVersion(&out, buildinfo.Info{Version: "v1.4.0", Commit: "abc123", CommitTime: "2026-11-25T10:00:00Z", Modified: true, Go: "go1.26.0"})
	if got := out.String(); !strings.Contains(got, "debtql v1.4.0") || !strings.Contains(got, "commit: abc123 (with uncommitted changes), 2026-11-25T10:00:00Z") {
		t.Errorf("writeVersion = %q", got)
	}
}

// A start that generates no key, because the database has one, says how to
// create another: a newcomer who lost the first start's output is not
// left without a way in.
func TestServeSaysHowToCreateAKeyWhenNoneIsGenerated(t *testing.T) {
	cleanEnv(t)
	path := dbPath(t)
	s := startServer(t, path)
	hint := `debtql apikey create --role ADMIN --name "NAME" --sqlite ` + path
	if strings.Contains(s.stderr.String(), hint) {
		t.Errorf("the first start, which generated a key, also printed the hint:\n%s", s.stderr)
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	s2 := startServer(t, path)
	line := s2.waitForLog(0, func(l map[string]any) bool { return l["create_key"] != nil })
	if line["level"] != "INFO" || line["create_key"] != hint || !strings.Contains(line["msg"].(string), "no ADMIN API key was generated") {
		t.Errorf("hint log line = %v, want create_key %q", line, hint)
	}
}
