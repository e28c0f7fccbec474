package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/debtql/debtql/ent"
)

// Pipeline is statements sent to PostgreSQL together, in one round trip
// (pgx's batch: the server runs them one after the other, each with its
// own snapshot, and answers them together). Each query's rows go to its
// scan function, in the order queued; the first statement that fails
// ends the pipeline, and the transaction with it.
//
// The same statements run in a transaction of ent's one after the other
// (RunIn), so that a use case writes its statements once whether they
// are piped or not.
type Pipeline struct {
	b pgx.Batch
	// scans are the queued statements' scan functions, by position (nil
	// for Exec's), for RunIn.
	scans []func(Rows) error
}

// Rows are the rows of a pipelined query, as its scan function reads
// them.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// Query queues a query whose rows scan reads.
func (p *Pipeline) Query(query string, scan func(Rows) error, args ...any) {
	p.b.Queue(query, args...).Query(func(rows pgx.Rows) error { return scan(rows) })
	p.scans = append(p.scans, scan)
}

// Exec queues a statement whose rows, if any, are not read.
func (p *Pipeline) Exec(query string, args ...any) {
	p.b.Queue(query, args...).Exec(func(pgconn.CommandTag) error { return nil })
	p.scans = append(p.scans, nil)
}

// RunIn runs p's statements in tx, one round trip each, in the order
// queued, each query's rows read by its scan function: for a transaction
// begun without BeginPiped. The first that fails ends the run.
func (p *Pipeline) RunIn(ctx context.Context, tx *ent.Tx) error {
	for i, q := range p.b.QueuedQueries {
		if p.scans[i] == nil {
			if _, err := tx.ExecContext(ctx, q.SQL, q.Arguments...); err != nil {
				return err
			}
			continue
		}
		rows, err := tx.QueryContext(ctx, q.SQL, q.Arguments...)
		if err != nil {
			return err
		}
		err = p.scans[i](rows)
		if cerr := rows.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// PipedTx is a transaction begun by BeginPiped. Tx is its ent view: its
// statements go to the transaction's connection, and its Commit sends
// the statements given to AtCommit together with the COMMIT.
type PipedTx struct {
	Tx *ent.Tx
	c  *pipedConn
}

// AtCommit queues statements to be sent with the transaction's COMMIT, in
// one round trip: when one of them fails, the transaction rolls back and
// Commit returns its error.
func (t *PipedTx) AtCommit(p *Pipeline) { t.c.last = p }

// BeginPiped begins a transaction with first's statements, sent together
// with its BEGIN in one round trip, on a connection of the pool that the
// transaction keeps until it ends (PostgreSQL only). When one of first's
// statements fails, the transaction is rolled back and its error returned.
//
// A short transaction of a few statements spends most of its time, on
// both sides, on round trips: a grouped createDebt's was six (BEGIN, the
// client, the locks, the numbers held, the insert, COMMIT) and is two
// (docs/performance.md, "Bulk hand-over").
func (d *DB) BeginPiped(ctx context.Context, first *Pipeline) (*PipedTx, error) {
	if !d.IsPostgres() {
		return nil, errors.New("store: BeginPiped needs PostgreSQL")
	}
	conn, err := d.SQL.Conn(ctx)
	if err != nil {
		return nil, err
	}
	c := &pipedConn{conn: conn, ctx: context.WithoutCancel(ctx), observe: d.observe}
	begin := &Pipeline{}
	begin.Exec("BEGIN")
	begin.b.QueuedQueries = append(begin.b.QueuedQueries, first.b.QueuedQueries...)
	if err := c.send(ctx, begin, false); err != nil {
		return nil, err
	}
	var drv dialect.Driver = &pipedDriver{tx: &tracedTx{Tx: c, ctx: ctx, system: semconv.DBSystemNamePostgreSQL}}
	if d.wrap != nil {
		drv = d.wrap(drv)
	}
	tx, err := d.Ent.TxOn(ctx, drv)
	if err != nil {
		_ = c.Rollback()
		return nil, err
	}
	return &PipedTx{Tx: tx, c: c}, nil
}

// pipedConn is a piped transaction: its connection, and the statements
// that go with its COMMIT. It is the dialect.Tx under the ent view.
type pipedConn struct {
	conn    *sql.Conn
	ctx     context.Context // the beginning's, without its cancellation: COMMIT and ROLLBACK take none
	observe func(context.Context, string)
	last    *Pipeline
	done    bool
}

// send sends p on the transaction's connection. When one of its
// statements fails, or p ends the transaction (end: its COMMIT or
// ROLLBACK), the transaction is over: a connection still in a transaction
// is rolled back (or, when that fails, closed rather than reused) and goes
// back to the pool.
func (c *pipedConn) send(ctx context.Context, p *Pipeline, end bool) error {
	for _, q := range p.b.QueuedQueries {
		if !transactionControl(q.SQL) && c.observe != nil {
			c.observe(ctx, q.SQL)
		}
	}
	ctx, span := startSpan(ctx, semconv.DBSystemNamePostgreSQL, p.text(ctx))
	var sent error
	err := c.conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("store: a piped transaction needs pgx's connection, not %T", dc)
		}
		pc := sc.Conn()
		sent = pc.SendBatch(ctx, &p.b).Close()
		if (sent != nil || end) && pc.PgConn().TxStatus() != 'I' {
			if _, err := pc.Exec(c.ctx, "ROLLBACK"); err != nil || pc.PgConn().TxStatus() != 'I' {
				return driver.ErrBadConn // database/sql closes it
			}
		}
		return nil
	})
	if sent == nil {
		sent = err
	}
	endSpan(span, sent)
	if sent != nil || end {
		c.done = true
		_ = c.conn.Close()
	}
	return sent
}

