package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/debtql/debtql/ent/apikey"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/scalar"
)

const apikeyUsage = `Usage:
  debtql apikey create --role ADMIN|CLIENT [--client UUID] --name NAME
  debtql apikey list
  debtql apikey revoke ID

Manages API keys directly in the database (the same one the server uses).
The secret of a new key is printed once, to standard output.

Flags (each subcommand):
`

// apikeyCommand runs the key subcommands against the database directly, as the
// operator of the machine (no API key needed).
func apikeyCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		c        config
		role     string
		clientID string
		name     string
	)
	fs, sub, args, done, err := subcommand("debtql apikey", apikeyUsage, args, stdout, stderr, &c)
	if done {
		return err
	}
	if sub == "create" {
		fs.StringVar(&role, "role", "", "ADMIN or CLIENT")
		fs.StringVar(&clientID, "client", "", "the client (UUID) of a CLIENT key")
		fs.StringVar(&name, "name", "", "a name to tell keys apart")
	}
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return err
	}
	// Refuse a bad command line before touching the database.
	wantArgs := map[string]int{"create": 0, "list": 0, "revoke": 1}
	if n, ok := wantArgs[sub]; !ok || fs.NArg() != n {
		if !ok {
			fmt.Fprintf(stderr, "unknown apikey command %q\n\n", sub)
		}
		fs.Usage()
		return errUsage
	}
	if _, err := c.logger(stderr); err != nil {
		return err
	}
	db, err := c.openDatabase(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx = auth.System(ctx)
	switch sub {
	case "create":
		in := auth.KeyInput{Name: name, Role: apikey.Role(strings.ToUpper(role))}
		if clientID != "" {
			id, err := scalar.ParseUUID(clientID)
			if err != nil {
				return fmt.Errorf("--client %w", err)
			}
			in.ClientID = &id
		}
		key, secret, err := auth.CreateKey(ctx, db.Ent, in)
		if err != nil {
			return fmt.Errorf("creating the key: %w", err)
		}
		fmt.Fprintf(stderr, "Created %s key %s (%q). Its secret, shown only now:\n", key.Role, key.ID, key.Name)
		fmt.Fprintln(stdout, secret)
		return nil
	case "list":
		keys, err := db.Ent.APIKey.Query().Order(apikey.ByCreatedAt()).All(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tROLE\tCLIENT\tNAME\tCREATED\tLAST USED\tREVOKED")
		for _, k := range keys {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Role, orDash(k.ClientID), k.Name,
				scalar.FormatDateTime(k.CreatedAt), timeOrDash(k.LastUsedAt), timeOrDash(k.RevokedAt))
		}
		return tw.Flush()
	default: // revoke
		id, err := scalar.ParseUUID(fs.Arg(0))
		if err != nil {
			return fmt.Errorf("key id %w", err)
		}
		key, err := auth.RevokeKey(ctx, db.Ent, id)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Revoked %s key %s (%q).\n", key.Role, key.ID, key.Name)
		return nil
	}
}

// subcommand starts a command with subcommands (apikey, migrate): its flag
// set with the database flags and usage, and its first argument. With
// -h/--help it prints the usage to stdout and done is true; with no
// argument at all, to stderr, with errUsage.
func subcommand(name, usage string, args []string, stdout, stderr io.Writer, c *config) (fs *flag.FlagSet, sub string, rest []string, done bool, err error) {
	fs = flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	c.registerDatabase(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	if len(args) == 0 {
		fs.Usage()
		return fs, "", nil, true, errUsage
	}
	if isHelp(args[0]) {
		fs.SetOutput(stdout)
		fs.Usage()
		fs.SetOutput(stderr)
		return fs, "", nil, true, nil
	}
	return fs, args[0], args[1:], false, nil
}

// isHelp reports whether arg asks for help, as the flag package reads it.
func isHelp(arg string) bool {
	switch arg {
	case "-h", "--h", "-help", "--help", "help":
		return true
	}
	return false
}
