package scalar_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/debtql/debtql/internal/scalar"
)

// Benchmarks of scalar marshalling, which every field of a list page goes
// through (docs/benchmarks-go.md). They run only with -bench.

func BenchmarkDecimalMarshal(b *testing.B) {
	var buf bytes.Buffer
	d := decimal.RequireFromString("1234567.89")
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		scalar.MarshalDecimal(d).MarshalGQL(&buf)
	}
}

func BenchmarkDecimalUnmarshal(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := scalar.UnmarshalDecimal("1234567.89"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDateMarshal(b *testing.B) {
	var buf bytes.Buffer
	d := scalar.NewDate(2026, 11, 24)
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		d.MarshalGQL(&buf)
	}
}

func BenchmarkDateUnmarshal(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var d scalar.Date
		if err := d.UnmarshalGQL("2026-11-24"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDateTimeMarshal(b *testing.B) {
	var buf bytes.Buffer
	t := time.Date(2026, 11, 24, 3, 15, 42, 123456000, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		scalar.MarshalDateTime(t).MarshalGQL(&buf)
	}
}

func BenchmarkDateTimeUnmarshal(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := scalar.UnmarshalDateTime("2026-11-24T04:15:42.123456+01:00"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUUIDMarshal(b *testing.B) {
	var buf bytes.Buffer
	id := "0b6c1f7e-3f7a-4c1e-9d2a-5b8e4f1a2c3d"
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		scalar.MarshalUUID(id).MarshalGQL(&buf)
	}
}

func BenchmarkUUIDUnmarshal(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := scalar.UnmarshalUUID("0B6C1F7E-3F7A-4C1E-9D2A-5B8E4F1A2C3D"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIntIDMarshal(b *testing.B) {
	var buf bytes.Buffer
	id := scalar.IntID(1234567)
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		id.MarshalGQL(&buf)
	}
}

func BenchmarkIntIDUnmarshal(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var id scalar.IntID
		if err := id.UnmarshalGQL("1234567"); err != nil {
			b.Fatal(err)
		}
	}
}
