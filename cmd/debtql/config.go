package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/events"
	"github.com/debtql/debtql/internal/server"
	"github.com/debtql/debtql/internal/store"
)

// config is the configuration shared by the subcommands. Each setting is a
// flag whose default comes from an environment variable.
type config struct {
	addr          string
	metricsAddr   string
	databaseURL   string
	sqlitePath    string
	timeZone      string
	logLevel      string
	logFormat     string
	introspection bool
	limits        server.Limits
	corsOrigins   string
	// paymentOrder is what applyForPaymentOrder charges.
	paymentOrder collection.PaymentOrderAmounts
	// events and webhooks (api.md §12)
	subscriptionBuffer   int
	webhookAllowInsecure bool
	webhookWorkers       int
	// migrate applies pending migrations at the start of serve.
	migrate bool
	// badEnv lists environment variables whose values did not parse.
	badEnv []string
}

func env(name, fallback string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return fallback
}

func defaultAddr() string {
	if port := os.Getenv("PORT"); port != "" {
		return ":" + port
	}
	return ":8080"
}

// registerDatabase adds the flags that choose the database.
func (c *config) registerDatabase(fs *flag.FlagSet) {
	fs.StringVar(&c.databaseURL, "database-url", env("DATABASE_URL", ""),
		"PostgreSQL URL (postgres://user@host:5432/db); empty uses the embedded SQLite file (env DATABASE_URL)")
	fs.StringVar(&c.sqlitePath, "sqlite", env("DEBTQL_SQLITE_PATH", store.DefaultSQLitePath),
		"SQLite database file, used when no PostgreSQL URL is given (env DEBTQL_SQLITE_PATH)")
	fs.StringVar(&c.logLevel, "log-level", env("LOG_LEVEL", "info"), "log level: debug, info, warn or error (env LOG_LEVEL)")
	fs.StringVar(&c.logFormat, "log-format", env("LOG_FORMAT", "auto"),
		"log format: json, text, or auto (text on a terminal, else JSON) (env LOG_FORMAT)")
}

