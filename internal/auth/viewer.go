// Package auth authenticates API keys and keeps tenants apart. The viewer
// (who is calling) travels in the context; a query interceptor and a
// mutation hook under the resolvers restrict every ent query and change of a
// CLIENT viewer to its own client, so that a forgotten check in a resolver
// cannot leak another client's data.
package auth

import (
	"context"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/apikey"
	"github.com/debtql/debtql/internal/apierr"
)

// Viewer is the caller of a request: its API key, and its client for a
// CLIENT key.
type Viewer struct {
	Key *ent.APIKey
}

// Role is the role of the viewer's key.
func (v *Viewer) Role() apikey.Role { return v.Key.Role }

// IsAdmin reports whether the viewer holds an ADMIN key.
func (v *Viewer) IsAdmin() bool { return v.Key.Role == apikey.RoleADMIN }

// ClientID is the client of a CLIENT key, "" for an ADMIN key.
func (v *Viewer) ClientID() string {
	if v.Key.ClientID == nil {
		return ""
	}
	return *v.Key.ClientID
}

type viewerKey struct{}

type systemKey struct{}

// WithViewer returns ctx carrying v.
func WithViewer(ctx context.Context, v *Viewer) context.Context {
	return context.WithValue(ctx, viewerKey{}, v)
}

// ViewerFrom returns the viewer of ctx, or nil.
func ViewerFrom(ctx context.Context) *Viewer {
	v, _ := ctx.Value(viewerKey{}).(*Viewer)
	return v
}

// System returns ctx marked as the server's own work (authentication,
// bootstrap, idempotency records, the command line), which the tenant filter
// lets through. Request handling never uses it for a caller's data.
func System(ctx context.Context) context.Context {
	return context.WithValue(ctx, systemKey{}, true)
}

func isSystem(ctx context.Context) bool {
	s, _ := ctx.Value(systemKey{}).(bool)
	return s
}

// RequireAdmin refuses a viewer that is not ADMIN.
func RequireAdmin(ctx context.Context) error {
	v := ViewerFrom(ctx)
	if v == nil {
		return apierr.New(apierr.Unauthenticated, "an API key is required")
	}
	if !v.IsAdmin() {
		return apierr.New(apierr.Forbidden, "this operation needs an ADMIN key")
	}
	return nil
}

// AuthorizeClient refuses a CLIENT viewer that names a client other than its
// own (FORBIDDEN, whether or not that client exists).
func AuthorizeClient(ctx context.Context, clientID string) error {
	v := ViewerFrom(ctx)
	if v == nil {
		return apierr.New(apierr.Unauthenticated, "an API key is required")
	}
	if !v.IsAdmin() && v.ClientID() != clientID {
		return apierr.New(apierr.Forbidden, "this API key may not act for client %s", clientID)
	}
	return nil
}
