-- 0005_dek_registry: the DEK registry (/dek-registry/v1, registry/dek).
-- keks are key-encryption keys by reference to a KMS key (never key
-- material); deks the data-encryption keys of a KEK and a subject, one row
-- per algorithm and version, holding the DEK wrapped by the KEK
-- (encrypted_key_material, base64). ts is Unix milliseconds; deleted marks
-- a soft delete. A KEK with DEKs cannot be removed (the service refuses),
-- so no foreign key orders restores.

CREATE TABLE keks (
    name       TEXT PRIMARY KEY,
    kms_type   TEXT NOT NULL,
    kms_key_id TEXT NOT NULL,
    kms_props  TEXT NOT NULL, -- JSON object of strings
    doc        TEXT NOT NULL,
    shared     INTEGER NOT NULL CHECK (shared IN (0, 1)),
    ts         INTEGER NOT NULL,
    deleted    INTEGER NOT NULL CHECK (deleted IN (0, 1))
) STRICT, WITHOUT ROWID;

CREATE TABLE deks (
    kek_name               TEXT NOT NULL,
    subject                TEXT NOT NULL,
    algorithm              TEXT NOT NULL,
    version                INTEGER NOT NULL CHECK (version > 0),
    encrypted_key_material TEXT NOT NULL,
    ts                     INTEGER NOT NULL,
    deleted                INTEGER NOT NULL CHECK (deleted IN (0, 1)),
    PRIMARY KEY (kek_name, subject, algorithm, version)
) STRICT, WITHOUT ROWID;
