package events

import "context"

type disconnectKey struct{}

// WithDisconnect gives the subscriptions of ctx a way to end their
// connection: the transport closes it with a reason naming err (a
// subscriber too slow for its events: ErrSlow).
func WithDisconnect(ctx context.Context, end func(err error)) context.Context {
	return context.WithValue(ctx, disconnectKey{}, end)
}

// disconnect ends ctx's connection for err, when its transport can.
func disconnect(ctx context.Context, err error) {
	if end, ok := ctx.Value(disconnectKey{}).(func(error)); ok {
		end(err)
	}
}
