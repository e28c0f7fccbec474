package collection_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// The tests of this file pin the input rules of api.md §5 as the records'
// Normalize methods apply them.

// inputErrorFields returns the sorted field paths of err, which must be nil
// or an apierr.List of BAD_USER_INPUT errors, each with a field and a
// message.
func inputErrorFields(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var list apierr.List
	if !errors.As(err, &list) {
		t.Fatalf("error %q is a %T, not an apierr.List", err, err)
	}
	if len(list) == 0 {
		t.Fatalf("an empty apierr.List was returned as an error")
	}
	fields := make([]string, 0, len(list))
	for _, e := range list {
		if e.Code != apierr.BadUserInput {
			t.Errorf("error %q has code %s, want %s", e, e.Code, apierr.BadUserInput)
		}
		if e.Field == "" || strings.TrimSpace(e.Message) == "" {
			t.Errorf("error %+v lacks a field or a message", *e)
		}
		fields = append(fields, e.Field)
	}
	if apierr.CodeOf(err) != apierr.BadUserInput {
		t.Errorf("CodeOf(%q) = %s", err, apierr.CodeOf(err))
	}
	slices.Sort(fields)
	return fields
}

// checkFields compares the fields err names with want (any order).
func checkFields(t *testing.T, err error, want ...string) {
	t.Helper()
	got := inputErrorFields(t, err)
	want = slices.Clone(want)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("error fields = %q, want %q (error: %v)", got, want, err)
	}
}

func strp(s string) *string { return &s }

func strOrNil(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return "\"" + *p + "\""
}

// validDebtor is a Swedish private debtor that passes, with padding that
// Normalize trims.
func validDebtor() collection.DebtorRecord {
	return collection.DebtorRecord{
		IdentificationNumber: " 811228-9874 ",
		Name:                 "  Anna Andersson ",
		Address: collection.AddressRecord{
			Address1:    " Storgatan 1 ",
			Address2:    strp(" lgh 1102 "),
			CareOf:      strp(" Bo Berg\t"),
			ZipCode:     " 111 22 ",
			City:        " Stockholm ",
			CountryCode: " se ",
		},
		ContactInformation: &collection.ContactRecord{Email: strp(" anna@example.se "), Phone: strp(" 070-123 45 67 ")},
	}
}

func TestDebtorRecordNormalizeTrims(t *testing.T) {
	r := validDebtor()
	if err := r.Normalize(); err != nil {
		t.Fatalf("Normalize() = %v", err)
	}
	want := collection.DebtorRecord{
		IdentificationNumber: "811228-9874", // stored as given, trimmed
		Name:                 "Anna Andersson",
		Address: collection.AddressRecord{
			Address1: "Storgatan 1", Address2: strp("lgh 1102"), CareOf: strp("Bo Berg"),
			ZipCode: "111 22", City: "Stockholm", CountryCode: "SE",
		},
		ContactInformation: &collection.ContactRecord{Email: strp("anna@example.se"), Phone: strp("070-123 45 67")},
	}
	if r.IdentificationNumber != want.IdentificationNumber || r.Name != want.Name || r.IsCorporation {
		t.Errorf("got %q, %q, corporation %v", r.IdentificationNumber, r.Name, r.IsCorporation)
	}
	a, w := r.Address, want.Address
	if a.Address1 != w.Address1 || strOrNil(a.Address2) != strOrNil(w.Address2) || strOrNil(a.CareOf) != strOrNil(w.CareOf) ||
		a.ZipCode != w.ZipCode || a.City != w.City || a.CountryCode != w.CountryCode {
		t.Errorf("address = %q %s %s %q %q %q", a.Address1, strOrNil(a.Address2), strOrNil(a.CareOf), a.ZipCode, a.City, a.CountryCode)
	}
	if c := r.ContactInformation; c == nil || strOrNil(c.Email) != strOrNil(want.ContactInformation.Email) ||
		strOrNil(c.Phone) != strOrNil(want.ContactInformation.Phone) {
		t.Errorf("contactInformation = %+v", c)
	}
}

