package registry

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/srerr"
)

// DeleteSubject deletes every version of subject and returns their
// numbers, ascending (DELETE /subjects/{s}).
//
// A soft delete hides the live versions from listings, lookups,
// compatibility and "latest"; their IDs stay resolvable and the subject's
// config and mode are kept. permanent removes versions that were soft
// deleted first, then the subject's config and mode; the subject's
// version numbers then start again at 1.
//
// Errors: 40401 unknown subject; 40404 soft delete of a subject already
// soft deleted; 40405 permanent delete of a subject with live versions;
// 42206 a version is referenced by another schema; 42205 read-only mode.
func (s *Service) DeleteSubject(ctx context.Context, subject string, permanent bool) ([]int, error) {
	var (
		out    []int
		forgot []SchemaKey
	)
	err := s.update(ctx, "delete subject", func(tx Tx) error {
		out, forgot = nil, nil
		if err := checkWritable(ctx, tx, subject); err != nil {
			return err
		}
		vs, err := subjectVersions(ctx, tx, subject)
		if err != nil {
			return err
		}
		if len(vs) == 0 {
			return errSubjectNotFound(subject)
		}
		lv := live(vs)
		if !permanent {
			if len(lv) == 0 {
				return srerr.New(srerr.ErrSubjectSoftDeleted,
					"Subject '%s' was soft deleted. Set permanent=true to delete permanently", subject)
			}
			if err := refuseReferencedOutside(ctx, tx, lv, subject, false); err != nil {
				return err
			}
			for _, v := range lv {
				v.Deleted = true
				if err := tx.PutVersion(ctx, v); err != nil {
					return fmt.Errorf("soft delete %q version %d: %w", subject, v.Version, err)
				}
				out = append(out, v.Version)
			}
			return s.auditTx(ctx, tx, governance.ActionSubjectDelete, subject, "", nil, map[string]any{"versions": out, "permanent": false})
		}
		if len(lv) > 0 {
			return srerr.New(srerr.ErrSubjectNotSoftDeleted,
				"Subject '%s' was not deleted first before being permanently deleted", subject)
		}
		if err := refuseReferencedOutside(ctx, tx, vs, subject, true); err != nil {
			return err
		}
		// Highest first, so that references inside the subject go first.
		for i := len(vs) - 1; i >= 0; i-- {
			if err := tx.DeleteVersion(ctx, subject, vs[i].Version); err != nil {
				return fmt.Errorf("delete %q version %d: %w", subject, vs[i].Version, err)
			}
		}
		for _, v := range vs {
			out = append(out, v.Version)
		}
		if forgot, err = forgetOrphans(ctx, tx, vs); err != nil {
			return err
		}
		if err := s.auditTx(ctx, tx, governance.ActionSubjectDelete, subject, "", nil, map[string]any{"versions": out, "permanent": true}); err != nil {
			return err
		}
		return dropSubjectSettings(ctx, tx, subject)
	})
	if err != nil {
		return nil, err
	}
	s.forgotten(forgot)
	return out, nil
}

