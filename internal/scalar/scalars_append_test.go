package scalar

import (
	"strconv"
	"testing"
	"time"
)

// AppendDateTime writes exactly what quoting FormatDateTime gives.
func TestAppendDateTimeIsQuotedFormat(t *testing.T) {
	stockholm, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []time.Time{
		{}, time.Unix(0, 0), time.Date(2026, 11, 24, 5, 59, 1, 123456789, stockholm),
		time.Date(2026, 3, 29, 2, 30, 0, 0, stockholm), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 1000, time.UTC), time.Date(2024, 2, 29, 12, 0, 0, 500, time.FixedZone("x", -3*3600-1800)),
	} {
		if got, want := string(AppendDateTime(nil, tt)), strconv.Quote(FormatDateTime(tt)); got != want {
			t.Errorf("AppendDateTime(%v) = %s, want %s", tt, got, want)
		}
	}
}
