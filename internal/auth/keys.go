package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/apikey"
	"github.com/debtql/debtql/ent/creditor"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/collection"
)

// secretPrefix marks DebtQL secrets, so that a leaked one is recognisable
// (secret scanners, logs) and a typo in the header is told from a wrong key.
const secretPrefix = "dq_"

// secretBytes is the entropy of a generated secret (api.md §2: at least 32).
const secretBytes = 32

// minSecretLength is the shortest secret accepted for a bootstrap key set
// through ADMIN_API_KEY (api.md §2: at least 32 bytes).
const minSecretLength = 32

// lastUsedGranularity bounds how often lastUsedAt is written: at most once a
// minute per key, so that authentication stays a read.
const lastUsedGranularity = time.Minute

// NewSecret returns a new random secret.
func NewSecret() (string, error) {
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("auth: reading random bytes: %w", err)
	}
	return secretPrefix + base64.RawURLEncoding.EncodeToString(b), nil
}

// HashSecret is the stored form of a secret. A secret has 256 random bits,
// so a plain SHA-256 cannot be brute-forced, and it keeps lookups fast.
func HashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// Authenticate returns the viewer for an Authorization header value, or an
// UNAUTHENTICATED error for a missing, malformed, unknown or revoked key.
func Authenticate(ctx context.Context, db *ent.Client, header string) (*Viewer, error) {
	return (*KeyCache)(nil).Authenticate(ctx, db, header, nil)
}

