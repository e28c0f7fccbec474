package server

import "testing"

func TestDidYouMean(t *testing.T) {
	client := inputFieldNames(apiSchema.Types["ClientInput"])
	if len(client) == 0 {
		t.Fatal("no ClientInput in the schema")
	}
	for typed, want := range map[string]string{
		"address1":           `did you mean "adress1"?`, // not address2: numbered siblings are no typo
		"Adress1":            `did you mean "adress1"?`,
		"address":            `did you mean "address2" or "adress1"?`,
		"adress":             `did you mean "adress1" or "address2"?`,
		"nmae":               `did you mean "name"?`, // a swap is one edit
		"zip":                `did you mean "zipCode"?`,
		"organisationNumber": `did you mean "organizationNumber"?`,
		"address3":           "",
		"id":                 "",
		"phone":              "",
		"bank":               `did you mean "bankNumber"?`,
	} {
		if got := didYouMean(typed, client); got != want {
			t.Errorf("%s: got %q, want %q", typed, got, want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "abc", 0}, {"abc", "acb", 1}, {"abc", "ab", 1}, {"kitten", "sitting", 3},
		{"address1", "adress1", 1}, {"address1", "address2", 1}, {"malmö", "malmo", 1},
	} {
		if got := editDistance(c.a, c.b); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
