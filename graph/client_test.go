package graph_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/apitest"
)

type clientOut struct {
	ID                 string
	ClientNumber       int
	Name               string
	OrganizationNumber string
	Adress1            string
	Address2           string
	ZipCode            string
	City               string
	CountryCode        string
	BankNumber         string
	Email              string
	ContactName        string
	ContactEmail       string
	ContactPhone       string
	CreatedAt          string
	UpdatedAt          string
}

var (
	uuidRE     = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	dateTimeRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z$`)
)

func createClient(t *testing.T, c *apitest.Caller, in apitest.Vars) *apitest.Response {
	t.Helper()
	return c.Do(t, apitest.CreateClientMutation, apitest.Vars{"input": in})
}

func TestCreateClientReturnsTheRecord(t *testing.T) {
	env := apitest.New(t)
	in := apitest.ClientInput("  Acme AB  ", apitest.Vars{"countryCode": "se", "organizationNumber": "5560360793", "bankNumber": apitest.Plusgiro})
	var got clientOut
	createClient(t, env.Admin(), in).Field(t, "createClient", &got)

	if !uuidRE.MatchString(got.ID) {
		t.Errorf("id %q is not a canonical UUID", got.ID)
	}
	want := clientOut{
		ID: got.ID, ClientNumber: 1001, Name: "Acme AB", OrganizationNumber: "5560360793",
		Adress1: "Storgatan 1", Address2: "Box 12", ZipCode: "111 22", City: "Stockholm", CountryCode: "SE",
		BankNumber: apitest.Plusgiro, Email: "faktura@example.se", ContactName: "Anna Andersson",
		ContactEmail: "anna@example.se", ContactPhone: "+46 8 123 456", CreatedAt: got.CreatedAt, UpdatedAt: got.UpdatedAt,
	}
	if got != want {
		t.Errorf("createClient returned\n%+v\nwant\n%+v", got, want)
	}
	for _, ts := range []string{got.CreatedAt, got.UpdatedAt} {
		if !dateTimeRE.MatchString(ts) {
			t.Errorf("timestamp %q is not RFC 3339 UTC", ts)
		}
	}

	// Reading it back gives the same record.
	var read clientOut
	env.Admin().Do(t, `query($id: UUID!) { client(id: $id) { id clientNumber name organizationNumber adress1 address2 zipCode city countryCode bankNumber email contactName contactEmail contactPhone createdAt updatedAt } }`,
		apitest.Vars{"id": strings.ToUpper(got.ID)}).Field(t, "client", &read)
	if read != got {
		t.Errorf("client(id) returned\n%+v\nwant\n%+v", read, got)
	}
}

func TestClientNumbersAreSequential(t *testing.T) {
	env := apitest.New(t)
	for i, want := range []int{1001, 1002, 1003} {
		_, n := env.NewClient(t, fmt.Sprintf("Client %d", i))
		if n != want {
			t.Fatalf("client %d got number %d, want %d", i, n, want)
		}
	}
}

func TestClientNumbersAreUniqueUnderConcurrency(t *testing.T) {
	env := apitest.New(t)
	const n = 8
	numbers := make(chan int, n)
	errs := make(chan string, n)
	for i := range n {
		go func() {
			r := createClient(t, env.Admin(), apitest.ClientInput(fmt.Sprintf("Concurrent %d", i)))
			if r.Status != http.StatusOK {
				errs <- r.String()
				numbers <- 0
				return
			}
			var out struct{ CreateClient struct{ ClientNumber int } }
			r.OK(t, &out)
			numbers <- out.CreateClient.ClientNumber
		}()
	}
	seen := map[int]bool{}
	for range n {
		num := <-numbers
		if seen[num] {
			t.Errorf("client number %d handed out twice", num)
		}
		seen[num] = true
	}
	close(errs)
	for e := range errs {
		t.Errorf("concurrent createClient failed: %s", e)
	}
	for want := 1001; want < 1001+n; want++ {
		if !seen[want] {
			t.Errorf("client number %d missing: numbers are not sequential: %v", want, seen)
		}
	}
}

var clientFields = []string{"name", "organizationNumber", "adress1", "address2", "zipCode", "city",
	"countryCode", "bankNumber", "email", "contactName", "contactEmail", "contactPhone"}

func TestClientInputRequiresEveryField(t *testing.T) {
	env := apitest.New(t)
	for _, f := range clientFields {
		t.Run(f+" blank", func(t *testing.T) {
			createClient(t, env.Admin(), apitest.ClientInput("Blank", apitest.Vars{f: " \t "})).
				Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input."+f)
		})
		t.Run(f+" missing", func(t *testing.T) {
			in := apitest.ClientInput("Missing")
			delete(in, f)
			r := createClient(t, env.Admin(), in)
			r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
			if !strings.Contains(string(r.Body), f) {
				t.Errorf("the error does not name %s: %s", f, r.Body)
			}
		})
		t.Run(f+" too long", func(t *testing.T) {
			createClient(t, env.Admin(), apitest.ClientInput("Long", apitest.Vars{f: strings.Repeat("x", 256)})).
				Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input."+f)
		})
	}
	assertClientCount(t, env, 0)
}

func TestClientInputRules(t *testing.T) {
	env := apitest.New(t)
	cases := []struct {
		name  string
		over  apitest.Vars
		field string // "" when valid
	}{
		{"country lower case is accepted", apitest.Vars{"countryCode": "se"}, ""},
		{"unknown country", apitest.Vars{"countryCode": "XX"}, "input.countryCode"},
		{"UK is not ISO 3166-1", apitest.Vars{"countryCode": "UK"}, "input.countryCode"},
		{"alpha-3 country", apitest.Vars{"countryCode": "SWE"}, "input.countryCode"},
		{"user-assigned XK", apitest.Vars{"countryCode": "XK"}, "input.countryCode"},
		{"e-mail without @", apitest.Vars{"email": "faktura.example.se"}, "input.email"},
		{"e-mail with display name", apitest.Vars{"email": "Faktura <f@example.se>"}, "input.email"},
		{"contact e-mail without domain dot", apitest.Vars{"contactEmail": "anna@example"}, "input.contactEmail"},
		{"SE organisation number with wrong check digit", apitest.Vars{"organizationNumber": "556036-0794"}, "input.organizationNumber"},
		{"SE organisation number that is a personnummer", apitest.Vars{"organizationNumber": apitest.Personnr}, "input.organizationNumber"},
		{"SE organisation number of 12 digits", apitest.Vars{"organizationNumber": "16556036-0793"}, ""},
		{"SE Bankgiro with wrong check digit", apitest.Vars{"bankNumber": "5050-1056"}, "input.bankNumber"},
		{"SE bank number of 9 digits", apitest.Vars{"bankNumber": "123456789"}, "input.bankNumber"},
		{"SE Plusgiro", apitest.Vars{"bankNumber": apitest.Plusgiro}, ""},
		{"SE Bankgiro 7 digits", apitest.Vars{"bankNumber": "123-4566"}, ""},
		{"foreign client: numbers are not Swedish", apitest.Vars{"countryCode": "NO", "organizationNumber": "923 609 016", "bankNumber": "1234.56.78903"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := createClient(t, env.Admin(), apitest.ClientInput("Rules "+tc.name, tc.over))
			if tc.field == "" {
				r.OK(t, nil)
				return
			}
			r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", tc.field)
		})
	}
}

func TestClientInputReportsEveryBrokenField(t *testing.T) {
	env := apitest.New(t)
	r := createClient(t, env.Admin(), apitest.ClientInput("", apitest.Vars{"email": "nope", "countryCode": "ZZ"}))
	r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.name")
	r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.email")
	r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.countryCode")
}

func TestCreateClientNeedsAdmin(t *testing.T) {
	env := apitest.New(t)
	_, c := env.ClientCaller(t, "Own")
	createClient(t, c, apitest.ClientInput("Sneaky")).Refused(t, http.StatusForbidden, "FORBIDDEN", "")
	assertClientCount(t, env, 1)
}

func TestUpdateClient(t *testing.T) {
	env := apitest.New(t)
	var created clientOut
	createClient(t, env.Admin(), apitest.ClientInput("Before")).Field(t, "createClient", &created)
	env.Clock.Set(time.Now().Add(time.Second)) // updatedAt comes from the database clock, not this; see below

	const update = `mutation($id: UUID!, $input: ClientInput!) {
	  updateClient(id: $id, input: $input) { id clientNumber name city countryCode email createdAt updatedAt }
	}`
	var updated clientOut
	env.Admin().Do(t, update, apitest.Vars{"id": created.ID, "input": apitest.ClientInput("After", apitest.Vars{"city": "Göteborg", "countryCode": "dk", "email": "ny@example.dk"})}).
		Field(t, "updateClient", &updated)
	if updated.ID != created.ID || updated.ClientNumber != created.ClientNumber || updated.Name != "After" ||
		updated.City != "Göteborg" || updated.CountryCode != "DK" || updated.Email != "ny@example.dk" {
		t.Errorf("updateClient returned %+v", updated)
	}
	if updated.CreatedAt != created.CreatedAt {
		t.Errorf("createdAt changed from %s to %s", created.CreatedAt, updated.CreatedAt)
	}
	if updated.UpdatedAt <= created.UpdatedAt {
		t.Errorf("updatedAt %s is not after %s", updated.UpdatedAt, created.UpdatedAt)
	}

	t.Run("invalid input changes nothing", func(t *testing.T) {
		env.Admin().Do(t, update, apitest.Vars{"id": created.ID, "input": apitest.ClientInput("", apitest.Vars{"city": "Malmö"})}).
			Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.name")
		var again clientOut
		env.Admin().Do(t, `query($id: UUID!) { client(id: $id) { name city } }`, apitest.Vars{"id": created.ID}).Field(t, "client", &again)
		if again.Name != "After" || again.City != "Göteborg" {
			t.Errorf("a refused update changed the client: %+v", again)
		}
	})
	t.Run("unknown id is NOT_FOUND", func(t *testing.T) {
		env.Admin().Do(t, update, apitest.Vars{"id": "6f1c0a47-1f7e-4bd4-9a53-000000000000", "input": apitest.ClientInput("X")}).
			Refused(t, http.StatusNotFound, "NOT_FOUND", "")
	})
	t.Run("a bad id is BAD_USER_INPUT", func(t *testing.T) {
		env.Admin().Do(t, update, apitest.Vars{"id": "not-a-uuid", "input": apitest.ClientInput("X")}).
			Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "id")
	})
}

func TestClientKeysAndTheirOwnClient(t *testing.T) {
	env := apitest.New(t)
	ownID, own := env.ClientCaller(t, "Own")
	otherID, _ := env.NewClient(t, "Other")
	const update = `mutation($id: UUID!, $input: ClientInput!) { updateClient(id: $id, input: $input) { id name } }`
	const read = `query($id: UUID!) { client(id: $id) { id name } }`

	own.Do(t, update, apitest.Vars{"id": ownID, "input": apitest.ClientInput("Own renamed")}).OK(t, nil)
	var got clientOut
	own.Do(t, read, apitest.Vars{"id": ownID}).Field(t, "client", &got)
	if got.Name != "Own renamed" {
		t.Errorf("a CLIENT key reading its client got %+v", got)
	}
	// Another client, existing or not, is FORBIDDEN: existence never leaks.
	for _, id := range []string{otherID, "6f1c0a47-1f7e-4bd4-9a53-000000000000"} {
		own.Do(t, update, apitest.Vars{"id": id, "input": apitest.ClientInput("Hijack")}).Refused(t, http.StatusForbidden, "FORBIDDEN", "")
		own.Do(t, read, apitest.Vars{"id": id}).Refused(t, http.StatusForbidden, "FORBIDDEN", "")
	}
	var other clientOut
	env.Admin().Do(t, read, apitest.Vars{"id": otherID}).Field(t, "client", &other)
	if other.Name != "Other" {
		t.Errorf("the other client was changed: %+v", other)
	}
	own.Do(t, `{ clients { totalCount } }`, nil).Refused(t, http.StatusForbidden, "FORBIDDEN", "")
}

func TestClientLookupOfUnknownIDIsNull(t *testing.T) {
	env := apitest.New(t)
	r := env.Admin().Do(t, `{ client(id: "6f1c0a47-1f7e-4bd4-9a53-000000000000") { id } }`, nil)
	r.OK(t, nil)
	if string(r.Data) != `{"client":null}` {
		t.Errorf("got %s, want client null", r.Data)
	}
}

type clientPage struct {
	TotalCount int
	Nodes      []struct {
		ID           string
		Name         string
		ClientNumber int
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

const clientsQuery = `query($search: String, $page: Int, $rowsPerPage: Int, $first: Int, $after: String, $last: Int, $before: String) {
  clients(search: $search, page: $page, rowsPerPage: $rowsPerPage, first: $first, after: $after, last: $last, before: $before) {
    totalCount nodes { id name clientNumber } edges { cursor node { id } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}`

func clients(t *testing.T, env *apitest.Env, vars apitest.Vars) clientPage {
	t.Helper()
	var p clientPage
	env.Admin().Do(t, clientsQuery, vars).Field(t, "clients", &p)
	return p
}

func assertClientCount(t *testing.T, env *apitest.Env, want int) {
	t.Helper()
	if got := clients(t, env, nil).TotalCount; got != want {
		t.Errorf("there are %d clients, want %d", got, want)
	}
}

func TestClientsPaging(t *testing.T) {
	env := apitest.New(t)
	var ids []string // in creation order
	for i := range 7 {
		id, _ := env.NewClient(t, fmt.Sprintf("Paged %d", i))
		ids = append(ids, id)
	}
	newestFirst := make([]string, len(ids))
	for i, id := range ids {
		newestFirst[len(ids)-1-i] = id
	}

	t.Run("default is page 1 of 25, newest first", func(t *testing.T) {
		p := clients(t, env, nil)
		if p.TotalCount != 7 || len(p.Nodes) != 7 || p.PageInfo.HasNextPage || p.PageInfo.HasPreviousPage {
			t.Fatalf("got %+v", p)
		}
		for i, n := range p.Nodes {
			if n.ID != newestFirst[i] || p.Edges[i].Node.ID != n.ID {
				t.Fatalf("row %d is %s, want %s", i, n.ID, newestFirst[i])
			}
		}
	})
	t.Run("edges with cursors only, no node", func(t *testing.T) {
		// A connection that selects only edges { cursor } still has its
		// edges: a frontend may ask for cursors alone to page on.
		var page struct {
			Edges []struct{ Cursor string }
		}
		env.Admin().Do(t, `{ clients(first: 3) { edges { cursor } } }`, nil).Field(t, "clients", &page)
		if len(page.Edges) != 3 || page.Edges[0].Cursor == "" {
			t.Fatalf("edges = %+v, want 3 with cursors", page.Edges)
		}
		var next struct {
			Nodes []struct{ ID string }
		}
		env.Admin().Do(t, `query($a: String) { clients(first: 1, after: $a) { nodes { id } } }`,
			apitest.Vars{"a": page.Edges[2].Cursor}).Field(t, "clients", &next)
		if len(next.Nodes) != 1 || next.Nodes[0].ID != newestFirst[3] {
			t.Fatalf("after the third cursor: %+v, want %s", next.Nodes, newestFirst[3])
		}
	})
	t.Run("pages by number", func(t *testing.T) {
		var seen []string
		for page := 1; page <= 3; page++ {
			p := clients(t, env, apitest.Vars{"page": page, "rowsPerPage": 3})
			if p.TotalCount != 7 {
				t.Fatalf("totalCount %d", p.TotalCount)
			}
			if p.PageInfo.HasPreviousPage != (page > 1) || p.PageInfo.HasNextPage != (page < 3) {
				t.Errorf("page %d pageInfo %+v", page, p.PageInfo)
			}
			for _, n := range p.Nodes {
				seen = append(seen, n.ID)
			}
		}
		if strings.Join(seen, ",") != strings.Join(newestFirst, ",") {
			t.Errorf("pages gave %v, want %v", seen, newestFirst)
		}
		if p := clients(t, env, apitest.Vars{"page": 9, "rowsPerPage": 3}); len(p.Nodes) != 0 || p.TotalCount != 7 {
			t.Errorf("a page past the end should be empty with the total, got %+v", p)
		}
	})
	t.Run("pages by cursor forwards and backwards", func(t *testing.T) {
		var seen []string
		vars := apitest.Vars{"first": 2}
		for {
			p := clients(t, env, vars)
			for _, n := range p.Nodes {
				seen = append(seen, n.ID)
			}
			if !p.PageInfo.HasNextPage {
				break
			}
			vars = apitest.Vars{"first": 2, "after": *p.PageInfo.EndCursor}
		}
		if strings.Join(seen, ",") != strings.Join(newestFirst, ",") {
			t.Fatalf("forward cursors gave %v, want %v", seen, newestFirst)
		}
		var back []string
		vars = apitest.Vars{"last": 3}
		for {
			p := clients(t, env, vars)
			var page []string
			for _, n := range p.Nodes {
				page = append(page, n.ID)
			}
			back = append(page, back...)
			if !p.PageInfo.HasPreviousPage {
				break
			}
			vars = apitest.Vars{"last": 3, "before": *p.PageInfo.StartCursor}
		}
		if strings.Join(back, ",") != strings.Join(newestFirst, ",") {
			t.Fatalf("backward cursors gave %v, want %v", back, newestFirst)
		}
	})
	t.Run("refused paging", func(t *testing.T) {
		for _, tc := range []struct {
			vars  apitest.Vars
			field string
		}{
			{apitest.Vars{"page": 0}, "page"},
			{apitest.Vars{"page": -1}, "page"},
			{apitest.Vars{"rowsPerPage": 0}, "rowsPerPage"},
			{apitest.Vars{"rowsPerPage": 101}, "rowsPerPage"},
			{apitest.Vars{"page": 1, "first": 2}, "page"},
			{apitest.Vars{"rowsPerPage": 5, "after": "x"}, "rowsPerPage"},
			{apitest.Vars{"first": 0}, "first"},
			{apitest.Vars{"first": 101}, "first"},
			{apitest.Vars{"last": 0}, "last"},
			{apitest.Vars{"first": 1, "last": 1}, "last"},
			{apitest.Vars{"first": 1, "after": "not a cursor"}, "after"},
			{apitest.Vars{"last": 1, "before": "bm90IGEgY3Vyc29y"}, "before"},
		} {
			env.Admin().Do(t, clientsQuery, tc.vars).Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", tc.field)
		}
	})
}

func TestClientsSearch(t *testing.T) {
	env := apitest.New(t)
	_, acmeNo := env.NewClient(t, "Acme Inkasso AB")
	env.Admin().Do(t, apitest.CreateClientMutation, apitest.Vars{"input": apitest.ClientInput("Bolaget i Norr", apitest.Vars{"organizationNumber": "212000-0142"})}).OK(t, nil)
	for _, tc := range []struct {
		search string
		want   []string
	}{
		{"acme", []string{"Acme Inkasso AB"}},
		{"INKASSO", []string{"Acme Inkasso AB"}},
		{"  ", []string{"Bolaget i Norr", "Acme Inkasso AB"}},
		{"2120000142", []string{"Bolaget i Norr"}},
		{"212000-0142", []string{"Bolaget i Norr"}},
		{"0360", []string{"Acme Inkasso AB"}},
		{fmt.Sprint(acmeNo), []string{"Acme Inkasso AB"}},
		{"no such client", nil},
		{"%", nil},
		{"_", nil},
	} {
		p := clients(t, env, apitest.Vars{"search": tc.search})
		var got []string
		for _, n := range p.Nodes {
			got = append(got, n.Name)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") || p.TotalCount != len(tc.want) {
			t.Errorf("search %q found %v (total %d), want %v", tc.search, got, p.TotalCount, tc.want)
		}
	}
}
