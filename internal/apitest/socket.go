package apitest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	coderws "github.com/coder/websocket"
)

// Socket is a graphql-transport-ws client of the Env's server: what a
// browser's graphql-ws client does, spoken by hand so that tests see every
// message and the close code.
type Socket struct {
	c    *coderws.Conn
	msgs chan Message
	done chan struct{}

	mu     sync.Mutex
	code   coderws.StatusCode
	reason string
	// held are messages read while waiting for another subscription's.
	held map[string][]Message
}

// Message is one message of the protocol.
type Message struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// socketWait bounds how long a test waits for a message that should come:
// a test that fails waits this long, one that passes does not.
const socketWait = 20 * time.Second

// Dial opens a WebSocket at /graphql, sends connection_init with key in its
// payload (no payload when key is ""), and answers the socket once the
// server acknowledged, or nil and the close code and reason when it closed
// the socket instead.
func (e *Env) Dial(t testing.TB, key string, header ...string) (s *Socket, code int, reason string) {
	t.Helper()
	s = e.DialRaw(t, []string{"graphql-transport-ws"}, header...)
	init := Message{Type: "connection_init"}
	if key != "" {
		init.Payload, _ = json.Marshal(map[string]string{"Authorization": "Bearer " + key})
	}
	s.Send(t, init)
	m, ok := s.next(socketWait)
	if !ok {
		code, reason := s.Closed(t)
		return nil, code, reason
	}
	if m.Type != "connection_ack" {
		t.Fatalf("expected connection_ack, got %s %s", m.Type, m.Payload)
	}
	return s, 0, ""
}

// DialRaw opens a WebSocket at /graphql offering subprotocols, with header
// pairs on the upgrade, and sends nothing (for tests of the protocol's
// rules).
func (e *Env) DialRaw(t testing.TB, subprotocols []string, header ...string) *Socket {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), socketWait)
	defer cancel()
	opts := &coderws.DialOptions{Subprotocols: subprotocols, HTTPHeader: map[string][]string{}}
	for i := 0; i+1 < len(header); i += 2 {
		opts.HTTPHeader[header[i]] = append(opts.HTTPHeader[header[i]], header[i+1])
	}
	c, _, err := coderws.Dial(ctx, "ws"+strings.TrimPrefix(e.URL, "http")+"/graphql", opts)
	if err != nil {
		t.Fatalf("dialling the WebSocket: %v", err)
	}
	c.SetReadLimit(16 << 20)
	s := &Socket{c: c, msgs: make(chan Message, 100000), done: make(chan struct{}), held: map[string][]Message{}}
	go s.read()
	t.Cleanup(func() { _ = c.CloseNow() })
	return s
}

func (s *Socket) read() {
	defer close(s.done)
	defer close(s.msgs)
	for {
		_, data, err := s.c.Read(context.Background())
		if err != nil {
			s.mu.Lock()
			s.code = coderws.CloseStatus(err)
			var ce coderws.CloseError
			if errors.As(err, &ce) {
				s.reason = ce.Reason
			}
			s.mu.Unlock()
			return
		}
		var m Message
		if err := json.Unmarshal(data, &m); err != nil {
			continue
		}
		switch m.Type {
		case "ping":
			_ = s.c.Write(context.Background(), coderws.MessageText, []byte(`{"type":"pong"}`))
			continue
		case "pong", "ka":
			continue
		}
		s.msgs <- m
	}
}

// Send writes a message.
func (s *Socket) Send(t testing.TB, m Message) {
	t.Helper()
	b, _ := json.Marshal(m)
	ctx, cancel := context.WithTimeout(context.Background(), socketWait)
	defer cancel()
	if err := s.c.Write(ctx, coderws.MessageText, b); err != nil {
		t.Fatalf("writing to the WebSocket: %v", err)
	}
}

// Subscribe starts the subscription id with query and vars.
func (s *Socket) Subscribe(t testing.TB, id, query string, vars Vars) {
	t.Helper()
	p, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	s.Send(t, Message{ID: id, Type: "subscribe", Payload: p})
}

// Stop completes the subscription id from the client's side.
func (s *Socket) Stop(t testing.TB, id string) {
	t.Helper()
	s.Send(t, Message{ID: id, Type: "complete"})
}

func (s *Socket) next(wait time.Duration) (Message, bool) {
	select {
	case m, ok := <-s.msgs:
		return m, ok
	case <-time.After(wait):
		return Message{}, false
	}
}

// Next is the next message of subscription id (messages of other
// subscriptions are kept for their turn); the test fails when none comes.
func (s *Socket) Next(t testing.TB, id string) Message {
	t.Helper()
	if q := s.held[id]; len(q) > 0 {
		s.held[id] = q[1:]
		return q[0]
	}
	deadline := time.Now().Add(socketWait)
	for {
		m, ok := s.next(time.Until(deadline))
		if !ok {
			code, reason := s.closedNow()
			t.Fatalf("no message came for %s (closed: %d %q)", id, code, reason)
		}
		if m.ID == id {
			return m
		}
		s.held[m.ID] = append(s.held[m.ID], m)
	}
}

// Data is the data of the next message, which must be a "next" of id
// without errors, decoded into v.
func (s *Socket) Data(t testing.TB, id string, v any) {
	t.Helper()
	m := s.Next(t, id)
	if m.Type != "next" {
		t.Fatalf("expected next of %s, got %s of %s: %s", id, m.Type, m.ID, m.Payload)
	}
	var r struct {
		Data   json.RawMessage
		Errors []Error
	}
	if err := json.Unmarshal(m.Payload, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Errors) > 0 {
		t.Fatalf("errors in next of %s: %s", id, m.Payload)
	}
	if err := json.Unmarshal(r.Data, v); err != nil {
		t.Fatalf("decoding %s: %v", r.Data, err)
	}
}

// Pending reports the messages already received and not yet read, without
// waiting.
func (s *Socket) Pending() []Message {
	var out []Message
	for id, q := range s.held {
		out = append(out, q...)
		delete(s.held, id)
	}
	for {
		select {
		case m, ok := <-s.msgs:
			if !ok {
				return out
			}
			out = append(out, m)
		default:
			return out
		}
	}
}

// Closed waits for the server to close the socket, and answers its close
// code and reason; messages still unread are dropped.
func (s *Socket) Closed(t testing.TB) (int, string) {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(socketWait):
		t.Fatal("the server did not close the socket")
	}
	return s.closedNow()
}

func (s *Socket) closedNow() (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return int(s.code), s.reason
}

// Conn is the underlying connection, for tests that misbehave on purpose.
func (s *Socket) Conn() *coderws.Conn { return s.c }
