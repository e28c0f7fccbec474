package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"log/slog"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/server"
)

// logBuffer collects the server's JSON log lines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// requestLine waits for the request log line with request id id. The line
// is written after the response, so the test waits for it (bounded).
func (l *logBuffer) requestLine(t *testing.T, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		l.mu.Lock()
		text := l.b.String()
		l.mu.Unlock()
		for _, line := range strings.Split(text, "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == "request" && m["request_id"] == id {
				return m
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no request log line with request_id %s in:\n%s", id, text)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// tracedEnv starts a server whose spans go to an in-memory exporter and
// whose logs go to a buffer.
func tracedEnv(t *testing.T) (*apitest.Env, *tracetest.InMemoryExporter, *logBuffer) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	logs := &logBuffer{}
	env := apitest.NewWith(t, func(o *server.Options) {
		o.TracerProvider = tp
		o.Logger = slog.New(server.NewLogHandler(slog.NewJSONHandler(logs, nil)))
	})
	return env, exp, logs
}

// serverSpan waits for the HTTP span of the request with request id id
// (it ends after the response is written) and returns every span.
func serverSpan(t *testing.T, exp *tracetest.InMemoryExporter, id string) (tracetest.SpanStubs, tracetest.SpanStub) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		spans := exp.GetSpans()
		for _, s := range spans {
			if s.SpanKind == trace.SpanKindServer && attr(s, "debtql.request_id").AsString() == id {
				return spans, s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no HTTP span for request %s among %d spans", id, len(spans))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func attr(s tracetest.SpanStub, key string) attribute.Value {
	for _, a := range s.Attributes {
		if string(a.Key) == key {
			return a.Value
		}
	}
	return attribute.Value{}
}

func byName(spans tracetest.SpanStubs, name string) (tracetest.SpanStub, bool) {
	for _, s := range spans {
		if s.Name == name {
			return s, true
		}
	}
	return tracetest.SpanStub{}, false
}

// descends reports whether s has ancestor among spans.
func descends(spans tracetest.SpanStubs, s tracetest.SpanStub, ancestor trace.SpanID) bool {
	byID := map[trace.SpanID]tracetest.SpanStub{}
	for _, x := range spans {
		byID[x.SpanContext.SpanID()] = x
	}
	for i := 0; i < 100 && s.Parent.IsValid(); i++ {
		if s.Parent.SpanID() == ancestor {
			return true
		}
		var ok bool
		if s, ok = byID[s.Parent.SpanID()]; !ok {
			return false
		}
	}
	return false
}

func TestTracingSpansForOperationAndSQL(t *testing.T) {
	env, exp, logs := tracedEnv(t)
	const id = "trace-test-1"
	resp := env.Admin().Do(t, `query Clients { clients { totalCount nodes { id } } }`, nil, "X-Request-Id", id)
	resp.OK(t, nil)
	spans, httpSpan := serverSpan(t, exp, id)

	if httpSpan.Name != "POST /graphql" || attr(httpSpan, "http.response.status_code").AsInt64() != 200 ||
		attr(httpSpan, "http.route").AsString() != "/graphql" {
		t.Errorf("HTTP span: %s %v", httpSpan.Name, httpSpan.Attributes)
	}
	op, ok := byName(spans, "query Clients")
	if !ok {
		t.Fatalf("no operation span named %q among %v", "query Clients", names(spans))
	}
	if attr(op, "graphql.operation.type").AsString() != "query" || attr(op, "graphql.operation.name").AsString() != "Clients" {
		t.Errorf("operation span attributes: %v", op.Attributes)
	}
	if op.Status.Code == codes.Error {
		t.Errorf("operation span is an error: %v", op.Status)
	}
	if !descends(spans, op, httpSpan.SpanContext.SpanID()) {
		t.Error("the operation span is not under the HTTP span")
	}
	var sql []tracetest.SpanStub
	for _, s := range spans {
		if attr(s, "db.system.name").AsString() != "" && descends(spans, s, op.SpanContext.SpanID()) {
			sql = append(sql, s)
		}
	}
	if len(sql) == 0 {
		t.Fatalf("no SQL span under the operation span; spans: %v", names(spans))
	}
	var clientsSelect bool
	for _, s := range sql {
		if s.SpanKind != trace.SpanKindClient {
			t.Errorf("SQL span %s is of kind %v", s.Name, s.SpanKind)
		}
		if s.Name == "SELECT" && strings.Contains(attr(s, "db.query.text").AsString(), "clients") {
			clientsSelect = true
		}
	}
	if !clientsSelect {
		t.Errorf("no SELECT on clients among the SQL spans: %v", names(sql))
	}
	trace := httpSpan.SpanContext.TraceID()
	for _, s := range spans {
		if s.SpanContext.TraceID() != trace {
			t.Errorf("span %s is in trace %s, want %s", s.Name, s.SpanContext.TraceID(), trace)
		}
	}

	// Probes are not traced.
	probe, err := http.Get(env.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	_ = probe.Body.Close()
	for _, s := range exp.GetSpans() {
		if strings.Contains(s.Name, "/healthz") {
			t.Errorf("a probe was traced: %s", s.Name)
		}
	}

	line := logs.requestLine(t, id)
	if line["trace_id"] != trace.String() || line["span_id"] != httpSpan.SpanContext.SpanID().String() {
		t.Errorf("log line: trace_id %v span_id %v, want %s %s", line["trace_id"], line["span_id"], trace, httpSpan.SpanContext.SpanID())
	}
}

// TestTracingMutationTransaction: a mutation's transaction (BEGIN, its
// statements, COMMIT) is inside its operation span.
func TestTracingMutationTransaction(t *testing.T) {
	env, exp, _ := tracedEnv(t)
	const id = "trace-test-mutation"
	env.Admin().Do(t, `mutation CreateClient($input: ClientInput!) { createClient(input: $input) { id } }`,
		apitest.Vars{"input": apitest.ClientInput("Traced AB")}, "X-Request-Id", id).OK(t, nil)
	spans, _ := serverSpan(t, exp, id)
	op, ok := byName(spans, "mutation CreateClient")
	if !ok {
		t.Fatalf("no operation span; spans: %v", names(spans))
	}
	under := map[string]bool{}
	for _, s := range spans {
		if descends(spans, s, op.SpanContext.SpanID()) {
			under[s.Name] = true
		}
	}
	for _, want := range []string{"BEGIN", "INSERT", "COMMIT"} {
		if !under[want] {
			t.Errorf("no %s span under the mutation's span; spans: %v", want, names(spans))
		}
	}
}

func TestTracingHonoursTraceparentAndRecordsErrorCodes(t *testing.T) {
	env, exp, logs := tracedEnv(t)
	const (
		id       = "trace-test-2"
		traceID  = "4bf92f3577b34da6a3ce929d0e0e4736"
		parentID = "00f067aa0ba902b7"
	)
	resp := env.Admin().Do(t, `query Missing { debt(clientId: "00000000-0000-4000-8000-000000000000", id: 1) { id } }`, nil,
		"X-Request-Id", id, "traceparent", "00-"+traceID+"-"+parentID+"-01")
	if len(resp.Errors) == 0 {
		t.Fatalf("want an error, got %s", resp)
	}
	code := resp.Errors[0].Extensions.Code
	spans, httpSpan := serverSpan(t, exp, id)
	if httpSpan.SpanContext.TraceID().String() != traceID || httpSpan.Parent.SpanID().String() != parentID || !httpSpan.Parent.IsRemote() {
		t.Errorf("HTTP span is not the caller's child: trace %s parent %s", httpSpan.SpanContext.TraceID(), httpSpan.Parent.SpanID())
	}
	op, ok := byName(spans, "query Missing")
	if !ok {
		t.Fatalf("no operation span; spans: %v", names(spans))
	}
	if got := attr(op, "debtql.error_codes").AsStringSlice(); len(got) != 1 || got[0] != code || op.Status.Code != codes.Error {
		t.Errorf("operation span: error codes %v status %v, want [%s] and an error", got, op.Status, code)
	}
	if got := attr(httpSpan, "debtql.error_codes").AsStringSlice(); len(got) != 1 || got[0] != code {
		t.Errorf("HTTP span: error codes %v, want [%s]", got, code)
	}
	if line := logs.requestLine(t, id); line["trace_id"] != traceID {
		t.Errorf("log line trace_id %v, want the caller's %s", line["trace_id"], traceID)
	}
}

// TestTracingOff: without a TracerProvider nothing is traced, not even
// through a global provider, and the logs have no trace ids.
func TestTracingOff(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	global := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	previous := otel.GetTracerProvider()
	otel.SetTracerProvider(global)
	t.Cleanup(func() { otel.SetTracerProvider(previous); _ = global.Shutdown(context.Background()) })

	logs := &logBuffer{}
	env := apitest.NewWith(t, func(o *server.Options) {
		o.Logger = slog.New(server.NewLogHandler(slog.NewJSONHandler(logs, nil)))
	})
	const id = "trace-test-off"
	env.Admin().Do(t, `query Clients { clients { totalCount } }`, nil,
		"X-Request-Id", id, "traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").OK(t, nil)
	line := logs.requestLine(t, id)
	if _, ok := line["trace_id"]; ok {
		t.Errorf("trace_id logged with tracing off: %v", line)
	}
	if _, ok := line["span_id"]; ok {
		t.Errorf("span_id logged with tracing off: %v", line)
	}
	if spans := exp.GetSpans(); len(spans) != 0 {
		t.Errorf("tracing off made %d spans: %v", len(spans), names(spans))
	}
}

func names(spans tracetest.SpanStubs) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.Name
	}
	return out
}
