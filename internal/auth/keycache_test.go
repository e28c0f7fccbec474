package auth_test

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/auth"
)

// TestKeyCacheNeedsItsPings (PostgreSQL): the key cache answers only while
// its listener hears the pings it sends: no longer once they stop (as
// where LISTEN cannot work).
func TestKeyCacheNeedsItsPings(t *testing.T) {
	env := apitest.New(t)
	if !env.Postgres {
		t.Skip("the key cache listens on PostgreSQL")
	}
	pinger, err := sql.Open("pgx", apitest.PostgresSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pinger.Close()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	listen := func(db *sql.DB) (*auth.KeyCache, func()) {
		c := auth.NewKeyCache()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); c.Listen(ctx, env.DB.Connect, db, 100*time.Millisecond, log) }()
		return c, func() { cancel(); <-done }
	}
	liveWithin := func(c *auth.KeyCache, d time.Duration, want bool) bool {
		for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if c.Live() == want {
				return true
			}
		}
		return false
	}

	c, stop := listen(pinger)
	if !liveWithin(c, 5*time.Second, true) {
		t.Fatal("the cache did not turn on within 5 s")
	}
	_ = pinger.Close() // the pings stop
	if !liveWithin(c, 5*time.Second, false) {
		t.Fatal("the cache still answers 5 s after its pings stopped")
	}
	stop()

	// With nothing but the listener's first ping of its own, it answers
	// only until that ping is too old.
	c, stop = listen(pinger)
	defer stop()
	if !liveWithin(c, 5*time.Second, true) {
		t.Fatal("the cache did not turn on with its first ping")
	}
	if !liveWithin(c, 5*time.Second, false) {
		t.Fatal("the cache still answers 5 s after its last ping")
	}
}
