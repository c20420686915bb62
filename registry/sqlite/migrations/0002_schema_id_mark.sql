-- 0002_schema_id_mark: schemas can be deleted now. A permanent delete of the
-- last subject version that holds a schema forgets the schema and its ID, as
-- Confluent does, so max(id)+1 over the remaining rows could hand a deleted
-- ID out again. schema_id_mark keeps the largest ID ever stored instead
-- (allocated or explicit): allocation is mark+1.

CREATE TABLE schema_id_mark (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    max_id    INTEGER NOT NULL CHECK (max_id >= 0)
) STRICT;

INSERT INTO schema_id_mark (singleton, max_id) SELECT 1, COALESCE(MAX(id), 0) FROM schemas;

-- Databases written before this migration kept the schemas of hard-deleted
-- versions; forget them now (the mark above already covers their IDs).
DELETE FROM schema_references WHERE schema_id NOT IN (SELECT schema_id FROM subject_versions);
DELETE FROM schemas WHERE id NOT IN (SELECT schema_id FROM subject_versions);
