package collection_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/collection"
)

// Tests of the text rule (decisions.md, "Text"): CheckText, CheckField,
// the String scalar's unmarshaler and the record validators that apply
// the single-line form.

func TestCheckTextAccepts(t *testing.T) {
	for _, s := range []string{
		"", "Anna Ek", "Åsa Öberg", "日本語", "😀", "a\u00a0b", "\u00a0", "\u00a1", "\u200b", "\u202e",
		"\ufffd", // the replacement character itself is text
		"\ufdcf", "\ufdf0", "\ufffc", "\ufffd", "\U0001fffd", "\U0010fffd", "\U000e0001",
		"~", " ", "'\"\\%_",
	} {
		for _, multiline := range []bool{false, true} {
			if err := collection.CheckText(s, multiline); err != nil {
				t.Errorf("CheckText(%q, %v) = %v, want nil", s, multiline, err)
			}
		}
	}
	for _, s := range []string{"a\nb", "a\rb", "a\r\nb", "a\tb", "\t", "\n\n", "rad 1\r\nrad 2\tkolumn"} {
		if err := collection.CheckText(s, true); err != nil {
			t.Errorf("CheckText(%q, multiline) = %v, want nil", s, err)
		}
	}
}

func TestCheckTextRefuses(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		multiline bool // refused in multi-line text too
		want      string
	}{
		{"NUL", "a\x00b", true, "must not contain U+0000 (a control character) at character 2"},
		{"NUL first", "\x00", true, "U+0000 (a control character) at character 1"},
		{"U+0001", "ab\x01", true, "U+0001 (a control character) at character 3"},
		{"U+0008", "\b", true, "U+0008"},
		{"VT", "\v", true, "U+000B"},
		{"FF", "\f", true, "U+000C"},
		{"U+001F", "\x1f", true, "U+001F"},
		{"DEL", "a\x7f", true, "U+007F (a control character) at character 2"},
		{"C1 U+0080", "\u0080", true, "U+0080 (a control character)"},
		{"C1 NEL", "å\u0085", true, "U+0085 (a control character) at character 2"},
		{"C1 U+009F", "\u009f", true, "U+009F"},
		{"U+FDD0", "\ufdd0", true, "U+FDD0 (a Unicode noncharacter)"},
		{"U+FDEF", "\ufdef", true, "U+FDEF (a Unicode noncharacter)"},
		{"U+FFFE", "\ufffe", true, "U+FFFE (a Unicode noncharacter)"},
		{"U+FFFF", "😀\uffff", true, "U+FFFF (a Unicode noncharacter) at character 2"},
		{"U+1FFFE", "\U0001fffe", true, "U+1FFFE (a Unicode noncharacter)"},
		{"U+10FFFF", "\U0010ffff", true, "U+10FFFF (a Unicode noncharacter)"},
		{"invalid byte", "ab\xff", true, "must be valid UTF-8: the byte 0xFF at character 3 is not"},
		{"truncated sequence", "ö\xc3", true, "the byte 0xC3 at character 2"},
		{"encoded surrogate", "\xed\xa0\x80", true, "must be valid UTF-8: the byte 0xED at character 1 is not"},
		{"overlong NUL", "\xc0\x80", true, "must be valid UTF-8: the byte 0xC0"},
		{"LF", "Anna\nEk", false, "must not contain U+000A (a line break) at character 5: only descriptions and comments may hold tabs and line breaks"},
		{"CR", "a\rb", false, "U+000D (a line break) at character 2"},
		{"TAB", "a\tb", false, "U+0009 (a tab) at character 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := collection.CheckText(tt.in, false)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("CheckText(%q, single line) = %v, want %q", tt.in, err, tt.want)
			}
			err = collection.CheckText(tt.in, true)
			if tt.multiline && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("CheckText(%q, multiline) = %v, want %q", tt.in, err, tt.want)
			}
			if !tt.multiline && err != nil {
				t.Errorf("CheckText(%q, multiline) = %v, want nil", tt.in, err)
			}
		})
	}
}

