package server_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/debtql/debtql/internal/apitest"
)

// An unknown field of an input object names the known field the caller most
// likely meant, in a literal (gqlparser's validation) and in variables
// (gqlparser's coercion) alike; code and extensions stay as they were.
func TestUnknownInputFieldSuggestions(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin()

	t.Run("literal", func(t *testing.T) {
		r := admin.Do(t, `mutation { createClient(input: {name: "Acme AB", organizationNumber: "556036-0793", address1: "Storgatan 1",
			address2: "Box 12", zipCode: "111 22", city: "Stockholm", countryCode: "SE", bankNumber: "5050-1055",
			email: "faktura@acme.se", contactName: "Anna", contactEmail: "anna@acme.se", contactPhone: "+46 8 123 456"}) { id } }`, nil)
		r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
		want := `Field "address1" is not defined by type "ClientInput". Did you mean "adress1"?`
		if !hasMessage(r, want) {
			t.Errorf("want the message %q, got %s", want, r.Body)
		}
	})

	input := apitest.ClientInput("Acme AB")
	input["address1"] = input["adress1"]
	delete(input, "adress1")
	for name, c := range map[string]struct {
		query   string
		vars    apitest.Vars
		field   string
		message string
	}{
		"variables": {
			apitest.CreateClientMutation, apitest.Vars{"input": input}, "input.address1",
			`unknown field "address1" of ClientInput; did you mean "adress1"?`,
		},
		"nested, the other way round": {
			`mutation($c: UUID!, $in: DebtorInput!) { createDebtor(clientId: $c, input: $in) { id } }`,
			apitest.Vars{"c": "6f1c0a47-1f7e-4bd4-9a53-000000000000", "in": json.RawMessage(`{"isCorporation": false,
				"identificationNumber": "811228-9874", "name": "Sven", "address": {"adress1": "Vägen 2", "zipCode": "123 45",
				"city": "Malmö", "countryCode": "SE"}}`)},
			"in.address.adress1",
			`unknown field "adress1" of AddressInput; did you mean "address1"?`,
		},
		"in a list, another case": {
			`mutation($c: UUID!, $in: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $in) { id } }`,
			apitest.Vars{"c": "6f1c0a47-1f7e-4bd4-9a53-000000000000", "in": json.RawMessage(`{"isCorporation": false,
				"identificationNumber": "811228-9874", "name": "Sven", "address": {"address1": "Vägen 2", "zipCode": "123 45",
				"city": "Malmö", "countryCode": "SE"}, "debts": [{"invoiceNumber": "F-1", "invoiceDate": "2026-09-01T00:00:00Z",
				"dueDate": "2026-10-01T00:00:00Z", "Amount": "10.00"}]}`)},
			"in.debts.0.Amount",
			`unknown field "Amount" of DebtItemInput; did you mean "amount"?`,
		},
		"a prefix": {
			apitest.CreateClientMutation, apitest.Vars{"input": apitest.ClientInput("Acme AB", apitest.Vars{"contact": "Anna"})},
			"input.contact",
			`unknown field "contact" of ClientInput; did you mean "contactName", "contactEmail" or "contactPhone"?`,
		},
		"nothing close": {
			apitest.CreateClientMutation, apitest.Vars{"input": apitest.ClientInput("Acme AB", apitest.Vars{"vatNumber": "SE556036079301"})},
			"input.vatNumber",
			`unknown field "vatNumber" of ClientInput`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			r := admin.Do(t, c.query, c.vars)
			r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", c.field)
			if !hasMessage(r, c.message) {
				t.Errorf("want the message %q, got %s", c.message, r.Body)
			}
		})
	}
}

func hasMessage(r *apitest.Response, message string) bool {
	for _, e := range r.Errors {
		if e.Message == message {
			return true
		}
	}
	return false
}
