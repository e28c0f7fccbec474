package auth

import (
	"testing"
	"time"

	"github.com/debtql/debtql/ent"
)

// TestKeyCache: the cache answers only while live, never remembers a key
// read before it was emptied (a change announced meanwhile), nor a revoked
// key, and a nil cache caches nothing.
func TestKeyCache(t *testing.T) {
	key := &ent.APIKey{ID: "k"}
	c := NewKeyCache()
	_, gen := c.get("h")
	c.put(gen, "h", key)
	if k, _ := c.get("h"); k != nil {
		t.Fatal("a cache that is not live answered")
	}
	c.setLive(true)
	_, gen = c.get("h")
	c.put(gen, "h", key)
	if k, _ := c.get("h"); k != key {
		t.Fatal("a live cache forgot a key it was given")
	}
	// Read, then a change is announced, then the read would be remembered.
	_, gen = c.get("h2")
	c.Flush()
	c.put(gen, "h2", key)
	if k, _ := c.get("h2"); k != nil {
		t.Fatal("a key read before the cache was emptied was remembered")
	}
	if k, _ := c.get("h"); k != nil {
		t.Fatal("Flush kept a key")
	}
	revoked := &ent.APIKey{ID: "r", RevokedAt: new(time.Time)}
	_, gen = c.get("r")
	c.put(gen, "r", revoked)
	if k, _ := c.get("r"); k != nil {
		t.Fatal("a revoked key was cached")
	}
	c.put(gen, "h", key)
	c.setLive(false)
	if k, _ := c.get("h"); k != nil || c.Live() {
		t.Fatal("a cache whose listener went away answered")
	}
	var none *KeyCache
	none.put(0, "h", key)
	none.Flush()
	if k, _ := none.get("h"); k != nil || none.Live() {
		t.Fatal("a nil cache answered")
	}
}
