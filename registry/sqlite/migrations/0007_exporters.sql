-- 0007_exporters: schema exporters (/exporters, registry/exporter).
-- exporters holds each exporter's definition (JSON: contextType, context,
-- subjects, subjectRenameFormat and config, credentials included: the
-- API never answers them, the database holds them as the runner needs
-- them), its status (state, copied: the status offset, ts in Unix
-- milliseconds, trace) and the lease of the process that runs it;
-- exporter_progress the last version of each source subject copied, the
-- digest of the subject config copied and whether the destination subject
-- was put in IMPORT mode.

CREATE TABLE exporters (
    name        TEXT PRIMARY KEY,
    definition  TEXT NOT NULL,
    state       TEXT NOT NULL,
    copied      INTEGER NOT NULL,
    ts          INTEGER NOT NULL,
    trace       TEXT NOT NULL,
    lease_owner TEXT NOT NULL,
    lease_until INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE exporter_progress (
    exporter    TEXT NOT NULL,
    subject     TEXT NOT NULL,
    version     INTEGER NOT NULL,
    config_hash TEXT NOT NULL,
    imported    INTEGER NOT NULL CHECK (imported IN (0, 1)),
    PRIMARY KEY (exporter, subject)
) STRICT, WITHOUT ROWID;
