-- 0001_init: the registry's tables, as registry/sqlite has them after its
-- 0003, plus cache_epoch for the replicas' caches. Every name that the
-- store orders by (subjects, kinds, keys, actions) is COLLATE "C", so
-- ORDER BY compares bytes, as Go compares strings, whatever the
-- database's collation.

-- schemas holds every stored schema. A permanent delete of the last version
-- that holds one removes it (its ID and fingerprint are free again);
-- schema_id_mark keeps the largest ID ever stored, so allocation (mark + 1)
-- never hands an ID out twice.
CREATE TABLE schemas (
    id          bigint PRIMARY KEY CHECK (id > 0),
    type        text NOT NULL,
    text        text NOT NULL,
    refs        text,             -- JSON array of registry.Reference, NULL when none
    metadata    text,             -- raw JSON as given, NULL when absent
    ruleset     text,             -- raw JSON as given, NULL when absent
    fingerprint text NOT NULL UNIQUE
);

CREATE TABLE schema_id_mark (
    singleton integer PRIMARY KEY CHECK (singleton = 1),
    max_id    bigint NOT NULL CHECK (max_id >= 0)
);

INSERT INTO schema_id_mark (singleton, max_id) VALUES (1, 0);

-- schema_references repeats schemas.refs row by row for ReferencedBy.
CREATE TABLE schema_references (
    schema_id bigint NOT NULL REFERENCES schemas (id),
    position  integer NOT NULL,
    name      text NOT NULL,
    subject   text COLLATE "C" NOT NULL,
    version   integer NOT NULL,
    PRIMARY KEY (schema_id, position)
);

CREATE INDEX schema_references_target ON schema_references (subject, version, schema_id);

-- subject_versions binds version n of a subject to a schema. The primary
-- key is what makes two replicas that register at once agree: one version
-- per (subject, number).
CREATE TABLE subject_versions (
    subject   text COLLATE "C" NOT NULL,
    version   integer NOT NULL CHECK (version >= 1),
    schema_id bigint NOT NULL REFERENCES schemas (id),
    deleted   boolean NOT NULL DEFAULT false,
    PRIMARY KEY (subject, version)
);

CREATE INDEX subject_versions_schema_id ON subject_versions (schema_id);

-- configs holds registry.Config as JSON; subject '' is the global config.
CREATE TABLE configs (
    subject text COLLATE "C" PRIMARY KEY,
    body    text NOT NULL
);

-- modes holds registry.Mode; subject '' is the global mode.
CREATE TABLE modes (
    subject text COLLATE "C" PRIMARY KEY,
    mode    text NOT NULL
);

-- governance_records: governance records (ownership, policies,
-- deprecations, dismissals, removed fields, version records, tags,
-- contracts, lineage) as JSON bodies keyed by (subject, kind, key).
-- Subject '' holds global records. Bodies are text, not jsonb, so they
-- come back byte for byte.
CREATE TABLE governance_records (
    subject text COLLATE "C" NOT NULL,
    kind    text COLLATE "C" NOT NULL CHECK (kind <> ''),
    key     text COLLATE "C" NOT NULL,
    body    text NOT NULL,
    PRIMARY KEY (subject, kind, key)
);

CREATE INDEX governance_records_kind ON governance_records (kind, subject, key);

-- audit_log is append-only; an identity never hands an id out twice.
-- at_ns is the time in Unix nanoseconds (UTC).
CREATE TABLE audit_log (
    id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at_ns   bigint NOT NULL,
    actor   text NOT NULL,
    action  text COLLATE "C" NOT NULL,
    subject text COLLATE "C" NOT NULL,
    target  text NOT NULL,
    before  text,
    after   text
);

CREATE INDEX audit_log_subject ON audit_log (subject, id);
CREATE INDEX audit_log_at ON audit_log (at_ns);

-- cache_epoch counts the transactions that forgot schemas (a permanent
-- delete of their last version). Replicas cache schemas by ID; each such
-- transaction raises the epoch and sends a NOTIFY naming the IDs, and a
-- replica whose last applied epoch is behind the table's drops its caches.
CREATE TABLE cache_epoch (
    singleton integer PRIMARY KEY CHECK (singleton = 1),
    epoch     bigint NOT NULL CHECK (epoch >= 0)
);

INSERT INTO cache_epoch (singleton, epoch) VALUES (1, 0);
