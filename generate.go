// Package debtql is the root of DebtQL, the GraphQL API for handing
// receivables over to debt collection. The go:generate lines regenerate the
// data layer (ent with entgql) first and the GraphQL executor (gqlgen) second.
package debtql

//go:generate go run -mod=mod ./ent/entc.go
//go:generate go run -mod=mod github.com/99designs/gqlgen generate
