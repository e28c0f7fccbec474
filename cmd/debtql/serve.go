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
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/events"
	"github.com/debtql/debtql/internal/server"
	"github.com/debtql/debtql/internal/webhook"
)

// shutdownGrace is how long requests in flight may finish after SIGTERM.
const shutdownGrace = 15 * time.Second

const serveUsage = `Usage: debtql [serve] [flags]

Runs the DebtQL server: GraphQL at /graphql, GraphiQL at /, /healthz, /readyz, /metrics.
Every flag can also be set by the environment variable named after it; a flag
given on the command line wins.

Flags:
`

// serveEnvOnly lists the settings that have no flag, so that --help names
// every setting the server reads (TestServeHelpListsEverySetting keeps it
// in step with the code).
const serveEnvOnly = `
Settings read only from the environment:
  ADMIN_API_KEY
    	registered as the ADMIN key when no active ADMIN key exists (at least 32 characters);
    	without it, the first start generates one and prints it once
  DEBTQL_DB_MAX_CONNS
    	most PostgreSQL connections the server opens (default 20)
  DEBTQL_PPROF_ADDR
    	serve Go's profiler (/debug/pprof/) on this loopback address, e.g. 127.0.0.1:6061 (default off)
  OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
    	OpenTelemetry collector (OTLP/HTTP, e.g. http://collector:4318): turns tracing on;
    	the other OTEL_* variables apply, OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none turn it off
  GOGC
    	Go's garbage collector target (default 200 for the server; see docs/performance.md)
`

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var c config
	fs := flag.NewFlagSet("debtql serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c.registerServe(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), serveUsage)
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), serveEnvOnly)
	}
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
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
	boot, err := auth.Bootstrap(ctx, db.Ent, os.Getenv("ADMIN_API_KEY"), stderr)
	if err != nil {
		return err
	}
	if boot == auth.BootstrapKeysExist {
		// The first start printed a key; later starts print none, and a
		// newcomer who lost it (or never saw it) needs to know the way out.
		log.Info("no ADMIN API key was generated: the database has one already; create another with the command in create_key",
			"create_key", c.apikeyCreateHint())
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
		PaymentOrder:         &c.paymentOrder,
		Events:               events.Options{Buffer: c.subscriptionBuffer},
		WebhookPolicy:        webhook.Policy{AllowInsecure: c.webhookAllowInsecure},
		WebhookWorkers:       webhookWorkers(c.webhookWorkers),
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

// apikeyCreateHint is the command that creates an ADMIN key in the
// database this server uses. A PostgreSQL URL may hold a password, so it
// is named by its variable, never written out.
func (c *config) apikeyCreateHint() string {
	cmd := `debtql apikey create --role ADMIN --name "NAME"`
	if c.databaseURL != "" {
		return cmd + " (with this server's --database-url or DATABASE_URL)"
	}
	path := c.sqlitePath
	if strings.ContainsAny(path, " \t'\"$\\") {
		path = strconv.Quote(path)
	}
	return cmd + " --sqlite " + path
}

// webhookWorkers is --webhook-workers as server.Options takes it: 0 there is
// the default, negative none.
func webhookWorkers(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}
