package collection

// AddressRecord is a postal address (the description's Address object).
type AddressRecord struct {
	Address1    string  `json:"address1"`
	Address2    *string `json:"address2,omitempty"`
	CareOf      *string `json:"careOf,omitempty"`
	ZipCode     string  `json:"zipCode"`
	City        string  `json:"city"`
	CountryCode string  `json:"countryCode"`
}

// ContactRecord is a debtor's contact information.
type ContactRecord struct {
	Email *string `json:"email,omitempty"`
	Phone *string `json:"phone,omitempty"`
}

// DebtorRecord is a debtor as the payload of "Add a debtor" and "Update a
// debtor" has it.
type DebtorRecord struct {
	IsCorporation        bool           `json:"isCorporation"`
	IdentificationNumber string         `json:"identificationNumber"`
	Name                 string         `json:"name"`
	Address              AddressRecord  `json:"address"`
	ContactInformation   *ContactRecord `json:"contactInformation,omitempty"`
}

// Normalize trims the record (a blank optional field becomes unset) and
// checks the rules of api.md §5: required fields non-blank, at most 255
// characters, an official country code, an e-mail address when one is
// given, and for a Swedish address the identification number's check digit:
// a personnummer or samordningsnummer for a private debtor, an organisation
// number or (sole trader) personnummer for a corporation.
func (r *DebtorRecord) Normalize() error {
	var c fieldCheck
	r.check(&c, "")
	return c.err()
}

func (r *DebtorRecord) check(c *fieldCheck, prefix string) {
	numberOK := c.required(prefix+"identificationNumber", &r.IdentificationNumber, MaxStringLength)
	c.required(prefix+"name", &r.Name, MaxStringLength)
	r.Address.check(c, prefix+"address.")
	if ci := r.ContactInformation; ci != nil {
		ci.check(c, prefix+"contactInformation.")
		if ci.Email == nil && ci.Phone == nil {
			r.ContactInformation = nil
		}
	}
	if r.Address.CountryCode == CountrySweden && numberOK {
		if r.IsCorporation {
			c.rule(prefix+"identificationNumber", ValidateCorporateIdentity(r.IdentificationNumber))
		} else {
			c.rule(prefix+"identificationNumber", ValidatePersonalIdentity(r.IdentificationNumber))
		}
	}
}

func (a *AddressRecord) check(c *fieldCheck, prefix string) {
	c.required(prefix+"address1", &a.Address1, MaxStringLength)
	c.optional(prefix+"address2", &a.Address2, MaxStringLength)
	c.optional(prefix+"careOf", &a.CareOf, MaxStringLength)
	c.required(prefix+"zipCode", &a.ZipCode, MaxStringLength)
	c.required(prefix+"city", &a.City, MaxStringLength)
	if c.required(prefix+"countryCode", &a.CountryCode, MaxStringLength) {
		c.country(prefix+"countryCode", &a.CountryCode)
	}
}

func (ci *ContactRecord) check(c *fieldCheck, prefix string) {
	if c.optional(prefix+"email", &ci.Email, MaxStringLength) && ci.Email != nil {
		c.email(prefix+"email", *ci.Email)
	}
	c.optional(prefix+"phone", &ci.Phone, MaxStringLength)
}