// text is p's statements as one text, for the span of a recording trace
// (nothing otherwise: startSpan makes no span then).
func (p *Pipeline) text(ctx context.Context) string {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ""
	}
	queries := make([]string, len(p.b.QueuedQueries))
	for i, q := range p.b.QueuedQueries {
		queries[i] = q.SQL
	}
	return strings.Join(queries, ";\n")
}

// transactionControl reports whether q begins or ends a transaction: not
// a statement of the transaction's work (for observe, as for the
// statement counts through ent).
func transactionControl(q string) bool {
	switch q {
	case "BEGIN", "COMMIT", "ROLLBACK":
		return true
	}
	return false
}

// Commit sends the statements queued with AtCommit and COMMIT.
func (c *pipedConn) Commit() error {
	if c.done {
		return sql.ErrTxDone
	}
	p := c.last
	if p == nil {
		p = &Pipeline{}
	}
	var tag pgconn.CommandTag
	p.b.Queue("COMMIT").Exec(func(ct pgconn.CommandTag) error { tag = ct; return nil })
	if err := c.send(c.ctx, p, true); err != nil {
		return err
	}
	if tag.String() == "ROLLBACK" {
		return errors.New("store: the transaction was rolled back at its COMMIT")
	}
	return nil
}

// Rollback rolls the transaction back (its AtCommit statements unsent).
func (c *pipedConn) Rollback() error {
	if c.done {
		return sql.ErrTxDone
	}
	p := &Pipeline{}
	p.Exec("ROLLBACK")
	return c.send(c.ctx, p, true)
}

func (c *pipedConn) Exec(ctx context.Context, query string, args, v any) error {
	if c.done {
		return sql.ErrTxDone
	}
	return entsql.Conn{ExecQuerier: c.conn}.Exec(ctx, query, args, v)
}

func (c *pipedConn) Query(ctx context.Context, query string, args, v any) error {
	if c.done {
		return sql.ErrTxDone
	}
	return entsql.Conn{ExecQuerier: c.conn}.Query(ctx, query, args, v)
}

// ExecContext and QueryContext serve raw SQL through the ent view.
func (c *pipedConn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if c.done {
		return nil, sql.ErrTxDone
	}
	return c.conn.ExecContext(ctx, query, args...)
}

func (c *pipedConn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if c.done {
		return nil, sql.ErrTxDone
	}
	return c.conn.QueryContext(ctx, query, args...)
}

// pipedDriver is the ent driver of a piped transaction's view: its Tx is
// the transaction, begun already; it has no statements of its own.
type pipedDriver struct{ tx dialect.Tx }

var errOutsidePiped = errors.New("store: a piped transaction's driver runs statements only in its transaction")

func (d *pipedDriver) Exec(context.Context, string, any, any) error  { return errOutsidePiped }
func (d *pipedDriver) Query(context.Context, string, any, any) error { return errOutsidePiped }
func (d *pipedDriver) Tx(context.Context) (dialect.Tx, error)        { return d.tx, nil }
func (d *pipedDriver) Close() error                                  { return nil }
func (d *pipedDriver) Dialect() string                               { return dialect.Postgres }

// BeginTx serves drivers that wrap this one (apitest's counting driver).
func (d *pipedDriver) BeginTx(context.Context, *sql.TxOptions) (dialect.Tx, error) { return d.tx, nil }
