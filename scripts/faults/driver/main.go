// Command driver is the client side of the fault scripts in scripts/faults
// (see docs/reliability.md). It runs the DebtQL server binary it is given,
// sends it a bounded stream of keyed mutations, injects the fault, and
// verifies through the API and SQL that nothing acknowledged was lost and
// nothing was written twice. The scripts build it and run it against a
// throwaway PostgreSQL cluster; it is not meant to be run on its own.
//
//	driver kill      --server-bin BIN --dsn URL [--cycles 5]   kill -9 of the server mid-stream
//	driver webhooks  --server-bin BIN --dsn URL [--cycles 4]   kill -9 while webhooks are queued and sent
//	driver pgrestart --server-bin BIN --dsn URL --pg-ctl CMD   PostgreSQL stopped and started under load
//	driver probe     --server-bin BIN --dsn URL --introspection FILE   adversarial requests, peak RSS of each
//
// It exits 1 when a guarantee is broken, after printing what it found, and
// 2 when a run could not be made (probe only: set-up failed).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// adminKey is the ADMIN key the driver registers through ADMIN_API_KEY on
// the throwaway database.
const adminKey = "dq_fault-driver-admin-key-000000000000000000"

type common struct {
	serverBin string
	dsn       string
	addr      string
	logPath   string
	pidFile   string
	limit     time.Duration
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.serverBin, "server-bin", "", "the debtql binary")
	fs.StringVar(&c.dsn, "dsn", "", "PostgreSQL URL of the throwaway database")
	fs.StringVar(&c.addr, "addr", "127.0.0.1:18090", "address the server listens on")
	fs.StringVar(&c.logPath, "server-log", "server.log", "file the server's output is appended to")
	fs.StringVar(&c.pidFile, "pid-file", "", "file that holds the running server's pid, for the script's trap")
	fs.DurationVar(&c.limit, "time-limit", 4*time.Minute, "give up (and fail) after this long")
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: driver kill|webhooks|pgrestart|probe [flags]")
		os.Exit(2)
	}
	var (
		c   common
		run func(ctx context.Context) error
	)
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	c.register(fs)
	switch os.Args[1] {
	case "kill":
		k := killRun{common: &c}
		fs.IntVar(&k.cycles, "cycles", 5, "how many times the server is killed")
		fs.IntVar(&k.workers, "workers", 6, "concurrent callers")
		fs.IntVar(&k.payments, "payments", 3, "addDebtPayment calls per debt")
		run = k.run
	case "webhooks":
		h := hookRun{common: &c}
		fs.IntVar(&h.cycles, "cycles", 4, "how many times the server is killed")
		fs.IntVar(&h.workers, "workers", 4, "concurrent callers")
		run = h.run
	case "pgrestart":
		p := pgRun{common: &c}
		fs.StringVar(&p.pgCtl, "pg-ctl", "", "command that runs pg_ctl on the cluster: its arguments (stop -m fast, start) are appended")
		fs.IntVar(&p.workers, "workers", 6, "concurrent callers")
		fs.StringVar(&p.modes, "modes", "fast,immediate,fast,immediate", "pg_ctl stop modes, one outage each")
		fs.DurationVar(&p.down, "down", 3*time.Second, "how long the database stays down")
		fs.DurationVar(&p.maxRecovery, "max-recovery", 5*time.Second, "longest allowed time from the database's return to the first success")
		run = p.run
	case "probe":
		p := probeRun{common: &c}
		fs.StringVar(&p.introspection, "introspection", "internal/server/testdata/introspection.graphql", "file with the full introspection query")
		fs.Float64Var(&p.maxPeakMiB, "max-peak-mib", 300, "a peak RSS above this many MiB fails the run")
		fs.IntVar(&p.debtsB, "debts", 100, "debts of --items items for the second client (the largest page)")
		fs.IntVar(&p.items, "items", 1000, "items per debt")
		fs.IntVar(&p.workers, "workers", 4, "concurrent createDebt calls while setting up")
		fs.IntVar(&p.repeat, "repeat", 3, "runs of each probe, each on a fresh server process (the table shows the highest peak)")
		run = p.run
	default:
		fmt.Fprintln(os.Stderr, "usage: driver kill|webhooks|pgrestart|probe [flags]")
		os.Exit(2)
	}
	_ = fs.Parse(os.Args[2:])
	if c.serverBin == "" || c.dsn == "" {
		fmt.Fprintln(os.Stderr, "--server-bin and --dsn are required")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, c.limit)
	defer cancel()
	if err := run(ctx); err != nil {
		code := 1
		if errors.As(err, new(couldNotRun)) {
			fmt.Fprintln(os.Stderr, "COULD NOT RUN:", err)
			code = 2
		} else {
			fmt.Fprintln(os.Stderr, "FAILED:", err)
		}
		cancel()
		stop()
		os.Exit(code)
	}
}
