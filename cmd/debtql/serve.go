package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/server"
	"github.com/debtql/debtql/internal/store"
)

// shutdownGrace is how long requests in flight may finish after SIGTERM.
const shutdownGrace = 15 * time.Second

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var c config
	fs := flag.NewFlagSet("debtql serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c.registerServe(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: debtql [serve] [flags]\n\nRuns the DebtQL server: GraphQL at /graphql, GraphiQL at /, /healthz, /readyz.\nADMIN_API_KEY (env only) registers the first ADMIN key; without it one is generated and printed.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	if err := c.validate(); err != nil {
		return err
	}
	origins, err := server.ParseOrigins(c.corsOrigins)
	if err != nil {
		return fmt.Errorf("--cors-origins: %w", err)
	}
	log, err := c.logger(stderr)
	if err != nil {
		return err
	}
	log = slog.New(server.NewLogHandler(log.Handler()))
	loc, err := c.location()
	if err != nil {
		return err
	}
	db, err := store.Open(ctx, c.dsn())
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	if err := auth.Bootstrap(ctx, db.Client, os.Getenv("ADMIN_API_KEY"), stderr); err != nil {
		return err
	}

	handler := server.New(server.Options{
		DB:                   db,
		Logger:               log,
		Location:             loc,
		DisableIntrospection: !c.introspection,
		Limits:               &c.limits,
		AllowedOrigins:       origins,
	})
	srv := &http.Server{
		Addr:              c.addr,
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", c.addr, err)
	}
	log.Info("DebtQL is listening", "addr", ln.Addr().String(), "database", db.Dialect, "graphiql", "http://"+displayAddr(ln.Addr())+"/", "tz", loc.String())

	pruneCtx, stopPruning := context.WithCancel(ctx)
	pruned := make(chan struct{})
	go func() {
		defer close(pruned)
		pruneIdempotencyRecords(pruneCtx, handler, log)
	}()
	// Stop pruning before the database closes.
	defer func() { stopPruning(); <-pruned }()

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing requests in flight", "grace", shutdownGrace.String())
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutting down: %w", err)
	}
	log.Info("stopped")
	return nil
}

// pruneIdempotencyRecords deletes expired idempotency records every hour
// until ctx ends.
func pruneIdempotencyRecords(ctx context.Context, s *server.Server, log *slog.Logger) {
	tick := time.NewTicker(time.Hour)
	defer tick.Stop()
	for {
		if n, err := s.PruneIdempotencyRecords(ctx); err != nil {
			log.Warn("pruning idempotency records", "error", err.Error())
		} else if n > 0 {
			log.Info("pruned expired idempotency records", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func displayAddr(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}
