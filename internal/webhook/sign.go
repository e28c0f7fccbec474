// Package webhook sends the audit trail's events to webhook endpoints
// (api.md §12): the Standard Webhooks 1.0 signature, the signing secrets,
// the rule that keeps webhook URLs off internal networks, the retry
// schedule, and the dispatcher that sends what the ledger queued. It knows
// no SQL and no GraphQL: the ledger keeps the queue (Queue).
package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix starts every signing secret, as Standard Webhooks writes
// them: whsec_ and the key in base64.
const SecretPrefix = "whsec_"

// keyBytes is the signing key's length: 32 random bytes (the scheme asks
// for 24 to 64).
const keyBytes = 32

// NewSecret returns a new signing secret.
func NewSecret() (string, error) {
	key := make([]byte, keyBytes)
	if _, err := rand.Read(key); err != nil {
		return "", err
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(key), nil
}

// key decodes a secret into its key.
func key(secret string) ([]byte, error) {
	k, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil {
		return nil, fmt.Errorf("webhook: a secret must be whsec_ and base64: %w", err)
	}
	return k, nil
}

// Sign is the webhook-signature header's value for a message: "v1," and the
// base64 of HMAC-SHA256(key, "<id>.<timestamp>.<body>").
func Sign(secret, id string, timestamp int64, body []byte) (string, error) {
	k, err := key(secret)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, k)
	mac.Write([]byte(id + "." + strconv.FormatInt(timestamp, 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// Headers are the headers of a signed message: webhook-id,
// webhook-timestamp and webhook-signature.
func Headers(h http.Header, secret, id string, at time.Time, body []byte) error {
	sig, err := Sign(secret, id, at.Unix(), body)
	if err != nil {
		return err
	}
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", strconv.FormatInt(at.Unix(), 10))
	h.Set("webhook-signature", sig)
	return nil
}

// Tolerance is how far a message's timestamp may be from the receiver's
// clock (either way) before Verify refuses it as a replay.
const Tolerance = 5 * time.Minute

// ErrSignature refuses a message whose signature does not verify.
var ErrSignature = errors.New("webhook: no valid signature")

// Verify checks a received message as a receiver must: the timestamp within
// Tolerance of now, and one of the space-separated v1 signatures equal (in
// constant time) to the message's.
func Verify(secret string, h http.Header, body []byte, now time.Time) error {
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return fmt.Errorf("%w: missing webhook-id, webhook-timestamp or webhook-signature", ErrSignature)
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: bad timestamp", ErrSignature)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > Tolerance || d < -Tolerance {
		return fmt.Errorf("%w: timestamp too far from now", ErrSignature)
	}
	want, err := Sign(secret, id, sec, body)
	if err != nil {
		return err
	}
	for _, s := range strings.Fields(sigs) {
		if hmac.Equal([]byte(s), []byte(want)) {
			return nil
		}
	}
	return ErrSignature
}
