// Command debtql runs DebtQL, the GraphQL API for handing receivables over
// to debt collection, manages its API keys, and seeds generated data.
//
//	debtql [serve] [flags]             run the server (the default)
//	debtql apikey create --role ADMIN|CLIENT [--client UUID] --name NAME
//	debtql apikey list
//	debtql apikey revoke ID
//	debtql seed [--scale small|bench] [--reset] [flags]
//	debtql migrate status|up [--baseline VERSION]
//	debtql schema
//
// Every flag has an environment variable; `debtql serve --help` lists them.
package main

import (
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
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "debtql:", err)
		}
		os.Exit(exitCode(err))
	}
}

func exitCode(err error) int {
	if errors.Is(err, flag.ErrHelp) || errors.Is(err, errUsage) {
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
  debtql seed [--scale small|bench] [--reset] [flags]   fill the database with generated data
  debtql migrate status|up [--baseline VERSION]          PostgreSQL's versioned schema migrations
  debtql schema               print the API's schema (SDL), as GET /graphql/schema.graphql serves it

Run "debtql serve --help", "debtql apikey --help", "debtql seed --help" or "debtql migrate --help" for the flags.
`

// run dispatches the subcommands.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Fprint(stdout, usage)
		return nil
	}
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
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
	case "schema":
		return schemaCommand(args, stdout, stderr)
	default:
		fmt.Fprintf(stderr, "unknown command %q\n\n%s", cmd, usage)
		return errUsage
	}
}
