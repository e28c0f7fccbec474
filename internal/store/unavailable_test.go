package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestUnavailable(t *testing.T) {
	// A real refusal: a port where nothing listens.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	db, err := sql.Open("pgx", "postgres://nobody@"+addr+"/none?connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	refused := db.PingContext(ctx)
	if refused == nil {
		t.Fatal("a closed port answered")
	}

	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"connection refused", refused, true},
		{"wrapped refusal", fmt.Errorf("ent: starting a transaction: %w", refused), true},
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, true},
		{"starting up", &pgconn.PgError{Code: "57P03"}, true},
		{"connection failure", &pgconn.PgError{Code: "08006"}, true},
		{"too many connections", &pgconn.PgError{Code: "53300"}, true},
		{"deadlock detected", &pgconn.PgError{Code: "40P01"}, true},
		{"unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"undefined table", &pgconn.PgError{Code: "42P01"}, false},
		{"bad connection", fmt.Errorf("x: %w", errors.Join(errors.New("y"), sql.ErrConnDone)), true},
		{"other", errors.New("something else"), false},
		{"nil", nil, false},
	} {
		if got := Unavailable(c.err); got != c.want {
			t.Errorf("%s (%v): Unavailable = %v, want %v", c.name, c.err, got, c.want)
		}
	}
}