// Authenticate is the package's Authenticate, answered from the cache when
// it holds the key (c may be nil: no cache). mayLookUp, when not nil, is
// asked before the key is looked up in the database (not for a key the
// cache answers); its error is returned instead of looking.
func (c *KeyCache) Authenticate(ctx context.Context, db *ent.Client, header string, mayLookUp func() error) (*Viewer, error) {
	scheme, secret, ok := strings.Cut(strings.TrimSpace(header), " ")
	if header == "" {
		return nil, apierr.New(apierr.Unauthenticated, "an API key is required: send Authorization: Bearer <key>")
	}
	secret = strings.TrimSpace(secret)
	if !ok || !strings.EqualFold(scheme, "Bearer") || secret == "" {
		return nil, apierr.New(apierr.Unauthenticated, "the Authorization header must be: Bearer <key>")
	}
	ctx = System(ctx)
	hash := HashSecret(secret)
	key, gen := c.get(hash)
	if key == nil {
		if mayLookUp != nil {
			if err := mayLookUp(); err != nil {
				return nil, err
			}
		}
		var err error
		key, err = db.APIKey.Query().Where(apikey.SecretHash(hash)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, apierr.New(apierr.Unauthenticated, "the API key is not valid")
		}
		if err != nil {
			return nil, fmt.Errorf("auth: looking up API key: %w", err)
		}
		if key.RevokedAt != nil {
			return nil, apierr.New(apierr.Unauthenticated, "the API key has been revoked")
		}
		c.put(gen, hash, key)
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	if key.LastUsedAt == nil || now.Sub(*key.LastUsedAt) >= lastUsedGranularity {
		// Another request may have written it a moment ago; the condition
		// keeps the write at most once a minute either way.
		_, err := db.APIKey.Update().
			Where(apikey.ID(key.ID), apikey.Or(apikey.LastUsedAtIsNil(), apikey.LastUsedAtLT(now.Add(-lastUsedGranularity)))).
			SetLastUsedAt(now).
			Save(ctx)
		if err != nil {
			return nil, fmt.Errorf("auth: recording API key use: %w", err)
		}
		// A copy: a cached key is shared by the requests that use it.
		used := *key
		used.LastUsedAt = &now
		key = &used
		c.put(gen, hash, key)
	}
	return &Viewer{Key: key}, nil
}

// KeyInput describes a key to create.
type KeyInput struct {
	Name     string
	Role     apikey.Role
	ClientID *string
}

// CreateKey creates a key and returns it with its secret, which is not
// stored and cannot be read again. Errors name the fields of KeyInput as the
// GraphQL input does ("name", "clientId").
func CreateKey(ctx context.Context, db *ent.Client, in KeyInput) (*ent.APIKey, string, error) {
	var errs apierr.List
	in.Name = strings.TrimSpace(in.Name)
	if in.Name == "" {
		errs.Add("name", "is required and must not be blank")
	} else if e := collection.CheckField("name", in.Name, collection.MaxStringLength, false); e != nil {
		errs = append(errs, e)
	}
	if err := apikey.RoleValidator(in.Role); err != nil {
		errs.Add("role", "must be ADMIN or CLIENT")
	}
	switch {
	case in.Role == apikey.RoleCLIENT && in.ClientID == nil:
		errs.Add("clientId", "is required for a CLIENT key")
	case in.Role == apikey.RoleADMIN && in.ClientID != nil:
		errs.Add("clientId", "must not be set for an ADMIN key")
	}
	if err := errs.Err(); err != nil {
		return nil, "", err
	}
	if in.ClientID != nil {
		exists, err := db.Creditor.Query().Where(creditor.ID(*in.ClientID)).Exist(ctx)
		if err != nil {
			return nil, "", err
		}
		if !exists {
			return nil, "", apierr.New(apierr.NotFound, "client %s does not exist", *in.ClientID)
		}
	}
	secret, err := NewSecret()
	if err != nil {
		return nil, "", err
	}
	key, err := db.APIKey.Create().
		SetName(in.Name).
		SetRole(in.Role).
		SetNillableClientID(in.ClientID).
		SetSecretHash(HashSecret(secret)).
		Save(ctx)
	if err != nil {
		return nil, "", err
	}
	return key, secret, nil
}

// RevokeKey revokes a key: NOT_FOUND when it does not exist, CONFLICT when
// it is already revoked.
func RevokeKey(ctx context.Context, db *ent.Client, id string) (*ent.APIKey, error) {
	key, err := db.APIKey.Get(ctx, id)
	if ent.IsNotFound(err) {
		return nil, apierr.New(apierr.NotFound, "API key %s does not exist", id)
	}
	if err != nil {
		return nil, err
	}
	if key.RevokedAt != nil {
		return nil, apierr.New(apierr.Conflict, "API key %s is already revoked", id)
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	n, err := db.APIKey.Update().
		Where(apikey.ID(id), apikey.RevokedAtIsNil()).
		SetRevokedAt(now).
		Save(ctx)
	if err != nil {
		return nil, err
	}
	if n == 0 { // revoked by a concurrent request
		return nil, apierr.New(apierr.Conflict, "API key %s is already revoked", id)
	}
	key.RevokedAt = &now
	return key, nil
}

// BootstrapOutcome is what Bootstrap did.
type BootstrapOutcome int

const (
	// BootstrapKeyInUse: ADMIN_API_KEY is registered already.
	BootstrapKeyInUse BootstrapOutcome = iota
	// BootstrapKeysExist: an active ADMIN key existed, so none was
	// registered or generated.
	BootstrapKeysExist
	// BootstrapRegistered: ADMIN_API_KEY was registered.
	BootstrapRegistered
	// BootstrapGenerated: a key was generated and printed.
	BootstrapGenerated
)

// Bootstrap makes sure an active ADMIN key exists. When none does, it
// registers adminSecret (from ADMIN_API_KEY) if given, or else generates a
// secret and prints it once to w. The outcome lets the caller tell a
// newcomer, who sees no key printed, how to create one.
func Bootstrap(ctx context.Context, db *ent.Client, adminSecret string, w io.Writer) (BootstrapOutcome, error) {
	ctx = System(ctx)
	if adminSecret != "" && len(adminSecret) < minSecretLength {
		return 0, fmt.Errorf("ADMIN_API_KEY must be at least %d characters (e.g. the output of `openssl rand -base64 33`)", minSecretLength)
	}
	if adminSecret != "" {
		// A configured key that is already registered is simply in use.
		exists, err := db.APIKey.Query().Where(apikey.SecretHash(HashSecret(adminSecret))).Only(ctx)
		if err == nil {
			if exists.RevokedAt != nil {
				return 0, fmt.Errorf("ADMIN_API_KEY is a revoked key: set a new one")
			}
			return BootstrapKeyInUse, nil
		}
		if !ent.IsNotFound(err) {
			return 0, err
		}
	}
	active, err := db.APIKey.Query().
		Where(apikey.RoleEQ(apikey.RoleADMIN), apikey.RevokedAtIsNil()).
		Exist(ctx)
	if err != nil {
		return 0, fmt.Errorf("auth: looking for an ADMIN key: %w", err)
	}
	if active {
		if adminSecret != "" {
			fmt.Fprintln(w, "warning: ADMIN_API_KEY was not registered, because an active ADMIN key already exists; create more keys with `debtql apikey create`")
		}
		return BootstrapKeysExist, nil
	}
	secret, name := adminSecret, "bootstrap (ADMIN_API_KEY)"
	if secret == "" {
		if secret, err = NewSecret(); err != nil {
			return 0, err
		}
		name = "bootstrap (generated)"
	}
	if _, err := db.APIKey.Create().
		SetName(name).
		SetRole(apikey.RoleADMIN).
		SetSecretHash(HashSecret(secret)).
		Save(ctx); err != nil {
		return 0, fmt.Errorf("auth: registering the bootstrap ADMIN key: %w", err)
	}
	if adminSecret == "" {
		fmt.Fprintf(w, "\nNo ADMIN API key existed, so one was generated. It is shown only this once:\n\n    %s\n\nSend it as: Authorization: Bearer %s\n\n", secret, secret)
		return BootstrapGenerated, nil
	}
	return BootstrapRegistered, nil
}
