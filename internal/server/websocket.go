package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	coderws "github.com/coder/websocket"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/events"
	"github.com/debtql/debtql/internal/ledger"
)

// The subscriptions' transport (api.md §12): WebSocket at /graphql with the
// graphql-transport-ws protocol, spoken here over coder/websocket's
// connection (its handshake, its reads and its control frames). Browsers
// cannot send headers on a WebSocket, so the API key travels in
// connection_init's payload; a header that is sent is checked as well. The
// connection lives outside the request deadline and the body limit, and
// closes with a code and a reason that say why.
//
// One goroutine per connection reads it; an idle subscription has none of
// its own. The subscriptions of one API key with the same operation and
// variables share one run of it (wsgroup.go): each event's answer is made
// once and queued to every socket that wants it (wsout.go), without
// waiting for any of them.

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
	// The protocol's own (graphql-transport-ws): a message that breaks
	// it, a subprotocol other than graphql-transport-ws, no
	// connection_init in time, a subscription id in use, a second
	// connection_init.
	closeBadMessage       = 4400
	closeBadSubprotocol   = 4406
	closeInitTimeout      = 4408
	closeSubscriberExists = 4409
	closeTooManyInits     = 4429
)

// wsSubprotocol is the one protocol spoken.
const wsSubprotocol = "graphql-transport-ws"

// Defaults of the WebSocket transport.
const (
	// keyRecheck is how often a connection checks that its key is still
	// valid: a revoked key's subscriptions end within 5 s.
	keyRecheck = 2 * time.Second
	// wsWriteTimeout bounds one write to a client: a client that takes no
	// bytes is cut off.
	wsWriteTimeout = 10 * time.Second
	// wsInitTimeout is how long a client may take to send connection_init.
	wsInitTimeout = 10 * time.Second
	// wsPing is how often the server pings (graphql-transport-ws ping),
	// which keeps proxies from closing an idle connection.
	wsPing = 25 * time.Second
	// wsReadLimit bounds one message from a client.
	wsReadLimit = 1 << 20
)

// isWebSocket reports whether r asks to upgrade to a WebSocket.
func isWebSocket(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// websocket serves the subscriptions of exec.
func (s *Server) websocket(exec graphql.GraphExecutor, origins []string) http.Handler {
	opts := coderws.AcceptOptions{Subprotocols: []string{wsSubprotocol}}
	for _, o := range origins {
		if o == "*" {
			opts.InsecureSkipVerify = true
			continue
		}
		opts.OriginPatterns = append(opts.OriginPatterns, o)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The server's read and write timeouts are for requests; a
		// subscription outlives them.
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Time{})
		_ = rc.SetWriteDeadline(time.Time{})
		hw := &wsHijack{ResponseWriter: w}
		c, err := coderws.Accept(hw, r, &opts)
		if err != nil {
			return // coder/websocket answered the request
		}
		// The connection outlives the request: net/http's goroutine, its
		// buffers and the request go once this handler returns, and a
		// goroutine of its own, whose stack stays small, reads it.
		ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
		conn := &wsConn{s: s, exec: exec, c: c, out: hw.out, ctx: ctx, cancel: cancel,
			header: r.Header.Get("Authorization"), addr: clientAddress(r), headers: r.Header.Clone(),
			subs: map[string]*wsSub{}}
		if c.Subprotocol() != wsSubprotocol {
			conn.end(closeBadSubprotocol, "Subprotocol not acceptable: use graphql-transport-ws")
		}
		s.sockets.Store(conn, struct{}{})
		go func() {
			defer s.sockets.Delete(conn)
			conn.serve()
		}()
	})
}

// wsHijack hands coder/websocket the connection through wsOut, with a
// reader and a writer smaller than net/http's (they live as long as the
// socket).
type wsHijack struct {
	http.ResponseWriter
	out *wsOut
}

func (h *wsHijack) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	nc, brw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	var early []byte
	if n := brw.Reader.Buffered(); n > 0 {
		b, _ := brw.Reader.Peek(n)
		early = bytes.Clone(b)
	}
	h.out = newWSOut(nc, early)
	return h.out, bufio.NewReadWriter(bufio.NewReaderSize(h.out, wsReadBuffer), bufio.NewWriterSize(h.out, wsControlBuffer)), nil
}

// wsConn is one connection.
type wsConn struct {
	s       *Server
	exec    graphql.GraphExecutor
	c       *coderws.Conn
	out     *wsOut
	header  string // the upgrade's Authorization header
	addr    string
	headers http.Header

	// ctx is the connection's; after connection_init it holds the viewer.
	// Only the reader changes it and acked, before acknowledging.
	ctx    context.Context
	cancel context.CancelFunc
	acked  bool

	mu      sync.Mutex
	inited  bool
	key     string // the authenticated Authorization value
	subs    map[string]*wsSub
	code    int // the close, once begun
	reason  string
	closing bool
}

// wsSub is one subscription of a connection: a member of a shared run
// (group), or an operation of its own (cancel).
type wsSub struct {
	conn   *wsConn
	id     string
	prefix []byte // its "next" message up to the payload
	start  ledger.Position
	group  *wsGroup
	cancel context.CancelFunc
}

