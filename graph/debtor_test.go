package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/apitest"
)

// API tests of debtors (api.md §2, §5–§9): createDebtor, updateDebtor,
// debtor, debtors and Client.debtors over HTTP.

// debtorFields selects every field of a Debtor that needs no debts.
const debtorFields = `id client { id } isCorporation identificationNumber name
  address { address1 address2 careOf zipCode city countryCode }
  contactInformation { email phone }
  paymentStatus errandStatus errandProcessStatus isCompleted createdAt updatedAt`

const (
	debtorCreateMutation = `mutation($clientId: UUID!, $input: DebtorInput!) {
  createDebtor(clientId: $clientId, input: $input) { ` + debtorFields + ` } }`
	debtorUpdateMutation = `mutation($clientId: UUID!, $id: UUID!, $input: DebtorInput!) {
  updateDebtor(clientId: $clientId, id: $id, input: $input) { ` + debtorFields + ` } }`
	debtorLookupQuery = `query($clientId: UUID!, $id: UUID!) {
  debtor(clientId: $clientId, id: $id) { ` + debtorFields + ` } }`
	debtorListQuery = `query($clientId: UUID!, $filter: DebtorFilter, $orderBy: DebtorOrder, $page: Int, $rowsPerPage: Int,
  $first: Int, $after: String, $last: Int, $before: String) {
  debtors(clientId: $clientId, filter: $filter, orderBy: $orderBy, page: $page, rowsPerPage: $rowsPerPage,
    first: $first, after: $after, last: $last, before: $before) {
    totalCount nodes { id name createdAt } edges { cursor node { id } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}`
)

// debtorTotalQuery reads a debtor list's totalCount alone.
const debtorTotalQuery = `query($clientId: UUID!, $filter: DebtorFilter) {
  debtors(clientId: $clientId, filter: $filter) { totalCount }
}`

// debtorUnknownID is a well-formed UUID that no record has.
const debtorUnknownID = "6f1c0a47-1f7e-4bd4-9a53-0000000000d1"

type debtorAddressOut struct {
	Address1    string
	Address2    *string
	CareOf      *string
	ZipCode     string
	City        string
	CountryCode string
}

type debtorContactOut struct {
	Email *string
	Phone *string
}

type debtorOut struct {
	ID                   string
	Client               struct{ ID string }
	IsCorporation        bool
	IdentificationNumber string
	Name                 string
	Address              debtorAddressOut
	ContactInformation   *debtorContactOut
	PaymentStatus        *string
	ErrandStatus         *string
	ErrandProcessStatus  *string
	IsCompleted          bool
	CreatedAt            string
	UpdatedAt            string
}

type debtorPage struct {
	TotalCount int
	Nodes      []struct {
		ID        string
		Name      string
		CreatedAt string
	}
	Edges []struct {
		Cursor string
		Node   struct{ ID string }
	}
	PageInfo struct {
		HasNextPage     bool
		HasPreviousPage bool
		StartCursor     *string
		EndCursor       *string
	}
}

func (p debtorPage) ids() []string {
	ids := make([]string, len(p.Nodes))
	for i, n := range p.Nodes {
		ids[i] = n.ID
	}
	return ids
}

func debtorStr(s string) *string { return &s }

// debtorInput is a valid private Swedish debtor with every optional field,
// the fields of over replacing the defaults.
func debtorInput(name, number string, over ...apitest.Vars) apitest.Vars {
	in := apitest.Vars{
		"isCorporation":        false,
		"identificationNumber": number,
		"name":                 name,
		"address": apitest.Vars{
			"address1":    "Storgatan 1",
			"address2":    "Lgh 1102",
			"careOf":      "Eva Ek",
			"zipCode":     "111 22",
			"city":        "Stockholm",
			"countryCode": "SE",
		},
		"contactInformation": apitest.Vars{"email": "galdenar@example.se", "phone": "+46 70 123 45 67"},
	}
	for _, o := range over {
		for k, v := range o {
			in[k] = v
		}
	}
	return in
}

// debtorForeign is a valid debtor with a Norwegian address, whose
// identification number is not checked as a Swedish one.
func debtorForeign(name, number string) apitest.Vars {
	return apitest.Vars{
		"isCorporation":        false,
		"identificationNumber": number,
		"name":                 name,
		"address":              apitest.Vars{"address1": "Karl Johans gate 1", "zipCode": "0154", "city": "Oslo", "countryCode": "NO"},
	}
}

// debtorOmit deletes a field in debtorSet.
type debtorOmitted struct{}

var debtorOmit = debtorOmitted{}

// debtorSet sets (or, with debtorOmit, deletes) the field at a dotted path
// such as "address.zipCode" in a copy of in.
func debtorSet(in apitest.Vars, path string, v any) apitest.Vars {
	out := debtorCopy(in)
	m := out
	parts := strings.Split(path, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(apitest.Vars)
		if !ok {
			next = apitest.Vars{}
			m[p] = next
		}
		m = next
	}
	last := parts[len(parts)-1]
	if _, ok := v.(debtorOmitted); ok {
		delete(m, last)
	} else {
		m[last] = v
	}
	return out
}

func debtorCopy(in apitest.Vars) apitest.Vars {
	out := apitest.Vars{}
	for k, v := range in {
		if m, ok := v.(apitest.Vars); ok {
			v = debtorCopy(m)
		}
		out[k] = v
	}
	return out
}

func debtorCreate(t testing.TB, c *apitest.Caller, clientID string, in apitest.Vars) *apitest.Response {
	t.Helper()
	return c.Do(t, debtorCreateMutation, apitest.Vars{"clientId": clientID, "input": in})
}

func debtorNew(t testing.TB, c *apitest.Caller, clientID string, in apitest.Vars) debtorOut {
	t.Helper()
	var d debtorOut
	debtorCreate(t, c, clientID, in).Field(t, "createDebtor", &d)
	return d
}

func debtorUpdate(t testing.TB, c *apitest.Caller, clientID, id string, in apitest.Vars) *apitest.Response {
	t.Helper()
	return c.Do(t, debtorUpdateMutation, apitest.Vars{"clientId": clientID, "id": id, "input": in})
}

// debtorGet reads one debtor; nil when the lookup answers null.
func debtorGet(t testing.TB, c *apitest.Caller, clientID, id string) *debtorOut {
	t.Helper()
	var d *debtorOut
	c.Do(t, debtorLookupQuery, apitest.Vars{"clientId": clientID, "id": id}).Field(t, "debtor", &d)
	return d
}

func debtorList(t testing.TB, c *apitest.Caller, clientID string, vars apitest.Vars) debtorPage {
	t.Helper()
	v := apitest.Vars{"clientId": clientID}
	for k, x := range vars {
		v[k] = x
	}
	var p debtorPage
	c.Do(t, debtorListQuery, v).Field(t, "debtors", &p)
	return p
}

// debtorPersonnummer returns the i-th of a series of valid, distinct
// personnummer "YYMMDD-NNNC": the Luhn check digit C is computed over
// YYMMDDNNN.
func debtorPersonnummer(i int) string {
	birth := time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i/500)
	nine := fmt.Sprintf("%02d%02d%02d%03d", birth.Year()%100, int(birth.Month()), birth.Day(), i%500+1)
	return nine[:6] + "-" + nine[6:] + debtorLuhn(nine)
}

// debtorLuhn is the check digit that makes digits+check Luhn-valid.
func debtorLuhn(digits string) string {
	sum := 0
	for i := range len(digits) {
		d := int(digits[len(digits)-1-i] - '0')
		if i%2 == 0 { // doubled: the check digit will take the rightmost place
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return fmt.Sprint((10 - sum%10) % 10)
}

func debtorTime(t testing.TB, s string) time.Time {
	t.Helper()
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("timestamp %q: %v", s, err)
	}
	return ts
}

// debtorRow is what the orders of debtors sort by.
type debtorRow struct {
	id, name string
	created  time.Time
}

// debtorSorted returns the ids of rows in an order: "default" (newest
// first), "NAME ASC", "NAME DESC", "CREATED_AT ASC"; ties break by id in
// the same direction (UUIDs compare as their canonical text).
func debtorSorted(rows []debtorRow, order string) []string {
	rs := append([]debtorRow(nil), rows...)
	less := func(a, b debtorRow) bool {
		switch order {
		case "NAME ASC", "NAME DESC":
			if a.name != b.name {
				return a.name < b.name
			}
		default:
			if !a.created.Equal(b.created) {
				return a.created.Before(b.created)
			}
		}
		return a.id < b.id
	}
	desc := order == "default" || order == "NAME DESC"
	sort.Slice(rs, func(i, j int) bool {
		if desc {
			return less(rs[j], rs[i])
		}
		return less(rs[i], rs[j])
	})
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.id
	}
	return ids
}

// debtorOrders are the orders the list tests walk, with their argument.
var debtorOrders = []struct {
	name    string
	orderBy any
}{
	{"default", nil},
	{"NAME ASC", apitest.Vars{"field": "NAME"}},
	{"NAME DESC", apitest.Vars{"field": "NAME", "direction": "DESC"}},
	{"CREATED_AT ASC", apitest.Vars{"field": "CREATED_AT", "direction": "ASC"}},
}