func TestDebtorRecordNormalizeOptional(t *testing.T) {
	tests := []struct {
		name             string
		edit             func(r *collection.DebtorRecord)
		address2, careOf string // strOrNil form
		contact          bool   // contactInformation kept
		email, phone     string // strOrNil form, when kept
	}{
		{
			name: "blank optionals become unset",
			edit: func(r *collection.DebtorRecord) {
				r.Address.Address2, r.Address.CareOf = strp("   "), strp("")
				r.ContactInformation = &collection.ContactRecord{Email: strp(" "), Phone: strp("\t")}
			},
			address2: "<nil>", careOf: "<nil>", contact: false,
		},
		{
			name: "omitted optionals stay unset",
			edit: func(r *collection.DebtorRecord) {
				r.Address.Address2, r.Address.CareOf = nil, nil
				r.ContactInformation = nil
			},
			address2: "<nil>", careOf: "<nil>", contact: false,
		},
		{
			name:     "contact information with nothing in it becomes unset",
			edit:     func(r *collection.DebtorRecord) { r.ContactInformation = &collection.ContactRecord{} },
			address2: `"lgh 1102"`, careOf: `"Bo Berg"`, contact: false,
		},
		{
			name: "blank e-mail, phone kept",
			edit: func(r *collection.DebtorRecord) {
				r.ContactInformation = &collection.ContactRecord{Email: strp(""), Phone: strp(" 08-123 ")}
			},
			address2: `"lgh 1102"`, careOf: `"Bo Berg"`, contact: true, email: "<nil>", phone: `"08-123"`,
		},
		{
			name: "e-mail kept, blank phone",
			edit: func(r *collection.DebtorRecord) {
				r.ContactInformation = &collection.ContactRecord{Email: strp("a@b.se"), Phone: strp(" ")}
			},
			address2: `"lgh 1102"`, careOf: `"Bo Berg"`, contact: true, email: `"a@b.se"`, phone: "<nil>",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validDebtor()
			tt.edit(&r)
			if err := r.Normalize(); err != nil {
				t.Fatalf("Normalize() = %v", err)
			}
			if got := strOrNil(r.Address.Address2); got != tt.address2 {
				t.Errorf("address2 = %s, want %s", got, tt.address2)
			}
			if got := strOrNil(r.Address.CareOf); got != tt.careOf {
				t.Errorf("careOf = %s, want %s", got, tt.careOf)
			}
			c := r.ContactInformation
			if (c != nil) != tt.contact {
				t.Fatalf("contactInformation = %+v, want set: %v", c, tt.contact)
			}
			if c != nil && (strOrNil(c.Email) != tt.email || strOrNil(c.Phone) != tt.phone) {
				t.Errorf("contactInformation = {%s %s}, want {%s %s}", strOrNil(c.Email), strOrNil(c.Phone), tt.email, tt.phone)
			}
		})
	}
}

