package ledger

import (
	"context"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/auditeventrecord"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/audit"
	"github.com/debtql/debtql/internal/auth"
)

// CreateAPIKey creates an API key (ADMIN) and returns it with its secret,
// which is shown once: the event names the key, never the secret.
func (s *Service) CreateAPIKey(ctx context.Context, a Actor, in auth.KeyInput) (*ent.APIKey, string, error) {
	ctx = a.scope(ctx)
	if err := auth.RequireAdmin(ctx); err != nil {
		return nil, "", err
	}
	var secret string
	key, err := inTx(ctx, s, func(ctx context.Context) (*ent.APIKey, error) {
		key, sec, err := auth.CreateKey(ctx, s.db(ctx), in)
		if err != nil {
			return nil, apierr.Prefix(err, "input")
		}
		secret = sec
		rec := touched(auditeventrecord.RecordTypeAPI_KEY, key.ID)
		rec.after = audit.Key(false)
		return recorded(s, ctx, key, event{a, OpCreateAPIKey}, key.ClientID, nil, rec)
	})
	if err != nil {
		return nil, "", err
	}
	return key, secret, nil
}

// RevokeAPIKey revokes an API key (ADMIN): a revoked key is CONFLICT, an
// unknown one NOT_FOUND.
func (s *Service) RevokeAPIKey(ctx context.Context, a Actor, id string) (*ent.APIKey, error) {
	ctx = a.scope(ctx)
	if err := auth.RequireAdmin(ctx); err != nil {
		return nil, err
	}
	return inTx(ctx, s, func(ctx context.Context) (*ent.APIKey, error) {
		key, err := auth.RevokeKey(ctx, s.db(ctx), id)
		if err != nil {
			return nil, err
		}
		rec := touched(auditeventrecord.RecordTypeAPI_KEY, key.ID)
		rec.before, rec.after = audit.Key(false), audit.Key(true)
		return recorded(s, ctx, key, event{a, OpRevokeAPIKey}, key.ClientID, nil, rec)
	})
}
