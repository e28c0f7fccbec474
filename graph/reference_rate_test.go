package graph_test

import (
	"net/http"
	"reflect"
	"regexp"
	"testing"

	"github.com/debtql/debtql/internal/apitest"
)

type referenceRateOut struct {
	ValidFrom string
	Rate      string
}

const (
	referenceRatesQuery = `{ referenceRates { validFrom rate } }`
	setReferenceRate    = `mutation($input: ReferenceRateInput!) { setReferenceRate(input: $input) { validFrom rate } }`
)

// twoFractionDigits is how every reference rate is written.
var twoFractionDigits = regexp.MustCompile(`^-?\d+\.\d\d$`)

func referenceRates(t *testing.T, c *apitest.Caller) []referenceRateOut {
	t.Helper()
	var out []referenceRateOut
	c.Do(t, referenceRatesQuery, nil).Field(t, "referenceRates", &out)
	return out
}

func rateOn(rates []referenceRateOut, validFrom string) (string, bool) {
	for _, r := range rates {
		if r.ValidFrom == validFrom {
			return r.Rate, true
		}
	}
	return "", false
}

// TestReferenceRatesShipped: the table the server ships is readable by any
// key, oldest first, every rate with two fraction digits.
func TestReferenceRatesShipped(t *testing.T) {
	env := apitest.New(t)
	_, client := env.ClientCaller(t, "Räntor AB")
	admin := referenceRates(t, env.Admin())
	if got := referenceRates(t, client); !reflect.DeepEqual(got, admin) {
		t.Errorf("a CLIENT key reads\n%v\nan ADMIN key\n%v", got, admin)
	}
	if len(admin) != 49 {
		t.Fatalf("%d rates shipped, want the 49 of docs/reference-rates.md", len(admin))
	}
	if first, last := admin[0].ValidFrom, admin[len(admin)-1].ValidFrom; first != "2000-01-01" || last != "2026-01-01" {
		t.Errorf("the table runs from %s to %s, want 2000-01-01 to 2026-01-01", first, last)
	}
	for i, r := range admin {
		if !twoFractionDigits.MatchString(r.Rate) {
			t.Errorf("%s: rate %q, want two fraction digits", r.ValidFrom, r.Rate)
		}
		if i > 0 && admin[i-1].ValidFrom >= r.ValidFrom {
			t.Errorf("%s follows %s: want oldest first", r.ValidFrom, admin[i-1].ValidFrom)
		}
	}
	for date, want := range map[string]string{
		"2000-01-01": "1.50", // the discount rate in force that day
		"2002-07-01": "4.50", // the first reference rate
		"2012-07-01": "1.50", // the Riksbank's corrected decision
		"2016-07-01": "-0.50",
		"2019-07-01": "0.00",
		"2026-01-01": "2.00", // the latest shipped
	} {
		if got, ok := rateOn(admin, date); !ok || got != want {
			t.Errorf("%s: rate %q (listed %v), want %s", date, got, ok, want)
		}
	}
	for _, missing := range []string{"2000-07-01", "2001-01-01", "2002-01-01", "2026-07-01"} {
		if got, ok := rateOn(admin, missing); ok {
			t.Errorf("%s has rate %s, but no value was found for it", missing, got)
		}
	}
}