// registerServe adds the server's flags.
func (c *config) registerServe(fs *flag.FlagSet) {
	c.registerDatabase(fs)
	fs.StringVar(&c.addr, "addr", defaultAddr(), "listen address (env PORT sets :PORT)")
	fs.StringVar(&c.metricsAddr, "metrics-addr", env("DEBTQL_METRICS_ADDR", ""),
		"listen address of /metrics alone (127.0.0.1:9090); empty serves /metrics on --addr (env DEBTQL_METRICS_ADDR)")
	fs.StringVar(&c.timeZone, "tz", env("TZ", "Europe/Stockholm"),
		"time zone in which statuses are evaluated (\"today\") (env TZ)")
	fs.BoolVar(&c.introspection, "introspection", env("DEBTQL_INTROSPECTION", "true") != "false",
		"answer GraphQL introspection (env DEBTQL_INTROSPECTION=false turns it off)")
	fs.StringVar(&c.corsOrigins, "cors-origins", env("DEBTQL_CORS_ORIGINS", ""),
		"browser origins allowed to call the API, comma-separated (https://app.example.se), or *; none by default (env DEBTQL_CORS_ORIGINS)")
	fs.IntVar(&c.subscriptionBuffer, "subscription-buffer", c.envInt("DEBTQL_SUBSCRIPTION_BUFFER", events.DefaultBuffer),
		"events a subscription may have waiting (behind a write its client has not taken, or in the hub) before its socket is closed as too slow (close 1008) (env DEBTQL_SUBSCRIPTION_BUFFER)")
	fs.BoolVar(&c.webhookAllowInsecure, "webhook-allow-insecure", env("DEBTQL_WEBHOOK_ALLOW_INSECURE", "false") == "true",
		"allow webhook URLs over http and to loopback, private and link-local addresses: development and tests only (env DEBTQL_WEBHOOK_ALLOW_INSECURE=true)")
	fs.IntVar(&c.webhookWorkers, "webhook-workers", c.envInt("DEBTQL_WEBHOOK_WORKERS", 16),
		"webhook deliveries this process sends at once; 0 sends none (another process does) (env DEBTQL_WEBHOOK_WORKERS)")
	fs.BoolVar(&c.migrate, "migrate", env("DEBTQL_MIGRATE", "true") != "false",
		"apply pending PostgreSQL migrations at start; with false, refuse to start while any is pending (env DEBTQL_MIGRATE)")
	// The defaults first: a flag's help shows its value at registration.
	po := collection.DefaultPaymentOrderAmounts
	c.paymentOrder.Fee = c.envMoney("DEBTQL_PAYMENT_ORDER_FEE", po.Fee)
	c.paymentOrder.ApplicationFee = c.envMoney("DEBTQL_PAYMENT_ORDER_APPLICATION_FEE", po.ApplicationFee)
	fs.Var(moneyFlag{&c.paymentOrder.Fee}, "payment-order-fee", "PAYMENT_ORDER_FEE that applyForPaymentOrder charges, 0.00-10000.00 (env DEBTQL_PAYMENT_ORDER_FEE)")
	fs.Var(moneyFlag{&c.paymentOrder.ApplicationFee}, "payment-order-application-fee",
		"PAYMENT_ORDER_APPLICATION_FEE that applyForPaymentOrder charges, 0.00-10000.00 (env DEBTQL_PAYMENT_ORDER_APPLICATION_FEE)")
	d := server.DefaultLimits
	fs.IntVar(&c.limits.MaxDepth, "max-depth", c.envInt("DEBTQL_MAX_DEPTH", d.MaxDepth),
		"deepest field nesting of a query, introspection aside; 0 = no limit (env DEBTQL_MAX_DEPTH)")
	fs.IntVar(&c.limits.MaxComplexity, "max-complexity", c.envInt("DEBTQL_MAX_COMPLEXITY", d.MaxComplexity),
		"largest query complexity, lists weighted by page size; 0 = no limit (env DEBTQL_MAX_COMPLEXITY)")
	fs.IntVar(&c.limits.MaxRootFields, "max-root-fields", c.envInt("DEBTQL_MAX_ROOT_FIELDS", d.MaxRootFields),
		"most root fields (aliases included) per operation; 0 = no limit (env DEBTQL_MAX_ROOT_FIELDS)")
	fs.IntVar(&c.limits.MaxDocumentBytes, "max-document-bytes", c.envInt("DEBTQL_MAX_DOCUMENT_BYTES", d.MaxDocumentBytes),
		"largest query document in bytes; 0 = no limit (env DEBTQL_MAX_DOCUMENT_BYTES)")
	fs.IntVar(&c.limits.MaxResponseFields, "max-response-fields", c.envInt("DEBTQL_MAX_RESPONSE_FIELDS", d.MaxResponseFields),
		"most fields (list elements' included) one answer may hold; 0 = no limit (env DEBTQL_MAX_RESPONSE_FIELDS)")
	fs.IntVar(&c.limits.MaxResponseBytes, "max-response-bytes", c.envInt("DEBTQL_MAX_RESPONSE_BYTES", d.MaxResponseBytes),
		"largest answer in bytes; 0 = no limit (env DEBTQL_MAX_RESPONSE_BYTES)")
	fs.Float64Var(&c.limits.AuthFailuresPerSecond, "auth-failure-limit", c.envFloat("DEBTQL_AUTH_FAILURE_LIMIT", d.AuthFailuresPerSecond),
		"failed authentications per second per client address before its unknown keys are answered 429 unread; 0 = no limit (env DEBTQL_AUTH_FAILURE_LIMIT)")
	fs.IntVar(&c.limits.AuthFailureBurst, "auth-failure-burst", c.envInt("DEBTQL_AUTH_FAILURE_BURST", d.AuthFailureBurst),
		"burst of the per-address bucket of failed authentications (env DEBTQL_AUTH_FAILURE_BURST)")
	fs.Float64Var(&c.limits.RatePerSecond, "rate-limit", c.envFloat("DEBTQL_RATE_LIMIT", d.RatePerSecond),
		"requests per second per API key (token bucket); 0 = no limit (env DEBTQL_RATE_LIMIT)")
	fs.IntVar(&c.limits.RateBurst, "rate-burst", c.envInt("DEBTQL_RATE_BURST", d.RateBurst),
		"burst of the per-key token bucket (env DEBTQL_RATE_BURST)")
	fs.DurationVar(&c.limits.RequestTimeout, "request-timeout", c.envDuration("DEBTQL_REQUEST_TIMEOUT", d.RequestTimeout),
		"deadline of each GraphQL request; its SQL is cancelled when it passes (env DEBTQL_REQUEST_TIMEOUT)")
}

// envInt, envFloat and envDuration read a default from the environment; a
// value that does not parse is reported by validate, not silently ignored.
func (c *config) envInt(name string, fallback int) int {
	if v := os.Getenv(name); v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
		c.badEnv = append(c.badEnv, name)
	}
	return fallback
}

func (c *config) envFloat(name string, fallback float64) float64 {
	if v := os.Getenv(name); v != "" {
		if n, err := strconv.ParseFloat(v, 64); err == nil {
			return n
		}
		c.badEnv = append(c.badEnv, name)
	}
	return fallback
}

func (c *config) envDuration(name string, fallback time.Duration) time.Duration {
	if v := os.Getenv(name); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			return d
		}
		c.badEnv = append(c.badEnv, name)
	}
	return fallback
}

