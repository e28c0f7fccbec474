package apitest

import (
	"context"
	stdsql "database/sql"
	"fmt"
	"sync"
	"sync/atomic"

	"entgo.io/ent/dialect"

	"github.com/debtql/debtql/internal/ledger"
)

// Statements counts the SQL statements the server sends to the database:
// every Exec and Query through ent, in and out of transactions (BEGIN,
// COMMIT and ROLLBACK are not statements of the request's work and are not
// counted). Tests read it around one request; nothing else runs on the Env
// meanwhile, since the server has no background work.
type Statements struct {
	n   atomic.Int64
	txs atomic.Int64 // transactions begun
	mu  sync.Mutex
	log []string // the statements since Reset, when recording
	rec bool
}

// Count is the number of statements since the Env started or Reset.
func (s *Statements) Count() int { return int(s.n.Load()) }

// Transactions is the number of transactions the server began since the
// Env started or Reset.
func (s *Statements) Transactions() int { return int(s.txs.Load()) }

// Reset sets the counts to zero and starts recording the statements' text,
// which Log returns (for failure messages).
func (s *Statements) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n.Store(0)
	s.txs.Store(0)
	s.log, s.rec = nil, true
}

// Log returns the statements recorded since Reset.
func (s *Statements) Log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

func (s *Statements) add(query string) {
	s.n.Add(1)
	s.mu.Lock()
	if s.rec {
		s.log = append(s.log, query)
	}
	s.mu.Unlock()
}

// count adds a statement of a request: the server's own background work
// (the event feed, the webhook queue: ledger.Background) is no request's.
func (s *Statements) count(ctx context.Context, query string) {
	if !ledger.IsBackground(ctx) {
		s.add(query)
	}
}

// wrap is the store.WithDriver hook that counts through s.
func (s *Statements) wrap(d dialect.Driver) dialect.Driver { return &countingDriver{Driver: d, s: s} }

type countingDriver struct {
	dialect.Driver
	s *Statements
}

func (d *countingDriver) Exec(ctx context.Context, query string, args, v any) error {
	d.s.count(ctx, query)
	return d.Driver.Exec(ctx, query, args, v)
}

func (d *countingDriver) Query(ctx context.Context, query string, args, v any) error {
	d.s.count(ctx, query)
	return d.Driver.Query(ctx, query, args, v)
}

func (d *countingDriver) Tx(ctx context.Context) (dialect.Tx, error) {
	return d.BeginTx(ctx, nil)
}

func (d *countingDriver) BeginTx(ctx context.Context, opts *stdsql.TxOptions) (dialect.Tx, error) {
	b, ok := d.Driver.(interface {
		BeginTx(context.Context, *stdsql.TxOptions) (dialect.Tx, error)
	})
	if !ok {
		return nil, fmt.Errorf("apitest: driver %T has no BeginTx", d.Driver)
	}
	tx, err := b.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	if !ledger.IsBackground(ctx) {
		d.s.txs.Add(1)
	}
	return &countingTx{Tx: tx, s: d.s}, nil
}

func (d *countingDriver) ExecContext(ctx context.Context, query string, args ...any) (stdsql.Result, error) {
	return execContext(ctx, d.Driver, d.s, query, args)
}

func (d *countingDriver) QueryContext(ctx context.Context, query string, args ...any) (*stdsql.Rows, error) {
	return queryContext(ctx, d.Driver, d.s, query, args)
}

type countingTx struct {
	dialect.Tx
	s *Statements
}

func (t *countingTx) Exec(ctx context.Context, query string, args, v any) error {
	t.s.count(ctx, query)
	return t.Tx.Exec(ctx, query, args, v)
}

func (t *countingTx) Query(ctx context.Context, query string, args, v any) error {
	t.s.count(ctx, query)
	return t.Tx.Query(ctx, query, args, v)
}

func (t *countingTx) ExecContext(ctx context.Context, query string, args ...any) (stdsql.Result, error) {
	return execContext(ctx, t.Tx, t.s, query, args)
}

func (t *countingTx) QueryContext(ctx context.Context, query string, args ...any) (*stdsql.Rows, error) {
	return queryContext(ctx, t.Tx, t.s, query, args)
}

func execContext(ctx context.Context, d any, s *Statements, query string, args []any) (stdsql.Result, error) {
	e, ok := d.(interface {
		ExecContext(context.Context, string, ...any) (stdsql.Result, error)
	})
	if !ok {
		return nil, fmt.Errorf("apitest: driver %T has no ExecContext", d)
	}
	s.count(ctx, query)
	return e.ExecContext(ctx, query, args...)
}

func queryContext(ctx context.Context, d any, s *Statements, query string, args []any) (*stdsql.Rows, error) {
	q, ok := d.(interface {
		QueryContext(context.Context, string, ...any) (*stdsql.Rows, error)
	})
	if !ok {
		return nil, fmt.Errorf("apitest: driver %T has no QueryContext", d)
	}
	s.count(ctx, query)
	return q.QueryContext(ctx, query, args...)
}