// debtorWalk reads a whole list page by page ("page", size rows per page),
// forwards by cursor ("first") or backwards by cursor ("last"), checks each
// page's totalCount, edges and pageInfo, and returns the ids in list order.
func debtorWalk(t *testing.T, c *apitest.Caller, clientID string, base apitest.Vars, mode string, size, total int) []string {
	t.Helper()
	var out []string
	vars := func(extra apitest.Vars) apitest.Vars {
		v := apitest.Vars{}
		for k, x := range base {
			v[k] = x
		}
		for k, x := range extra {
			v[k] = x
		}
		return v
	}
	check := func(p debtorPage, what string) {
		t.Helper()
		if p.TotalCount != total {
			t.Fatalf("%s: totalCount %d, want %d", what, p.TotalCount, total)
		}
		if len(p.Edges) != len(p.Nodes) {
			t.Fatalf("%s: %d edges for %d nodes", what, len(p.Edges), len(p.Nodes))
		}
		for i := range p.Nodes {
			if p.Edges[i].Node.ID != p.Nodes[i].ID || p.Edges[i].Cursor == "" {
				t.Fatalf("%s: edge %d is %+v, node %s", what, i, p.Edges[i], p.Nodes[i].ID)
			}
		}
		if len(p.Nodes) > 0 && (p.PageInfo.StartCursor == nil || *p.PageInfo.StartCursor != p.Edges[0].Cursor ||
			p.PageInfo.EndCursor == nil || *p.PageInfo.EndCursor != p.Edges[len(p.Edges)-1].Cursor) {
			t.Fatalf("%s: pageInfo cursors %+v do not match the edges", what, p.PageInfo)
		}
	}
	pages := (total + size - 1) / size
	switch mode {
	case "page":
		for page := 1; page <= pages; page++ {
			p := debtorList(t, c, clientID, vars(apitest.Vars{"page": page, "rowsPerPage": size}))
			what := fmt.Sprintf("page %d of %d rows", page, size)
			check(p, what)
			wantLen := min(size, total-(page-1)*size)
			if len(p.Nodes) != wantLen {
				t.Fatalf("%s has %d rows, want %d", what, len(p.Nodes), wantLen)
			}
			if p.PageInfo.HasPreviousPage != (page > 1) || p.PageInfo.HasNextPage != (page < pages) {
				t.Fatalf("%s: pageInfo %+v", what, p.PageInfo)
			}
			out = append(out, p.ids()...)
		}
		p := debtorList(t, c, clientID, vars(apitest.Vars{"page": pages + 1, "rowsPerPage": size}))
		if len(p.Nodes) != 0 || p.TotalCount != total || p.PageInfo.HasNextPage {
			t.Fatalf("the page past the end: %+v", p)
		}
	case "first":
		extra := apitest.Vars{"first": size}
		for n := 1; ; n++ {
			if n > pages+1 {
				t.Fatalf("forward paging does not end after %d pages", n)
			}
			p := debtorList(t, c, clientID, vars(extra))
			what := fmt.Sprintf("forward page %d of %d rows", n, size)
			check(p, what)
			if n > 1 && !p.PageInfo.HasPreviousPage {
				t.Fatalf("%s: hasPreviousPage false after a cursor", what)
			}
			out = append(out, p.ids()...)
			if !p.PageInfo.HasNextPage {
				break
			}
			if len(p.Nodes) != size {
				t.Fatalf("%s has %d rows yet hasNextPage", what, len(p.Nodes))
			}
			extra = apitest.Vars{"first": size, "after": *p.PageInfo.EndCursor}
		}
	case "last":
		extra := apitest.Vars{"last": size}
		for n := 1; ; n++ {
			if n > pages+1 {
				t.Fatalf("backward paging does not end after %d pages", n)
			}
			p := debtorList(t, c, clientID, vars(extra))
			what := fmt.Sprintf("backward page %d of %d rows", n, size)
			check(p, what)
			if n > 1 && !p.PageInfo.HasNextPage {
				t.Fatalf("%s: hasNextPage false before a cursor", what)
			}
			out = append(p.ids(), out...)
			if !p.PageInfo.HasPreviousPage {
				break
			}
			if len(p.Nodes) != size {
				t.Fatalf("%s has %d rows yet hasPreviousPage", what, len(p.Nodes))
			}
			extra = apitest.Vars{"last": size, "before": *p.PageInfo.StartCursor}
		}
	default:
		t.Fatalf("unknown mode %s", mode)
	}
	return out
}

// debtorSameIDs reports the first difference between two id sequences.
func debtorSameIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rows, want %d", what, len(got), len(want))
	}
	seen := map[string]int{}
	for _, id := range got {
		seen[id]++
		if seen[id] == 2 {
			t.Errorf("%s: %s listed twice", what, id)
		}
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("%s: row %d is %s, want %s", what, i, got[i], want[i])
			return
		}
	}
}

// 1. createDebtor returns the record; debtor() and Client.debtors read it.

func TestCreateDebtorReturnsTheRecord(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Fordringsägaren AB")
	in := apitest.Vars{
		"isCorporation":        false,
		"identificationNumber": "  811228-9874 ",
		"name":                 "  Örjan Ågren ",
		"address": apitest.Vars{
			"address1": " Storgatan 1 ", "address2": " Lgh 1102 ", "careOf": " Eva Ek ",
			"zipCode": " 111 22 ", "city": " Stockholm ", "countryCode": " se ",
		},
		"contactInformation": apitest.Vars{"email": " orjan@example.se ", "phone": " +46 70 123 45 67 "},
	}
	got := debtorNew(t, env.Admin(), strings.ToUpper(clientID), in)

	if !uuidRE.MatchString(got.ID) {
		t.Errorf("id %q is not a canonical UUID", got.ID)
	}
	for _, ts := range []string{got.CreatedAt, got.UpdatedAt} {
		if !dateTimeRE.MatchString(ts) {
			t.Errorf("timestamp %q is not RFC 3339 UTC", ts)
		}
	}
	if d := time.Since(debtorTime(t, got.CreatedAt)); d < -time.Minute || d > time.Minute {
		t.Errorf("createdAt %s is not now", got.CreatedAt)
	}
	want := debtorOut{
		ID:                   got.ID,
		IsCorporation:        false,
		IdentificationNumber: "811228-9874",
		Name:                 "Örjan Ågren",
		Address: debtorAddressOut{
			Address1: "Storgatan 1", Address2: debtorStr("Lgh 1102"), CareOf: debtorStr("Eva Ek"),
			ZipCode: "111 22", City: "Stockholm", CountryCode: "SE",
		},
		ContactInformation: &debtorContactOut{Email: debtorStr("orjan@example.se"), Phone: debtorStr("+46 70 123 45 67")},
		IsCompleted:        false,
		CreatedAt:          got.CreatedAt,
		UpdatedAt:          got.UpdatedAt,
	}
	want.Client.ID = clientID
	if !reflect.DeepEqual(got, want) {
		t.Errorf("createDebtor returned\n%s\nwant\n%s", debtorJSON(got), debtorJSON(want))
	}

	t.Run("debtor() reads it back identically", func(t *testing.T) {
		read := debtorGet(t, env.Admin(), clientID, strings.ToUpper(got.ID))
		if read == nil || !reflect.DeepEqual(*read, got) {
			t.Errorf("debtor(clientId, id) returned\n%s\nwant\n%s", debtorJSON(read), debtorJSON(got))
		}
	})
	t.Run("Client.debtors lists it", func(t *testing.T) {
		var out struct {
			Client struct {
				Debtors struct {
					TotalCount int
					Nodes      []debtorOut
				}
			}
		}
		env.Admin().Do(t, `query($id: UUID!) { client(id: $id) { debtors { totalCount nodes { `+debtorFields+` } } } }`,
			apitest.Vars{"id": clientID}).OK(t, &out)
		ds := out.Client.Debtors
		if ds.TotalCount != 1 || len(ds.Nodes) != 1 || !reflect.DeepEqual(ds.Nodes[0], got) {
			t.Errorf("Client.debtors returned %d/%s, want the created debtor", ds.TotalCount, debtorJSON(ds.Nodes))
		}
		if p := debtorList(t, env.Admin(), clientID, nil); p.TotalCount != 1 || len(p.Nodes) != 1 || p.Nodes[0].ID != got.ID {
			t.Errorf("debtors(clientId) returned %+v", p)
		}
	})
	t.Run("optional fields left out are null", func(t *testing.T) {
		d := debtorNew(t, env.Admin(), clientID, debtorForeign("Ola Nordmann", "010190 12345"))
		if d.Address.Address2 != nil || d.Address.CareOf != nil || d.ContactInformation != nil {
			t.Errorf("left-out optional fields are not null: %s", debtorJSON(d))
		}
		// Blank optional fields are stored as absent; contact information
		// with nothing in it is null.
		in := debtorSet(debtorSet(debtorInput("Blank Optional", "701063-2391"), "address.address2", "  "), "address.careOf", "")
		in["contactInformation"] = apitest.Vars{"email": " ", "phone": ""}
		d = debtorNew(t, env.Admin(), clientID, in)
		if d.Address.Address2 != nil || d.Address.CareOf != nil || d.ContactInformation != nil {
			t.Errorf("blank optional fields are not null: %s", debtorJSON(d))
		}
		in = debtorInput("Phone Only", "19811228-9874")
		in["contactInformation"] = apitest.Vars{"phone": "08-123 45"}
		d = debtorNew(t, env.Admin(), clientID, in)
		if d.ContactInformation == nil || d.ContactInformation.Email != nil || d.ContactInformation.Phone == nil || *d.ContactInformation.Phone != "08-123 45" {
			t.Errorf("contact information with a phone only: %s", debtorJSON(d.ContactInformation))
		}
	})
}