// wsMessage is a message of the protocol.
type wsMessage struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// serve reads the connection's messages until it ends.
func (c *wsConn) serve() {
	defer c.finish()
	c.c.SetReadLimit(wsReadLimit)
	initTimer := time.AfterFunc(c.s.wsInit, func() {
		c.mu.Lock()
		inited := c.inited
		c.mu.Unlock()
		if !inited {
			c.end(closeInitTimeout, "Connection initialisation timeout")
		}
	})
	defer initTimer.Stop()
	for {
		typ, data, err := c.c.Read(context.Background())
		if err != nil {
			return
		}
		if c.isClosing() {
			continue // the close handshake runs; its answer ends the loop
		}
		if typ != coderws.MessageText {
			c.end(closeBadMessage, "graphql-transport-ws messages are text")
			continue
		}
		var m wsMessage
		if err := json.Unmarshal(data, &m); err != nil {
			c.end(closeBadMessage, "Invalid message: "+err.Error())
			continue
		}
		switch m.Type {
		case "connection_init":
			apart(func() { c.init(m.Payload) })
		case "ping":
			c.send(wsMessage{Type: "pong", Payload: m.Payload})
		case "pong":
		case "subscribe":
			apart(func() { c.subscribe(m.ID, m.Payload) })
		case "complete":
			c.stop(m.ID)
		default:
			c.end(closeBadMessage, fmt.Sprintf("Invalid message type %q", m.Type))
		}
	}
}

// apart runs f on a goroutine of its own and waits for it: the key's
// lookup and the operation's start go deep (SQL, the executor), and would
// leave the reader's stack, which lives as long as the connection, grown.
func apart(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	<-done
}

// finish ends what the connection ran, once its reader stopped.
func (c *wsConn) finish() {
	c.mu.Lock()
	c.closing = true
	subs := c.subs
	c.subs = nil
	c.mu.Unlock()
	for _, sub := range subs {
		sub.leave()
	}
	c.cancel()
	_ = c.c.CloseNow()
}

func (c *wsConn) isClosing() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closing
}

// init authenticates connection_init's key (and the upgrade's header,
// when sent), and acknowledges.
func (c *wsConn) init(payload json.RawMessage) {
	c.mu.Lock()
	again := c.inited
	c.inited = true
	c.mu.Unlock()
	if again {
		c.end(closeTooManyInits, "Too many initialisation requests")
		return
	}
	var p transport.InitPayload
	if len(payload) > 0 {
		if err := json.Unmarshal(payload, &p); err != nil {
			c.end(closeBadMessage, "Invalid message: connection_init's payload must be an object")
			return
		}
	}
	header := p.Authorization()
	if header == "" {
		header = c.header
	} else if c.header != "" && c.header != header {
		if _, err := c.s.authenticateKey(c.ctx, c.addr, c.header); err != nil {
			c.end(closeUnauthorized, "Unauthorized: "+err.Error())
			return
		}
	}
	v, err := c.s.authenticateKey(c.ctx, c.addr, header)
	if err != nil {
		c.end(closeUnauthorized, "Unauthorized: "+err.Error())
		return
	}
	c.ctx = auth.WithViewer(c.ctx, v)
	c.acked = true
	c.mu.Lock()
	c.key = header
	c.mu.Unlock()
	c.send(wsMessage{Type: "connection_ack"})
}

// subscribe starts the operation of a subscribe message.
func (c *wsConn) subscribe(id string, payload json.RawMessage) {
	if !c.acked {
		c.end(closeUnauthorized, "Unauthorized")
		return
	}
	if id == "" {
		c.end(closeBadMessage, "Invalid message: a subscribe message needs an id")
		return
	}
	sub := &wsSub{conn: c, id: id}
	sub.prefix = append(append([]byte(`{"id":`), quoteJSON(id)...), `,"type":"next","payload":`...)
	c.mu.Lock()
	_, taken := c.subs[id]
	if !taken {
		c.subs[id] = sub
	}
	c.mu.Unlock()
	if taken {
		c.end(closeSubscriberExists, truncateReason("Subscriber for "+id+" already exists"))
		return
	}
	start := graphql.Now()
	var params graphql.RawParams
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	if err := dec.Decode(&params); err != nil || len(payload) == 0 {
		c.refuse(sub, gqlError(apierr.New(apierr.BadUserInput, "the subscribe message's payload must be an object holding the operation's query"), nil))
		return
	}
	if max := c.s.limits.MaxDocumentBytes; max > 0 && len(params.Query) > max {
		c.refuse(sub, gqlError(apierr.New(codeTooLarge, "the query document has %d bytes; at most %d are allowed", len(params.Query), max), nil))
		return
	}
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}
	params.Headers = c.headers
	ctx := graphql.StartOperationTrace(c.ctx)
	rc, errs := c.exec.CreateOperationContext(ctx, &params)
	if errs != nil {
		c.refuse(sub, operationErrors(rc, &params, errs)...)
		return
	}
	// The operation runs on a context of its own, not the connection's: a
	// shared run outlives the connection that started it. Its resolver
	// plans the subscription (events.Plan); the run starts it.
	plan := &events.Plan{Events: make(chan *ent.AuditEvent, 1)}
	var group atomic.Pointer[wsGroup]
	opCtx, cancel := context.WithCancel(events.WithPlan(context.WithoutCancel(ctx), plan))
	opCtx = events.WithDisconnect(opCtx, func(err error) {
		if g := group.Load(); g != nil {
			g.slow(err)
		}
	})
	responses, opCtx := c.exec.DispatchOperation(opCtx, rc)
	at, planned := plan.Start()
	if rc.Operation.Operation != ast.Subscription || !planned {
		// A query or a mutation (one answer), or a subscription its
		// resolver refused (one answer of errors).
		sub.cancel = cancel
		go c.runAlone(sub, responses, opCtx)
		return
	}
	sub.start = at
	c.s.groups.run(sub, groupKey(c.ctx, rc), plan, responses, opCtx, cancel, &group)
}