func TestDebtorRecordNormalizeErrors(t *testing.T) {
	long := strings.Repeat("x", collection.MaxStringLength+1)
	longest := strings.Repeat("å", collection.MaxStringLength) // characters, not bytes
	tests := []struct {
		name string
		edit func(r *collection.DebtorRecord)
		want []string // nil: valid
	}{
		{"valid", func(r *collection.DebtorRecord) {}, nil},
		{"identificationNumber blank", func(r *collection.DebtorRecord) { r.IdentificationNumber = " " }, []string{"identificationNumber"}},
		{"name blank", func(r *collection.DebtorRecord) { r.Name = "\t\n" }, []string{"name"}},
		{"name empty", func(r *collection.DebtorRecord) { r.Name = "" }, []string{"name"}},
		{"address1 blank", func(r *collection.DebtorRecord) { r.Address.Address1 = "  " }, []string{"address.address1"}},
		{"zipCode blank", func(r *collection.DebtorRecord) { r.Address.ZipCode = "" }, []string{"address.zipCode"}},
		{"city blank", func(r *collection.DebtorRecord) { r.Address.City = " " }, []string{"address.city"}},
		{"countryCode blank", func(r *collection.DebtorRecord) { r.Address.CountryCode = " " }, []string{"address.countryCode"}},
		{"every required field blank", func(r *collection.DebtorRecord) {
			*r = collection.DebtorRecord{Address: collection.AddressRecord{Address1: " ", ZipCode: " ", City: " ", CountryCode: " "}}
		}, []string{"address.address1", "address.city", "address.countryCode", "address.zipCode", "identificationNumber", "name"}},

		{"name of 255 characters", func(r *collection.DebtorRecord) { r.Name = longest }, nil},
		{"name of 256 characters", func(r *collection.DebtorRecord) { r.Name = long }, []string{"name"}},
		{"name of 255 characters and padding", func(r *collection.DebtorRecord) { r.Name = "  " + longest + "  " }, nil},
		{"address1 too long", func(r *collection.DebtorRecord) { r.Address.Address1 = long }, []string{"address.address1"}},
		{"address2 too long", func(r *collection.DebtorRecord) { r.Address.Address2 = &long }, []string{"address.address2"}},
		{"careOf too long", func(r *collection.DebtorRecord) { r.Address.CareOf = &long }, []string{"address.careOf"}},
		{"zipCode too long", func(r *collection.DebtorRecord) { r.Address.ZipCode = long }, []string{"address.zipCode"}},
		{"city too long", func(r *collection.DebtorRecord) { r.Address.City = long }, []string{"address.city"}},
		{"phone too long", func(r *collection.DebtorRecord) { r.ContactInformation.Phone = &long }, []string{"contactInformation.phone"}},
		{"e-mail too long", func(r *collection.DebtorRecord) {
			r.ContactInformation.Email = strp(strings.Repeat("a", 250) + "@b.se")
		}, []string{"contactInformation.email"}},
		{"identificationNumber too long (foreign)", func(r *collection.DebtorRecord) {
			r.Address.CountryCode, r.IdentificationNumber = "NO", long
		}, []string{"identificationNumber"}},

		{"country XX", func(r *collection.DebtorRecord) { r.Address.CountryCode = "XX" }, []string{"address.countryCode"}},
		{"country SWE", func(r *collection.DebtorRecord) { r.Address.CountryCode = "SWE" }, []string{"address.countryCode"}},
		{"country UK", func(r *collection.DebtorRecord) { r.Address.CountryCode = "UK" }, []string{"address.countryCode"}},
		{"bad e-mail", func(r *collection.DebtorRecord) { r.ContactInformation.Email = strp("anna.example.se") }, []string{"contactInformation.email"}},
		{"e-mail with a display name", func(r *collection.DebtorRecord) {
			r.ContactInformation.Email = strp("Anna <anna@example.se>")
		}, []string{"contactInformation.email"}},
		{"bad e-mail without contact phone", func(r *collection.DebtorRecord) {
			r.ContactInformation = &collection.ContactRecord{Email: strp("@")}
		}, []string{"contactInformation.email"}},

		{"several at once", func(r *collection.DebtorRecord) {
			r.Name = ""
			r.IdentificationNumber = "811228-9873"
			r.Address.City = " "
			r.Address.CareOf = &long
			r.ContactInformation.Email = strp("nope")
		}, []string{"address.careOf", "address.city", "contactInformation.email", "identificationNumber", "name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validDebtor()
			tt.edit(&r)
			checkFields(t, r.Normalize(), tt.want...)
		})
	}
}

