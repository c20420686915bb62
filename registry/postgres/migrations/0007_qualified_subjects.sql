-- 0007_qualified_subjects: as registry/sqlite's 0008. Before contexts, a
-- subject named like ":.foo:bar" was a plain subject of the one global ID
-- space, and 0004 left its versions in the default context, where a
-- reader of ":.foo:bar" (whose context is now ".foo") does not look:
-- every such version answered "Schema N not found". Each schema that a
-- version of a ":.ctx:" subject holds is copied into that context under
-- the same ID and fingerprint (consumers wrote those IDs into Kafka),
-- with its references; the version is re-pointed at the copy; the
-- context's ID mark covers the copied IDs. The default context keeps its
-- copy, so the ID still resolves for clients that never name a context.
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
-- Before this file, a Go step (renameUnnormalSubjects, registry/postgres's
-- migrate_subjects.go) renames every stored subject the API no longer
-- reaches as stored (":.foo", ":.:x", ":.:"), as
-- registry.UpgradeSubjectRenames decides, so ":.foo" is here ":.foo:" or
-- ":.foo:~renamed-N" and is moved into .foo like any ":.foo:" subject.

CREATE TEMP TABLE qualified_v7 AS
    SELECT subject, version, schema_id,
           CASE WHEN strpos(substr(subject, 3), ':') > 0
                THEN substr(subject, 2, strpos(substr(subject, 3), ':'))
                ELSE substr(subject, 2) END COLLATE "C" AS context
    FROM subject_versions
    WHERE context = '' AND left(subject, 2) = ':.';

DELETE FROM qualified_v7 WHERE context = '.';

CREATE TEMP TABLE copies_v7 AS SELECT DISTINCT context, schema_id FROM qualified_v7;

INSERT INTO schemas (context, id, type, text, refs, metadata, ruleset, fingerprint)
    SELECT c.context, s.id, s.type, s.text,
           CASE WHEN s.refs IS NULL THEN NULL ELSE (
               SELECT json_agg(CASE
                   WHEN left(r.value->>'subject', 2) = ':.' THEN r.value
                   ELSE jsonb_set(r.value, '{subject}', to_jsonb(':.:' || (r.value->>'subject'))) END
                   ORDER BY r.ord)::text
               FROM jsonb_array_elements(s.refs::jsonb) WITH ORDINALITY AS r(value, ord))
           END,
           s.metadata, s.ruleset, s.fingerprint
    FROM copies_v7 c JOIN schemas s ON s.context = '' AND s.id = c.schema_id
    ON CONFLICT DO NOTHING;

-- The copies that exist now (a skipped one is absent or another schema).
DELETE FROM copies_v7 c WHERE NOT EXISTS (
    SELECT 1 FROM schemas d JOIN schemas s ON s.context = '' AND s.id = d.id
    WHERE d.context = c.context AND d.id = c.schema_id AND d.fingerprint = s.fingerprint);

INSERT INTO schema_references (schema_context, schema_id, position, name, subject, version)
    SELECT c.context, r.schema_id, r.position, r.name, r.subject, r.version
    FROM copies_v7 c JOIN schema_references r ON r.schema_context = '' AND r.schema_id = c.schema_id
    ON CONFLICT DO NOTHING;

INSERT INTO schema_id_mark (context, max_id, fallback_floor)
    SELECT context, MAX(schema_id), MAX(schema_id) FROM copies_v7 GROUP BY context
    ON CONFLICT (context) DO UPDATE SET
        max_id = GREATEST(schema_id_mark.max_id, excluded.max_id),
        fallback_floor = GREATEST(schema_id_mark.fallback_floor, excluded.fallback_floor),
        deleted = false;

UPDATE subject_versions sv SET context = q.context
    FROM qualified_v7 q JOIN copies_v7 c ON c.context = q.context AND c.schema_id = q.schema_id
    WHERE sv.context = '' AND q.subject = sv.subject AND q.version = sv.version;

DROP TABLE qualified_v7;
DROP TABLE copies_v7;
