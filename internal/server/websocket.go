package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	coderws "github.com/coder/websocket"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/events"
)

// The subscriptions' transport (api.md §12): WebSocket at /graphql with the
// graphql-transport-ws protocol, gqlgen's transport.Websocket over
// coder/websocket. Browsers cannot send headers on a WebSocket, so the API
// key travels in connection_init's payload; a header that is sent is
// checked as well. The connection lives outside the request deadline and
// the body limit, and closes with a code and a reason that say why:

// Close codes of a subscription connection.
const (
	// closeUnauthorized: no key, a bad one, or a key revoked while
	// connected (graphql-ws's 4401).
	closeUnauthorized = 4401
	// closeSlowConsumer: the client did not read its events fast enough
	// (RFC 6455's policy violation); the reason says to resubscribe with
	// after.
	closeSlowConsumer = 1008
	// closeGoingAway: the server shuts down (RFC 6455).
	closeGoingAway = 1001
)

// Defaults of the WebSocket transport.
const (
	// keyRecheck is how often a connection checks that its key is still
	// valid: a revoked key's subscriptions end within 5 s.
	keyRecheck = 2 * time.Second
	// wsWriteTimeout bounds one message's write to a client: a client that
	// takes no bytes is cut off.
	wsWriteTimeout = 10 * time.Second
	// wsInitTimeout is how long a client may take to send connection_init.
	wsInitTimeout = 10 * time.Second
	// wsPing is how often the server pings (graphql-transport-ws ping),
	// which keeps proxies from closing an idle connection.
	wsPing = 25 * time.Second
)

// isWebSocket reports whether r asks to upgrade to a WebSocket.
func isWebSocket(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// websocket serves the subscriptions of exec.
func (s *Server) websocket(exec graphql.GraphExecutor, origins []string) http.Handler {
	impl := wsImplementation{}
	for _, o := range origins {
		if o == "*" {
			impl.opts.InsecureSkipVerify = true
			continue
		}
		impl.opts.OriginPatterns = append(impl.opts.OriginPatterns, o)
	}
	t := transport.Websocket{
		Implementation: impl,
		InitTimeout:    wsInitTimeout,
		InitFunc:       s.wsInit,
		// No pinger of gqlgen's: one goroutine pings every socket and checks
		// their keys (watchSockets), instead of two per connection.
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The server's read and write timeouts are for requests; a
		// subscription outlives them.
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Time{})
		_ = rc.SetWriteDeadline(time.Time{})
		state := &wsState{header: r.Header.Get("Authorization"), addr: clientAddress(r)}
		s.sockets.Store(state, struct{}{})
		defer s.sockets.Delete(state)
		t.Do(w, r.WithContext(context.WithValue(r.Context(), wsStateKey{}, state)), exec)
	})
}

// wsState is one connection's: the Authorization header of its upgrade,
// and the code and reason it closes with.
type wsState struct {
	header, addr string
	key          string // the authenticated Authorization value

	mu     sync.Mutex
	conn   *wsConn
	code   int
	reason string
	cancel context.CancelFunc
}

type wsStateKey struct{}

// end closes the connection with code and reason (the first given wins),
// abandoning a write that waits on the client.
func (st *wsState) end(code int, reason string) {
	st.mu.Lock()
	if st.code == 0 {
		st.code, st.reason = code, truncateReason(reason)
	}
	conn, cancel := st.conn, st.cancel
	st.mu.Unlock()
	if conn != nil {
		conn.closeWith(st.code, st.reason)
	}
	if cancel != nil {
		cancel()
	}
}

// truncateReason keeps a close reason within the 123 bytes a close frame
// holds.
func truncateReason(r string) string {
	if len(r) <= 123 {
		return r
	}
	return r[:120] + "..."
}

