package server

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// wsOut frames messages as RFC 6455 says a server does, coalesces a busy
// connection's writes, and tells a client that takes nothing from one that
// is only waited for.

func TestFrameHeader(t *testing.T) {
	for _, c := range []struct {
		n    int
		want []byte
	}{
		{0, []byte{0x81, 0}},
		{125, []byte{0x81, 125}},
		{126, []byte{0x81, 126, 0, 126}},
		{65535, []byte{0x81, 126, 0xff, 0xff}},
		{65536, []byte{0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0}},
	} {
		if got := appendFrameHeader(nil, c.n); !bytes.Equal(got, c.want) {
			t.Errorf("header of %d bytes: % x, want % x", c.n, got, c.want)
		}
	}
}

// countingConn counts the writes that reach the connection.
type countingConn struct {
	net.Conn
	writes atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// readFrames reads n text frames (unmasked, as a server sends them).
func readFrames(r *bufio.Reader, n int) ([]string, error) {
	var out []string
	for range n {
		var h [2]byte
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return out, err
		}
		if h[0] != 0x81 || h[1]&0x80 != 0 {
			return out, fmt.Errorf("frame header % x", h)
		}
		size := uint64(h[1])
		switch size {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(r, b[:]); err != nil {
				return out, err
			}
			size = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(r, b[:]); err != nil {
				return out, err
			}
			size = binary.BigEndian.Uint64(b[:])
		}
		p := make([]byte, size)
		if _, err := io.ReadFull(r, p); err != nil {
			return out, err
		}
		out = append(out, string(p))
	}
	return out, nil
}

func TestWSOutCoalescesABusyConnection(t *testing.T) {
	server, client := net.Pipe()
	defer client.Close()
	conn := &countingConn{Conn: server}
	o := newWSOut(conn, nil)
	defer o.Close()
	const n = 200
	got := make(chan []string, 1)
	go func() {
		frames, err := readFrames(bufio.NewReader(client), n)
		if err != nil {
			t.Error(err)
		}
		got <- frames
	}()
	start := time.Now()
	big := bytes.Repeat([]byte("x"), 70000)
	for i := range n {
		part := []byte(fmt.Sprint(i))
		if i == 7 {
			part = big // a frame with a 64-bit length
		}
		if !o.text(3, []byte("m"), part) {
			t.Fatalf("message %d refused from a client that reads", i)
		}
		time.Sleep(time.Millisecond)
	}
	frames := <-got
	elapsed := time.Since(start)
	for i, f := range frames {
		want := fmt.Sprint("m", i)
		if i == 7 {
			want = "m" + string(big)
		}
		if f != want {
			t.Fatalf("frame %d is %.20q, want %.20q", i, f, want)
		}
	}
	// At most one write per wsCoalesce, and one to begin with.
	if w, most := conn.writes.Load(), int64(elapsed/wsCoalesce)+2; w > most {
		t.Fatalf("%d messages over %s took %d writes; want at most %d", n, elapsed, w, most)
	}
}

func TestWSOutRefusesAClientThatTakesNothing(t *testing.T) {
	server, client := net.Pipe() // synchronous: a write waits for a read
	defer client.Close()
	o := newWSOut(server, nil)
	defer o.Close()
	const limit = 3
	// The first message's write waits on the client; then more than the
	// limit wait behind it for longer than the pause between writes.
	if !o.text(limit, []byte("first")) {
		t.Fatal("first message refused")
	}
	waitWriting(t, o)
	for i := range limit {
		if !o.text(limit, []byte("waiting")) {
			t.Fatalf("message %d refused at once", i)
		}
	}
	time.Sleep(2 * wsCoalesce)
	if o.text(limit, []byte("one too many")) {
		t.Fatal("a message was queued behind a write the client did not take for twice the pause")
	}
	// Protocol messages of the server's own are not counted.
	if !o.text(0, []byte(`{"type":"ping"}`)) {
		t.Fatal("a ping was refused")
	}
}

func TestWSOutClosedTakesNothing(t *testing.T) {
	server, client := net.Pipe()
	defer client.Close()
	o := newWSOut(server, nil)
	go func() { _, _ = io.Copy(io.Discard, client) }()
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if o.text(0, []byte("late")) {
		t.Fatal("a closed connection took a message")
	}
	if _, err := o.Write([]byte("late")); err == nil {
		t.Fatal("a closed connection took a control frame")
	}
}

// A client that takes nothing cannot grow the buffer with messages the
// server owes it (pongs to its pings, control frames): they too stop at
// wsMaxWaiting bytes behind a stuck write.
func TestWSOutBoundsWhatWaitsForAClientThatTakesNothing(t *testing.T) {
	server, client := net.Pipe()
	defer client.Close()
	o := newWSOut(server, nil)
	defer o.Close()
	if !o.text(0, []byte("first")) {
		t.Fatal("first message refused")
	}
	waitWriting(t, o)
	time.Sleep(2 * wsCoalesce)
	pong := bytes.Repeat([]byte("p"), 1000)
	queued := 0
	for o.text(0, pong) {
		queued++
		if queued > 2*wsMaxWaiting/len(pong) {
			t.Fatalf("%d pongs queued behind a stuck write", queued)
		}
	}
	if queued < wsMaxWaiting/(len(pong)+4)-1 {
		t.Fatalf("refused after %d pongs, well within the bound", queued)
	}
	if _, err := o.Write([]byte{0x8a, 0}); err == nil {
		t.Fatal("a control frame was queued beyond the bound")
	}
}

// waitWriting waits until o's flusher is inside a write.
func waitWriting(t *testing.T, o *wsOut) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		o.mu.Lock()
		writing := !o.writing.IsZero()
		o.mu.Unlock()
		if writing {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the first message's write did not begin")
		}
	}
}
