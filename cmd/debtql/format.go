package main

import (
	"time"

	"github.com/debtql/debtql/internal/scalar"
)

func orDash(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}

func timeOrDash(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return scalar.FormatDateTime(*t)
}
