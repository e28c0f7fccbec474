package server

import (
	"encoding/binary"
	"errors"
	"net"
	"sync"
	"time"
)

// wsOut is a subscription connection's way out: it owns the hijacked TCP
// connection's writes. Messages are framed and appended to a buffer
// without waiting; a flusher goroutine, which exists only while bytes
// wait, writes them, at most once per wsCoalesce: a message after a quiet
// spell leaves at once, and a busy connection's messages leave together,
// one system call for several. So the fan-out of an event never waits for
// a client, and a thousand subscribers of one busy stream cost a thousand
// writes per wsCoalesce, not one per message.
//
// coder/websocket reads the connection (through Read) and writes only its
// control frames (pong, close), each in one Write: its buffered writer is
// larger than any control frame (wsControlBuffer), so its frames never
// interleave with ours. Data messages are framed here (text frames,
// unmasked, as a server's are: RFC 6455 §5.2).
type wsOut struct {
	conn  net.Conn
	early []byte // bytes read past the upgrade, which Read answers first

	wmu sync.Mutex // one write to conn at a time

	mu       sync.Mutex
	pending  []byte // whole frames waiting to be written
	spare    []byte
	waiting  int       // data messages in pending
	writing  time.Time // when the write under way began (zero when none)
	flushing bool
	closed   bool
}

// Defaults of wsOut.
const (
	// wsCoalesce is the least time between two writes of one connection.
	wsCoalesce = 50 * time.Millisecond
	// wsKeepBuffer is the largest buffer a connection keeps between
	// writes; a larger one, after a burst, goes back to the collector.
	wsKeepBuffer = 4 << 10
	// wsControlBuffer sizes coder/websocket's writer, which holds one
	// control frame (at most 2+4+125 bytes) at a time.
	wsControlBuffer = 256
	// wsReadBuffer sizes coder/websocket's reader; larger messages are
	// read through it in pieces.
	wsReadBuffer = 1 << 10
	// wsMaxWaiting bounds the bytes waiting behind a write the client has
	// not taken, whatever they are (events, pongs, control frames): a
	// client that sends pings and reads nothing cannot grow the buffer.
	wsMaxWaiting = 1 << 20
)

func newWSOut(conn net.Conn, early []byte) *wsOut {
	return &wsOut{conn: conn, early: early}
}

// Read reads the client's bytes (coder/websocket's reader).
func (o *wsOut) Read(p []byte) (int, error) {
	if len(o.early) > 0 {
		n := copy(p, o.early)
		o.early = o.early[n:]
		return n, nil
	}
	return o.conn.Read(p)
}

// Write queues coder/websocket's control frames.
func (o *wsOut) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return 0, net.ErrClosed
	}
	if o.stuck() && len(o.pending) >= wsMaxWaiting {
		return 0, errClientNotReading
	}
	o.pending = append(o.pending, p...)
	o.kick()
	return len(p), nil
}

// text queues one text message made of parts. It answers false when the
// connection is closed, or when the client is too slow: behind a write
// that the client has not taken for wsCoalesce wait limit (when positive)
// messages, or wsMaxWaiting bytes. (Messages that only wait out the pause
// between two writes do not count against the client.)
func (o *wsOut) text(limit int, parts ...[]byte) bool {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed || o.stuck() && (limit > 0 && o.waiting >= limit || len(o.pending) >= wsMaxWaiting) {
		return false
	}
	o.pending = appendFrameHeader(o.pending, n)
	for _, p := range parts {
		o.pending = append(o.pending, p...)
	}
	o.waiting++
	o.kick()
	return true
}

// errClientNotReading refuses a control frame to a client that takes
// nothing.
var errClientNotReading = errors.New("the client does not read what it is sent")

// stuck reports whether a write has waited on the client for longer than
// the pause between writes (under mu).
func (o *wsOut) stuck() bool {
	return !o.writing.IsZero() && time.Since(o.writing) > wsCoalesce
}

// appendFrameHeader appends the header of an unmasked final text frame of n
// bytes.
func appendFrameHeader(b []byte, n int) []byte {
	const finText = 0x81
	switch {
	case n < 126:
		return append(b, finText, byte(n))
	case n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(b, finText, 126), uint16(n))
	default:
		return binary.BigEndian.AppendUint64(append(b, finText, 127), uint64(n))
	}
}

// kick starts the flusher unless it runs (under mu).
func (o *wsOut) kick() {
	if !o.flushing {
		o.flushing = true
		go o.flush()
	}
}

// flush writes what waits, then waits wsCoalesce and writes what came
// meanwhile, until nothing came. A write that fails (the client is gone,
// or took nothing for wsWriteTimeout) closes the connection, which ends its
// reader and so the connection.
func (o *wsOut) flush() {
	for {
		o.mu.Lock()
		buf := o.pending
		if len(buf) == 0 || o.closed {
			o.flushing = false
			o.mu.Unlock()
			return
		}
		now := time.Now()
		o.pending, o.spare, o.waiting, o.writing = o.spare[:0], nil, 0, now
		o.mu.Unlock()
		o.wmu.Lock()
		_ = o.conn.SetWriteDeadline(now.Add(wsWriteTimeout))
		_, err := o.conn.Write(buf)
		o.wmu.Unlock()
		o.mu.Lock()
		o.writing = time.Time{}
		if err != nil {
			o.flushing = false
			o.mu.Unlock()
			_ = o.Close()
			return
		}
		if cap(buf) <= wsKeepBuffer {
			o.spare = buf[:0]
		}
		o.mu.Unlock()
		time.Sleep(wsCoalesce)
	}
}

// Close writes what waits (within a second: a close frame queued last
// should reach the client), unless a write is stuck on the client, and
// closes the connection (which ends a stuck write).
func (o *wsOut) Close() error {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return nil
	}
	o.closed = true
	buf := o.pending
	o.pending, o.spare = nil, nil
	o.mu.Unlock()
	if len(buf) > 0 && o.wmu.TryLock() {
		_ = o.conn.SetWriteDeadline(time.Now().Add(time.Second))
		_, _ = o.conn.Write(buf)
		o.wmu.Unlock()
	}
	return o.conn.Close()
}

// The rest of net.Conn, for coder/websocket.
func (o *wsOut) LocalAddr() net.Addr                { return o.conn.LocalAddr() }
func (o *wsOut) RemoteAddr() net.Addr               { return o.conn.RemoteAddr() }
func (o *wsOut) SetDeadline(t time.Time) error      { return o.conn.SetReadDeadline(t) }
func (o *wsOut) SetReadDeadline(t time.Time) error  { return o.conn.SetReadDeadline(t) }
func (o *wsOut) SetWriteDeadline(t time.Time) error { return nil }
