package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// otlpReceiver is a stand-in OTLP/HTTP collector that records the
// requests it gets.
type otlpReceiver struct {
	*httptest.Server
	mu       sync.Mutex
	requests []string // "POST /v1/traces application/x-protobuf 123"
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	r := &otlpReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.requests = append(r.requests, req.Method+" "+req.URL.Path+" "+req.Header.Get("Content-Type")+" "+strconv.Itoa(len(body)))
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *otlpReceiver) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.requests...)
}

const tracingAdminKey = "dq_tracing-test-admin-key-0000000000000000000"

// TestServeExportsTracesWithOTLP: with the OTLP endpoint set, serve
// exports the spans of a request to it (flushed at shutdown), and the
// request's log line carries the trace id.
func TestServeExportsTracesWithOTLP(t *testing.T) {
	for _, tc := range []struct{ env, suffix, wantPath string }{
		{"OTEL_EXPORTER_OTLP_ENDPOINT", "", "/v1/traces"},
		{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "/custom/traces", "/custom/traces"},
	} {
		t.Run(tc.env, func(t *testing.T) {
			cleanEnv(t)
			recv := newOTLPReceiver(t)
			t.Setenv(tc.env, recv.URL+tc.suffix)
			t.Setenv("ADMIN_API_KEY", tracingAdminKey)
			s := startServer(t, dbPath(t))
			offset := s.stderr.Len()
			if status, role := s.viewerRole(tracingAdminKey); status != http.StatusOK || role != "ADMIN" {
				t.Fatalf("viewer: %d %q", status, role)
			}
			line := s.waitForLog(offset, func(m map[string]any) bool { return m["msg"] == "request" && m["path"] == "/graphql" })
			traceID, _ := line["trace_id"].(string)
			if len(traceID) != 32 || line["span_id"] == nil {
				t.Errorf("request log line without trace_id/span_id: %v", line)
			}
			if err := s.stop(); err != nil {
				t.Fatal(err)
			}
			got := recv.got()
			var exported bool
			for _, r := range got {
				if strings.HasPrefix(r, "POST "+tc.wantPath+" application/x-protobuf ") && !strings.HasSuffix(r, " 0") {
					exported = true
				}
			}
			if !exported {
				t.Errorf("the receiver got no spans at %s: %v\nstderr:\n%s", tc.wantPath, got, s.stderr)
			}
		})
	}
}

// TestTracingIsOffWithoutEndpoint: no endpoint (or the SDK disabled) means
// no provider, so no exporter and no SDK work.
func TestTracingIsOffWithoutEndpoint(t *testing.T) {
	cleanEnv(t)
	ctx := context.Background()
	log, _ := (&config{logLevel: "error", logFormat: "json"}).logger(io.Discard)
	if tp, err := setupTracing(ctx, log); tp != nil || err != nil {
		t.Errorf("no endpoint: provider %v, err %v; want none", tp, err)
	}
	recv := newOTLPReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.URL)
	for _, off := range [][2]string{{"OTEL_SDK_DISABLED", "true"}, {"OTEL_TRACES_EXPORTER", "none"}} {
		t.Setenv(off[0], off[1])
		if tp, err := setupTracing(ctx, log); tp != nil || err != nil {
			t.Errorf("%s=%s: provider %v, err %v; want none", off[0], off[1], tp, err)
		}
		t.Setenv(off[0], "")
	}
	// A server without the endpoint logs no trace ids and exports nothing.
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("ADMIN_API_KEY", tracingAdminKey)
	s := startServer(t, dbPath(t))
	offset := s.stderr.Len()
	s.viewerRole(tracingAdminKey)
	line := s.waitForLog(offset, func(m map[string]any) bool { return m["msg"] == "request" && m["path"] == "/graphql" })
	if _, ok := line["trace_id"]; ok {
		t.Errorf("trace_id logged with tracing off: %v", line)
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	if got := recv.got(); len(got) != 0 {
		t.Errorf("tracing off, yet the receiver got %v", got)
	}
}
