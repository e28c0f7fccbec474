package auth

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/apikey"
)

// KeyChannel is the PostgreSQL notification channel on which every change
// of an API key that matters to authentication (revocation, deletion, a new
// role, client or secret) is announced, by triggers on api_keys (the
// migration api_key_notify), in the transaction that makes it.
const KeyChannel = "debtql_api_keys"

// ListenerName is the application_name of the cache's listening
// connection (pg_stat_activity).
const ListenerName = "debtql key cache"

// maxCachedKeys bounds the cache; beyond it, it starts again empty.
const maxCachedKeys = 10000

// KeyCache remembers the active API keys requests were authenticated
// with, by their secret's hash, so that a request does not read its key
// from the database every time. It answers only while it is live: while
// Listen holds a connection that LISTENs on KeyChannel (PostgreSQL) and
// its pings on the channel come back, so that a key revoked by any process (another replica, `debtql apikey
// revoke`, an operator's SQL) is forgotten when that change commits, as
// soon as the notification arrives. A key changed through this process's
// ent client is forgotten at once and again when its transaction commits
// (Watch). Without a live listener (SQLite, the connection lost) every
// request reads its key, as without a cache; losing the connection empties
// the cache. Unknown and revoked keys are never cached. A nil *KeyCache is
// valid and caches nothing.
type KeyCache struct {
	mu   sync.Mutex
	live bool
	// gen counts the times the cache was emptied: a key read from the
	// database is remembered only if no change was announced while it was
	// read, so that a key revoked meanwhile is not remembered as active.
	gen  uint64
	keys map[string]*ent.APIKey
	// heard is when the listener last heard one of its pings, which carry
	// token (other processes ping on the channel too).
	heard time.Time
	token string
}

// NewKeyCache returns a cache that is not live until Listen runs.
func NewKeyCache() *KeyCache {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return &KeyCache{keys: map[string]*ent.APIKey{}, token: hex.EncodeToString(b)}
}

// get returns the cached key of a secret hash (nil when there is none or
// the cache is not live) and the generation to remember a key read now.
func (c *KeyCache) get(hash string) (*ent.APIKey, uint64) {
	if c == nil {
		return nil, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live {
		return nil, c.gen
	}
	return c.keys[hash], c.gen
}

// put remembers an active key read at generation gen, unless the cache was
// emptied since (or is not live).
func (c *KeyCache) put(gen uint64, hash string, key *ent.APIKey) {
	if c == nil || key.RevokedAt != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live || gen != c.gen {
		return
	}
	if len(c.keys) >= maxCachedKeys {
		clear(c.keys)
	}
	c.keys[hash] = key
}

// Flush forgets every key.
func (c *KeyCache) Flush() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.emptyLocked(c.live)
}

func (c *KeyCache) setLive(live bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.emptyLocked(live)
}

// emptyLocked forgets every key (so that no read begun before is
// remembered) and turns the cache on or off; c.mu is held.
func (c *KeyCache) emptyLocked(live bool) {
	c.gen++
	clear(c.keys)
	c.live = live
}

// Live reports whether the cache answers (its listener hears its pings).
func (c *KeyCache) Live() bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.live
}

// Watch makes every change of an API key through client other than its
// last use (revocation, deletion) empty the cache at once and, in a
// transaction, again when it commits: a request that read the key between
// the change and the commit cannot leave it cached.
func (c *KeyCache) Watch(db *ent.Client) {
	db.APIKey.Use(func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			v, err := next.Mutate(ctx, m)
			if m.Op().Is(ent.OpCreate) {
				return v, err
			}
			if fields := m.Fields(); len(fields) == 1 && fields[0] == apikey.FieldLastUsedAt {
				return v, err
			}
			c.Flush()
			if km, ok := m.(*ent.APIKeyMutation); ok {
				if tx, txErr := km.Tx(); txErr == nil {
					tx.OnCommit(func(next ent.Committer) ent.Committer {
						return ent.CommitFunc(func(ctx context.Context, tx *ent.Tx) error {
							err := next.Commit(ctx, tx)
							c.Flush()
							return err
						})
					})
				}
			}
			return v, err
		})
	})
}

// Listen keeps the cache live while a connection made by connect (one of
// its own, outside the pool) LISTENs on KeyChannel and hears the pings it
// sends on the channel through db every pingEvery, emptying the cache on
// every other notification, until ctx ends. Notifications arrive in the
// order they were committed, so a ping heard means every change announced
// before it was heard too; when none has been heard for pingTimeout (the
// connection hangs, or LISTEN cannot work: a pooler in transaction mode
// lends the session to others between statements) the cache stops
// answering. When the connection fails, Listen connects again after retry.
func (c *KeyCache) Listen(ctx context.Context, connect func(context.Context) (*pgx.Conn, error), db *sql.DB, retry time.Duration, log *slog.Logger) {
	pings := make(chan struct{})
	go func() {
		defer close(pings)
		tick := time.NewTicker(pingEvery)
		defer tick.Stop()
		for n := 0; ; n++ {
			pctx, cancel := context.WithTimeout(ctx, pingTimeout)
			_, _ = db.ExecContext(pctx, "SELECT pg_notify($1, $2)", KeyChannel, fmt.Sprintf("ping %s %d", c.token, n))
			cancel()
			c.mu.Lock()
			if c.live && time.Since(c.heard) > pingTimeout {
				c.emptyLocked(false)
				log.Warn("API key cache off: its pings are not heard; keys are read on every request until they are")
			}
			c.mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	defer func() { <-pings }()
	for ctx.Err() == nil {
		err := c.listenOnce(ctx, connect)
		c.setLive(false)
		if ctx.Err() != nil {
			return
		}
		log.Warn("API key cache off: its notification connection failed; keys are read on every request until it is back", "error", err.Error())
		select {
		case <-ctx.Done():
			return
		case <-time.After(retry):
		}
	}
}

// How often the cache's listener pings itself, and how long it may go
// without hearing a ping before the cache stops answering.
const (
	pingEvery   = 500 * time.Millisecond
	pingTimeout = 2 * time.Second
)

func (c *KeyCache) listenOnce(ctx context.Context, connect func(context.Context) (*pgx.Conn, error)) error {
	conn, err := connect(ctx)
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, "SET application_name = '"+ListenerName+"'"); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+KeyChannel); err != nil {
		return err
	}
	// A first ping of its own, so as not to wait for the pinger's next.
	if _, err := conn.Exec(ctx, "SELECT pg_notify($1, $2)", KeyChannel, "ping "+c.token+" listening"); err != nil {
		return err
	}
	for {
		note, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		if !strings.HasPrefix(note.Payload, "ping ") {
			c.Flush()
			continue
		}
		if !strings.HasPrefix(note.Payload, "ping "+c.token+" ") {
			continue // another process's
		}
		c.mu.Lock()
		c.heard = time.Now()
		if !c.live {
			// Keys cached before may have changed unseen: start empty.
			c.emptyLocked(true)
		}
		c.mu.Unlock()
	}
}
