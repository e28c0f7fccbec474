package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/index"
)

// trigramIndex is an index that serves substring search (LIKE '%term%') on
// the normalised key column within a client: on PostgreSQL a GIN index of
// (client_id, key gin_trgm_ops), which needs the pg_trgm and btree_gin
// extensions (internal/store creates them before migrating). Other
// databases get a plain index of the same columns.
func trigramIndex(name, key string) ent.Index {
	return index.Fields("client_id", key).
		StorageKey(name).
		Annotations(
			entsql.IndexTypes(map[string]string{dialect.Postgres: "GIN"}),
			entsql.OpClassColumn(key, "gin_trgm_ops"),
		)
}
