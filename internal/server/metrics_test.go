package server_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/server"
)

// sample is one line of the Prometheus text format.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

var (
	sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$`)
	labelPair  = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)
)

// scrape GETs url without an API key and parses the Prometheus text format.
func scrape(t *testing.T, url string) []sample {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d\n%s", url, resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("GET %s: Content-Type %q, want the Prometheus text format", url, ct)
	}
	var out []sample
	for _, line := range strings.Split(string(body), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := sampleLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("not a sample line: %q", line)
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			t.Fatalf("sample value of %q: %v", line, err)
		}
		labels := map[string]string{}
		for _, p := range labelPair.FindAllStringSubmatch(m[2], -1) {
			labels[p[1]] = strings.NewReplacer(`\\`, `\`, `\"`, `"`, `\n`, "\n").Replace(p[2])
		}
		out = append(out, sample{name: m[1], labels: labels, value: v})
	}
	return out
}

// find returns the samples named name whose labels include want.
func find(samples []sample, name string, want map[string]string) []sample {
	var out []sample
	for _, s := range samples {
		if s.name != name {
			continue
		}
		match := true
		for k, v := range want {
			if s.labels[k] != v {
				match = false
				break
			}
		}
		if match {
			out = append(out, s)
		}
	}
	return out
}

// value is the value of the one sample named name with exactly labels, or
// -1 when there is none.
func value(t *testing.T, samples []sample, name string, labels map[string]string) float64 {
	t.Helper()
	for _, s := range find(samples, name, labels) {
		if len(s.labels) == len(labels) {
			return s.value
		}
	}
	return -1
}

func TestMetricsCountRequests(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin()

	admin.Do(t, `query Viewer { viewer { role } }`, nil).OK(t, nil)
	admin.Do(t, `query Viewer { viewer { role } }`, nil).OK(t, nil)
	admin.Do(t, `{ clients { totalCount } }`, nil).OK(t, nil)
	bad := apitest.Vars{"input": apitest.ClientInput("Bad AB", apitest.Vars{"countryCode": "XX"})}
	admin.Do(t, `mutation CreateClient($input: ClientInput!) { createClient(input: $input) { id } }`, bad).
		Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.countryCode")
	env.As("").Do(t, `query Viewer { viewer { role } }`, nil).Refused(t, http.StatusUnauthorized, "UNAUTHENTICATED", "")
	vars := apitest.Vars{"input": apitest.ClientInput("Once AB")}
	admin.Do(t, apitest.CreateClientMutation, vars, "Idempotency-Key", "metrics-1").OK(t, nil)
	admin.Do(t, apitest.CreateClientMutation, vars, "Idempotency-Key", "metrics-1").OK(t, nil)
	if resp, _ := get(t, env, "/no/such/path"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("/no/such/path: %d", resp.StatusCode)
	}

	scrape(t, env.URL+"/metrics") // counted by the next scrape
	m := scrape(t, env.URL+"/metrics")

	for _, c := range []struct {
		operation, code string
		want            float64
	}{
		{"Viewer", "OK", 2},
		{"query {clients}", "OK", 1},
		{"CreateClient", "BAD_USER_INPUT", 1},
		{"unknown", "UNAUTHENTICATED", 1},
		// The first request and its replay.
		{"mutation {createClient}", "OK", 2},
	} {
		labels := map[string]string{"operation": c.operation, "code": c.code}
		if got := value(t, m, "debtql_graphql_requests_total", labels); got != c.want {
			t.Errorf("debtql_graphql_requests_total%v = %v, want %v", labels, got, c.want)
		}
	}
	if n := len(find(m, "debtql_graphql_requests_total", nil)); n != 5 {
		t.Errorf("%d series of debtql_graphql_requests_total, want 5: %v", n, find(m, "debtql_graphql_requests_total", nil))
	}

	for op, want := range map[string]float64{"Viewer": 2, "CreateClient": 1, "unknown": 1, "mutation {createClient}": 2} {
		labels := map[string]string{"operation": op}
		if got := value(t, m, "debtql_graphql_request_duration_seconds_count", labels); got != want {
			t.Errorf("debtql_graphql_request_duration_seconds_count%v = %v, want %v", labels, got, want)
		}
		if got := value(t, m, "debtql_graphql_request_duration_seconds_sum", labels); got <= 0 {
			t.Errorf("debtql_graphql_request_duration_seconds_sum%v = %v, want > 0", labels, got)
		}
		inf := map[string]string{"operation": op, "le": "+Inf"}
		if got := value(t, m, "debtql_graphql_request_duration_seconds_bucket", inf); got != want {
			t.Errorf("debtql_graphql_request_duration_seconds_bucket%v = %v, want %v", inf, got, want)
		}
	}

	for _, c := range []struct {
		path, status string
		want         float64
	}{
		{"/graphql", "200", 5},
		{"/graphql", "400", 1},
		{"/graphql", "401", 1},
		{"other", "404", 1},
		{"/metrics", "200", 1},
	} {
		labels := map[string]string{"path": c.path, "status": c.status}
		if got := value(t, m, "debtql_http_requests_total", labels); got != c.want {
			t.Errorf("debtql_http_requests_total%v = %v, want %v", labels, got, c.want)
		}
	}

	if got := value(t, m, "debtql_idempotent_replays_total", map[string]string{}); got != 1 {
		t.Errorf("debtql_idempotent_replays_total = %v, want 1", got)
	}

	pool := map[string]string{"db_name": "debtql"}
	for _, name := range []string{
		"go_sql_max_open_connections", "go_sql_open_connections", "go_sql_in_use_connections",
		"go_sql_idle_connections", "go_sql_wait_count_total", "go_sql_wait_duration_seconds_total",
	} {
		if got := value(t, m, name, pool); got < 0 {
			t.Errorf("no %s%v", name, pool)
		}
	}
	if got := value(t, m, "go_sql_open_connections", pool); got < 1 {
		t.Errorf("go_sql_open_connections = %v, want at least the connection of the requests", got)
	}
	if got := value(t, m, "go_goroutines", map[string]string{}); got < 1 {
		t.Errorf("go_goroutines = %v", got)
	}
	if runtime.GOOS == "linux" {
		if got := value(t, m, "process_start_time_seconds", map[string]string{}); got <= 0 {
			t.Errorf("process_start_time_seconds = %v", got)
		}
	}
}

func TestMetricsCountRefusalsBeforeExecution(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin()
	// Replayed refusals count with the stored response's code.
	bad := apitest.Vars{"input": apitest.ClientInput("Bad AB", apitest.Vars{"countryCode": "XX"})}
	for range 2 {
		admin.Do(t, `mutation Create($input: ClientInput!) { createClient(input: $input) { id } }`, bad, "Idempotency-Key", "bad-1").
			Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
	}
	admin.Do(t, `{ nope }`, nil).Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
	admin.Send(t, apitest.Request{Method: http.MethodGet, RawPath: "/graphql?query=" +
		strings.ReplaceAll(`mutation M { revokeApiKey(id: "x") { id } }`, " ", "%20")}).
		Refused(t, http.StatusMethodNotAllowed, "BAD_USER_INPUT", "")

	m := scrape(t, env.URL+"/metrics")
	for _, c := range []struct {
		operation, code string
		want            float64
	}{
		{"Create", "BAD_USER_INPUT", 2},
		{"unknown", "BAD_USER_INPUT", 1},
		{"M", "BAD_USER_INPUT", 1},
	} {
		labels := map[string]string{"operation": c.operation, "code": c.code}
		if got := value(t, m, "debtql_graphql_requests_total", labels); got != c.want {
			t.Errorf("debtql_graphql_requests_total%v = %v, want %v", labels, got, c.want)
		}
	}
	if got := value(t, m, "debtql_idempotent_replays_total", map[string]string{}); got != 1 {
		t.Errorf("debtql_idempotent_replays_total = %v, want 1", got)
	}
}

func TestMetricsNeedNoAPIKeyAndCanMoveToTheirOwnListener(t *testing.T) {
	t.Run("on the main handler by default", func(t *testing.T) {
		env := apitest.New(t)
		m := scrape(t, env.URL+"/metrics")
		if len(find(m, "go_goroutines", nil)) != 1 {
			t.Error("no go_goroutines")
		}
	})
	t.Run("separate", func(t *testing.T) {
		env := apitest.NewWith(t, func(o *server.Options) { o.SeparateMetrics = true })
		if resp, _ := get(t, env, "/metrics"); resp.StatusCode != http.StatusNotFound {
			t.Errorf("main handler /metrics: %d, want 404", resp.StatusCode)
		}
		env.Admin().Do(t, `query Viewer { viewer { role } }`, nil).OK(t, nil)

		metricsSrv := httptest.NewServer(env.Server.MetricsHandler())
		defer metricsSrv.Close()
		m := scrape(t, metricsSrv.URL+"/metrics")
		if got := value(t, m, "debtql_graphql_requests_total", map[string]string{"operation": "Viewer", "code": "OK"}); got != 1 {
			t.Errorf("the metrics listener does not count the main handler's requests: %v", got)
		}
		// The main handler's refused /metrics counts as a 404.
		if got := value(t, m, "debtql_http_requests_total", map[string]string{"path": "/metrics", "status": "404"}); got != 1 {
			t.Errorf(`debtql_http_requests_total{path="/metrics",status="404"} = %v, want 1`, got)
		}
		for _, path := range []string{"/", "/graphql", "/healthz"} {
			resp, err := http.Get(metricsSrv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("metrics listener %s: %d, want 404", path, resp.StatusCode)
			}
		}
	})
}

func TestMetricsOperationLabelsAreBounded(t *testing.T) {
	env := apitest.New(t)
	const names = 1000
	for i := range names {
		env.Admin().Do(t, fmt.Sprintf(`query Op%04d { viewer { role } }`, i), nil).OK(t, nil)
	}
	// A name longer than the label's cap, and an unnamed operation whose
	// root fields make a label as long: "query {viewer,viewer,...}".
	env.Admin().Do(t, `query `+strings.Repeat("N", 200)+` { viewer { role } }`, nil).OK(t, nil)
	var aliases strings.Builder
	for i := range 12 {
		fmt.Fprintf(&aliases, "v%d: viewer { role } ", i)
	}
	env.Admin().Do(t, `{ `+aliases.String()+`}`, nil).OK(t, nil)

	m := scrape(t, env.URL+"/metrics")
	operations := map[string]float64{}
	for _, s := range find(m, "debtql_graphql_requests_total", nil) {
		operations[s.labels["operation"]] += s.value
	}
	// 100 names of their own and "other".
	if len(operations) != 101 {
		t.Errorf("%d operation labels, want 101", len(operations))
	}
	if got, want := operations["other"], float64(names-100+2); got != want {
		t.Errorf(`operation "other" counts %v requests, want %v`, got, want)
	}
	var total float64
	for op, n := range operations {
		total += n
		if len(op) > 64 {
			t.Errorf("operation label of %d characters: %q", len(op), op)
		}
	}
	if total != names+2 {
		t.Errorf("%v requests counted, want %d", total, names+2)
	}
	histograms := map[string]bool{}
	for _, s := range find(m, "debtql_graphql_request_duration_seconds_count", nil) {
		histograms[s.labels["operation"]] = true
	}
	if len(histograms) != 101 {
		t.Errorf("%d operation histograms, want 101", len(histograms))
	}
}
