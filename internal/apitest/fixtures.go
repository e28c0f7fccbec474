package apitest

import (
	"encoding/json"
	"testing"
)

// Valid Swedish numbers for fixtures (check digits verified by the
// collection package's tests).
const (
	OrgNumber  = "556036-0793"
	Bankgiro   = "5050-1055"
	Plusgiro   = "4099 53"
	Personnr   = "811228-9874"
	Samordning = "701063-2391"
)

// ClientInput returns a valid Swedish ClientInput named name, with the
// fields of over replacing the defaults.
func ClientInput(name string, over ...Vars) Vars {
	in := Vars{
		"name":               name,
		"organizationNumber": OrgNumber,
		"adress1":            "Storgatan 1",
		"address2":           "Box 12",
		"zipCode":            "111 22",
		"city":               "Stockholm",
		"countryCode":        "SE",
		"bankNumber":         Bankgiro,
		"email":              "faktura@example.se",
		"contactName":        "Anna Andersson",
		"contactEmail":       "anna@example.se",
		"contactPhone":       "+46 8 123 456",
	}
	for _, o := range over {
		for k, v := range o {
			in[k] = v
		}
	}
	return in
}

// CreateClientMutation creates a client and returns its fields.
const CreateClientMutation = `mutation($input: ClientInput!) {
  createClient(input: $input) {
    id clientNumber name organizationNumber adress1 address2 zipCode city
    countryCode bankNumber email contactName contactEmail contactPhone
    createdAt updatedAt
  }
}`

// NewClient creates a client through the API and returns its id and number.
func (e *Env) NewClient(t testing.TB, name string) (id string, number int) {
	t.Helper()
	var out struct {
		CreateClient struct {
			ID           string
			ClientNumber int
		}
	}
	e.Admin().Do(t, CreateClientMutation, Vars{"input": ClientInput(name)}).OK(t, &out)
	return out.CreateClient.ID, out.CreateClient.ClientNumber
}

// NewKey creates an API key through the API and returns its id and secret.
// clientID is "" for an ADMIN key.
func (e *Env) NewKey(t testing.TB, role, clientID string) (id, secret string) {
	t.Helper()
	in := Vars{"name": role + " key", "role": role}
	if clientID != "" {
		in["clientId"] = clientID
	}
	var out struct {
		CreateApiKey struct {
			Secret string
			ApiKey struct{ ID string }
		}
	}
	e.Admin().Do(t, `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret apiKey { id } } }`,
		Vars{"input": in}).OK(t, &out)
	return out.CreateApiKey.ApiKey.ID, out.CreateApiKey.Secret
}

// ClientCaller creates a client and a CLIENT key for it, and returns the
// client's id and a caller with that key.
func (e *Env) ClientCaller(t testing.TB, name string) (clientID string, c *Caller) {
	t.Helper()
	clientID, _ = e.NewClient(t, name)
	_, secret := e.NewKey(t, "CLIENT", clientID)
	return clientID, e.As(secret)
}

// Field decodes one field of the response's data.
func (r *Response) Field(t testing.TB, name string, v any) {
	t.Helper()
	var m map[string]json.RawMessage
	r.OK(t, &m)
	if err := json.Unmarshal(m[name], v); err != nil {
		t.Fatalf("decoding %s: %v\n%s", name, err, r.Body)
	}
}