func debtorJSON(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// 2. Input rules, with the field paths of api.md §9.

func TestDebtorInputRequiredFields(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Rules")
	valid := debtorInput("Anna Andersson", apitest.Personnr)
	required := []string{"identificationNumber", "name", "address.address1", "address.zipCode", "address.city", "address.countryCode"}
	for _, f := range required {
		t.Run(f+" blank", func(t *testing.T) {
			debtorCreate(t, env.Admin(), clientID, debtorSet(valid, f, " \t\n ")).
				Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input."+f)
		})
		t.Run(f+" empty", func(t *testing.T) {
			debtorCreate(t, env.Admin(), clientID, debtorSet(valid, f, "")).
				Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input."+f)
		})
	}
	for _, f := range append(required, "isCorporation", "address") {
		t.Run(f+" missing", func(t *testing.T) {
			r := debtorCreate(t, env.Admin(), clientID, debtorSet(valid, f, debtorOmit))
			r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
			name := f[strings.LastIndex(f, ".")+1:]
			if !strings.Contains(string(r.Body), name) {
				t.Errorf("the error does not name %s: %s", name, r.Body)
			}
		})
		t.Run(f+" null", func(t *testing.T) {
			debtorCreate(t, env.Admin(), clientID, debtorSet(valid, f, nil)).
				Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
		})
	}
	t.Run("input missing", func(t *testing.T) {
		env.Admin().Do(t, debtorCreateMutation, apitest.Vars{"clientId": clientID}).
			Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
	})
	t.Run("bad clientId", func(t *testing.T) {
		debtorCreate(t, env.Admin(), "not-a-uuid", valid).Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "clientId")
	})
	if p := debtorList(t, env.Admin(), clientID, nil); p.TotalCount != 0 {
		t.Errorf("refused creations wrote %d debtors", p.TotalCount)
	}
}

func TestDebtorInputLengths(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Lengths")
	long := strings.Repeat("x", 256)
	// A foreign address, so that a long identification number meets only
	// the length rule.
	base := debtorForeign("Lang Namn", "NO-1")
	base["address"].(apitest.Vars)["address2"] = "Postboks 1"
	base["contactInformation"] = apitest.Vars{"email": "a@example.no", "phone": "+47 1"}
	fields := []string{"identificationNumber", "name", "address.address1", "address.address2", "address.careOf",
		"address.zipCode", "address.city", "address.countryCode", "contactInformation.email", "contactInformation.phone"}
	for _, f := range fields {
		t.Run(f+" of 256 characters", func(t *testing.T) {
			debtorCreate(t, env.Admin(), clientID, debtorSet(base, f, long)).
				Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input."+f)
		})
	}
	n := 0
	for _, f := range []string{"identificationNumber", "name", "address.address1", "address.address2", "address.careOf",
		"address.zipCode", "address.city", "contactInformation.phone"} {
		t.Run(f+" of 255 characters", func(t *testing.T) {
			n++
			in := debtorSet(base, "identificationNumber", fmt.Sprintf("NO-255-%d", n))
			v := strings.Repeat("y", 255)
			if f == "identificationNumber" {
				v = fmt.Sprintf("%0255d", n)
			}
			d := debtorNew(t, env.Admin(), clientID, debtorSet(in, f, v))
			if f == "name" && d.Name != v {
				t.Errorf("name of 255 characters came back as %q", d.Name)
			}
		})
	}
	// The limit counts characters, not bytes (api.md §5: at most 255
	// characters).
	for _, f := range []string{"name", "address.city", "address.address1"} {
		t.Run(f+" of 255 non-ASCII characters", func(t *testing.T) {
			n++
			in := debtorSet(base, "identificationNumber", fmt.Sprintf("NO-255-%d", n))
			v := strings.Repeat("ö", 255)
			debtorCreate(t, env.Admin(), clientID, debtorSet(in, f, v)).OK(t, nil)
		})
		t.Run(f+" of 256 non-ASCII characters", func(t *testing.T) {
			debtorCreate(t, env.Admin(), clientID, debtorSet(base, f, strings.Repeat("å", 256))).
				Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input."+f)
		})
	}
	t.Run("256 characters of which some are surrounding space is trimmed first", func(t *testing.T) {
		n++
		in := debtorSet(base, "identificationNumber", fmt.Sprintf("NO-255-%d", n))
		d := debtorNew(t, env.Admin(), clientID, debtorSet(in, "name", " "+strings.Repeat("z", 255)+" "))
		if d.Name != strings.Repeat("z", 255) {
			t.Errorf("name came back as %q", d.Name)
		}
	})
}

func TestDebtorInputRules(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Rules")
	cases := []struct {
		name  string
		in    apitest.Vars
		field string // "" when valid
	}{
		// Country codes.
		{"unknown country", debtorSet(debtorForeign("C1", "X-1"), "address.countryCode", "XX"), "input.address.countryCode"},
		{"alpha-3 country", debtorSet(debtorForeign("C2", "X-2"), "address.countryCode", "NOR"), "input.address.countryCode"},
		{"UK is not ISO 3166-1", debtorSet(debtorForeign("C3", "X-3"), "address.countryCode", "UK"), "input.address.countryCode"},
		{"lower-case country", debtorSet(debtorForeign("C4", "X-4"), "address.countryCode", "dk"), ""},
		// E-mail.
		{"e-mail without @", debtorSet(debtorInput("E1", "811228-9874"), "contactInformation.email", "anna.example.se"), "input.contactInformation.email"},
		{"e-mail without a domain dot", debtorSet(debtorInput("E2", "811228-9874"), "contactInformation.email", "anna@example"), "input.contactInformation.email"},
		{"e-mail with a display name", debtorSet(debtorInput("E3", "811228-9874"), "contactInformation.email", "Anna <anna@example.se>"), "input.contactInformation.email"},
		// A Swedish private debtor.
		{"SE personnummer with a wrong check digit", debtorInput("P1", "811228-9875"), "input.identificationNumber"},
		{"SE personnummer, 12 digits, wrong check digit", debtorInput("P2", "19811228-9875"), "input.identificationNumber"},
		{"SE personnummer that is not a date", debtorInput("P3", "811328-9873"), "input.identificationNumber"},
		{"SE private debtor with an organisation number", debtorInput("P4", apitest.OrgNumber), "input.identificationNumber"},
		{"SE private debtor with letters", debtorInput("P5", "ABC123-4567"), "input.identificationNumber"},
		{"SE private debtor with 9 digits", debtorInput("P6", "81122-9874"), "input.identificationNumber"},
		{"se in lower case is still Swedish", debtorSet(debtorInput("P7", "811228-9875"), "address.countryCode", "se"), "input.identificationNumber"},
		{"SE samordningsnummer", debtorInput("P8", apitest.Samordning), ""},
		{"SE personnummer with +", debtorInput("P9", "121212+1212"), ""},
		{"SE personnummer with a space", debtorInput("P10", "850709 0036"), ""},
		{"SE personnummer of 12 digits", debtorInput("P11", "197901010012"), ""},
		{"SE personnummer with birth number 000", debtorInput("P12", "790101-0004"), "input.identificationNumber"},
		{"SE separator in the wrong place", debtorInput("P13", "8112-289874"), "input.identificationNumber"},
		// A Swedish corporation.
		{"SE corporation with an organisation number", debtorInput("K1", apitest.OrgNumber, apitest.Vars{"isCorporation": true}), ""},
		{"SE corporation, organisation number of 12 digits", debtorInput("K2", "16212000-0142", apitest.Vars{"isCorporation": true}), ""},
		{"SE sole trader with a personnummer", debtorInput("K3", "800101-0019", apitest.Vars{"isCorporation": true}), ""},
		{"SE corporation, organisation number with a wrong check digit", debtorInput("K4", "556036-0794", apitest.Vars{"isCorporation": true}), "input.identificationNumber"},
		{"SE sole trader, personnummer with a wrong check digit", debtorInput("K5", "800101-0018", apitest.Vars{"isCorporation": true}), "input.identificationNumber"},
		// A foreign address: the number is not Swedish.
		{"foreign private debtor", debtorForeign("F1", "010190 12345"), ""},
		{"foreign corporation with a Swedish-invalid number", debtorSet(debtorForeign("F2", "923 609 016"), "isCorporation", true), ""},
		{"foreign debtor with a Swedish-invalid personnummer", debtorForeign("F3", "811228-9875"), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := debtorCreate(t, env.Admin(), clientID, tc.in)
			if tc.field == "" {
				r.OK(t, nil)
				return
			}
			r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", tc.field)
		})
	}
}

func TestDebtorInputReportsEveryBrokenField(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Rules")
	in := debtorInput(" ", "811228-9875")
	in = debtorSet(in, "address.zipCode", "")
	in = debtorSet(in, "address.careOf", strings.Repeat("c", 256))
	in = debtorSet(in, "contactInformation.email", "nope")
	r := debtorCreate(t, env.Admin(), clientID, in)
	for _, f := range []string{"input.name", "input.identificationNumber", "input.address.zipCode", "input.address.careOf", "input.contactInformation.email"} {
		r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", f)
	}
	in = debtorSet(debtorInput("Bad Country", "811228-9874"), "address.countryCode", "ZZ")
	in = debtorSet(in, "address.city", " ")
	r = debtorCreate(t, env.Admin(), clientID, in)
	r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.address.countryCode")
	r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.address.city")
	if p := debtorList(t, env.Admin(), clientID, nil); p.TotalCount != 0 {
		t.Errorf("refused creations wrote %d debtors", p.TotalCount)
	}
}

// 3. One debtor per identification number and client.

