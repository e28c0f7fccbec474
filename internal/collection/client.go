package collection

// CountrySweden is the country whose identifiers DebtQL verifies.
const CountrySweden = "SE"

// ClientRecord is a client's record as the interface description has it
// (the payload of "Add a client" and "Update a client"), spelled so:
// adress1 is the description's spelling.
type ClientRecord struct {
	Name               string `json:"name"`
	OrganizationNumber string `json:"organizationNumber"`
	Adress1            string `json:"adress1"`
	Address2           string `json:"address2"`
	ZipCode            string `json:"zipCode"`
	City               string `json:"city"`
	CountryCode        string `json:"countryCode"`
	BankNumber         string `json:"bankNumber"`
	Email              string `json:"email"`
	ContactName        string `json:"contactName"`
	ContactEmail       string `json:"contactEmail"`
	ContactPhone       string `json:"contactPhone"`
}

// Normalize trims every field and upper-cases the country code, and checks
// the rules of api.md §5: all twelve fields required and non-blank, at most
// 255 characters, an official country code, e-mail addresses, and for a
// Swedish client a valid organisation number and Bankgiro or Plusgiro
// number. Errors name the fields as the input does ("countryCode").
func (r *ClientRecord) Normalize() error {
	var c fieldCheck
	valid := map[string]bool{}
	for _, f := range []struct {
		name  string
		value *string
	}{
		{"name", &r.Name},
		{"organizationNumber", &r.OrganizationNumber},
		{"adress1", &r.Adress1},
		{"address2", &r.Address2},
		{"zipCode", &r.ZipCode},
		{"city", &r.City},
		{"countryCode", &r.CountryCode},
		{"bankNumber", &r.BankNumber},
		{"email", &r.Email},
		{"contactName", &r.ContactName},
		{"contactEmail", &r.ContactEmail},
		{"contactPhone", &r.ContactPhone},
	} {
		valid[f.name] = c.required(f.name, f.value, MaxStringLength)
	}
	// Format rules apply to fields that passed the required and length
	// rules, so that each broken field is reported once.
	if valid["countryCode"] {
		c.country("countryCode", &r.CountryCode)
	}
	if valid["email"] {
		c.email("email", r.Email)
	}
	if valid["contactEmail"] {
		c.email("contactEmail", r.ContactEmail)
	}
	if r.CountryCode == CountrySweden {
		if valid["organizationNumber"] {
			c.rule("organizationNumber", ValidateOrganisationsnummer(r.OrganizationNumber))
		}
		if valid["bankNumber"] {
			c.rule("bankNumber", ValidateBankNumber(r.BankNumber))
		}
	}
	return c.err()
}
