package scalar_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/scalar"
)

const canonicalUUID = "123e4567-e89b-42d3-a456-426614174000"

func TestUnmarshalUUIDAccepts(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"canonical lower", canonicalUUID, canonicalUUID},
		{"upper", "123E4567-E89B-42D3-A456-426614174000", canonicalUUID},
		{"mixed", "123e4567-E89b-42D3-a456-426614174000", canonicalUUID},
		{"all letters upper", "ABCDEFAB-CDEF-ABCD-EFAB-CDEFABCDEFAB", "abcdefab-cdef-abcd-efab-cdefabcdefab"},
		{"nil uuid", "00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000000"},
		{"max uuid", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF", "ffffffff-ffff-ffff-ffff-ffffffffffff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scalar.UnmarshalUUID(tt.in)
			if err != nil {
				t.Fatalf("UnmarshalUUID(%q) error: %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("UnmarshalUUID(%q) = %q, want %q", tt.in, got, tt.want)
			}
			got, err = scalar.ParseUUID(tt.in)
			if err != nil || got != tt.want {
				t.Errorf("ParseUUID(%q) = %q, %v; want %q, nil", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestUnmarshalUUIDRefusesStrings(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"empty", ""},
		{"32 hex without hyphens", "123e4567e89b42d3a456426614174000"},
		{"32 hex upper without hyphens", "123E4567E89B42D3A456426614174000"},
		{"urn form", "urn:uuid:" + canonicalUUID},
		{"urn form upper", "URN:UUID:" + canonicalUUID},
		{"braces", "{" + canonicalUUID + "}"},
		{"one char short", canonicalUUID[:35]},
		{"one char long", canonicalUUID + "0"},
		{"leading space", " " + canonicalUUID},
		{"trailing space", canonicalUUID + " "},
		{"trailing newline", canonicalUUID + "\n"},
		{"35 chars with space", canonicalUUID[:35] + " "},
		{"non-hex g", "123e4567-e89b-42d3-a456-42661417400g"},
		{"non-hex z upper", "Z23e4567-e89b-42d3-a456-426614174000"},
		{"hyphens misplaced", "123e456-7e89b-42d3-a456-426614174000"},
		{"hyphen replaced by hex", "123e4567fe89b-42d3-a456-42661417400"},
		{"underscores", "123e4567_e89b_42d3_a456_426614174000"},
		{"too short group", "123e4567-e89b-42d3-a456-42661417400"},
		{"non-ascii", "123e4567-e89b-42d3-a456-4266141740é"},
		{"garbage", "not-a-uuid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := scalar.UnmarshalUUID(tt.in); err == nil {
				t.Errorf("UnmarshalUUID(%q) = %q, want an error", tt.in, got)
			}
			if got, err := scalar.ParseUUID(tt.in); err == nil {
				t.Errorf("ParseUUID(%q) = %q, want an error", tt.in, got)
			}
		})
	}
}

func TestUnmarshalUUIDRefusesNonStrings(t *testing.T) {
	tests := []struct {
		name string
		in   any
	}{
		{"nil", nil},
		{"int", 42},
		{"int64", int64(42)},
		{"float64", 1.5},
		{"bool", true},
		{"json.Number", json.Number("123")},
		{"bytes of a valid uuid", []byte(canonicalUUID)},
		{"pointer to string", ptr(canonicalUUID)},
		{"16-byte array", [16]byte{1, 2, 3}},
		{"map", map[string]any{"id": canonicalUUID}},
		{"slice of string", []string{canonicalUUID}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := scalar.UnmarshalUUID(tt.in); err == nil {
				t.Errorf("UnmarshalUUID(%#v) = %q, want an error", tt.in, got)
			}
		})
	}
}

func TestMarshalUUID(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{canonicalUUID, `"` + canonicalUUID + `"`},
		{"00000000-0000-0000-0000-000000000000", `"00000000-0000-0000-0000-000000000000"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := marshal(t, scalar.MarshalUUID(tt.in))
			if got != tt.want {
				t.Errorf("MarshalUUID(%q) wrote %s, want %s", tt.in, got, tt.want)
			}
			var back string
			if err := json.Unmarshal([]byte(got), &back); err != nil || back != tt.in {
				t.Errorf("MarshalUUID(%q) wrote %s, which is not the JSON string of the id (%q, %v)", tt.in, got, back, err)
			}
		})
	}
}

func TestUUIDRoundTrip(t *testing.T) {
	in := "123E4567-E89B-42D3-A456-426614174000"
	id, err := scalar.UnmarshalUUID(in)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := marshal(t, scalar.MarshalUUID(id)), `"`+strings.ToLower(in)+`"`; got != want {
		t.Errorf("round trip of %q wrote %s, want %s", in, got, want)
	}
}

func TestNewUUID(t *testing.T) {
	seen := make(map[string]bool)
	last := ""
	start := time.Now().Truncate(time.Millisecond)
	for range 100 {
		id := scalar.NewUUID()
		if len(id) != 36 {
			t.Fatalf("NewUUID() = %q, want 36 characters", id)
		}
		if canon, err := scalar.ParseUUID(id); err != nil || canon != id {
			t.Fatalf("NewUUID() = %q is not canonical (ParseUUID: %q, %v)", id, canon, err)
		}
		if id[14] != '7' {
			t.Errorf("NewUUID() = %q, want version 7", id)
		}
		ms, err := strconv.ParseInt(strings.ReplaceAll(id[:13], "-", ""), 16, 64)
		if made := time.UnixMilli(ms); err != nil || made.Before(start) || made.After(time.Now()) {
			t.Errorf("NewUUID() = %q holds the time %v (%v), want a time of this test", id, made, err)
		}
		if id <= last {
			t.Errorf("NewUUID() = %q after %q, want ids made later to sort later", id, last)
		}
		last = id
		if !strings.ContainsRune("89ab", rune(id[19])) {
			t.Errorf("NewUUID() = %q, want the RFC 4122 variant", id)
		}
		if seen[id] {
			t.Fatalf("NewUUID() returned %q twice", id)
		}
		seen[id] = true
	}
}

func ptr[T any](v T) *T { return &v }
