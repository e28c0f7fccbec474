-- The search indexes are trigram GIN indexes over (client_id, key):
-- pg_trgm gives the trigram operator class, btree_gin lets the uuid
-- client_id share the GIN index. Both are trusted extensions, so the
-- database's owner may create them; an administrator can also create them
-- beforehand, and then these statements do nothing.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS btree_gin;