// wsInit authenticates connection_init's key (and the upgrade's header,
// when sent), then watches the key for revocation, and lets the hub close
// the connection of a slow subscriber.
func (s *Server) wsInit(ctx context.Context, payload transport.InitPayload) (context.Context, *transport.InitPayload, error) {
	st, _ := ctx.Value(wsStateKey{}).(*wsState)
	if st == nil {
		return ctx, nil, errors.New("server: a WebSocket without its state")
	}
	refuse := func(err error) (context.Context, *transport.InitPayload, error) {
		ctx = transport.WithWebsocketCloseCode(ctx, closeUnauthorized)
		return transport.AppendCloseReason(ctx, truncateReason("Unauthorized: "+err.Error())), nil, err
	}
	header := payload.Authorization()
	if header == "" {
		header = st.header
	} else if st.header != "" && st.header != header {
		if _, err := s.authenticateKey(ctx, st.addr, st.header); err != nil {
			return refuse(err)
		}
	}
	v, err := s.authenticateKey(ctx, st.addr, header)
	if err != nil {
		return refuse(err)
	}
	ctx, cancel := context.WithCancel(auth.WithViewer(ctx, v))
	st.mu.Lock()
	st.cancel, st.key = cancel, header
	st.mu.Unlock()
	ctx = events.WithDisconnect(ctx, func(err error) { st.end(closeSlowConsumer, err.Error()) })
	return ctx, nil, nil
}

// authenticateKey is authenticate's check of a key, for a WebSocket: an
// error's message is the close reason.
func (s *Server) authenticateKey(ctx context.Context, addr, header string) (*auth.Viewer, error) {
	mayLookUp := func() error {
		if spent, _ := s.authFailures.exhausted(addr); spent {
			return errTooManyFailures
		}
		return nil
	}
	v, err := s.keys.Authenticate(ctx, s.db.Ent, header, mayLookUp)
	if err != nil {
		var ae *apierr.Error
		if errors.As(err, &ae) {
			s.authFailures.take(addr)
			return nil, errors.New(ae.Message)
		}
		if errors.Is(err, errTooManyFailures) {
			return nil, err
		}
		s.log.WarnContext(ctx, "cannot check a WebSocket's API key", "error", err.Error())
		return nil, errors.New("the service cannot check API keys right now; try again shortly")
	}
	if ok, _ := s.rate.allow(v.Key.ID); !ok {
		return nil, errors.New("too many requests with this API key")
	}
	return v, nil
}

// watchSockets, until ctx ends, checks every connection's key every
// keyRecheck and ends the connections whose key stopped being valid
// (revoked or deleted; a database that does not answer ends nothing), and
// pings every connection every wsPing (graphql-transport-ws ping), which
// keeps proxies from closing idle ones. One goroutine for all connections:
// an idle subscription costs no goroutine or timer of its own for these.
func (s *Server) watchSockets(ctx context.Context) {
	tick := time.NewTicker(keyRecheck)
	defer tick.Stop()
	lastPing := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		ping := time.Since(lastPing) >= wsPing
		if ping {
			lastPing = time.Now()
		}
		verdicts := map[string]error{} // one lookup per key and round
		s.sockets.Range(func(k, _ any) bool {
			st := k.(*wsState)
			st.mu.Lock()
			key, conn := st.key, st.conn
			st.mu.Unlock()
			if key == "" {
				return true // not initialised yet
			}
			err, seen := verdicts[key]
			if !seen {
				_, err = s.keys.Authenticate(ctx, s.db.Ent, key, nil)
				verdicts[key] = err
			}
			var ae *apierr.Error
			if errors.As(err, &ae) {
				st.end(closeUnauthorized, "Unauthorized: "+ae.Message)
				return true
			}
			if ping && conn != nil {
				go conn.ping()
			}
			return true
		})
	}
}

// wsImplementation accepts WebSocket connections with coder/websocket, as
// gqlgen's own adapter does, with a write timeout and the close code and
// reason of the connection's state.
type wsImplementation struct{ opts coderws.AcceptOptions }

