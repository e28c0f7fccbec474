package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/debtql/debtql/internal/store"
)

// config is the configuration shared by the subcommands. Each setting is a
// flag whose default comes from an environment variable.
type config struct {
	addr          string
	databaseURL   string
	sqlitePath    string
	timeZone      string
	logLevel      string
	logFormat     string
	introspection bool
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
	fs.StringVar(&c.timeZone, "tz", env("TZ", "Europe/Stockholm"),
		"time zone in which statuses are evaluated (\"today\") (env TZ)")
	fs.BoolVar(&c.introspection, "introspection", env("DEBTQL_INTROSPECTION", "true") != "false",
		"answer GraphQL introspection (env DEBTQL_INTROSPECTION=false turns it off)")
}

// dsn is the database the configuration names.
func (c *config) dsn() string {
	if c.databaseURL != "" {
		return c.databaseURL
	}
	return c.sqlitePath
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
