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

	"go.opentelemetry.io/otel/trace"

	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/server"
)

// shutdownGrace is how long requests in flight may finish after SIGTERM.
const shutdownGrace = 15 * time.Second

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var c config
	fs := flag.NewFlagSet("debtql serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c.registerServe(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: debtql [serve] [flags]\n\nRuns the DebtQL server: GraphQL at /graphql, GraphiQL at /, /healthz, /readyz, /metrics.\nADMIN_API_KEY (env only) registers the first ADMIN key; without it one is generated and printed.\n\nFlags:\n")
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
	tuneGC()
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
	tp, err := setupTracing(ctx, log)
	if err != nil {
		return err
	}
	var tracerProvider trace.TracerProvider // nil: tracing off
	if tp != nil {
		tracerProvider = tp
		// Flush the spans of the last requests, after the servers stopped.
		defer func() {
			flushCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := tp.Shutdown(flushCtx); err != nil {
				log.Warn("tracing: flushing spans at shutdown", "error", err.Error())
			}
		}()
	}
	db, err := c.openDatabaseLogged(ctx, log, c.migrate)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := auth.Bootstrap(ctx, db.Ent, os.Getenv("ADMIN_API_KEY"), stderr); err != nil {
		return err
	}

	handler := server.New(server.Options{
		DB:                   db,
		Logger:               log,
		Location:             loc,
		DisableIntrospection: !c.introspection,
		Limits:               &c.limits,
		AllowedOrigins:       origins,
		SeparateMetrics:      c.metricsAddr != "",
		TracerProvider:       tracerProvider,
	})
	defer handler.Close() // before the database closes
	stopPprof, err := startPprof(os.Getenv("DEBTQL_PPROF_ADDR"), log)
	if err != nil {
		return fmt.Errorf("listening on %s (DEBTQL_PPROF_ADDR): %w", os.Getenv("DEBTQL_PPROF_ADDR"), err)
	}
	defer stopPprof()
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", c.addr, err)
	}
	servers := []*http.Server{httpServer(c.addr, handler)}
	listeners := []net.Listener{ln}
	if c.metricsAddr != "" {
		mln, err := net.Listen("tcp", c.metricsAddr)
		if err != nil {
			_ = ln.Close()
			return fmt.Errorf("listening on %s (--metrics-addr): %w", c.metricsAddr, err)
		}
		servers = append(servers, httpServer(c.metricsAddr, handler.MetricsHandler()))
		listeners = append(listeners, mln)
	}
	log.Info("DebtQL is listening", "addr", ln.Addr().String(), "database", db.Dialect, "pool", db.PoolSize(), "graphiql", "http://"+displayAddr(ln.Addr())+"/", "tz", loc.String())
	if len(listeners) > 1 {
		log.Info("metrics are served on their own address", "metrics", "http://"+displayAddr(listeners[1].Addr())+"/metrics")
	}

	pruneCtx, stopPruning := context.WithCancel(ctx)
	pruned := make(chan struct{})
	go func() {
		defer close(pruned)
		pruneIdempotencyRecords(pruneCtx, handler, log)
	}()
	// Stop pruning before the database closes.
	defer func() { stopPruning(); <-pruned }()

	errc := make(chan error, len(servers))
	for i, s := range servers {
		go func() { errc <- s.Serve(listeners[i]) }()
	}
	select {
	case err := <-errc:
		// One listener failed: stop the others too.
		for _, s := range servers {
			_ = s.Close()
		}
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing requests in flight", "grace", shutdownGrace.String())
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	// The API first, then the metrics, which stay scrapeable meanwhile.
	var shutdownErr error
	for _, s := range servers {
		if err := s.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) && shutdownErr == nil {
			shutdownErr = fmt.Errorf("shutting down: %w", err)
		}
	}
	if shutdownErr != nil {
		return shutdownErr
	}
	log.Info("stopped")
	return nil
}

// httpLimits are the HTTP server's timeouts and header limit, which keep
// slow or hostile clients from holding connections (docs/reliability.md).
// The write timeout is well above the default request deadline, so that a
// request that passes its deadline can still be answered 503.
var httpLimits = struct {
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	MaxHeaderBytes                                            int
}{
	ReadHeaderTimeout: 10 * time.Second,
	ReadTimeout:       30 * time.Second,
	WriteTimeout:      60 * time.Second,
	IdleTimeout:       120 * time.Second,
	MaxHeaderBytes:    64 << 10,
}

// httpServer serves h on addr with httpLimits.
func httpServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: httpLimits.ReadHeaderTimeout,
		ReadTimeout:       httpLimits.ReadTimeout,
		WriteTimeout:      httpLimits.WriteTimeout,
		IdleTimeout:       httpLimits.IdleTimeout,
		MaxHeaderBytes:    httpLimits.MaxHeaderBytes,
	}
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