func (i wsImplementation) Accept(w http.ResponseWriter, r *http.Request, o transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	for k, vs := range o.ResponseHeader {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	opts := i.opts
	opts.Subprotocols = o.Subprotocols
	c, err := coderws.Accept(w, r, &opts)
	if err != nil {
		return nil, err
	}
	st, _ := r.Context().Value(wsStateKey{}).(*wsState)
	if st == nil {
		st = &wsState{}
	}
	conn := &wsConn{c: c, st: st}
	st.mu.Lock()
	st.conn = conn
	st.mu.Unlock()
	return conn, nil
}

type wsConn struct {
	c       *coderws.Conn
	st      *wsState
	closing sync.Once
	mu      sync.Mutex
	closed  bool // the close handshake has begun
}

func (c *wsConn) NextReader() (int, io.Reader, error) {
	typ, data, err := c.c.Read(context.Background())
	if err != nil {
		switch coderws.CloseStatus(err) {
		case coderws.StatusNormalClosure, coderws.StatusNoStatusRcvd:
			return 0, nil, transport.ErrWebsocketClosed
		}
		return 0, nil, err
	}
	return int(typ), bytes.NewReader(data), nil
}

func (c *wsConn) WriteJSON(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), wsWriteTimeout)
	defer cancel()
	return c.c.Write(ctx, coderws.MessageText, data)
}

// WriteClose closes with the state's code and reason when it has them
// (gqlgen closes a cancelled connection as "terminated").
func (c *wsConn) WriteClose(code int, reason string) error {
	c.st.mu.Lock()
	if c.st.code != 0 {
		code, reason = c.st.code, c.st.reason
	}
	c.st.mu.Unlock()
	c.closeWith(code, reason)
	return nil
}

// closeWith starts the close handshake (in the background: it waits up to
// 5 s for the peer), once.
func (c *wsConn) closeWith(code int, reason string) {
	c.closing.Do(func() {
		c.mu.Lock()
		c.closed = true
		c.mu.Unlock()
		go func() { _ = c.c.Close(coderws.StatusCode(code), reason) }()
	})
}

// ping sends a graphql-transport-ws ping (the client answers pong).
func (c *wsConn) ping() {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if !closed {
		_ = c.WriteJSON(map[string]string{"type": "ping"})
	}
}

// Close drops the connection, unless the close handshake runs: it drops
// the connection itself when the peer answers, or after 5 s.
func (c *wsConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	return c.c.CloseNow()
}
func (c *wsConn) Subprotocol() string  { return c.c.Subprotocol() }
func (c *wsConn) SetReadLimit(n int64) { c.c.SetReadLimit(n) }

// subscriptionErrors turns a subscription refused by its resolver (no
// data, only errors: FORBIDDEN, NOT_FOUND) into the protocol's error
// message for it, as api.md §12 says, instead of a "next" that carries the
// errors; the socket stays open for other subscriptions.
type subscriptionErrors struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationInterceptor
} = subscriptionErrors{}

func (subscriptionErrors) ExtensionName() string                     { return "DebtQLSubscriptionErrors" }
func (subscriptionErrors) Validate(_ graphql.ExecutableSchema) error { return nil }

// InterceptOperation wraps the subscription's responses: gqlgen answers a
// refused subscription resolver with one response of errors, outside the
// response interceptors.
func (subscriptionErrors) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	responses := next(ctx)
	opCtx := graphql.GetOperationContext(ctx)
	if ctx.Value(wsStateKey{}) == nil || opCtx == nil || opCtx.Operation == nil || opCtx.Operation.Operation != ast.Subscription {
		return responses
	}
	return func(ctx context.Context) *graphql.Response {
		resp := responses(ctx)
		if resp == nil || len(resp.Errors) == 0 {
			return resp
		}
		if d := bytes.TrimSpace(resp.Data); len(d) != 0 && !bytes.Equal(d, []byte("null")) {
			return resp
		}
		for _, e := range resp.Errors {
			transport.AddSubscriptionError(ctx, e)
		}
		return nil
	}
}
