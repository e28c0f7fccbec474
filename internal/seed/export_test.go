package seed

// PGHash is pgHash, for the tests that compare it with a live PostgreSQL.
var PGHash = pgHash