func TestDebtorIdentificationNumberIsUniquePerClient(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "First")
	otherID, _ := env.NewClient(t, "Second")
	first := debtorNew(t, env.Admin(), clientID, debtorInput("Örjan Ågren", "811228-9874"))

	for _, number := range []string{"811228-9874", "8112289874", "811228 9874", "  811228-9874  ", "811228+9874"} {
		t.Run("again as "+number, func(t *testing.T) {
			debtorCreate(t, env.Admin(), clientID, debtorInput("Someone Else", number)).
				Refused(t, http.StatusConflict, "CONFLICT", "input.identificationNumber")
		})
	}
	t.Run("again with a foreign address", func(t *testing.T) {
		debtorCreate(t, env.Admin(), clientID, debtorForeign("Abroad", "81-12-28-98-74")).
			Refused(t, http.StatusConflict, "CONFLICT", "input.identificationNumber")
	})
	t.Run("the same number in another client", func(t *testing.T) {
		d := debtorNew(t, env.Admin(), otherID, debtorInput("Örjan Ågren", "8112289874"))
		if d.Client.ID != otherID || d.ID == first.ID {
			t.Errorf("got %s", debtorJSON(d))
		}
	})
	t.Run("the 12-digit form is another number", func(t *testing.T) {
		d := debtorNew(t, env.Admin(), clientID, debtorInput("Örjan Ågren", "19811228-9874"))
		if d.IdentificationNumber != "19811228-9874" {
			t.Errorf("got %s", d.IdentificationNumber)
		}
	})
	if p := debtorList(t, env.Admin(), clientID, nil); p.TotalCount != 2 {
		t.Errorf("the client has %d debtors, want 2", p.TotalCount)
	}
	if p := debtorList(t, env.Admin(), otherID, nil); p.TotalCount != 1 {
		t.Errorf("the other client has %d debtors, want 1", p.TotalCount)
	}
}

func TestDebtorIdentificationNumberIsUniqueUnderConcurrency(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Concurrent")
	// Several rounds of racers for one new number each, released at once:
	// exactly one creates the debtor, the others get CONFLICT (api.md §5,
	// §9), never INTERNAL.
	const rounds, racers = 5, 8
	var internal []string
	for round := range rounds {
		digits := strings.ReplaceAll(debtorPersonnummer(100+round), "-", "")
		forms := []string{digits[:6] + "-" + digits[6:], digits, digits[:6] + " " + digits[6:]}
		go1 := make(chan struct{})
		statuses := make(chan *apitest.Response, racers)
		var wg sync.WaitGroup
		for i := range racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-go1
				statuses <- debtorCreate(t, env.Admin(), clientID, debtorInput(fmt.Sprintf("Racer %d.%d", round, i), forms[i%3]))
			}()
		}
		close(go1)
		wg.Wait()
		close(statuses)
		ok := 0
		for r := range statuses {
			switch r.Status {
			case http.StatusOK:
				ok++
			case http.StatusConflict:
				r.Refused(t, http.StatusConflict, "CONFLICT", "input.identificationNumber")
			default:
				internal = append(internal, r.String())
			}
		}
		if ok != 1 {
			t.Errorf("round %d: %d of %d concurrent creations of one number succeeded, want 1", round, ok, racers)
		}
	}
	if p := debtorList(t, env.Admin(), clientID, nil); p.TotalCount != rounds {
		t.Errorf("the client has %d debtors, want %d", p.TotalCount, rounds)
	}
	if len(internal) > 0 {
		t.Errorf("%d concurrent creations lost with another answer than CONFLICT, the first: %s", len(internal), internal[0])
	}
}

// 4. updateDebtor replaces the record.

func TestUpdateDebtor(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Updates")
	created := debtorNew(t, env.Admin(), clientID, debtorInput("Before Name", "811228-9874"))
	other := debtorNew(t, env.Admin(), clientID, debtorInput("Other Debtor", apitest.Samordning))

	in := apitest.Vars{
		"isCorporation":        true,
		"identificationNumber": " " + apitest.OrgNumber + " ",
		"name":                 " After AB ",
		"address":              apitest.Vars{"address1": "Kungsgatan 5", "zipCode": "411 19", "city": "Göteborg", "countryCode": "se"},
	}
	var updated debtorOut
	debtorUpdate(t, env.Admin(), strings.ToUpper(clientID), strings.ToUpper(created.ID), in).Field(t, "updateDebtor", &updated)
	want := created
	want.IsCorporation = true
	want.IdentificationNumber = apitest.OrgNumber
	want.Name = "After AB"
	want.Address = debtorAddressOut{Address1: "Kungsgatan 5", ZipCode: "411 19", City: "Göteborg", CountryCode: "SE"}
	want.ContactInformation = nil
	want.UpdatedAt = updated.UpdatedAt
	if !reflect.DeepEqual(updated, want) {
		t.Errorf("updateDebtor returned\n%s\nwant\n%s", debtorJSON(updated), debtorJSON(want))
	}
	if !dateTimeRE.MatchString(updated.UpdatedAt) || !debtorTime(t, updated.UpdatedAt).After(debtorTime(t, created.UpdatedAt)) {
		t.Errorf("updatedAt %s is not after %s", updated.UpdatedAt, created.UpdatedAt)
	}
	if read := debtorGet(t, env.Admin(), clientID, created.ID); read == nil || !reflect.DeepEqual(*read, updated) {
		t.Errorf("debtor() after the update returned %s", debtorJSON(read))
	}

	t.Run("keeping its own number, written otherwise", func(t *testing.T) {
		r := debtorUpdate(t, env.Admin(), clientID, created.ID,
			debtorInput("After AB", "556036 0793", apitest.Vars{"isCorporation": true}))
		var d debtorOut
		r.Field(t, "updateDebtor", &d)
		if d.IdentificationNumber != "556036 0793" || d.ContactInformation == nil || d.Address.CareOf == nil {
			t.Errorf("got %s", debtorJSON(d))
		}
		updated = d
	})
	t.Run("another debtor's number is CONFLICT and changes nothing", func(t *testing.T) {
		for _, number := range []string{apitest.Samordning, "7010632391", "701063 2391"} {
			debtorUpdate(t, env.Admin(), clientID, created.ID, debtorInput("Stolen Number", number)).
				Refused(t, http.StatusConflict, "CONFLICT", "input.identificationNumber")
		}
		if read := debtorGet(t, env.Admin(), clientID, created.ID); read == nil || !reflect.DeepEqual(*read, updated) {
			t.Errorf("a refused update changed the debtor: %s", debtorJSON(read))
		}
		if read := debtorGet(t, env.Admin(), clientID, other.ID); read == nil || !reflect.DeepEqual(*read, other) {
			t.Errorf("a refused update changed the other debtor: %s", debtorJSON(read))
		}
	})
	t.Run("invalid input is BAD_USER_INPUT and changes nothing", func(t *testing.T) {
		in := debtorSet(debtorInput("", "811228-9874"), "address.city", "Malmö")
		debtorUpdate(t, env.Admin(), clientID, created.ID, in).Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.name")
		if read := debtorGet(t, env.Admin(), clientID, created.ID); read == nil || !reflect.DeepEqual(*read, updated) {
			t.Errorf("a refused update changed the debtor: %s", debtorJSON(read))
		}
	})
	t.Run("unknown id is NOT_FOUND", func(t *testing.T) {
		debtorUpdate(t, env.Admin(), clientID, debtorUnknownID, debtorInput("Ghost", "800101-0019")).
			Refused(t, http.StatusNotFound, "NOT_FOUND", "")
		if p := debtorList(t, env.Admin(), clientID, nil); p.TotalCount != 2 {
			t.Errorf("the client has %d debtors, want 2", p.TotalCount)
		}
	})
	t.Run("a bad id is BAD_USER_INPUT", func(t *testing.T) {
		debtorUpdate(t, env.Admin(), clientID, "not-a-uuid", debtorInput("Ghost", "800101-0019")).
			Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "id")
	})
	t.Run("another client's debtor is NOT_FOUND for ADMIN too", func(t *testing.T) {
		secondID, _ := env.NewClient(t, "Second")
		debtorUpdate(t, env.Admin(), secondID, created.ID, debtorInput("Moved", "800101-0019")).
			Refused(t, http.StatusNotFound, "NOT_FOUND", "")
		if read := debtorGet(t, env.Admin(), clientID, created.ID); read == nil || !reflect.DeepEqual(*read, updated) {
			t.Errorf("the update changed the debtor: %s", debtorJSON(read))
		}
	})
}

// 5. Lookups and unknown clients.

func TestDebtorLookupsAndUnknownClients(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Known")
	d := debtorNew(t, env.Admin(), clientID, debtorInput("Anna Andersson", apitest.Personnr))

	t.Run("unknown debtor id is null", func(t *testing.T) {
		r := env.Admin().Do(t, debtorLookupQuery, apitest.Vars{"clientId": clientID, "id": debtorUnknownID})
		r.OK(t, nil)
		if string(r.Data) != `{"debtor":null}` {
			t.Errorf("got %s, want debtor null", r.Data)
		}
	})
	t.Run("another client's debtor id is null for ADMIN", func(t *testing.T) {
		otherID, _ := env.NewClient(t, "Other")
		if got := debtorGet(t, env.Admin(), otherID, d.ID); got != nil {
			t.Errorf("got %s", debtorJSON(got))
		}
	})
	t.Run("unknown client is NOT_FOUND", func(t *testing.T) {
		vars := apitest.Vars{"clientId": debtorUnknownID, "id": d.ID, "input": debtorInput("X", "800101-0019")}
		for name, q := range map[string]string{
			"debtor":       debtorLookupQuery,
			"debtors":      debtorListQuery,
			"createDebtor": debtorCreateMutation,
			"updateDebtor": debtorUpdateMutation,
		} {
			v := apitest.Vars{}
			for k, x := range vars {
				if strings.Contains(q, "$"+k+":") {
					v[k] = x
				}
			}
			r := env.Admin().Do(t, q, v)
			if r.Status != http.StatusNotFound {
				t.Errorf("%s: want 404, got %s", name, r)
				continue
			}
			r.Refused(t, http.StatusNotFound, "NOT_FOUND", "")
		}
	})
	t.Run("unknown client with invalid input", func(t *testing.T) {
		// Either refusal is right; it must not write or crash.
		r := debtorCreate(t, env.Admin(), debtorUnknownID, debtorInput("", "x"))
		if r.Status != http.StatusNotFound && r.Status != http.StatusBadRequest {
			t.Errorf("got %s", r)
		}
	})
}

// 6. Tenancy.