// TestDebtorRecordIdentity: a debtor with a Swedish address has a valid
// Swedish identification number of its kind; any other a non-blank one.
func TestDebtorRecordIdentity(t *testing.T) {
	tests := []struct {
		country     string
		corporation bool
		id          string
		ok          bool
	}{
		// Private person in Sweden: personnummer or samordningsnummer.
		{"SE", false, "811228-9874", true},
		{"SE", false, "19811228-9874", true},
		{"SE", false, "8112289874", true},
		{"SE", false, "198112289874", true},
		{"SE", false, "811228+9874", true},
		{"SE", false, "811228 9874", true},
		{"SE", false, "701063-2391", true}, // samordningsnummer
		{"SE", false, "19701063-2391", true},
		{"se", false, "811228-9874", true},
		{"SE", false, "811228-9873", false}, // check digit
		{"SE", false, "701063-2392", false},
		{"se", false, "811228-9873", false}, // the country is read after upper-casing
		{"SE", false, "556036-0793", false}, // an organisation number
		{"SE", false, "5560360793", false},
		{"SE", false, "81122-89874", false},
		{"SE", false, "811228987", false},
		{"SE", false, "abc", false},
		// Corporation in Sweden: organisation number or a sole trader's
		// personnummer.
		{"SE", true, "556036-0793", true},
		{"SE", true, "5560360793", true},
		{"SE", true, "16556036-0793", true},
		{"SE", true, "212000-0142", true},
		{"SE", true, "811228-9874", true},
		{"SE", true, "19811228-9874", true},
		{"SE", true, "556036-0794", false},
		{"SE", true, "811228-9873", false},
		{"SE", true, "55603607931", false},
		{"SE", true, "ACME AB", false},
		// Elsewhere: any non-blank number.
		{"NO", false, "556036-0793", true},
		{"NO", false, "811228-9873", true},
		{"NO", false, "01017012345", true},
		{"NO", true, "ACME-123", true},
		{"FI", false, "x", true},
		{"NO", false, " ", false},
		{"NO", true, "", false},
	}
	for _, tt := range tests {
		r := validDebtor()
		r.IsCorporation, r.IdentificationNumber, r.Address.CountryCode = tt.corporation, tt.id, tt.country
		err := r.Normalize()
		var want []string
		if !tt.ok {
			want = []string{"identificationNumber"}
		}
		if got := inputErrorFields(t, err); !slices.Equal(got, want) {
			t.Errorf("country %s, corporation %v, %q: error fields %q, want %q (%v)", tt.country, tt.corporation, tt.id, got, want, err)
		}
		if err == nil && r.IdentificationNumber != strings.TrimSpace(tt.id) {
			t.Errorf("%q stored as %q", tt.id, r.IdentificationNumber)
		}
	}
}

// validInvoice passes Normalize: 1000.00 + 250.00 VAT = 1250.00.
func validInvoice() collection.InvoiceRecord {
	rate := collection.Rate(8 * 10000) // 8 %
	fee := kr(60)
	return collection.InvoiceRecord{
		InvoiceNumber:           " F-1001 ",
		InvoiceDate:             scalar.NewDate(2026, 3, 1),
		DaysUntilExpiration:     30,
		DueDate:                 scalar.NewDate(2026, 3, 31),
		InterestRate:            &rate,
		TotalExcludingVAT:       kr(1000),
		TotalVATAmount:          kr(250),
		TotalAmountIncludingVAT: kr(1250),
		ReminderFee:             &fee,
		Articles: []collection.ArticleRecord{
			{
				Name: " Konsulttimme ", Description: strp(" Mars "),
				PriceExcludingVAT: kr(1000), TotalVATAmount: kr(250), TotalAmountIncludingVAT: kr(1250), TotalAmountExcludingVAT: kr(1000),
				Quantity: collection.Rate(10000), VATPercentage: collection.Rate(25 * 10000),
			},
			{
				Name: "Rabatt", Description: nil, Quantity: collection.Rate(10000), Discount: 0,
			},
		},
	}
}

