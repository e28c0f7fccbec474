package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/store"
)

// pipeEnv is a PostgreSQL Env with a table of its own for piped
// transactions to write (v, unique).
func pipeEnv(t *testing.T) *apitest.Env {
	t.Helper()
	env := apitest.New(t)
	if !env.Postgres {
		t.Skip("piped transactions are PostgreSQL's")
	}
	if _, err := env.DB.SQL.Exec(`CREATE TABLE pipe_test (v int PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	return env
}

// pipeRows are the values in pipe_test, read outside any transaction.
func pipeRows(t *testing.T, env *apitest.Env) []string {
	t.Helper()
	return apitest.Strings(t, env.DB.SQL, `SELECT v::text FROM pipe_test ORDER BY v`)
}

// poolClean fails the test when a connection of the database is left in
// a transaction, or one of the pool's is still taken. It asks from a
// connection outside the pool: the pool discards a connection left in a
// transaction when it next hands it out, and could hand out that one.
func poolClean(t *testing.T, env *apitest.Env) {
	t.Helper()
	ctx := context.Background()
	conn, err := env.DB.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var open int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
	  WHERE datname = current_database() AND state LIKE 'idle in transaction%'`).Scan(&open); err != nil {
		t.Fatal(err)
	}
	if open != 0 {
		t.Errorf("%d connections left idle in a transaction", open)
	}
	// A transaction's locks go with it.
	var free bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, pipeLock).Scan(&free); err != nil {
		t.Fatal(err)
	}
	if !free {
		t.Errorf("the lock a piped transaction took is still held")
	} else if _, err := conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, pipeLock); err != nil {
		t.Fatal(err)
	}
	// The server's own workers (the webhook queue's poll, the key cache)
	// take a connection of the pool for a moment now and then: one still
	// taken after a second is held, not passing through.
	n := env.DB.SQL.Stats().InUse
	for deadline := time.Now().Add(time.Second); n != 0 && time.Now().Before(deadline); n = env.DB.SQL.Stats().InUse {
		time.Sleep(10 * time.Millisecond)
	}
	if n != 0 {
		t.Errorf("%d connections of the pool still in use", n)
	}
}

// pipeLock is the advisory lock the piped transactions of the tests take.
const pipeLock = 4242