func TestDebtorTenancy(t *testing.T) {
	env := apitest.New(t)
	ownID, own := env.ClientCaller(t, "Own")
	otherID, otherNo := env.NewClient(t, "Other")
	mine := debtorNew(t, own, ownID, debtorInput("Min Gäldenär", "811228-9874"))
	theirs := debtorNew(t, env.Admin(), otherID, debtorInput("Deras Gäldenär", apitest.Samordning))

	type op struct {
		name  string
		query string
		vars  func(clientID, id string) apitest.Vars
	}
	ops := []op{
		{"createDebtor", debtorCreateMutation, func(c, _ string) apitest.Vars {
			return apitest.Vars{"clientId": c, "input": debtorInput("Intruder", "800101-0019")}
		}},
		{"updateDebtor", debtorUpdateMutation, func(c, id string) apitest.Vars {
			return apitest.Vars{"clientId": c, "id": id, "input": debtorInput("Hijacked", "800101-0019")}
		}},
		{"debtor", debtorLookupQuery, func(c, id string) apitest.Vars { return apitest.Vars{"clientId": c, "id": id} }},
		{"debtors", debtorListQuery, func(c, _ string) apitest.Vars { return apitest.Vars{"clientId": c} }},
	}
	for _, o := range ops {
		t.Run(o.name+" naming another client is FORBIDDEN", func(t *testing.T) {
			for _, c := range []string{otherID, strings.ToUpper(otherID), debtorUnknownID} {
				for _, id := range []string{theirs.ID, mine.ID, debtorUnknownID} {
					own.Do(t, o.query, o.vars(c, id)).Refused(t, http.StatusForbidden, "FORBIDDEN", "")
				}
			}
		})
	}
	t.Run("another client's debtor under its own client", func(t *testing.T) {
		if got := debtorGet(t, own, ownID, theirs.ID); got != nil {
			t.Errorf("debtor() of another client's debtor: %s", debtorJSON(got))
		}
		debtorUpdate(t, own, ownID, theirs.ID, debtorInput("Hijacked", "800101-0019")).
			Refused(t, http.StatusNotFound, "NOT_FOUND", "")
		// Its number is free in the own client: no CONFLICT leaks it.
		debtorUpdate(t, own, ownID, theirs.ID, debtorInput("Hijacked", apitest.Samordning)).
			Refused(t, http.StatusNotFound, "NOT_FOUND", "")
		p := debtorList(t, own, ownID, nil)
		if p.TotalCount != 1 || len(p.Nodes) != 1 || p.Nodes[0].ID != mine.ID {
			t.Errorf("the own list is %+v, want only %s", p, mine.ID)
		}
		for _, term := range []string{"Deras", apitest.Samordning} {
			if p := debtorList(t, own, ownID, apitest.Vars{"filter": apitest.Vars{"searchTerm": term}}); p.TotalCount != 0 {
				t.Errorf("searching %q lists another client's debtor: %+v", term, p)
			}
		}
		if p := debtorList(t, own, ownID, apitest.Vars{"filter": apitest.Vars{"clientNumber": otherNo}}); p.TotalCount != 0 {
			t.Errorf("filtering by the other client's number lists %+v", p)
		}
		if got := debtorGet(t, env.Admin(), otherID, theirs.ID); got == nil || !reflect.DeepEqual(*got, theirs) {
			t.Errorf("the other client's debtor changed: %s", debtorJSON(got))
		}
	})
	t.Run("its own debtors work", func(t *testing.T) {
		if got := debtorGet(t, own, ownID, mine.ID); got == nil || !reflect.DeepEqual(*got, mine) {
			t.Errorf("debtor() of its own debtor: %s", debtorJSON(got))
		}
		var d debtorOut
		debtorUpdate(t, own, ownID, mine.ID, debtorInput("Min Gäldenär Ny", "811228-9874")).Field(t, "updateDebtor", &d)
		if d.Name != "Min Gäldenär Ny" || d.Client.ID != ownID {
			t.Errorf("updateDebtor returned %s", debtorJSON(d))
		}
		// The same number as the other client's debtor is fine.
		debtorNew(t, own, ownID, debtorInput("Samma Nummer", apitest.Samordning))
		var out struct {
			Client struct {
				ID      string
				Debtors struct {
					TotalCount int
					Nodes      []struct {
						ID     string
						Client struct{ ID string }
					}
				}
			}
		}
		own.Do(t, `query($id: UUID!) { client(id: $id) { id debtors(orderBy: {field: NAME}) { totalCount nodes { id client { id } } } } }`,
			apitest.Vars{"id": ownID}).OK(t, &out)
		if out.Client.ID != ownID || out.Client.Debtors.TotalCount != 2 || len(out.Client.Debtors.Nodes) != 2 ||
			out.Client.Debtors.Nodes[0].ID != mine.ID {
			t.Errorf("Client.debtors for a CLIENT key: %+v", out)
		}
		for _, n := range out.Client.Debtors.Nodes {
			if n.Client.ID != ownID {
				t.Errorf("Client.debtors lists a debtor of client %s", n.Client.ID)
			}
		}
	})
	t.Run("the other client keeps its debtors", func(t *testing.T) {
		p := debtorList(t, env.Admin(), otherID, nil)
		if p.TotalCount != 1 || p.Nodes[0].ID != theirs.ID {
			t.Errorf("the other client's list is %+v", p)
		}
	})
}

// 7. Lists: orders, paging and refused paging.

func TestDebtorsOrderAndPaging(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Lists")
	names := []string{"Bertil", "Anna", "Cecilia", "Anna", "Bertil", "Anna", "David"}
	var rows []debtorRow
	for i, name := range names {
		d := debtorNew(t, env.Admin(), clientID, debtorInput(name, debtorPersonnummer(i)))
		rows = append(rows, debtorRow{id: d.ID, name: d.Name, created: debtorTime(t, d.CreatedAt)})
	}
	total := len(rows)

	t.Run("default is page 1 of 25, newest first", func(t *testing.T) {
		p := debtorList(t, env.Admin(), clientID, nil)
		if p.TotalCount != total || p.PageInfo.HasNextPage || p.PageInfo.HasPreviousPage {
			t.Errorf("got %+v", p)
		}
		debtorSameIDs(t, "default", p.ids(), debtorSorted(rows, "default"))
		// Newest first is the creation order reversed.
		for i, id := range p.ids() {
			if id != rows[total-1-i].id {
				t.Errorf("row %d is %s, want the debtor created %dth", i, id, total-i)
			}
		}
	})
	for _, o := range debtorOrders {
		want := debtorSorted(rows, o.name)
		base := apitest.Vars{}
		if o.orderBy != nil {
			base["orderBy"] = o.orderBy
		}
		t.Run(o.name, func(t *testing.T) {
			p := debtorList(t, env.Admin(), clientID, base)
			debtorSameIDs(t, "one page", p.ids(), want)
			for _, mode := range []struct {
				mode string
				size int
			}{{"page", 3}, {"page", 1}, {"page", 7}, {"first", 2}, {"first", 3}, {"last", 3}, {"last", 2}} {
				got := debtorWalk(t, env.Admin(), clientID, base, mode.mode, mode.size, total)
				debtorSameIDs(t, fmt.Sprintf("%s by %d", mode.mode, mode.size), got, want)
			}
		})
	}
	t.Run("NAME ascending is by name, ties by id", func(t *testing.T) {
		p := debtorList(t, env.Admin(), clientID, apitest.Vars{"orderBy": apitest.Vars{"field": "NAME"}})
		var got []string
		for _, n := range p.Nodes {
			got = append(got, n.Name)
		}
		if strings.Join(got, ",") != "Anna,Anna,Anna,Bertil,Bertil,Cecilia,David" {
			t.Errorf("names in order %v", got)
		}
		for i := 1; i < len(p.Nodes); i++ {
			if p.Nodes[i].Name == p.Nodes[i-1].Name && p.Nodes[i].ID < p.Nodes[i-1].ID {
				t.Errorf("tie between %s and %s not broken by ascending id", p.Nodes[i-1].ID, p.Nodes[i].ID)
			}
		}
	})
	t.Run("a cursor from a page continues in page mode's order", func(t *testing.T) {
		p := debtorList(t, env.Admin(), clientID, apitest.Vars{"page": 1, "rowsPerPage": 3, "orderBy": apitest.Vars{"field": "NAME"}})
		rest := debtorList(t, env.Admin(), clientID, apitest.Vars{"first": 10, "after": *p.PageInfo.EndCursor, "orderBy": apitest.Vars{"field": "NAME"}})
		debtorSameIDs(t, "after page 1", append(p.ids(), rest.ids()...), debtorSorted(rows, "NAME ASC"))
	})
	t.Run("a page past the end is empty", func(t *testing.T) {
		for _, v := range []apitest.Vars{
			{"page": 3, "rowsPerPage": 5},
			{"page": 100000},
			{"page": 2147483647, "rowsPerPage": 100},
		} {
			p := debtorList(t, env.Admin(), clientID, v)
			if len(p.Nodes) != 0 || len(p.Edges) != 0 || p.TotalCount != total || p.PageInfo.HasNextPage {
				t.Errorf("%v: got %+v", v, p)
			}
		}
	})
	t.Run("refused paging", func(t *testing.T) {
		nameCursor := *debtorList(t, env.Admin(), clientID, apitest.Vars{"first": 2, "orderBy": apitest.Vars{"field": "NAME"}}).PageInfo.EndCursor
		timeCursor := *debtorList(t, env.Admin(), clientID, apitest.Vars{"first": 2}).PageInfo.EndCursor
		for _, tc := range []struct {
			vars  apitest.Vars
			field string
		}{
			{apitest.Vars{"page": 0}, "page"},
			{apitest.Vars{"page": -1}, "page"},
			{apitest.Vars{"rowsPerPage": 0}, "rowsPerPage"},
			{apitest.Vars{"rowsPerPage": 101}, "rowsPerPage"},
			{apitest.Vars{"page": 1, "first": 2}, "page"},
			{apitest.Vars{"page": 2, "before": timeCursor}, "page"},
			{apitest.Vars{"rowsPerPage": 5, "after": timeCursor}, "rowsPerPage"},
			{apitest.Vars{"rowsPerPage": 5, "last": 5}, "rowsPerPage"},
			{apitest.Vars{"first": 0}, "first"},
			{apitest.Vars{"first": -3}, "first"},
			{apitest.Vars{"first": 101}, "first"},
			{apitest.Vars{"last": 0}, "last"},
			{apitest.Vars{"last": 101}, "last"},
			{apitest.Vars{"first": 1, "last": 1}, "last"},
			{apitest.Vars{"first": 1, "after": "not a cursor"}, "after"},
			{apitest.Vars{"last": 1, "before": "bm90IGEgY3Vyc29y"}, "before"},
			{apitest.Vars{"first": 2, "after": nameCursor}, "after"},
			{apitest.Vars{"first": 2, "after": nameCursor, "orderBy": apitest.Vars{"field": "CREATED_AT", "direction": "ASC"}}, "after"},
			{apitest.Vars{"last": 2, "before": timeCursor, "orderBy": apitest.Vars{"field": "NAME"}}, "before"},
			{apitest.Vars{"orderBy": apitest.Vars{"field": "AMOUNT"}}, ""},
			{apitest.Vars{"orderBy": apitest.Vars{"direction": "ASC"}}, ""},
		} {
			r := env.Admin().Do(t, debtorListQuery, func() apitest.Vars {
				v := apitest.Vars{"clientId": clientID}
				for k, x := range tc.vars {
					v[k] = x
				}
				return v
			}())
			if r.Status != http.StatusBadRequest {
				t.Errorf("%v: want 400 on %q, got %s", tc.vars, tc.field, r)
				continue
			}
			r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", tc.field)
		}
	})
}

