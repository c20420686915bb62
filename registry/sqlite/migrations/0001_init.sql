-- 0001_init: the registry's tables. STRICT tables reject values of the wrong
-- type; WITHOUT ROWID clusters rows on their primary key, so a subject's
-- versions are read in one index range.

-- schemas holds every schema ever created. Rows are never deleted, so
-- max(id)+1 never reuses an ID.
CREATE TABLE schemas (
    id          INTEGER PRIMARY KEY,
    type        TEXT NOT NULL,
    text        TEXT NOT NULL,
    refs        TEXT,             -- JSON array of registry.Reference, NULL when none
    metadata    TEXT,             -- raw JSON as given, NULL when absent
    ruleset     TEXT,             -- raw JSON as given, NULL when absent
    fingerprint TEXT NOT NULL UNIQUE
) STRICT;

-- schema_references repeats schemas.refs row by row for ReferencedBy.
CREATE TABLE schema_references (
    schema_id INTEGER NOT NULL REFERENCES schemas (id),
    position  INTEGER NOT NULL,
    name      TEXT NOT NULL,
    subject   TEXT NOT NULL,
    version   INTEGER NOT NULL,
    PRIMARY KEY (schema_id, position)
) STRICT, WITHOUT ROWID;

CREATE INDEX schema_references_target ON schema_references (subject, version, schema_id);

-- subject_versions binds version n of a subject to a schema.
CREATE TABLE subject_versions (
    subject   TEXT NOT NULL,
    version   INTEGER NOT NULL,
    schema_id INTEGER NOT NULL REFERENCES schemas (id),
    deleted   INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1)),
    PRIMARY KEY (subject, version)
) STRICT, WITHOUT ROWID;

CREATE INDEX subject_versions_schema_id ON subject_versions (schema_id);

-- configs holds registry.Config as JSON; subject '' is the global config.
CREATE TABLE configs (
    subject TEXT PRIMARY KEY,
    body    TEXT NOT NULL
) STRICT, WITHOUT ROWID;

-- modes holds registry.Mode; subject '' is the global mode.
CREATE TABLE modes (
    subject TEXT PRIMARY KEY,
    mode    TEXT NOT NULL
) STRICT, WITHOUT ROWID;
