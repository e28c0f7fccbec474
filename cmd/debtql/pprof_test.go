package main

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// TestPprofOnLoopbackOnly: the profiler refuses an address off loopback,
// and serves no /cmdline (it could show --database-url's password).
func TestPprofOnLoopbackOnly(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, addr := range []string{":6061", "0.0.0.0:6061", "10.1.2.3:6061", "example.com:6061", "no-port"} {
		if stop, err := startPprof(addr, log); err == nil {
			stop()
			t.Errorf("startPprof(%q) was accepted, want a refusal", addr)
		}
	}
	stop, err := startPprof("127.0.0.1:0", log)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	stop, err = startPprof("localhost:0", log)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
}

// TestPprofHasNoCmdline checks the handler list by serving one.
func TestPprofHasNoCmdline(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	addr := freeAddr(t)
	stop, err := startPprof(addr, log)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	resp, err := http.Get("http://" + addr + "/debug/pprof/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(body), "debtql") || strings.Contains(string(body), ".test") {
		t.Errorf("/debug/pprof/cmdline answered the command line: %q", body)
	}
}