func TestInvoiceRecordNormalizeTrims(t *testing.T) {
	r := validInvoice()
	r.Articles[1].Description = strp(" \t ")
	if err := r.Normalize(); err != nil {
		t.Fatalf("Normalize() = %v", err)
	}
	if r.InvoiceNumber != "F-1001" {
		t.Errorf("invoiceNumber = %q", r.InvoiceNumber)
	}
	if r.Articles[0].Name != "Konsulttimme" || strOrNil(r.Articles[0].Description) != `"Mars"` {
		t.Errorf("article 0 = %q %s", r.Articles[0].Name, strOrNil(r.Articles[0].Description))
	}
	if r.Articles[1].Description != nil {
		t.Errorf("a blank description is %s, want unset", strOrNil(r.Articles[1].Description))
	}
}

func TestInvoiceRecordNormalize(t *testing.T) {
	rate := func(r collection.Rate) *collection.Rate { return &r }
	money := func(m collection.Money) *collection.Money { return &m }
	date := func(s string) scalar.Date {
		d, err := scalar.ParseDate(s)
		if err != nil {
			panic(err)
		}
		return d
	}
	datep := func(s string) *scalar.Date { d := date(s); return &d }
	totals := func(excl, vat, incl collection.Money) func(r *collection.InvoiceRecord) {
		return func(r *collection.InvoiceRecord) {
			r.TotalExcludingVAT, r.TotalVATAmount, r.TotalAmountIncludingVAT = excl, vat, incl
		}
	}
	type edit = func(r *collection.InvoiceRecord)
	tests := []struct {
		name string
		edit edit
		want []string // nil: valid
	}{
		{"valid", func(r *collection.InvoiceRecord) {}, nil},
		{"optional fields omitted", func(r *collection.InvoiceRecord) { r.InterestRate, r.ReminderDate, r.ReminderFee = nil, nil, nil }, nil},

		{"invoiceNumber blank", func(r *collection.InvoiceRecord) { r.InvoiceNumber = "  " }, []string{"invoiceNumber"}},
		{"invoiceNumber empty", func(r *collection.InvoiceRecord) { r.InvoiceNumber = "" }, []string{"invoiceNumber"}},
		{"invoiceNumber too long", func(r *collection.InvoiceRecord) { r.InvoiceNumber = strings.Repeat("1", 256) }, []string{"invoiceNumber"}},
		{"invoiceNumber of 255", func(r *collection.InvoiceRecord) { r.InvoiceNumber = strings.Repeat("1", 255) }, nil},

		{"dueDate on invoiceDate", func(r *collection.InvoiceRecord) { r.DueDate = r.InvoiceDate }, nil},
		{"dueDate before invoiceDate", func(r *collection.InvoiceRecord) { r.DueDate = date("2026-02-28") }, []string{"dueDate"}},
		{"reminderDate on invoiceDate", func(r *collection.InvoiceRecord) { r.ReminderDate = datep("2026-03-01") }, nil},
		{"reminderDate before dueDate", func(r *collection.InvoiceRecord) { r.ReminderDate = datep("2026-03-15") }, nil},
		{"reminderDate after dueDate", func(r *collection.InvoiceRecord) { r.ReminderDate = datep("2026-04-15") }, nil},
		{"reminderDate before invoiceDate", func(r *collection.InvoiceRecord) { r.ReminderDate = datep("2026-02-28") }, []string{"reminderDate"}},

		{"daysUntilExpiration 0", func(r *collection.InvoiceRecord) { r.DaysUntilExpiration = 0 }, nil},
		{"daysUntilExpiration -1", func(r *collection.InvoiceRecord) { r.DaysUntilExpiration = -1 }, []string{"daysUntilExpiration"}},

		{"totalExcludingVAT negative", totals(-100, kr(1251), kr(1250)), []string{"totalExcludingVAT"}},
		{"totalVATAmount negative", totals(kr(1251), -100, kr(1250)), []string{"totalVATAmount"}},
		{"zero VAT", totals(kr(1250), 0, kr(1250)), nil},
		{"reminderFee 0", func(r *collection.InvoiceRecord) { r.ReminderFee = money(0) }, nil},
		{"reminderFee negative", func(r *collection.InvoiceRecord) { r.ReminderFee = money(-1) }, []string{"reminderFee"}},
		{"totalAmountIncludingVAT 0", totals(0, 0, 0), []string{"totalAmountIncludingVAT"}},
		{"totalAmountIncludingVAT 0, other totals set", totals(kr(1000), kr(250), 0), []string{"totalAmountIncludingVAT"}},
		{"totalAmountIncludingVAT negative", totals(kr(1000), kr(250), -kr(1250)), []string{"totalAmountIncludingVAT"}},
		{"totalAmountIncludingVAT 0.01", totals(0, 0, 1), nil},

		// Totals agree within 1.00 inclusive.
		{"totals exact", totals(kr(1000), kr(250), kr(1250)), nil},
		{"totals 1.00 over", totals(kr(1000), kr(250), kr(1251)), nil},
		{"totals 1.00 under", totals(kr(1000), kr(250), kr(1249)), nil},
		{"totals 1.01 over", totals(kr(1000), kr(250), kr(1251)+1), []string{"totalAmountIncludingVAT"}},
		{"totals 1.01 under", totals(kr(1000), kr(250), kr(1249)-1), []string{"totalAmountIncludingVAT"}},
		{"rounded to whole kronor", totals(99960, 24990, kr(1250)), nil}, // 999.60 + 249.90 = 1249.50
		{"totals far off", totals(kr(1000), kr(250), kr(1000)), []string{"totalAmountIncludingVAT"}},

		{"interestRate 0", func(r *collection.InvoiceRecord) { r.InterestRate = rate(0) }, nil},
		{"interestRate 100", func(r *collection.InvoiceRecord) { r.InterestRate = rate(100 * 10000) }, nil},
		{"interestRate 0.0001", func(r *collection.InvoiceRecord) { r.InterestRate = rate(1) }, nil},
		{"interestRate -0.01", func(r *collection.InvoiceRecord) { r.InterestRate = rate(-100) }, []string{"interestRate"}},
		{"interestRate 100.01", func(r *collection.InvoiceRecord) { r.InterestRate = rate(100*10000 + 100) }, []string{"interestRate"}},
		{"interestRate 100.0001", func(r *collection.InvoiceRecord) { r.InterestRate = rate(100*10000 + 1) }, []string{"interestRate"}},

		{"no articles (nil)", func(r *collection.InvoiceRecord) { r.Articles = nil }, []string{"articles"}},
		{"no articles (empty)", func(r *collection.InvoiceRecord) { r.Articles = []collection.ArticleRecord{} }, []string{"articles"}},
		{"one article", func(r *collection.InvoiceRecord) { r.Articles = r.Articles[:1] }, nil},
		{"second article's name blank", func(r *collection.InvoiceRecord) { r.Articles[1].Name = " " }, []string{"articles.1.name"}},
		{"article name too long", func(r *collection.InvoiceRecord) { r.Articles[0].Name = strings.Repeat("n", 256) }, []string{"articles.0.name"}},
		{"article quantity 0", func(r *collection.InvoiceRecord) { r.Articles[0].Quantity = 0 }, []string{"articles.0.quantity"}},
		{"article quantity negative", func(r *collection.InvoiceRecord) { r.Articles[1].Quantity = -10000 }, []string{"articles.1.quantity"}},
		{"article quantity 0.0001", func(r *collection.InvoiceRecord) { r.Articles[0].Quantity = 1 }, nil},
		{"article vatPercentage 0", func(r *collection.InvoiceRecord) { r.Articles[0].VATPercentage = 0 }, nil},
		{"article vatPercentage 100", func(r *collection.InvoiceRecord) { r.Articles[0].VATPercentage = 100 * 10000 }, nil},
		{"article vatPercentage over 100", func(r *collection.InvoiceRecord) { r.Articles[0].VATPercentage = 100*10000 + 1 }, []string{"articles.0.vatPercentage"}},
		{"article vatPercentage negative", func(r *collection.InvoiceRecord) { r.Articles[1].VATPercentage = -1 }, []string{"articles.1.vatPercentage"}},
		{"article discount negative", func(r *collection.InvoiceRecord) { r.Articles[0].Discount = -1 }, []string{"articles.0.discount"}},
		{"article discount positive", func(r *collection.InvoiceRecord) { r.Articles[0].Discount = kr(100) }, nil},
		{"article amounts negative", func(r *collection.InvoiceRecord) {
			a := &r.Articles[1]
			a.PriceExcludingVAT, a.TotalVATAmount, a.TotalAmountIncludingVAT, a.TotalAmountExcludingVAT = -1, -1, -1, -1
		}, []string{"articles.1.priceExcludingVAT", "articles.1.totalAmountExcludingVAT", "articles.1.totalAmountIncludingVAT", "articles.1.totalVATAmount"}},
		{"article description of 2000", func(r *collection.InvoiceRecord) { r.Articles[0].Description = strp(strings.Repeat("d", 2000)) }, nil},
		{"article description of 2001", func(r *collection.InvoiceRecord) { r.Articles[0].Description = strp(strings.Repeat("d", 2001)) }, []string{"articles.0.description"}},

		{"every broken field at once", func(r *collection.InvoiceRecord) {
			r.InvoiceNumber = ""
			r.DueDate = date("2026-02-01")
			r.ReminderDate = datep("2026-02-01")
			r.DaysUntilExpiration = -1
			r.TotalVATAmount = -1
			r.ReminderFee = money(-1)
			r.InterestRate = rate(-1)
			r.Articles[0].Quantity = 0
			r.Articles[1].Name = ""
			r.Articles[1].Discount = -1
			r.Articles[1].Description = strp(strings.Repeat("d", 2001))
		}, []string{"articles.0.quantity", "articles.1.description", "articles.1.discount", "articles.1.name", "daysUntilExpiration",
			"dueDate", "interestRate", "invoiceNumber", "reminderDate", "reminderFee", "totalAmountIncludingVAT", "totalVATAmount"}},
		{"invoice errors and no articles at once", func(r *collection.InvoiceRecord) {
			r.InvoiceNumber = " "
			r.Articles = nil
			r.TotalAmountIncludingVAT = 0
		}, []string{"articles", "invoiceNumber", "totalAmountIncludingVAT"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validInvoice()
			tt.edit(&r)
			checkFields(t, r.Normalize(), tt.want...)
		})
	}
}