// TestSetReferenceRate: an ADMIN key adds a date and replaces one; the list
// shows both, for every key; each call appends one event.
func TestSetReferenceRate(t *testing.T) {
	env := apitest.New(t)
	_, client := env.ClientCaller(t, "Räntor AB")
	admin := env.Admin()
	adminKeyID := viewerKeyID(t, admin)
	before := referenceRates(t, admin)

	// A new date (a JSON number), last in the list.
	n := auditCount(t, env)
	var added referenceRateOut
	admin.Do(t, setReferenceRate, apitest.Vars{"input": apitest.Vars{"validFrom": "2026-07-01", "rate": 1.75}}, "X-Request-Id", "rate-1").
		Field(t, "setReferenceRate", &added)
	if added != (referenceRateOut{"2026-07-01", "1.75"}) {
		t.Errorf("setReferenceRate answered %+v", added)
	}
	checkEvent(t, "setReferenceRate", auditLast(t, env, n), "setReferenceRate", "ADMIN", adminKeyID, nil, "rate-1", []auditRecordOut{}...)
	n++
	after := referenceRates(t, client)
	if len(after) != len(before)+1 || after[len(after)-1] != added || !reflect.DeepEqual(after[:len(before)], before) {
		t.Errorf("after adding 2026-07-01 a CLIENT key reads %v", after)
	}

	// An existing date is replaced, in place; a whole number gets its two
	// fraction digits, a negative rate down to −10 is a rate, and a third
	// fraction digit that is zero is no third digit (a rate is read with up
	// to 4).
	for _, tc := range []struct {
		in   any
		want string
	}{{"2.75", "2.75"}, {3, "3.00"}, {"-10", "-10.00"}, {"50", "50.00"}, {"-0.5", "-0.50"}, {"2.250", "2.25"}} {
		var got referenceRateOut
		admin.Do(t, setReferenceRate, apitest.Vars{"input": apitest.Vars{"validFrom": "2025-01-01", "rate": tc.in}}).
			Field(t, "setReferenceRate", &got)
		if got != (referenceRateOut{"2025-01-01", tc.want}) {
			t.Errorf("rate %v: answered %+v, want %s", tc.in, got, tc.want)
		}
		list := referenceRates(t, admin)
		if r, _ := rateOn(list, "2025-01-01"); r != tc.want || len(list) != len(after) {
			t.Errorf("rate %v: the list has %d entries and 2025-01-01 at %q, want %d and %s", tc.in, len(list), r, len(after), tc.want)
		}
		if e := auditLast(t, env, n); e.Operation != "setReferenceRate" || e.ClientID != nil || len(e.Records) != 0 {
			t.Errorf("rate %v: event %+v", tc.in, e)
		}
		n++
	}

	// A retry with its Idempotency-Key is answered again without a second
	// event.
	vars := apitest.Vars{"input": apitest.Vars{"validFrom": "2027-01-01", "rate": "1.25"}}
	first := admin.Do(t, setReferenceRate, vars, "Idempotency-Key", "rate-2027")
	first.OK(t, nil)
	replay := admin.Do(t, setReferenceRate, vars, "Idempotency-Key", "rate-2027")
	if replay.Status != first.Status || string(replay.Body) != string(first.Body) {
		t.Errorf("replay answered %s, want %s", replay, first)
	}
	if got := auditCount(t, env); got != n+1 {
		t.Errorf("audit events: %d, want %d (one for the keyed call and none for its replay)", got, n+1)
	}

	// The events name no client, so a CLIENT key's trail does not show them.
	var trail struct{ Nodes []struct{ Operation string } }
	client.Do(t, `{ auditEvents(rowsPerPage: 100) { nodes { operation } } }`, nil).Field(t, "auditEvents", &trail)
	for _, e := range trail.Nodes {
		if e.Operation == "setReferenceRate" {
			t.Error("a CLIENT key's audit trail shows setReferenceRate")
		}
	}
}

// TestSetReferenceRateRefusals: a broken input is BAD_USER_INPUT on its
// field, a CLIENT key is FORBIDDEN, and a refused call writes nothing:
// neither a rate nor an event.
func TestSetReferenceRateRefusals(t *testing.T) {
	env := apitest.New(t)
	_, client := env.ClientCaller(t, "Räntor AB")
	admin := env.Admin()
	rates := referenceRates(t, admin)
	events := auditCount(t, env)

	for _, tc := range []struct {
		name      string
		caller    *apitest.Caller
		validFrom string
		rate      any
		status    int
		code      string
		fields    []string
	}{
		{"15 March", admin, "2026-03-15", "2.00", 400, "BAD_USER_INPUT", []string{"input.validFrom"}},
		{"2 January", admin, "2025-01-02", "2.00", 400, "BAD_USER_INPUT", []string{"input.validFrom"}},
		{"1 December", admin, "2025-12-01", "2.00", 400, "BAD_USER_INPUT", []string{"input.validFrom"}},
		{"rate 50.01", admin, "2025-01-01", "50.01", 400, "BAD_USER_INPUT", []string{"input.rate"}},
		{"rate -10.01", admin, "2025-01-01", "-10.01", 400, "BAD_USER_INPUT", []string{"input.rate"}},
		{"rate 1e3", admin, "2025-01-01", 1e3, 400, "BAD_USER_INPUT", []string{"input.rate"}},
		{"3 fraction digits", admin, "2025-01-01", "2.125", 400, "BAD_USER_INPUT", []string{"input.rate"}},
		{"5 fraction digits", admin, "2025-01-01", "2.12345", 400, "BAD_USER_INPUT", []string{"input.rate"}},
		{"both", admin, "2026-04-01", "2.001", 400, "BAD_USER_INPUT", []string{"input.rate", "input.validFrom"}},
		{"CLIENT key", client, "2026-07-01", "2.00", http.StatusForbidden, "FORBIDDEN", []string{""}},
		{"CLIENT key, shipped date", client, "2025-01-01", "9.00", http.StatusForbidden, "FORBIDDEN", []string{""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.caller.Do(t, setReferenceRate, apitest.Vars{"input": apitest.Vars{"validFrom": tc.validFrom, "rate": tc.rate}})
			for _, f := range tc.fields {
				r.Refused(t, tc.status, tc.code, f)
			}
		})
	}
	if got := referenceRates(t, admin); !reflect.DeepEqual(got, rates) {
		t.Errorf("refused calls changed the rates:\n%v\nwas\n%v", got, rates)
	}
	if got := auditCount(t, env); got != events {
		t.Errorf("refused calls appended %d audit events", got-events)
	}
}
