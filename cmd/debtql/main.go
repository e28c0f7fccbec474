// Command debtql runs DebtQL, the GraphQL API for handing receivables over
// to debt collection, manages its API keys, and seeds generated data.
//
//	debtql [serve] [flags]             run the server (the default)
//	debtql apikey create --role ADMIN|CLIENT [--client UUID] --name NAME
//	debtql apikey list
//	debtql apikey revoke ID
//	debtql seed [--scale small|bench|bench10] [--reset] [flags]
//	debtql migrate status|up [--baseline VERSION]
//	debtql retention --before YEAR [--apply]
//	debtql schema
//	debtql version
//
// Every flag has an environment variable; `debtql serve --help` lists them.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	_ "time/tzdata" // the service's time zone works on machines without a zoneinfo database
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "debtql:", err)
		os.Exit(exitCode(err))
	}
}

// exitCode is 2 for a command line that could not be used, 1 for a
// command that failed. Help asked for is not an error: run returns nil.
func exitCode(err error) int {
	if errors.Is(err, errUsage) {
		return 2
	}
	return 1
}

var errUsage = errors.New("usage")

const usage = `DebtQL: the GraphQL API for handing receivables over to debt collection.

Usage:
  debtql [serve] [flags]      run the server (the default command)
  debtql apikey create --role ADMIN|CLIENT [--client UUID] --name NAME
  debtql apikey list
  debtql apikey revoke ID
  debtql seed [--scale small|bench|bench10] [--reset]   fill the database with generated data
  debtql migrate status|up [--baseline VERSION]          PostgreSQL's versioned schema migrations
  debtql retention --before YEAR [--apply]               the yearly anonymisation of debtors closed before YEAR's end
  debtql schema               print the API's schema (SDL), as GET /graphql/schema.graphql serves it
  debtql version              print the version and the commit this binary was built from

Run "debtql serve --help" (every setting and its environment variable), "debtql apikey --help",
"debtql seed --help", "debtql migrate --help" or "debtql retention --help" for the flags; "debtql help COMMAND" does the same.
`

// run dispatches the subcommands. Help asked for (-h, --help, help) is
// printed to stdout and answered nil, so that `debtql X --help | less`
// works and exits 0; a command line that cannot be used prints its usage
// to stderr and exits 2.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	err := dispatch(ctx, args, stdout, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		if args[0] == "help" && len(args) == 2 && args[1] != "help" {
			// debtql help seed = debtql seed --help
			return dispatch(ctx, []string{args[1], "--help"}, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return nil
	}
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		cmd, args = "version", args[1:]
	} else if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, args, stdout, stderr)
	case "apikey":
		return apikeyCommand(ctx, args, stdout, stderr)
	case "seed":
		return seedCommand(ctx, args, stdout, stderr)
	case "migrate":
		return migrateCommand(ctx, args, stdout, stderr)
	case "retention":
		return retentionCommand(ctx, args, stdout, stderr)
	case "schema":
		return schemaCommand(args, stdout, stderr)
	case "version":
		return versionCommand(args, stdout, stderr)
	default:
		fmt.Fprintf(stderr, "unknown command %q\n\n%s", cmd, usage)
		return errUsage
	}
}

// parseFlags parses args into fs. Help asked for (-h, --help) goes to
// stdout and is answered flag.ErrHelp, which run turns into success; a flag
// that cannot be parsed goes to stderr with the usage. The flag package
// writes both to one output, so it writes into a buffer first and the
// outcome decides where the buffer goes. Usage printed later (a bad
// argument after parsing) goes to stderr.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) error {
	var buf bytes.Buffer
	fs.SetOutput(&buf)
	err := fs.Parse(args)
	fs.SetOutput(stderr)
	if errors.Is(err, flag.ErrHelp) {
		_, _ = stdout.Write(buf.Bytes())
		return flag.ErrHelp
	}
	_, _ = stderr.Write(buf.Bytes())
	if err != nil {
		return usageError{err}
	}
	return nil
}

// usageError is a flag that could not be parsed: its own message, and exit
// status 2 like any command line that cannot be used.
type usageError struct{ err error }

func (e usageError) Error() string        { return e.err.Error() }
func (e usageError) Unwrap() error        { return e.err }
func (e usageError) Is(target error) bool { return target == errUsage }