// 8. 1,000 debtors, paged through every way (the requirement).

func TestDebtorsThousandPaging(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 1,000 debtors")
	}
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Tusen Gäldenärer AB")
	otherID, _ := env.NewClient(t, "Noise")
	// A few debtors of another client, which the lists must never show.
	for i := range 3 {
		debtorNew(t, env.Admin(), otherID, debtorInput(fmt.Sprintf("Debtor %03d", i), debtorPersonnummer(i)))
	}

	const total = 1000
	start := time.Now()
	rows := make([]debtorRow, total)
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				// 250 names, each 4 times, to exercise the tie-breaks.
				in := debtorInput(fmt.Sprintf("Debtor %03d", (i*7)%250), debtorPersonnummer(i))
				if i%2 == 1 {
					in = debtorForeign(fmt.Sprintf("Debtor %03d", (i*7)%250), fmt.Sprintf("NO-%06d", i))
				}
				r := env.Admin().Do(t, `mutation($c: UUID!, $i: DebtorInput!) { createDebtor(clientId: $c, input: $i) { id name createdAt } }`,
					apitest.Vars{"c": clientID, "i": in})
				var out struct {
					CreateDebtor struct{ ID, Name, CreatedAt string }
				}
				if r.Status != http.StatusOK || len(r.Errors) > 0 || json.Unmarshal(r.Data, &out) != nil {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("debtor %d: %s", i, r))
					mu.Unlock()
					continue
				}
				created, err := time.Parse(time.RFC3339Nano, out.CreateDebtor.CreatedAt)
				if err != nil {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("debtor %d: createdAt %q", i, out.CreateDebtor.CreatedAt))
					mu.Unlock()
				}
				rows[i] = debtorRow{id: out.CreateDebtor.ID, name: out.CreateDebtor.Name, created: created}
			}
		}()
	}
	for i := range total {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d creations failed, the first: %s", len(failures), failures[0])
	}
	t.Logf("created %d debtors in %s", total, time.Since(start).Round(time.Millisecond))

	for _, o := range []struct {
		name    string
		orderBy any
	}{
		{"default", nil},
		{"NAME ASC", apitest.Vars{"field": "NAME"}},
		{"NAME DESC", apitest.Vars{"field": "NAME", "direction": "DESC"}},
	} {
		want := debtorSorted(rows, o.name)
		base := apitest.Vars{}
		if o.orderBy != nil {
			base["orderBy"] = o.orderBy
		}
		for _, mode := range []struct {
			mode string
			size int
		}{{"page", 100}, {"page", 37}, {"first", 100}, {"first", 37}, {"last", 100}} {
			if o.name == "NAME DESC" && mode.size == 37 {
				continue
			}
			t.Run(fmt.Sprintf("%s %s by %d", o.name, mode.mode, mode.size), func(t *testing.T) {
				got := debtorWalk(t, env.Admin(), clientID, base, mode.mode, mode.size, total)
				debtorSameIDs(t, "the whole list", got, want)
			})
		}
	}
	t.Run("default page size", func(t *testing.T) {
		p := debtorList(t, env.Admin(), clientID, apitest.Vars{"page": 40})
		if len(p.Nodes) != 25 || p.TotalCount != total || p.PageInfo.HasNextPage || !p.PageInfo.HasPreviousPage {
			t.Errorf("page 40 of 25 rows: %d rows, %+v", len(p.Nodes), p.PageInfo)
		}
		if p := debtorList(t, env.Admin(), clientID, apitest.Vars{"page": 41}); len(p.Nodes) != 0 || p.TotalCount != total {
			t.Errorf("page 41 has %d rows", len(p.Nodes))
		}
	})
	t.Run("a filter's total ignores paging", func(t *testing.T) {
		// "Debtor 00" matches names 000–009: 10 names, 4 debtors each.
		p := debtorList(t, env.Admin(), clientID, apitest.Vars{"rowsPerPage": 7, "page": 2,
			"filter": apitest.Vars{"searchType": "NAME", "searchTerm": "debtor 00"}})
		if p.TotalCount != 40 || len(p.Nodes) != 7 {
			t.Errorf("totalCount %d with %d rows, want 40 and 7", p.TotalCount, len(p.Nodes))
		}
	})
}

// 9. Filters that need no debts.

func TestDebtorsFilters(t *testing.T) {
	env := apitest.New(t)
	clientID, clientNo := env.NewClient(t, "Filters")
	_, otherNo := env.NewClient(t, "Other")
	for i := range 3 {
		debtorNew(t, env.Admin(), clientID, debtorInput(fmt.Sprintf("Filtered %d", i), debtorPersonnummer(i)))
	}
	const all, none = 3, 0
	for _, tc := range []struct {
		name   string
		filter apitest.Vars
		want   int
	}{
		{"empty filter", apitest.Vars{}, all},
		{"own client number", apitest.Vars{"clientNumber": clientNo}, all},
		{"another client's number", apitest.Vars{"clientNumber": otherNo}, none},
		{"an unknown client number", apitest.Vars{"clientNumber": 999999}, none},
		{"not completed", apitest.Vars{"isCompleted": false}, all},
		{"completed", apitest.Vars{"isCompleted": true}, none},
		{"invoiceCreatedDate far back", apitest.Vars{"invoiceCreatedDate": "2000-01-01T00:00:00Z"}, none},
		{"invoiceCreatedDate in the future", apitest.Vars{"invoiceCreatedDate": "2999-01-01T00:00:00+01:00"}, none},
		{"own number and not completed", apitest.Vars{"clientNumber": clientNo, "isCompleted": false}, all},
		{"own number and completed", apitest.Vars{"clientNumber": clientNo, "isCompleted": true}, none},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := debtorList(t, env.Admin(), clientID, apitest.Vars{"filter": tc.filter, "rowsPerPage": 2})
			if p.TotalCount != tc.want || len(p.Nodes) != min(tc.want, 2) {
				t.Errorf("totalCount %d with %d rows, want %d", p.TotalCount, len(p.Nodes), tc.want)
			}
		})
	}
	statuses := map[string][]string{
		"paymentStatus":       {"UNPAID", "PARTIALLY_PAID", "PAID", "OVERPAID"},
		"errandStatus":        {"INVOICING", "COLLECTION", "CLOSED"},
		"errandProcessStatus": {"NOT_DUE", "OVERDUE", "REMINDED", "DEMAND_SENT", "DEMAND_EXPIRED", "PAID_IN_FULL", "WITHDRAWN"},
	}
	for field, values := range statuses {
		for _, v := range values {
			t.Run(field+" "+v, func(t *testing.T) {
				p := debtorList(t, env.Admin(), clientID, apitest.Vars{"filter": apitest.Vars{field: v}})
				if p.TotalCount != 0 || len(p.Nodes) != 0 {
					t.Errorf("a debtor without debts matched %s %s: %+v", field, v, p)
				}
			})
		}
	}
	t.Run("an unknown status value is BAD_USER_INPUT", func(t *testing.T) {
		env.Admin().Do(t, debtorListQuery, apitest.Vars{"clientId": clientID, "filter": apitest.Vars{"paymentStatus": "SOMETIMES"}}).
			Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
	})
	t.Run("the statuses of a debtor without debts", func(t *testing.T) {
		p := debtorList(t, env.Admin(), clientID, nil)
		for _, n := range p.Nodes {
			d := debtorGet(t, env.Admin(), clientID, n.ID)
			if d.PaymentStatus != nil || d.ErrandStatus != nil || d.ErrandProcessStatus != nil || d.IsCompleted {
				t.Errorf("a debtor without debts has statuses: %s", debtorJSON(d))
			}
		}
	})
}

// 10. Search.

