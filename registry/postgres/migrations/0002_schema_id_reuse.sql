-- 0002_schema_id_reuse: as SQLite's 0004. An IMPORT of ID 2147483647 (the
-- largest the wire format carries) raised schema_id_mark to it, and every
-- later allocation failed. Allocation stays mark + 1 while that fits
-- (Confluent's rule); past it, CreateSchema takes the smallest ID above
-- fallback_floor that no schema holds and none ever held
-- (retired_schema_ids), and raises fallback_floor to it. For a database
-- written before this migration, the IDs deleted so far are unknown:
-- fallback_floor starts at the mark, or, when the mark is already
-- 2147483647, at the largest stored ID below it.

ALTER TABLE schema_id_mark ADD COLUMN fallback_floor bigint NOT NULL DEFAULT 0 CHECK (fallback_floor >= 0);

UPDATE schema_id_mark SET fallback_floor = CASE
    WHEN max_id < 2147483647 THEN max_id
    ELSE (SELECT COALESCE(MAX(id), 0) FROM schemas WHERE id < 2147483647)
END;

CREATE TABLE retired_schema_ids (
    id bigint PRIMARY KEY
);