// validClient is a Swedish client that passes Normalize.
func validClient() collection.ClientRecord {
	return collection.ClientRecord{
		Name: " Inkasso AB ", OrganizationNumber: " 556036-0793 ", Adress1: "Box 1", Address2: "Plan 2", ZipCode: "111 22",
		City: "Stockholm", CountryCode: " se ", BankNumber: "5050-1055", Email: "info@inkasso.se",
		ContactName: "Bo Berg", ContactEmail: "bo@inkasso.se", ContactPhone: "08-123 45",
	}
}

func TestClientRecordNormalize(t *testing.T) {
	fields := map[string]func(r *collection.ClientRecord) *string{
		"name":               func(r *collection.ClientRecord) *string { return &r.Name },
		"organizationNumber": func(r *collection.ClientRecord) *string { return &r.OrganizationNumber },
		"adress1":            func(r *collection.ClientRecord) *string { return &r.Adress1 },
		"address2":           func(r *collection.ClientRecord) *string { return &r.Address2 },
		"zipCode":            func(r *collection.ClientRecord) *string { return &r.ZipCode },
		"city":               func(r *collection.ClientRecord) *string { return &r.City },
		"countryCode":        func(r *collection.ClientRecord) *string { return &r.CountryCode },
		"bankNumber":         func(r *collection.ClientRecord) *string { return &r.BankNumber },
		"email":              func(r *collection.ClientRecord) *string { return &r.Email },
		"contactName":        func(r *collection.ClientRecord) *string { return &r.ContactName },
		"contactEmail":       func(r *collection.ClientRecord) *string { return &r.ContactEmail },
		"contactPhone":       func(r *collection.ClientRecord) *string { return &r.ContactPhone },
	}
	if len(fields) != 12 {
		t.Fatalf("%d fields, want the twelve of api.md §5", len(fields))
	}
	r := validClient()
	if err := r.Normalize(); err != nil {
		t.Fatalf("Normalize() = %v", err)
	}
	if r.Name != "Inkasso AB" || r.OrganizationNumber != "556036-0793" || r.CountryCode != "SE" {
		t.Errorf("not trimmed: %q %q %q", r.Name, r.OrganizationNumber, r.CountryCode)
	}
	for name, field := range fields {
		for _, blank := range []string{"", "  "} {
			r := validClient()
			*field(&r) = blank
			checkFields(t, r.Normalize(), name)
		}
		r := validClient()
		*field(&r) = strings.Repeat("9", 256)
		if err := r.Normalize(); !slices.Contains(inputErrorFields(t, err), name) {
			t.Errorf("256 characters in %s: %v", name, err)
		}
	}

	set := func(f string, v string) func(r *collection.ClientRecord) {
		return func(r *collection.ClientRecord) { *fields[f](r) = v }
	}
	tests := []struct {
		name string
		edit []func(r *collection.ClientRecord)
		want []string
	}{
		{"SE, 12-digit organisation number", []func(*collection.ClientRecord){set("organizationNumber", "16556036-0793")}, nil},
		{"SE, Plusgiro", []func(*collection.ClientRecord){set("bankNumber", "4 09 95-3")}, nil},
		{"SE, organisation number check digit", []func(*collection.ClientRecord){set("organizationNumber", "556036-0794")}, []string{"organizationNumber"}},
		{"SE, a personnummer is no organisation number", []func(*collection.ClientRecord){set("organizationNumber", "811228-9874")}, []string{"organizationNumber"}},
		{"SE, bank number check digit", []func(*collection.ClientRecord){set("bankNumber", "5050-1056")}, []string{"bankNumber"}},
		{"SE, bank number of 9 digits", []func(*collection.ClientRecord){set("bankNumber", "123456789")}, []string{"bankNumber"}},
		{"se in lower case is Sweden", []func(*collection.ClientRecord){set("countryCode", "se"), set("bankNumber", "abc")}, []string{"bankNumber"}},
		{"NO, any numbers", []func(*collection.ClientRecord){set("countryCode", "NO"), set("organizationNumber", "923609016"), set("bankNumber", "DNB 1234.56.78903")}, nil},
		{"country XX", []func(*collection.ClientRecord){set("countryCode", "XX"), set("organizationNumber", "x")}, []string{"countryCode"}},
		{"bad e-mails", []func(*collection.ClientRecord){set("email", "info"), set("contactEmail", "bo@")}, []string{"contactEmail", "email"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validClient()
			for _, e := range tt.edit {
				e(&r)
			}
			checkFields(t, r.Normalize(), tt.want...)
		})
	}
}

func TestIdentificationKey(t *testing.T) {
	for in, want := range map[string]string{
		"811228-9874":    "8112289874",
		"811228 9874":    "8112289874",
		"811228+9874":    "8112289874",
		"19811228-9874":  "198112289874",
		" 5560360793 ":   "5560360793",
		"AB-123":         "ab123",
		"CD 123":         "cd123",
		"XYZ":            "xyz",
		"NO 923 609 016": "no923609016",
	} {
		if got := collection.IdentificationKey(in); got != want {
			t.Errorf("IdentificationKey(%q) = %q, want %q", in, got, want)
		}
	}
}
