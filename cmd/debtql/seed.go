package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/debtql/debtql/internal/scalar"
	"github.com/debtql/debtql/internal/seed"
	"github.com/debtql/debtql/internal/store"
)

const seedUsage = `Usage: debtql seed [--scale small|bench|bench10] [flags]

Fills the database with deterministic, realistic data: Swedish clients and
debtors (valid personnummer and organisation numbers), invoices with
articles, debts with items, payments, and cases that are open, paid in full
or withdrawn. The same flags (and as-of date) give the same data.

Presets (--scale):
  small   3 clients, 60 debtors and debts, 40 invoices, 75 payments (default)
  bench   the benchmark's data set: 20 clients, 200,000 debtors and debts
          (50,000 of client 1001), 400,000 debt items, 150,000 payments,
          100,000 invoices with 300,000 articles; the open debts are the
          benchmark's main_status = 2 (17,405 of client 1001's)
  bench10 the benchmark's data set at scale 10: 2,000,000 debtors and debts
          (500,000 of client 1001), 4,000,000 debt items, 1,500,000
          payments, 1,000,000 invoices with 3,000,000 articles
The size flags override the preset's. Every debt has 2 items and every
invoice 3 articles. A third of the debts are open; of the others one in
ten is withdrawn and the rest are paid in full (more are withdrawn when
there are fewer payments than such debts). Client 1001 is the "hot" client; its id is
ea182032-d9e4-fed4-59be-cfc110ca2cf8 (md5('client:1'), as in the benchmark).

A database that already has clients is refused unless --reset is given,
which first deletes the clients and everything that belongs to them,
their CLIENT keys and the audit trail included (ADMIN keys are kept).

Flags:
`

// seedCommand loads generated data into the database directly.
func seedCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		c                                  config
		scale, asOf                        string
		clients, debts, invoices, payments int
		hotShare                           float64
		seedValue                          uint64
		reset, quiet                       bool
	)
	fs := flag.NewFlagSet("debtql seed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c.registerDatabase(fs)
	fs.StringVar(&scale, "scale", "small", "preset sizes: small, bench or bench10")
	fs.IntVar(&clients, "clients", 0, "number of clients (default: the preset's)")
	fs.IntVar(&debts, "debts", 0, "number of debtors and of debts, debt i of debtor i (default: the preset's)")
	fs.IntVar(&invoices, "invoices", 0, "number of invoices (default: the preset's)")
	fs.IntVar(&payments, "payments", 0, "number of payments; up to --debts each on another debt (default: the preset's)")
	fs.Float64Var(&hotShare, "hot-share", 0, "share (0-1) of debtors, debts and invoices that belong to client 1001 (default: the preset's)")
	fs.Uint64Var(&seedValue, "seed", 1, "varies names, amounts, dates and outcomes (ids do not depend on it)")
	fs.StringVar(&asOf, "as-of", "", "the day the data leads up to, YYYY-MM-DD (default: today in Europe/Stockholm)")
	fs.BoolVar(&reset, "reset", false, "delete the clients and everything that belongs to them first (ADMIN keys are kept)")
	fs.BoolVar(&quiet, "quiet", false, "print no progress, only the summary")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), seedUsage)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	cfg, err := seed.Preset(scale)
	if err != nil {
		return err
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "clients":
			cfg.Clients = clients
		case "debts":
			cfg.Debts = debts
		case "invoices":
			cfg.Invoices = invoices
		case "payments":
			cfg.Payments = payments
		case "hot-share":
			cfg.HotShare = hotShare
		}
	})
	cfg.Seed = seedValue
	if asOf == "" {
		cfg.AsOf = scalar.DateOf(time.Now().In(stockholm))
	} else if cfg.AsOf, err = scalar.ParseDate(asOf); err != nil {
		return fmt.Errorf("--as-of %w", err)
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if _, err := c.logger(stderr); err != nil {
		return err
	}
	db, err := store.Open(ctx, c.dsn()) // seed.Run migrates it
	if err != nil {
		return err
	}
	defer db.Close()
	opts := seed.Options{Reset: reset}
	if !quiet {
		opts.Progress = stderr
		fmt.Fprintf(stderr, "Seeding %s (scale %s, seed %d, as of %s):\n", db.Dialect, scale, cfg.Seed, cfg.AsOf)
	}
	sum, err := seed.Run(ctx, db, cfg, opts)
	if errors.Is(err, seed.ErrNotEmpty) {
		return err
	}
	if err != nil {
		return fmt.Errorf("seeding: %w", err)
	}
	printSeedSummary(stdout, sum)
	return nil
}

// stockholm is the zone whose today is the default as-of date.
var stockholm = func() *time.Location {
	loc, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		panic(err)
	}
	return loc
}()

func printSeedSummary(w io.Writer, s *seed.Summary) {
	if s.DeletedClients > 0 || s.DeletedKeys > 0 {
		fmt.Fprintf(w, "Deleted the previous data (%d clients, %d API keys).\n", s.DeletedClients, s.DeletedKeys)
	}
	fmt.Fprintf(w, "Seeded %s in %.1fs (seed %d, as of %s):\n", s.Dialect, s.Elapsed.Seconds(), s.Config.Seed, s.Config.AsOf)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	for _, c := range s.Counts {
		fmt.Fprintf(tw, "  %s\t%s\t\n", c.Table, thousands(c.Rows))
	}
	_ = tw.Flush()
	o := s.Debts
	fmt.Fprintf(w, "Debts: %s DEMAND_SENT, %s DEMAND_EXPIRED (%s of the open ones partly paid), %s PAID_IN_FULL, %s WITHDRAWN.\n",
		thousands(int64(o.DemandSent)), thousands(int64(o.DemandExpired)), thousands(int64(o.PartlyPaid)),
		thousands(int64(o.PaidInFull)), thousands(int64(o.Withdrawn)))
	fmt.Fprintf(w, "Hot client: %d %s, id %s (%s debtors and debts).\n",
		s.HotClientNumber, s.HotClientName, s.HotClientID, thousands(int64(s.HotDebts)))
}

// thousands writes n with commas between groups of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
