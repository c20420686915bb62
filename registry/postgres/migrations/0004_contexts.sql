-- 0004_contexts: schema contexts, as registry/sqlite's 0006. Each context
-- (":.ctx:name" subjects are in ".ctx"; every other subject is in the
-- default context, stored as '') has its own schema ID space: schemas are
-- keyed by (context, id) and unique by (context, fingerprint), and the ID
-- mark, the fallback floor and the retired IDs are per context. Every row
-- written before this migration is in the default context, with its ID
-- and fingerprint unchanged.

ALTER TABLE schema_references DROP CONSTRAINT schema_references_schema_id_fkey;
ALTER TABLE subject_versions DROP CONSTRAINT subject_versions_schema_id_fkey;

ALTER TABLE schemas ADD COLUMN context text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE schemas DROP CONSTRAINT schemas_pkey;
ALTER TABLE schemas DROP CONSTRAINT schemas_fingerprint_key;
ALTER TABLE schemas ADD CONSTRAINT schemas_pkey PRIMARY KEY (context, id);
ALTER TABLE schemas ADD CONSTRAINT schemas_fingerprint_key UNIQUE (context, fingerprint);

-- A reference's subject is qualified in its referrer's context
-- (registry.QualifyIn).
ALTER TABLE schema_references ADD COLUMN schema_context text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE schema_references DROP CONSTRAINT schema_references_pkey;
ALTER TABLE schema_references ADD CONSTRAINT schema_references_pkey PRIMARY KEY (schema_context, schema_id, position);
ALTER TABLE schema_references ADD CONSTRAINT schema_references_schema_fkey
    FOREIGN KEY (schema_context, schema_id) REFERENCES schemas (context, id);
DROP INDEX schema_references_target;
CREATE INDEX schema_references_target ON schema_references (subject, version, schema_context, schema_id);

-- context is the subject's (registry.ContextOf), so that a version's
-- schema is found in its context.
ALTER TABLE subject_versions ADD COLUMN context text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE subject_versions ADD CONSTRAINT subject_versions_schema_fkey
    FOREIGN KEY (context, schema_id) REFERENCES schemas (context, id);
DROP INDEX subject_versions_schema_id;
CREATE INDEX subject_versions_schema_id ON subject_versions (context, schema_id);

-- One mark row per context that ever stored a schema; the default
-- context's is the former singleton. A context exists from its first
-- schema until DELETE /contexts/{ctx} (deleted; its mark stays, so its
-- IDs are never handed out twice).
ALTER TABLE schema_id_mark ADD COLUMN context text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE schema_id_mark ADD COLUMN deleted boolean NOT NULL DEFAULT false;
ALTER TABLE schema_id_mark DROP CONSTRAINT schema_id_mark_pkey;
ALTER TABLE schema_id_mark DROP COLUMN singleton;
ALTER TABLE schema_id_mark ADD CONSTRAINT schema_id_mark_pkey PRIMARY KEY (context);

ALTER TABLE retired_schema_ids ADD COLUMN context text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE retired_schema_ids DROP CONSTRAINT retired_schema_ids_pkey;
ALTER TABLE retired_schema_ids ADD CONSTRAINT retired_schema_ids_pkey PRIMARY KEY (context, id);
