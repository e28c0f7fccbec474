// Package layers holds the test that keeps DebtQL's floors apart
// (docs/architecture.md): no package speaks both GraphQL and SQL, the use
// cases know no GraphQL, and the GraphQL layer reaches the database only
// through them.
package layers
