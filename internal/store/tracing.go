package store

import (
	"context"
	"database/sql"
	"strings"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// tracerName is the instrumentation scope of the SQL spans.
const tracerName = "github.com/debtql/debtql/internal/store"

// tracedDriver wraps ent's SQL driver with an OpenTelemetry span per
// statement (and per BEGIN, COMMIT and ROLLBACK). A span is made only as a
// child of a span that is recording, with that span's tracer provider: with
// tracing off nothing is recording, so a statement costs one context
// lookup, and statements outside a request (start-up, pruning) make no
// orphan traces.
//
// It wraps ent's dialect.Driver rather than database/sql's driver (as
// github.com/XSAM/otelsql does) so that the pgx connection under it stays
// what it is (the seed's COPY reaches *stdlib.Conn), and only the
// application's statements are traced, with no extra dependency.
type tracedDriver struct {
	*entsql.Driver
	system attribute.KeyValue
}

func newTracedDriver(drv *entsql.Driver) *tracedDriver {
	system := semconv.DBSystemNamePostgreSQL
	if drv.Dialect() == dialect.SQLite {
		system = semconv.DBSystemNameSQLite
	}
	return &tracedDriver{Driver: drv, system: system}
}

// startSpan starts a client span for query under ctx's span, or returns a
// nil span when ctx's span is not recording.
func startSpan(ctx context.Context, system attribute.KeyValue, query string) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, nil
	}
	op := operationOf(query)
	attrs := []attribute.KeyValue{system, semconv.DBOperationName(op)}
	if query != op {
		attrs = append(attrs, semconv.DBQueryText(query))
	}
	return parent.TracerProvider().Tracer(tracerName).Start(ctx, op,
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

// endSpan ends span (if any), recording err.
func endSpan(span trace.Span, err error) {
	if span == nil {
		return
	}
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// operationOf is the statement's first keyword, upper-cased: SELECT,
// INSERT, UPDATE, DELETE, BEGIN, …; the span's name.
func operationOf(query string) string {
	q := strings.TrimLeft(query, " \t\r\n(")
	end := strings.IndexAny(q, " \t\r\n(;")
	if end < 0 {
		end = len(q)
	}
	if end == 0 || end > 32 {
		return "SQL"
	}
	return strings.ToUpper(q[:end])
}

func (d *tracedDriver) Exec(ctx context.Context, query string, args, v any) error {
	ctx, span := startSpan(ctx, d.system, query)
	err := d.Driver.Exec(ctx, query, args, v)
	endSpan(span, err)
	return err
}

func (d *tracedDriver) Query(ctx context.Context, query string, args, v any) error {
	ctx, span := startSpan(ctx, d.system, query)
	err := d.Driver.Query(ctx, query, args, v)
	endSpan(span, err)
	return err
}

// ExecContext and QueryContext serve ent's sql/execquery feature (raw SQL
// through the client).
func (d *tracedDriver) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	ctx, span := startSpan(ctx, d.system, query)
	res, err := d.Driver.ExecContext(ctx, query, args...)
	endSpan(span, err)
	return res, err
}

func (d *tracedDriver) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	ctx, span := startSpan(ctx, d.system, query)
	rows, err := d.Driver.QueryContext(ctx, query, args...)
	endSpan(span, err)
	return rows, err
}

func (d *tracedDriver) Tx(ctx context.Context) (dialect.Tx, error) {
	return d.BeginTx(ctx, nil)
}

// BeginTx serves ent's Client.BeginTx.
func (d *tracedDriver) BeginTx(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	spanCtx, span := startSpan(ctx, d.system, "BEGIN")
	tx, err := d.Driver.BeginTx(spanCtx, opts)
	endSpan(span, err)
	if err != nil {
		return nil, err
	}
	return &tracedTx{Tx: tx, ctx: ctx, system: d.system}, nil
}

// tracedTx is a transaction of tracedDriver. COMMIT and ROLLBACK take no
// context, so their spans are children of the span that began it.
type tracedTx struct {
	dialect.Tx
	ctx    context.Context
	system attribute.KeyValue
}

func (t *tracedTx) Exec(ctx context.Context, query string, args, v any) error {
	ctx, span := startSpan(ctx, t.system, query)
	err := t.Tx.Exec(ctx, query, args, v)
	endSpan(span, err)
	return err
}

func (t *tracedTx) Query(ctx context.Context, query string, args, v any) error {
	ctx, span := startSpan(ctx, t.system, query)
	err := t.Tx.Query(ctx, query, args, v)
	endSpan(span, err)
	return err
}

type execQueryContext interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

func (t *tracedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	ctx, span := startSpan(ctx, t.system, query)
	res, err := t.Tx.(execQueryContext).ExecContext(ctx, query, args...)
	endSpan(span, err)
	return res, err
}

func (t *tracedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	ctx, span := startSpan(ctx, t.system, query)
	rows, err := t.Tx.(execQueryContext).QueryContext(ctx, query, args...)
	endSpan(span, err)
	return rows, err
}

func (t *tracedTx) Commit() error {
	_, span := startSpan(t.ctx, t.system, "COMMIT")
	err := t.Tx.Commit()
	endSpan(span, err)
	return err
}

func (t *tracedTx) Rollback() error {
	_, span := startSpan(t.ctx, t.system, "ROLLBACK")
	err := t.Tx.Rollback()
	endSpan(span, err)
	return err
}