// beginLocked begins a piped transaction whose first statements take
// pipeLock and insert v.
func beginLocked(t *testing.T, env *apitest.Env, v int) *store.PipedTx {
	t.Helper()
	first := &store.Pipeline{}
	first.Exec(`SELECT pg_advisory_xact_lock($1)`, pipeLock)
	first.Exec(`INSERT INTO pipe_test VALUES ($1)`, v)
	tx, err := env.DB.BeginPiped(context.Background(), first)
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// scanInts reads a query's single int column.
func scanInts(into *[]int) func(store.Rows) error {
	return func(rows store.Rows) error {
		for rows.Next() {
			var v int
			if err := rows.Scan(&v); err != nil {
				return err
			}
			*into = append(*into, v)
		}
		return rows.Err()
	}
}

// TestPipedTransactionCommits: a piped transaction runs its first
// statements (each seeing the ones before), its statements through ent,
// and those that go with its COMMIT, in that order; the statement counts
// see every one of them and one transaction.
func TestPipedTransactionCommits(t *testing.T) {
	env := pipeEnv(t)
	ctx := context.Background()
	env.Statements.Reset()
	var seen, returned []int
	first := &store.Pipeline{}
	first.Exec(`INSERT INTO pipe_test VALUES ($1)`, 1)
	first.Query(`SELECT v FROM pipe_test`, scanInts(&seen))
	tx, err := env.DB.BeginPiped(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, []int{1}) {
		t.Errorf("the first statements saw %v, want [1]", seen)
	}
	if _, err := tx.Tx.ExecContext(ctx, `INSERT INTO pipe_test VALUES (2)`); err != nil {
		t.Fatal(err)
	}
	last := &store.Pipeline{}
	last.Query(`INSERT INTO pipe_test SELECT max(v) + 1 FROM pipe_test RETURNING v`, scanInts(&returned))
	tx.AtCommit(last)
	if got := pipeRows(t, env); len(got) != 0 {
		t.Errorf("before the COMMIT, outside the transaction: %v, want none", got)
	}
	if err := tx.Tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(returned, []int{3}) {
		t.Errorf("the statement sent with COMMIT returned %v, want [3]", returned)
	}
	if got := pipeRows(t, env); !slices.Equal(got, []string{"1", "2", "3"}) {
		t.Errorf("committed %v, want [1 2 3]", got)
	}
	if n, txs := env.Statements.Count(), env.Statements.Transactions(); n != 4 || txs != 1 {
		t.Errorf("counted %d statements in %d transactions, want 4 in 1: %q", n, txs, env.Statements.Log())
	}
	if _, err := tx.Tx.ExecContext(ctx, `SELECT 1`); !errors.Is(err, sql.ErrTxDone) {
		t.Errorf("a statement after the COMMIT: %v, want sql.ErrTxDone", err)
	}
	if err := tx.Tx.Rollback(); err == nil {
		t.Error("a rollback after the COMMIT succeeded")
	}
	poolClean(t, env)
}

// TestPipedTransactionFails: a failing statement of any part (the first
// statements, those through ent, those sent with COMMIT) leaves nothing
// of the transaction written, returns the database's error, and gives the
// connection back to the pool outside any transaction.
func TestPipedTransactionFails(t *testing.T) {
	env := pipeEnv(t)
	ctx := context.Background()
	if _, err := env.DB.SQL.Exec(`INSERT INTO pipe_test VALUES (100)`); err != nil {
		t.Fatal(err)
	}
	unique := func(t *testing.T, err error) {
		t.Helper()
		var pg *pgconn.PgError
		if !errors.As(err, &pg) || pg.Code != "23505" {
			t.Fatalf("err = %v, want a unique violation", err)
		}
	}
	t.Run("first statements", func(t *testing.T) {
		var after []int
		first := &store.Pipeline{}
		first.Exec(`SELECT pg_advisory_xact_lock($1)`, pipeLock)
		first.Exec(`INSERT INTO pipe_test VALUES (1)`)
		first.Exec(`INSERT INTO pipe_test VALUES (100)`)
		first.Query(`SELECT v FROM pipe_test`, scanInts(&after))
		_, err := env.DB.BeginPiped(ctx, first)
		unique(t, err)
		if after != nil {
			t.Errorf("a statement after the failing one ran: %v", after)
		}
		poolClean(t, env)
	})
	t.Run("sent with COMMIT", func(t *testing.T) {
		tx := beginLocked(t, env, 2)
		last := &store.Pipeline{}
		last.Exec(`INSERT INTO pipe_test VALUES (100)`)
		tx.AtCommit(last)
		unique(t, tx.Tx.Commit())
		poolClean(t, env)
	})
	for _, commit := range []bool{false, true} {
		t.Run(fmt.Sprintf("through ent, then commit %v", commit), func(t *testing.T) {
			tx := beginLocked(t, env, 3)
			_, err := tx.Tx.ExecContext(ctx, `INSERT INTO pipe_test VALUES (100)`)
			unique(t, err)
			last := &store.Pipeline{}
			last.Exec(`INSERT INTO pipe_test VALUES (4)`)
			tx.AtCommit(last)
			if !commit {
				if err := tx.Tx.Rollback(); err != nil {
					t.Fatal(err)
				}
			} else if err := tx.Tx.Commit(); err == nil {
				t.Error("a transaction whose statement failed committed")
			}
			poolClean(t, env)
		})
	}
	t.Run("rolled back", func(t *testing.T) {
		tx := beginLocked(t, env, 5)
		if err := tx.Tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		poolClean(t, env)
	})
	t.Run("cancelled in the first statements", func(t *testing.T) {
		cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		first := &store.Pipeline{}
		first.Exec(`SELECT pg_advisory_xact_lock($1)`, pipeLock)
		first.Exec(`INSERT INTO pipe_test VALUES (6)`)
		first.Exec(`SELECT pg_sleep(5)`)
		if _, err := env.DB.BeginPiped(cctx, first); err == nil {
			t.Fatal("a pipeline past its context's deadline began a transaction")
		}
		poolClean(t, env)
	})
	if got := pipeRows(t, env); !slices.Equal(got, []string{"100"}) {
		t.Errorf("rows %v, want only [100]", got)
	}
	poolClean(t, env)
}

// TestPipelineRunsInATransaction: RunIn runs a pipeline's statements in a
// transaction of ent's one after the other, each query's rows to its scan
// function; the first that fails ends the run with its error, and the
// statements after it do not run.
func TestPipelineRunsInATransaction(t *testing.T) {
	env := pipeEnv(t)
	ctx := context.Background()
	tx, err := env.DB.Ent.Tx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var read []int
	p := &store.Pipeline{}
	p.Exec(`INSERT INTO pipe_test VALUES ($1), ($2)`, 1, 2)
	p.Query(`SELECT v FROM pipe_test ORDER BY v`, func(rows store.Rows) error {
		for rows.Next() {
			var v int
			if err := rows.Scan(&v); err != nil {
				return err
			}
			read = append(read, v)
		}
		return rows.Err()
	})
	if err := p.RunIn(ctx, tx); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(read, []int{1, 2}) {
		t.Errorf("the query read %v, want [1 2]: the insert before it", read)
	}
	stop := errors.New("stop")
	failing := &store.Pipeline{}
	failing.Query(`SELECT 1`, func(store.Rows) error { return stop })
	after := false
	failing.Query(`SELECT 1`, func(store.Rows) error { after = true; return nil })
	if err := failing.RunIn(ctx, tx); !errors.Is(err, stop) {
		t.Fatalf("RunIn returned %v, want the scan function's error", err)
	}
	if after {
		t.Error("the query after the failing one ran")
	}
	duplicate := &store.Pipeline{}
	duplicate.Exec(`INSERT INTO pipe_test VALUES (1)`)
	var pgErr *pgconn.PgError
	if err := duplicate.RunIn(ctx, tx); !errors.As(err, &pgErr) || pgErr.Code != "23505" {
		t.Fatalf("RunIn with a duplicate key returned %v, want its unique violation", err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got := pipeRows(t, env); len(got) != 0 {
		t.Errorf("rows %v after the rollback, want none", got)
	}
}
