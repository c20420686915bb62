-- 0003_dek_registry: the DEK registry (/dek-registry/v1, registry/dek), as
-- SQLite's 0005. Names the store orders by are COLLATE "C" (byte order).

CREATE TABLE keks (
    name       text COLLATE "C" PRIMARY KEY,
    kms_type   text NOT NULL,
    kms_key_id text NOT NULL,
    kms_props  text NOT NULL, -- JSON object of strings
    doc        text NOT NULL,
    shared     boolean NOT NULL,
    ts         bigint NOT NULL,
    deleted    boolean NOT NULL
);

CREATE TABLE deks (
    kek_name               text COLLATE "C" NOT NULL,
    subject                text COLLATE "C" NOT NULL,
    algorithm              text COLLATE "C" NOT NULL,
    version                integer NOT NULL CHECK (version > 0),
    encrypted_key_material text NOT NULL,
    ts                     bigint NOT NULL,
    deleted                boolean NOT NULL,
    PRIMARY KEY (kek_name, subject, algorithm, version)
);
