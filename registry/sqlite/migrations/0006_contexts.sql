-- 0006_contexts: schema contexts. Each context (":.ctx:name" subjects are
-- in ".ctx"; every other subject is in the default context, stored as '')
-- has its own schema ID space: schemas are keyed by (context, id) and
-- unique by (context, fingerprint), and the ID mark, the fallback floor
-- and the retired IDs are per context. Every row written before this
-- migration is in the default context, with its ID and fingerprint
-- unchanged.
--
-- SQLite cannot change a primary key in place: each table is rebuilt
-- under a new name, copied, the old one dropped (children first, so no
-- foreign key is broken on the way) and the new one renamed, which also
-- renames the foreign keys that name it.

CREATE TABLE schemas_v6 (
    context     TEXT NOT NULL DEFAULT '',
    id          INTEGER NOT NULL,
    type        TEXT NOT NULL,
    text        TEXT NOT NULL,
    refs        TEXT,             -- JSON array of registry.Reference, NULL when none
    metadata    TEXT,             -- raw JSON as given, NULL when absent
    ruleset     TEXT,             -- raw JSON as given, NULL when absent
    fingerprint TEXT NOT NULL,
    PRIMARY KEY (context, id),
    UNIQUE (context, fingerprint)
) STRICT, WITHOUT ROWID;

INSERT INTO schemas_v6 (context, id, type, text, refs, metadata, ruleset, fingerprint)
    SELECT '', id, type, text, refs, metadata, ruleset, fingerprint FROM schemas;

-- subject references each name the referenced subject as qualified in the
-- referrer's context (registry.QualifyIn).
CREATE TABLE schema_references_v6 (
    schema_context TEXT NOT NULL DEFAULT '',
    schema_id      INTEGER NOT NULL,
    position       INTEGER NOT NULL,
    name           TEXT NOT NULL,
    subject        TEXT NOT NULL,
    version        INTEGER NOT NULL,
    PRIMARY KEY (schema_context, schema_id, position),
    FOREIGN KEY (schema_context, schema_id) REFERENCES schemas_v6 (context, id)
) STRICT, WITHOUT ROWID;

INSERT INTO schema_references_v6 (schema_context, schema_id, position, name, subject, version)
    SELECT '', schema_id, position, name, subject, version FROM schema_references;

-- context is the subject's (registry.ContextOf), repeated so that the
-- version's schema is found in its context.
CREATE TABLE subject_versions_v6 (
    subject   TEXT NOT NULL,
    version   INTEGER NOT NULL,
    context   TEXT NOT NULL DEFAULT '',
    schema_id INTEGER NOT NULL,
    deleted   INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1)),
    PRIMARY KEY (subject, version),
    FOREIGN KEY (context, schema_id) REFERENCES schemas_v6 (context, id)
) STRICT, WITHOUT ROWID;

INSERT INTO subject_versions_v6 (subject, version, context, schema_id, deleted)
    SELECT subject, version, '', schema_id, deleted FROM subject_versions;

-- A context exists from its first schema until DELETE /contexts/{ctx}
-- (deleted = 1; its mark stays, so its IDs are never handed out twice).
CREATE TABLE schema_id_mark_v6 (
    context        TEXT PRIMARY KEY,
    max_id         INTEGER NOT NULL CHECK (max_id >= 0),
    fallback_floor INTEGER NOT NULL DEFAULT 0 CHECK (fallback_floor >= 0),
    deleted        INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1))
) STRICT, WITHOUT ROWID;

INSERT INTO schema_id_mark_v6 (context, max_id, fallback_floor)
    SELECT '', max_id, fallback_floor FROM schema_id_mark;

CREATE TABLE retired_schema_ids_v6 (
    context TEXT NOT NULL DEFAULT '',
    id      INTEGER NOT NULL,
    PRIMARY KEY (context, id)
) STRICT, WITHOUT ROWID;

INSERT INTO retired_schema_ids_v6 (context, id) SELECT '', id FROM retired_schema_ids;

DROP TABLE schema_references;
DROP TABLE subject_versions;
DROP TABLE schemas;
DROP TABLE schema_id_mark;
DROP TABLE retired_schema_ids;

ALTER TABLE schemas_v6 RENAME TO schemas;
ALTER TABLE schema_references_v6 RENAME TO schema_references;
ALTER TABLE subject_versions_v6 RENAME TO subject_versions;
ALTER TABLE schema_id_mark_v6 RENAME TO schema_id_mark;
ALTER TABLE retired_schema_ids_v6 RENAME TO retired_schema_ids;

CREATE INDEX schema_references_target ON schema_references (subject, version, schema_context, schema_id);
CREATE INDEX subject_versions_schema_id ON subject_versions (context, schema_id);
