package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/debtql/debtql/internal/server"
)

const schemaUsage = `Usage: debtql schema > schema.graphql

Prints the API's schema in GraphQL's schema definition language (SDL): the
schema this binary serves, the same text as GET /graphql/schema.graphql on
a running server. It needs neither a server nor a database, so a build can
generate typed clients from it offline.
`

// schemaCommand prints the schema the binary serves.
func schemaCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("debtql schema", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), schemaUsage) }
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return errUsage
	}
	_, err := io.WriteString(stdout, server.SDL())
	return err
}
