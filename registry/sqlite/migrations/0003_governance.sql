-- 0003_governance: governance records (ownership, policies, deprecations,
-- dismissals, removed fields, version records, tags) as JSON bodies keyed by
-- (subject, kind, key), and the audit log. Subject '' holds global records.

CREATE TABLE governance_records (
    subject TEXT NOT NULL,
    kind    TEXT NOT NULL CHECK (kind <> ''),
    key     TEXT NOT NULL,
    body    TEXT NOT NULL,
    PRIMARY KEY (subject, kind, key)
) STRICT, WITHOUT ROWID;

CREATE INDEX governance_records_kind ON governance_records (kind, subject, key);

-- audit_log is append-only. AUTOINCREMENT never hands an id out twice.
-- at_ns is the time in Unix nanoseconds (UTC).
CREATE TABLE audit_log (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    at_ns   INTEGER NOT NULL,
    actor   TEXT NOT NULL,
    action  TEXT NOT NULL,
    subject TEXT NOT NULL,
    target  TEXT NOT NULL,
    before  TEXT,
    after   TEXT
) STRICT;

CREATE INDEX audit_log_subject ON audit_log (subject, id);
CREATE INDEX audit_log_at ON audit_log (at_ns);