func TestDebtorsSearch(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Search")
	mk := func(name, number, email string) string {
		in := debtorInput(name, number, apitest.Vars{"isCorporation": number == apitest.OrgNumber})
		if email == "" {
			delete(in, "contactInformation")
		} else {
			in = debtorSet(in, "contactInformation.email", email)
		}
		return debtorNew(t, env.Admin(), clientID, in).Name
	}
	mk("Örjan Ågren", "811228 9874", "orjan@example.se")
	mk("Anna Svensson", apitest.Samordning, "Anna.Svensson@Example.SE")
	mk("Firma 1228 AB", apitest.OrgNumber, "")
	mk("Kontakt Person", "800101-0019", "kontakt1228@example.se")
	mk("Procent 100% AB", "19790101-0020", "")
	mk("Under_score AB", "121212-1212", "u@example.se")
	all := []string{"Under_score AB", "Procent 100% AB", "Kontakt Person", "Firma 1228 AB", "Anna Svensson", "Örjan Ågren"}

	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		typ  string // "" for none
		term *string
		want []string // newest first
	}{
		{"", nil, all},
		{"", str(""), all},
		{"", str("   "), all},
		{"NAME", str(" \t"), all},
		{"DEBT_ID", str("  "), all},
		// NAME: case-insensitive substring, Swedish letters included.
		{"NAME", str("örjan"), []string{"Örjan Ågren"}},
		{"NAME", str("ÅGREN"), []string{"Örjan Ågren"}},
		{"NAME", str("  RJAN Å "), []string{"Örjan Ågren"}},
		{"NAME", str("ab"), []string{"Under_score AB", "Procent 100% AB", "Firma 1228 AB"}},
		{"NAME", str("1228"), []string{"Firma 1228 AB"}},
		{"NAME", str("svensson@"), nil},
		{"NAME", str("8112289874"), nil},
		// IDENTIFICATION_NUMBER: by digits, ignoring spaces and hyphens.
		{"IDENTIFICATION_NUMBER", str("1228-98"), []string{"Örjan Ågren"}},
		{"IDENTIFICATION_NUMBER", str("8112289874"), []string{"Örjan Ågren"}},
		{"IDENTIFICATION_NUMBER", str("811228-9874"), []string{"Örjan Ågren"}},
		{"IDENTIFICATION_NUMBER", str("811228 9874"), []string{"Örjan Ågren"}},
		{"IDENTIFICATION_NUMBER", str("1228"), []string{"Örjan Ågren"}},
		{"IDENTIFICATION_NUMBER", str("5560360793"), []string{"Firma 1228 AB"}},
		{"IDENTIFICATION_NUMBER", str("0101"), []string{"Procent 100% AB", "Kontakt Person"}},
		{"IDENTIFICATION_NUMBER", str("19811228-9874"), nil},
		{"IDENTIFICATION_NUMBER", str("anna"), nil},
		// EMAIL: case-insensitive substring.
		{"EMAIL", str("anna.svensson@example.se"), []string{"Anna Svensson"}},
		{"EMAIL", str("EXAMPLE.se"), []string{"Under_score AB", "Kontakt Person", "Anna Svensson", "Örjan Ågren"}},
		{"EMAIL", str("1228"), []string{"Kontakt Person"}},
		{"EMAIL", str("Örjan"), nil},
		// ALL: name, identification number or e-mail.
		{"ALL", str("1228"), []string{"Kontakt Person", "Firma 1228 AB", "Örjan Ågren"}},
		{"", str("1228"), []string{"Kontakt Person", "Firma 1228 AB", "Örjan Ågren"}},
		{"", str("anna"), []string{"Anna Svensson"}},
		{"", str("8112289874"), []string{"Örjan Ågren"}},
		{"ALL", str("no such debtor"), nil},
		// '%' and '_' are literal.
		{"", str("%"), []string{"Procent 100% AB"}},
		{"NAME", str("100%"), []string{"Procent 100% AB"}},
		{"NAME", str("_"), []string{"Under_score AB"}},
		{"NAME", str("a_na"), nil},
		{"NAME", str("ö%n"), nil},
		{"ALL", str("%ab"), nil},
		{"EMAIL", str("%"), nil},
		{"EMAIL", str("_"), nil},
		// No debts: nothing to find by debt.
		{"DEBT_ID", str("1"), nil},
		{"DEBT_ID", str(" 42 "), nil},
		{"INVOICE_NUMBER", str("1228"), nil},
		{"INVOICE_NUMBER", str("INV-1"), nil},
	} {
		name := fmt.Sprintf("%s %q", tc.typ, debtorDeref(tc.term))
		t.Run(name, func(t *testing.T) {
			filter := apitest.Vars{}
			if tc.typ != "" {
				filter["searchType"] = tc.typ
			}
			if tc.term != nil {
				filter["searchTerm"] = *tc.term
			}
			p := debtorList(t, env.Admin(), clientID, apitest.Vars{"filter": filter})
			var got []string
			for _, n := range p.Nodes {
				got = append(got, n.Name)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") || p.TotalCount != len(tc.want) {
				t.Errorf("found %q (total %d), want %q", got, p.TotalCount, tc.want)
			}
		})
	}
	t.Run("DEBT_ID needs a number", func(t *testing.T) {
		for _, term := range []string{"abc", "12a", "1.5"} {
			env.Admin().Do(t, debtorListQuery, apitest.Vars{"clientId": clientID,
				"filter": apitest.Vars{"searchType": "DEBT_ID", "searchTerm": term}}).
				Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "filter.searchTerm")
		}
	})
	t.Run("an unknown search type is BAD_USER_INPUT", func(t *testing.T) {
		env.Admin().Do(t, debtorListQuery, apitest.Vars{"clientId": clientID,
			"filter": apitest.Vars{"searchType": "PHONE", "searchTerm": "070"}}).
			Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
	})
	t.Run("search combines with other filters and paging", func(t *testing.T) {
		p := debtorList(t, env.Admin(), clientID, apitest.Vars{"rowsPerPage": 1, "page": 2,
			"filter": apitest.Vars{"searchTerm": "1228", "isCompleted": false}})
		if p.TotalCount != 3 || len(p.Nodes) != 1 || p.Nodes[0].Name != "Firma 1228 AB" {
			t.Errorf("got %+v", p)
		}
	})
}

func debtorDeref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestDebtorsNameSearchTotal: the total of a NAME search alone is read on
// PostgreSQL from the name suffixes the database keeps (no statement counts
// the debtors), and equals the rows whatever the names, their changes and
// the other clients; any other filter is counted. The suffixes themselves
// are checked against the names when every API test ends (apitest).
func TestDebtorsNameSearchTotal(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin()
	clientID, _ := env.NewClient(t, "Names")
	otherID, _ := env.NewClient(t, "Others")
	names := []string{"Anders Andersson", "Alexander Sander", "Sandra Lind", "Örjan Ågren", "Åsa Öberg", "Ander"}
	ids := map[string]string{}
	for i, name := range names {
		ids[name] = debtorNew(t, admin, clientID, debtorInput(name, debtorPersonnummer(200+i))).ID
	}
	// The same names at another client, which no total may count.
	for i, name := range names {
		debtorNew(t, admin, otherID, debtorInput(name, debtorPersonnummer(300+i)))
	}
	check := func(t *testing.T, term string, want int, extra apitest.Vars) {
		t.Helper()
		filter := apitest.Vars{"searchType": "NAME", "searchTerm": term}
		for k, v := range extra {
			filter[k] = v
		}
		env.Statements.Reset()
		p := debtorList(t, admin, clientID, apitest.Vars{"rowsPerPage": 100, "filter": filter})
		var only struct{ TotalCount int }
		admin.Do(t, debtorTotalQuery, apitest.Vars{"clientId": clientID, "filter": filter}).Field(t, "debtors", &only)
		past := debtorList(t, admin, clientID, apitest.Vars{"page": 9, "rowsPerPage": 5, "filter": filter})
		if p.TotalCount != want || len(p.Nodes) != want || only.TotalCount != want || past.TotalCount != want {
			t.Errorf("%v: totalCount %d with %d rows, %d alone, %d past the last page; want %d",
				filter, p.TotalCount, len(p.Nodes), only.TotalCount, past.TotalCount, want)
		}
		if !env.Postgres || want == 0 {
			return
		}
		kept := false
		for _, q := range env.Statements.Log() {
			kept = kept || strings.Contains(q, "debtor_name_suffixes")
			if strings.Contains(q, `COUNT("debtors"."id")`) {
				if len(extra) == 0 {
					t.Errorf("%v: a statement counts the debtors: %s", filter, q)
				}
				kept = false
			}
		}
		if kept != (len(extra) == 0) {
			t.Errorf("%v: read the kept suffixes %v, want %v", filter, kept, len(extra) == 0)
		}
	}
	for _, tc := range []struct {
		term string
		want int
	}{
		{"ander", 3},       // "Anders Andersson" holds it twice: one debtor
		{"  ANDER ", 3},    // trimmed, any case
		{"anders", 1},      // "anders andersson"
		{"sander", 1},      // not "sandra"
		{"and", 4},         // and Sandra
		{"s a", 1},         // across the space: "anders andersson"
		{"n", 5},           // all but "åsa öberg"
		{"örjan ågren", 1}, // the whole name, letters of two bytes
		{"ö", 2},
		{"åsa öberg!", 0},
		{"zz", 0},
		{"%", 0}, // a pattern character is a letter like any other
		{"_", 0},
	} {
		t.Run(tc.term, func(t *testing.T) { check(t, tc.term, tc.want, nil) })
	}
	t.Run("with another filter it is counted", func(t *testing.T) {
		check(t, "ander", 3, apitest.Vars{"isCompleted": false})
		check(t, "ander", 0, apitest.Vars{"isCompleted": true})
	})
	t.Run("a renamed debtor is found by its new name only", func(t *testing.T) {
		var d debtorOut
		debtorUpdate(t, admin, clientID, ids["Ander"], debtorInput("Sven Ek", debtorPersonnummer(205))).Field(t, "updateDebtor", &d)
		check(t, "ander", 2, nil)
		check(t, "sven ek", 1, nil)
		// An update that keeps the name (a new address) keeps it found.
		debtorUpdate(t, admin, clientID, ids["Åsa Öberg"], debtorInput("Åsa Öberg", debtorPersonnummer(204),
			apitest.Vars{"address": apitest.Vars{"address1": "Ny väg 2", "zipCode": "111 22", "city": "Stockholm", "countryCode": "SE"}})).
			Field(t, "updateDebtor", &d)
		check(t, "öberg", 1, nil)
	})
	if !env.Postgres {
		return
	}
	t.Run("an operator's SQL is kept too", func(t *testing.T) {
		// Moved to the other client, then deleted (a debtor without debts).
		ctx := context.Background()
		if _, err := env.DB.SQL.ExecContext(ctx, "UPDATE debtors SET client_id = $1 WHERE id = $2", otherID, ids["Alexander Sander"]); err != nil {
			t.Fatal(err)
		}
		check(t, "ander", 1, nil)
		var other struct{ TotalCount int }
		admin.Do(t, debtorTotalQuery, apitest.Vars{"clientId": otherID, "filter": apitest.Vars{"searchType": "NAME", "searchTerm": "sander"}}).
			Field(t, "debtors", &other)
		if other.TotalCount != 2 {
			t.Errorf("the other client's debtors named *sander*: %d, want 2 (its own and the one moved to it)", other.TotalCount)
		}
		if _, err := env.DB.SQL.ExecContext(ctx, "DELETE FROM debtors WHERE id = $1", ids["Anders Andersson"]); err != nil {
			t.Fatal(err)
		}
		check(t, "ander", 0, nil)
		check(t, "and", 1, nil) // Sandra
	})
}

