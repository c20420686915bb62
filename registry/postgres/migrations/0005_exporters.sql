-- 0005_exporters: schema exporters (/exporters, registry/exporter), as
-- SQLite's 0007. Names the store orders by are COLLATE "C" (byte order).

CREATE TABLE exporters (
    name        text COLLATE "C" PRIMARY KEY,
    definition  text NOT NULL,
    state       text NOT NULL,
    copied      bigint NOT NULL,
    ts          bigint NOT NULL,
    trace       text NOT NULL,
    lease_owner text NOT NULL,
    lease_until bigint NOT NULL
);

CREATE TABLE exporter_progress (
    exporter    text COLLATE "C" NOT NULL,
    subject     text COLLATE "C" NOT NULL,
    version     integer NOT NULL,
    config_hash text NOT NULL,
    imported    boolean NOT NULL,
    PRIMARY KEY (exporter, subject)
);