// DeleteVersion deletes version n (Latest for the latest live one) of
// subject and returns its number (DELETE /subjects/{s}/versions/{v}).
// Soft by default; permanent only after a soft delete. Removing the last
// version permanently also removes the subject's config and mode.
//
// Errors: 40401 unknown subject; 40402 unknown version; 40406 soft delete
// of a version already soft deleted; 40407 permanent delete of a live
// version; 42206 the version is referenced; 42205 read-only mode.
func (s *Service) DeleteVersion(ctx context.Context, subject string, n int, permanent bool) (int, error) {
	var (
		out    int
		forgot []SchemaKey
	)
	err := s.update(ctx, "delete version", func(tx Tx) error {
		forgot = nil
		if err := checkWritable(ctx, tx, subject); err != nil {
			return err
		}
		vs, err := subjectVersions(ctx, tx, subject)
		if err != nil {
			return err
		}
		if len(vs) == 0 {
			return errSubjectNotFound(subject)
		}
		v, ok := findVersion(vs, n, permanent)
		if !ok {
			return errVersionNotFound(subject, n)
		}
		if !permanent {
			if v.Deleted {
				return srerr.New(srerr.ErrVersionSoftDeleted,
					"Subject '%s' Version %d was soft deleted. Set permanent=true to delete permanently", subject, v.Version)
			}
			if err := refuseReferenced(ctx, tx, []SubjectVersion{v}, false); err != nil {
				return err
			}
			v.Deleted = true
			if err := tx.PutVersion(ctx, v); err != nil {
				return fmt.Errorf("soft delete %q version %d: %w", subject, v.Version, err)
			}
			out = v.Version
			return s.auditTx(ctx, tx, governance.ActionVersionDelete, subject, fmt.Sprintf("version:%d", v.Version), nil, map[string]any{"permanent": false})
		}
		if !v.Deleted {
			return srerr.New(srerr.ErrVersionNotSoftDeleted,
				"Subject '%s' Version %d was not deleted first before being permanently deleted", subject, v.Version)
		}
		if err := refuseReferenced(ctx, tx, []SubjectVersion{v}, true); err != nil {
			return err
		}
		if err := tx.DeleteVersion(ctx, subject, v.Version); err != nil {
			return fmt.Errorf("delete %q version %d: %w", subject, v.Version, err)
		}
		out = v.Version
		if forgot, err = forgetOrphans(ctx, tx, []SubjectVersion{v}); err != nil {
			return err
		}
		if err := s.auditTx(ctx, tx, governance.ActionVersionDelete, subject, fmt.Sprintf("version:%d", v.Version), nil, map[string]any{"permanent": true}); err != nil {
			return err
		}
		if len(vs) == 1 {
			return dropSubjectSettings(ctx, tx, subject)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	s.forgotten(forgot)
	return out, nil
}

// forgetOrphans deletes the schemas of the permanently deleted versions vs
// that no version holds any more, and returns their IDs.
func forgetOrphans(ctx context.Context, tx Tx, vs []SubjectVersion) ([]SchemaKey, error) {
	var out []SchemaKey
	seen := map[SchemaKey]bool{}
	for _, v := range vs {
		if seen[v.Key()] {
			continue
		}
		seen[v.Key()] = true
		held, err := hasVersions(ctx, tx, v.Key())
		if err != nil {
			return nil, err
		}
		if held {
			continue
		}
		if err := tx.DeleteSchema(ctx, v.Context(), v.SchemaID); err != nil && !errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("delete schema %d: %w", v.SchemaID, err)
		}
		out = append(out, v.Key())
	}
	return out, nil
}

// refuseReferenced returns 42206 when a schema with a live version (with
// includeDeleted, any version: a permanent delete, as Confluent's
// getReferencedBy(key, permanentDelete)) references one of vs.
func refuseReferenced(ctx context.Context, tx Tx, vs []SubjectVersion, includeDeleted bool) error {
	return refuseReferencedOutside(ctx, tx, vs, "", includeDeleted)
}

// refuseReferencedOutside is refuseReferenced ignoring referrers whose
// live versions are all in subject (when not ""): a subject delete takes
// a version that references an earlier one of the same subject with it,
// as Confluent's (RestApiTest.testDeleteSubjectWithSelfReferencingVersions).
func refuseReferencedOutside(ctx context.Context, tx Tx, vs []SubjectVersion, subject string, includeDeleted bool) error {
	for _, v := range vs {
		all, err := referrers(ctx, tx, v.Subject, v.Version, includeDeleted)
		if err != nil {
			return err
		}
		keys := all
		if subject != "" {
			keys = nil
			for _, k := range all {
				holders, err := tx.Versions(ctx, VersionQuery{SchemaID: k.ID, Context: k.Context, IncludeDeleted: includeDeleted})
				if err != nil {
					return fmt.Errorf("list versions of schema %d of context %q: %w", k.ID, ContextName(k.Context), err)
				}
				for _, h := range holders {
					if h.Subject != subject {
						keys = append(keys, k)
						break
					}
				}
			}
		}
		if len(keys) > 0 {
			// A referrer of another context than the subject's is named
			// with its context, since its ID is in that context's space.
			strs := make([]string, len(keys))
			for i, k := range keys {
				strs[i] = fmt.Sprint(k.ID)
				if k.Context != v.Context() {
					strs[i] += " (context " + ContextName(k.Context) + ")"
				}
			}
			return srerr.New(srerr.ErrReferenceExists,
				"One or more references exist to the schema {subject=%s, version=%d}: referenced by schema ids [%s]; delete those first",
				v.Subject, v.Version, strings.Join(strs, ", "))
		}
	}
	return nil
}

// dropSubjectSettings removes the config and mode of a subject that has no
// versions left, and its governance history (dropSubjectGovernance).
func dropSubjectSettings(ctx context.Context, tx Tx, subject string) error {
	if err := tx.DeleteConfig(ctx, subject); err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("delete config of %q: %w", subject, err)
	}
	if err := tx.DeleteMode(ctx, subject); err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("delete mode of %q: %w", subject, err)
	}
	return dropSubjectGovernance(ctx, tx, subject)
}
