package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/server"
)

// TestHTTPServerLimitsAreSet: every timeout and the header limit are set,
// and the write timeout leaves room to answer a request that passed its
// deadline.
func TestHTTPServerLimitsAreSet(t *testing.T) {
	s := httpServer(":0", http.NotFoundHandler())
	if s.ReadHeaderTimeout <= 0 || s.ReadTimeout <= 0 || s.WriteTimeout <= 0 || s.IdleTimeout <= 0 {
		t.Fatalf("unset timeouts: header %s, read %s, write %s, idle %s", s.ReadHeaderTimeout, s.ReadTimeout, s.WriteTimeout, s.IdleTimeout)
	}
	if s.ReadHeaderTimeout > s.ReadTimeout {
		t.Errorf("read header timeout %s above the read timeout %s", s.ReadHeaderTimeout, s.ReadTimeout)
	}
	if s.WriteTimeout <= server.DefaultLimits.RequestTimeout {
		t.Errorf("write timeout %s does not leave room to answer at the request deadline %s", s.WriteTimeout, server.DefaultLimits.RequestTimeout)
	}
	if s.MaxHeaderBytes <= 0 || s.MaxHeaderBytes > 1<<20 {
		t.Errorf("MaxHeaderBytes %d, want a limit below Go's default of 1 MiB", s.MaxHeaderBytes)
	}
}

// TestServeDropsSlowHeadersAndRefusesHugeOnes: the running server closes a
// connection whose headers do not arrive within the read header timeout
// (lowered here so the test is quick), and answers 431 to headers beyond the
// limit.
func TestServeDropsSlowHeadersAndRefusesHugeOnes(t *testing.T) {
	cleanEnv(t)
	saved := httpLimits
	t.Cleanup(func() { httpLimits = saved })
	httpLimits.ReadHeaderTimeout = 200 * time.Millisecond
	s := startServer(t, filepath.Join(t.TempDir(), "debtql.db"))
	addr := strings.TrimPrefix(s.base, "http://")

	// A client that starts a request and never finishes its headers.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "POST /graphql HTTP/1.1\r\nHost: x\r\nX-Slow: "); err != nil {
		t.Fatal(err)
	}
	// The server must end the connection by itself; the read deadline only
	// keeps a broken server from blocking the test.
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	_, err = io.Copy(io.Discard, conn)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the server kept a connection whose headers never came")
	}

	// Headers beyond MaxHeaderBytes (plus net/http's 4 KiB of slack).
	conn2, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close()
	_ = conn2.SetDeadline(time.Now().Add(20 * time.Second))
	big := strings.Repeat("a", httpLimits.MaxHeaderBytes+8<<10)
	if _, err := io.WriteString(conn2, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: "+big+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn2), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("huge headers: %d, want 431", resp.StatusCode)
	}
	// Headers within the limit pass.
	if code, _ := s.getStatus(s.base + "/healthz"); code != http.StatusOK {
		t.Fatalf("/healthz: %d", code)
	}
}
