package collection

import (
	"net/mail"
	"strings"
	"unicode"
)

// MaxEmailLength is the longest e-mail address accepted, in bytes.
const MaxEmailLength = 254

// ValidEmail is a pragmatic e-mail address check. After trimming s must:
//   - be at most 254 bytes and hold no white space;
//   - parse with net/mail.ParseAddress as a bare address: no display name,
//     no angle brackets, no comments, no quoting that the parser removes
//     (the parsed address equals the input);
//   - have a non-empty local part and a domain with at least one dot and
//     no empty label; domain literals such as [192.0.2.1] are refused.
func ValidEmail(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > MaxEmailLength || strings.ContainsFunc(s, unicode.IsSpace) {
		return false
	}
	addr, err := mail.ParseAddress(s)
	if err != nil || addr.Name != "" || addr.Address != s {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	if at <= 0 {
		return false
	}
	domain := s[at+1:]
	if !strings.Contains(domain, ".") || strings.HasPrefix(domain, "[") {
		return false
	}
	for _, label := range strings.Split(domain, ".") {
		if label == "" {
			return false
		}
	}
	return true
}