// runAlone sends an operation's answers, then completes it; a first answer
// of errors alone (a subscription refused) is the protocol's error message.
func (c *wsConn) runAlone(sub *wsSub, responses graphql.ResponseHandler, ctx context.Context) {
	defer sub.cancel()
	for first := true; ; first = false {
		resp := responses(ctx)
		if resp == nil {
			break
		}
		if first && len(resp.Errors) > 0 {
			if d := bytes.TrimSpace(resp.Data); len(d) == 0 || bytes.Equal(d, []byte("null")) {
				c.refuse(sub, resp.Errors...)
				return
			}
		}
		payload, err := json.Marshal(resp)
		if err != nil {
			c.refuse(sub, gqlError(apierr.New(apierr.Internal, "the answer could not be encoded"), nil))
			return
		}
		if !c.next(sub, payload) {
			return
		}
	}
	if c.remove(sub) {
		c.send(wsMessage{ID: sub.id, Type: "complete"})
	}
}

// refuse ends a subscription with the protocol's error message.
func (c *wsConn) refuse(sub *wsSub, errs ...*gqlerror.Error) {
	if !c.remove(sub) {
		return
	}
	payload, err := json.Marshal(errs)
	if err != nil {
		payload = []byte(`[{"message":"internal error"}]`)
	}
	c.send(wsMessage{ID: sub.id, Type: "error", Payload: payload})
}

// next queues a "next" message of sub with payload (an execution result).
// It answers false when the connection is closed, or too slow: when more
// than the buffer of messages wait to be sent, which closes it.
func (c *wsConn) next(sub *wsSub, payload []byte) bool {
	buffer := c.s.hub.Buffer()
	if c.out.text(buffer, sub.prefix, payload, closingBrace) {
		return true
	}
	c.end(closeSlowConsumer, events.TooSlow(buffer).Error())
	return false
}

var closingBrace = []byte("}")

// send queues a message of the protocol's own (not counted as an event);
// a client that has let a megabyte wait is closed as too slow.
func (c *wsConn) send(m wsMessage) {
	b, err := json.Marshal(m)
	if err != nil || c.out.text(0, b) || c.isClosing() {
		return
	}
	c.end(closeSlowConsumer, "slow consumer: the client does not read what it is sent")
}

// stop ends a subscription the client completed (an unknown id is one that
// already ended).
func (c *wsConn) stop(id string) {
	c.mu.Lock()
	sub := c.subs[id]
	delete(c.subs, id)
	c.mu.Unlock()
	if sub != nil {
		sub.leave()
	}
}

// remove forgets sub, and answers whether it was still there.
func (c *wsConn) remove(sub *wsSub) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.subs[sub.id] != sub {
		return false
	}
	delete(c.subs, sub.id)
	return true
}

// leave ends a subscription's part in its run.
func (sub *wsSub) leave() {
	if g := sub.group; g != nil {
		g.leave(sub)
	} else if sub.cancel != nil {
		sub.cancel()
	}
}

// end closes the connection with code and reason (the first given wins);
// the close handshake runs in the background.
func (c *wsConn) end(code int, reason string) {
	c.mu.Lock()
	if c.code != 0 {
		c.mu.Unlock()
		return
	}
	c.code, c.reason, c.closing = code, truncateReason(reason), true
	code, reason = c.code, c.reason
	c.mu.Unlock()
	// Close waits up to 5 s for the client's answer.
	go func() { _ = c.c.Close(coderws.StatusCode(code), reason) }()
}

// truncateReason keeps a close reason within the 123 bytes a close frame
// holds.
func truncateReason(r string) string {
	if len(r) <= 123 {
		return r
	}
	return r[:120] + "..."
}

// quoteJSON is s as a JSON string.
func quoteJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
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
			c := k.(*wsConn)
			c.mu.Lock()
			key := c.key
			c.mu.Unlock()
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
				c.end(closeUnauthorized, "Unauthorized: "+ae.Message)
				return true
			}
			if ping {
				c.send(wsMessage{Type: "ping"})
			}
			return true
		})
	}
}