// TestCheckTextEveryCharacter checks the rule for every code point against
// its definition, written out differently.
func TestCheckTextEveryCharacter(t *testing.T) {
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue // surrogates cannot be encoded in UTF-8
		}
		line := r == '\t' || r == '\n' || r == '\r'
		control := (r < 0x20 && !line) || (r >= 0x7F && r <= 0x9F)
		nonchar := (r >= 0xFDD0 && r <= 0xFDEF) || r%0x10000 == 0xFFFE || r%0x10000 == 0xFFFF
		s := string(r)
		if got, want := collection.CheckText(s, true) == nil, !control && !nonchar; got != want {
			t.Fatalf("CheckText(U+%04X, multiline) accepted = %v, want %v", r, got, want)
		}
		if got, want := collection.CheckText(s, false) == nil, !control && !nonchar && !line; got != want {
			t.Fatalf("CheckText(U+%04X, single line) accepted = %v, want %v", r, got, want)
		}
	}
}

func TestCheckField(t *testing.T) {
	if e := collection.CheckField("input.name", "Anna", 255, false); e != nil {
		t.Errorf("CheckField(Anna) = %v", e)
	}
	e := collection.CheckField("input.name", "a\x00", 255, false)
	if e == nil || e.Code != apierr.BadUserInput || e.Field != "input.name" || !strings.Contains(e.Message, "U+0000") {
		t.Errorf("CheckField(NUL) = %#v", e)
	}
	e = collection.CheckField("input.name", strings.Repeat("ö", 256), 255, false)
	if e == nil || e.Field != "input.name" || e.Message != "must be at most 255 characters" {
		t.Errorf("CheckField(256 ö) = %#v", e)
	}
	if e := collection.CheckField("comment", "a\nb", collection.MaxTextLength, true); e != nil {
		t.Errorf("CheckField(multiline LF) = %v", e)
	}
}

// TestRecordsRefuseTextBreaks: the record validators apply the single-line
// rule to every field but descriptions, which take line breaks and tabs,
// and refuse what no field may hold there too.
func TestRecordsRefuseTextBreaks(t *testing.T) {
	fieldsOf := func(err error) []string {
		var list apierr.List
		if !errors.As(err, &list) {
			return nil
		}
		var out []string
		for _, e := range list {
			out = append(out, e.Field)
		}
		return out
	}
	d := collection.DebtorRecord{IdentificationNumber: "AB\t1", Name: "Anna\nEk",
		Address: collection.AddressRecord{Address1: "Gata 1\r", ZipCode: "0150", City: "Os\x00lo", CountryCode: "NO"}}
	if got := fieldsOf(d.Normalize()); strings.Join(got, ",") != "identificationNumber,name,address.city" {
		t.Errorf("debtor errors on %v", got)
	}
	desc, bad := "rad 1\nrad 2\tslut", "rad\x7f"
	a := collection.ArticleRecord{Name: "Art\ticle", Description: &desc, Quantity: 10000}
	a2 := collection.ArticleRecord{Name: "Artikel", Description: &bad, Quantity: 10000}
	inv := collection.InvoiceRecord{InvoiceNumber: "F\n1", TotalAmountIncludingVAT: 1, TotalExcludingVAT: 1,
		Articles: []collection.ArticleRecord{a, a2}}
	if got := fieldsOf(inv.Normalize()); strings.Join(got, ",") != "invoiceNumber,articles.0.name,articles.1.description" {
		t.Errorf("invoice errors on %v", got)
	}
	if *inv.Articles[0].Description != desc {
		t.Errorf("description = %q, want %q kept", *inv.Articles[0].Description, desc)
	}
	c := collection.ClientRecord{Name: "Acme\tAB", OrganizationNumber: "x", Adress1: "x", Address2: "x", ZipCode: "x",
		City: "x", CountryCode: "NO", BankNumber: "x", Email: "a@b.se", ContactName: "x", ContactEmail: "a@b.se", ContactPhone: "1\n2"}
	if got := fieldsOf(c.Normalize()); strings.Join(got, ",") != "name,contactPhone" {
		t.Errorf("client errors on %v", got)
	}
}
