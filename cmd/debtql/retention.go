package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/ledger"
)

const retentionUsage = `Usage: debtql retention --before YEAR [--apply] [flags]

The yearly clean-up of personal data (docs/operations.md, "The yearly
retention run"). Lists the debtors whose debts all closed before the end of
YEAR (none open, none created, withdrawn or paid after it), with their
count; with --apply, anonymises each of them as anonymizeDebtor does: name,
identification number, address and contact details become [anonymized] or
null, wherever they are stored; amounts, dates, payments and the audit
trail stay. Without --apply nothing is written (a dry run).

Each debtor is anonymised in a transaction of its own and recorded in the
audit trail as operation anonymizeDebtor by "debtql retention"; a debtor
that gained an open debt since the list was read is skipped and reported.

Flags:
`

// retentionCommand runs the yearly retention run against the database
// directly, as the operator of the machine (no API key needed).
func retentionCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		c      config
		before int
		apply  bool
	)
	fs := flag.NewFlagSet("debtql retention", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c.registerDatabase(fs)
	fs.IntVar(&before, "before", 0, "the year whose end the debts must have closed before (required), e.g. 2018")
	fs.BoolVar(&apply, "apply", false, "anonymise the debtors listed (default: list them only)")
	fs.StringVar(&c.timeZone, "tz", env("TZ", "Europe/Stockholm"), "the service's time zone, in which the year ends (env TZ)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), retentionUsage)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return err
	}
	if fs.NArg() > 0 || before == 0 {
		if before == 0 {
			fmt.Fprintln(stderr, "--before YEAR is required")
		}
		fs.Usage()
		return errUsage
	}
	loc, err := c.location()
	if err != nil {
		return err
	}
	if _, err := c.logger(stderr); err != nil {
		return err
	}
	db, err := c.openDatabase(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	svc := ledger.New(db, ledger.Clock{Location: loc})
	run := "retention-" + strconv.FormatInt(time.Now().Unix(), 10)
	actor := ledger.Operator("debtql retention", run)
	due, err := svc.RetentionDue(ctx, actor, before)
	if err != nil {
		return err
	}
	for _, d := range due {
		fmt.Fprintf(stdout, "debtor %s\tclient %s\n", d.ID, d.ClientID)
	}
	end := svc.RetentionEnd(before).Format(time.RFC3339)
	if !apply {
		fmt.Fprintf(stdout, "%d debtors have had all their debts closed before %s; none was changed (dry run: --apply anonymises them).\n", len(due), end)
		return nil
	}
	var done, skipped int
	for _, d := range due {
		_, err := svc.AnonymizeDebtor(ctx, actor, d.ClientID, d.ID)
		var apiErr *apierr.Error
		switch {
		case errors.As(err, &apiErr) && apiErr.Code == apierr.Conflict:
			skipped++
			fmt.Fprintf(stderr, "skipped debtor %s: %s\n", d.ID, apiErr.Message)
		case err != nil:
			return fmt.Errorf("anonymizing debtor %s (%d done): %w", d.ID, done, err)
		default:
			done++
		}
	}
	fmt.Fprintf(stdout, "%d debtors anonymized (all their debts closed before %s), %d skipped.\n", done, end, skipped)
	return nil
}