// TestDebtorSearchTotalsRemembered: on PostgreSQL the total of a NAME,
// IDENTIFICATION_NUMBER or EMAIL search is counted once per version of the
// client's debtors and served again while that version holds; any change
// to what the searches read, by this process, another one or an
// operator's SQL, makes the next request count again, so every total is
// exact.
func TestDebtorSearchTotalsRemembered(t *testing.T) {
	env := apitest.New(t)
	if !env.Postgres {
		t.Skip("the remembered totals are PostgreSQL's")
	}
	other := env.Replica(t, nil) // another process on the same database
	admin, otherAdmin := env.Admin(), other.Admin()
	clientID, _ := env.NewClient(t, "Remembered")
	movedTo, _ := env.NewClient(t, "Elsewhere")
	contact := func(email string) apitest.Vars {
		return apitest.Vars{"contactInformation": apitest.Vars{"email": email}}
	}
	// Personnummer 600101-40x: "600101" is in each.
	anders := debtorNew(t, admin, clientID, debtorInput("Anders Berg", debtorPersonnummer(400), contact("anders@berg.se"))).ID
	alexander := debtorNew(t, admin, clientID, debtorInput("Alexander Berg", debtorPersonnummer(401), contact("alexander@berg.se"))).ID
	sandra := debtorNew(t, admin, clientID, debtorInput("Sandra Lind", debtorPersonnummer(402), contact("sandra@lind.se"))).ID

	searches := []struct{ searchType, term string }{{"NAME", "berg"}, {"IDENTIFICATION_NUMBER", "600101"}, {"EMAIL", "berg.se"}}
	// check asks each search twice of both processes and wants name,
	// number and e-mail matches.
	check := func(t *testing.T, want ...int) {
		t.Helper()
		for i, s := range searches {
			filter := apitest.Vars{"searchType": s.searchType, "searchTerm": s.term}
			for _, c := range []*apitest.Caller{admin, admin, otherAdmin, otherAdmin} {
				var got struct{ TotalCount int }
				c.Do(t, debtorTotalQuery, apitest.Vars{"clientId": clientID, "filter": filter}).Field(t, "debtors", &got)
				if got.TotalCount != want[i] {
					t.Errorf("%s %q: totalCount %d, want %d", s.searchType, s.term, got.TotalCount, want[i])
				}
			}
		}
	}
	ctx := context.Background()
	exec := func(t *testing.T, query string, args ...any) {
		t.Helper()
		if _, err := env.DB.SQL.ExecContext(ctx, query, args...); err != nil {
			t.Fatal(err)
		}
	}
	check(t, 2, 3, 2)

	t.Run("a remembered total is not counted again", func(t *testing.T) {
		// A suffix written by hand, as no change to debtors would write
		// it, changes what counting finds but not the client's version:
		// this process, which counted before, serves what it counted; a
		// new process counts and finds it.
		exec(t, `INSERT INTO debtor_name_suffixes (client_id, suffix, debtor_id) VALUES ($1, 'berg', gen_random_uuid())`, clientID)
		defer exec(t, `DELETE FROM debtor_name_suffixes WHERE client_id = $1 AND suffix = 'berg' AND debtor_id <> ALL($2)`,
			clientID, "{"+anders+","+alexander+"}")
		fresh := env.Replica(t, nil).Admin()
		for _, tc := range []struct {
			c    *apitest.Caller
			want int
		}{{admin, 2}, {otherAdmin, 2}, {fresh, 3}} {
			var got struct{ TotalCount int }
			tc.c.Do(t, debtorTotalQuery, apitest.Vars{"clientId": clientID, "filter": apitest.Vars{"searchType": "NAME", "searchTerm": "berg"}}).
				Field(t, "debtors", &got)
			if got.TotalCount != tc.want {
				t.Errorf("NAME berg with a suffix written by hand: %d, want %d", got.TotalCount, tc.want)
			}
		}
	})
	t.Run("another process's changes", func(t *testing.T) {
		debtorNew(t, otherAdmin, clientID, debtorInput("Eva Berg", debtorPersonnummer(403), contact("eva@berg.se")))
		check(t, 3, 4, 3)
		var d debtorOut
		debtorUpdate(t, otherAdmin, clientID, sandra, debtorInput("Sandra Lind", debtorPersonnummer(402), contact("sandra@berg.se"))).
			Field(t, "updateDebtor", &d)
		check(t, 3, 4, 4)
		// Born on another day: no longer 600101.
		debtorUpdate(t, otherAdmin, clientID, anders, debtorInput("Anders Berg", debtorPersonnummer(1000), contact("anders@berg.se"))).
			Field(t, "updateDebtor", &d)
		check(t, 3, 3, 4)
		debtorUpdate(t, otherAdmin, clientID, anders, debtorInput("Anders Ek", debtorPersonnummer(1000), contact("anders@berg.se"))).
			Field(t, "updateDebtor", &d)
		check(t, 2, 3, 4)
	})
	t.Run("an operator's SQL", func(t *testing.T) {
		exec(t, `UPDATE debtors SET email_key = 'sandra@lind.se' WHERE id = $1`, sandra)
		check(t, 2, 3, 3)
		exec(t, `UPDATE debtors SET client_id = $1 WHERE id = $2`, movedTo, alexander)
		check(t, 1, 2, 2)
		exec(t, `UPDATE debtors SET client_id = $1 WHERE id = $2`, clientID, alexander)
		check(t, 2, 3, 3)
		exec(t, `DELETE FROM debtors WHERE id = $1`, alexander)
		check(t, 1, 2, 2)
		// Without the versions (emptied by hand), every total is counted.
		exec(t, `TRUNCATE debtor_changes`)
		check(t, 1, 2, 2)
		exec(t, `UPDATE debtors SET name_key = 'sandra berg' WHERE id = $1`, sandra)
		check(t, 2, 2, 2)
	})
}

// TestRememberedSearchReadsItsVersionOnce: a remembered search's page
// checks the client's version once a request, also when the page is empty
// and its total is then read on its own (ent's Page asks Paging.Total once).
func TestRememberedSearchReadsItsVersionOnce(t *testing.T) {
	env := apitest.New(t)
	if !env.Postgres {
		t.Skip("the remembered totals are PostgreSQL's")
	}
	admin := env.Admin()
	clientID, _ := env.NewClient(t, "Once")
	debtorNew(t, admin, clientID, debtorInput("Anders Berg", debtorPersonnummer(403)))
	const query = `query($clientId: UUID!, $filter: DebtorFilter) {
  debtors(clientId: $clientId, filter: $filter, first: 10) { totalCount nodes { id } }
}`
	for _, tc := range []struct {
		term       string
		total      int
		statements int // that read debtor_changes
	}{
		{"berg", 1, 2},  // the check, and the page with its total
		{"zzzzz", 0, 3}, // the check, the empty page, and its total alone
	} {
		for range 2 { // counted, then remembered
			env.Statements.Reset()
			var got struct{ TotalCount int }
			admin.Do(t, query, apitest.Vars{"clientId": clientID, "filter": apitest.Vars{"searchType": "NAME", "searchTerm": tc.term}}).
				Field(t, "debtors", &got)
			if got.TotalCount != tc.total {
				t.Errorf("%q: totalCount %d, want %d", tc.term, got.TotalCount, tc.total)
			}
			// The test server answers a planned query twice, on the
			// planned path and on gqlgen's executor (apitest's
			// CheckPlanned); each answer reads one page of debtors.
			n, answers := 0, 0
			for _, s := range env.Statements.Log() {
				if strings.Contains(s, "debtor_changes") {
					n++
				}
				if strings.HasPrefix(s, `SELECT "debtors".`) {
					answers++
				}
			}
			if answers == 0 || n != tc.statements*answers {
				t.Errorf("%q: %d statements read the version in %d answers, want %d an answer:", tc.term, n, answers, tc.statements)
				for i, s := range env.Statements.Log() {
					t.Logf("  %d: %.200s", i+1, s)
				}
			}
		}
	}
}
