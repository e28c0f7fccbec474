// Package scalar holds the value types that cross DebtQL's edges: the GraphQL
// scalars of api.md §3 (UUID, Date, DateTime, Decimal) and the integer id type
// that lets entgql page over entities whose ids are integers next to entities
// whose ids are UUID strings.
//
// The types here know their wire form (GraphQL) and their storage form
// (database/sql), and nothing of the domain rules: which decimals are money and
// which are rates is decided by the callers in internal/collection.
package scalar
