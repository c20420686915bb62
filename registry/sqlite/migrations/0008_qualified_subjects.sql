-- 0008_qualified_subjects: before contexts, a subject named like
-- ":.foo:bar" was a plain subject of the one global ID space, and 0006
-- left its versions in the default context, where a reader of
-- ":.foo:bar" (whose context is now ".foo") does not look: every such
-- version answered "Schema N not found". Each schema that a version of a
-- ":.ctx:" subject holds is copied into that context under the same ID
-- and fingerprint (consumers wrote those IDs into Kafka), with its
-- references; the version is re-pointed at the copy; the context's ID
-- mark covers the copied IDs. The default context keeps its copy, so the
-- ID still resolves for clients that never name a context.
--
-- A reference a copy makes to a subject outside any context ("plain")
-- named the default context's subject; in the context it would now name
-- ":.ctx:plain", so the copy names it ":.:plain" (the same subject,
-- explicitly in the default context). A reference to a qualified subject
-- (":.ctx:baz") names it as before, now in its own context.
--
-- Only versions still in the default context are moved (a registry
-- written by Charter with contexts never has one there), and a copy is
-- skipped where the context already holds that ID or fingerprint for
-- another schema; such a version stays as it was.
--
-- Before this file, a Go step (renameUnnormalSubjects, registry/sqlite's
-- migrate_subjects.go) renames every stored subject the API no longer
-- reaches as stored (":.foo", ":.:x", ":.:"), as
-- registry.UpgradeSubjectRenames decides, so ":.foo" is here ":.foo:" or
-- ":.foo:~renamed-N" and is moved into .foo like any ":.foo:" subject.

CREATE TEMP TABLE qualified_v8 AS
    SELECT subject, version, schema_id,
           CASE WHEN instr(substr(subject, 3), ':') > 0
                THEN substr(subject, 2, instr(substr(subject, 3), ':'))
                ELSE substr(subject, 2) END AS context
    FROM subject_versions
    WHERE context = '' AND substr(subject, 1, 2) = ':.';

DELETE FROM qualified_v8 WHERE context = '.';

CREATE TEMP TABLE copies_v8 AS SELECT DISTINCT context, schema_id FROM qualified_v8;

INSERT OR IGNORE INTO schemas (context, id, type, text, refs, metadata, ruleset, fingerprint)
    SELECT c.context, s.id, s.type, s.text,
           CASE WHEN s.refs IS NULL THEN NULL ELSE (
               SELECT json_group_array(json(CASE
                   WHEN substr(json_extract(r.value, '$.subject'), 1, 2) = ':.' THEN r.value
                   ELSE json_set(r.value, '$.subject', ':.:' || json_extract(r.value, '$.subject')) END))
               FROM (SELECT value FROM json_each(s.refs) ORDER BY key) AS r)
           END,
           s.metadata, s.ruleset, s.fingerprint
    FROM copies_v8 c JOIN schemas s ON s.context = '' AND s.id = c.schema_id;

-- The copies that exist now (a skipped one is absent or another schema).
DELETE FROM copies_v8 WHERE NOT EXISTS (
    SELECT 1 FROM schemas d JOIN schemas s ON s.context = '' AND s.id = d.id
    WHERE d.context = copies_v8.context AND d.id = copies_v8.schema_id AND d.fingerprint = s.fingerprint);

INSERT OR IGNORE INTO schema_references (schema_context, schema_id, position, name, subject, version)
    SELECT c.context, r.schema_id, r.position, r.name, r.subject, r.version
    FROM copies_v8 c JOIN schema_references r ON r.schema_context = '' AND r.schema_id = c.schema_id;

INSERT INTO schema_id_mark (context, max_id, fallback_floor)
    SELECT context, MAX(schema_id), MAX(schema_id) FROM copies_v8 WHERE true GROUP BY context
    ON CONFLICT (context) DO UPDATE SET
        max_id = MAX(max_id, excluded.max_id),
        fallback_floor = MAX(fallback_floor, excluded.fallback_floor),
        deleted = 0;

UPDATE subject_versions SET context = (
        SELECT q.context FROM qualified_v8 q
        WHERE q.subject = subject_versions.subject AND q.version = subject_versions.version)
    WHERE context = '' AND EXISTS (
        SELECT 1 FROM qualified_v8 q JOIN copies_v8 c ON c.context = q.context AND c.schema_id = q.schema_id
        WHERE q.subject = subject_versions.subject AND q.version = subject_versions.version);

DROP TABLE qualified_v8;
DROP TABLE copies_v8;