// envMoney reads an amount (kronor with up to 2 decimals) from the
// environment, as envInt reads a number.
func (c *config) envMoney(name string, fallback collection.Money) collection.Money {
	if v := os.Getenv(name); v != "" {
		if m, err := collection.ParseMoney(v); err == nil {
			return m
		}
		c.badEnv = append(c.badEnv, name)
	}
	return fallback
}

// moneyFlag is a flag holding an amount (kronor with up to 2 decimals).
type moneyFlag struct{ m *collection.Money }

func (f moneyFlag) String() string {
	if f.m == nil {
		return ""
	}
	return f.m.String()
}

func (f moneyFlag) Set(s string) error {
	m, err := collection.ParseMoney(s)
	if err != nil {
		return err
	}
	*f.m = m
	return nil
}

// validate refuses settings that cannot work.
func (c *config) validate() error {
	if len(c.badEnv) > 0 {
		return fmt.Errorf("cannot read %s: use a number (or a duration such as 10s, or an amount such as 300.00)", strings.Join(c.badEnv, ", "))
	}
	if err := c.paymentOrder.Check(); err != nil {
		return fmt.Errorf("payment-order amounts: %w", err)
	}
	if c.metricsAddr != "" && c.metricsAddr == c.addr {
		return fmt.Errorf("--metrics-addr must differ from --addr (%s); leave it empty to serve /metrics on --addr", c.addr)
	}
	l := c.limits
	if l.MaxDepth < 0 || l.MaxComplexity < 0 || l.MaxRootFields < 0 || l.MaxDocumentBytes < 0 || l.MaxResponseFields < 0 || l.MaxResponseBytes < 0 ||
		l.RatePerSecond < 0 || l.RateBurst < 0 || l.AuthFailuresPerSecond < 0 || l.AuthFailureBurst < 0 || l.RequestTimeout < 0 {
		return fmt.Errorf("limits cannot be negative")
	}
	if l.RequestTimeout >= httpLimits.WriteTimeout {
		return fmt.Errorf("--request-timeout %s must be below the HTTP write timeout %s, so that a request at its deadline can still be answered 503", l.RequestTimeout, httpLimits.WriteTimeout)
	}
	return nil
}

// dsn is the database the configuration names.
func (c *config) dsn() string {
	if c.databaseURL != "" {
		return c.databaseURL
	}
	return c.sqlitePath
}

// openDatabase opens the configured database and brings its schema up to
// date: what every subcommand does first.
func (c *config) openDatabase(ctx context.Context) (*store.DB, error) {
	return c.openDatabaseLogged(ctx, nil, true)
}

// openDatabaseLogged opens the configured database and, when migrate is
// set, applies the pending migrations, logging each file to log (if not
// nil). Without migrate, a PostgreSQL schema with pending migrations is
// refused; SQLite is always migrated automatically.
func (c *config) openDatabaseLogged(ctx context.Context, log *slog.Logger, migrate bool) (*store.DB, error) {
	db, err := store.Open(ctx, c.dsn())
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*store.DB, error) {
		_ = db.Close()
		return nil, err
	}
	if !migrate && db.IsPostgres() {
		st, err := store.Status(ctx, db.SQL, nil)
		if err != nil {
			return fail(err)
		}
		if len(st.Pending) > 0 {
			return fail(fmt.Errorf("the database has %d pending migration(s) (%s …) and --migrate=false: run `debtql migrate up` first", len(st.Pending), st.Pending[0]))
		}
		return db, nil
	}
	rep, err := db.MigrateUp(ctx, store.MigrateOptions{})
	if err != nil {
		return fail(err)
	}
	if log != nil {
		for _, f := range rep.Applied {
			log.Info("applied migration", "migration", f)
		}
		if len(rep.Unknown) > 0 {
			log.Warn("the database has migrations this binary does not know: it was migrated by a newer DebtQL", "migrations", rep.Unknown)
		}
	}
	return db, nil
}

// location loads the configured time zone.
func (c *config) location() (*time.Location, error) {
	loc, err := time.LoadLocation(c.timeZone)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q (TZ): use an IANA name such as Europe/Stockholm", c.timeZone)
	}
	return loc, nil
}

// logger builds the structured logger: JSON when w is not a terminal.
func (c *config) logger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.logLevel)); err != nil {
		return nil, fmt.Errorf("unknown log level %q: use debug, info, warn or error", c.logLevel)
	}
	opts := &slog.HandlerOptions{Level: level}
	format := strings.ToLower(c.logFormat)
	if format == "auto" {
		format = "json"
		if f, ok := w.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
			format = "text"
		}
	}
	switch format {
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	default:
		return nil, fmt.Errorf("unknown log format %q: use json, text or auto", c.logFormat)
	}
}
