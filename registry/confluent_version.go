package registry

import (
	"context"
	"encoding/json"
	"strconv"
)

// ConfluentVersionProperty is the metadata property in which Confluent
// records the version number a registration asked for
// (Metadata.CONFLUENT_VERSION). Outside IMPORT, a registration that names
// a version (a number, or -1 for "latest") or whose metadata (its own,
// inherited from the latest version, or the config's) holds the property
// stores the new version's number in it; a lookup sets the property aside
// when only one side has it (RestApiTest.testConfluentVersion).
const ConfluentVersionProperty = "confluent:version"

// confluentVersion returns the integer value of meta's confluent:version
// property (ok false when it is absent or not an integer, as Confluent's
// Metadata.getConfluentVersionNumber).
func confluentVersion(meta json.RawMessage) (int, bool) {
	s, ok := metadataProperty(meta, ConfluentVersionProperty)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// hasConfluentVersion reports whether meta holds the property, whatever
// its value.
func hasConfluentVersion(meta json.RawMessage) bool {
	_, ok := metadataProperty(meta, ConfluentVersionProperty)
	return ok
}

// withConfluentVersion returns meta with the property set to version.
func withConfluentVersion(meta json.RawMessage, version int) json.RawMessage {
	return mergeMetadata(meta, json.RawMessage(`{"properties":{"`+ConfluentVersionProperty+`":"`+strconv.Itoa(version)+`"}}`))
}

// sansConfluentVersion returns meta without the property, empty members
// dropped (nil when nothing is left), so that no metadata and empty
// metadata compare equal, as Confluent's canLookup compares them.
func sansConfluentVersion(meta json.RawMessage) json.RawMessage {
	m := decodeObject(meta)
	if m == nil {
		return nil
	}
	if props, ok := m["properties"].(map[string]any); ok {
		delete(props, ConfluentVersionProperty)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return mergeMetadata(b)
}

// markConfluentVersion returns the metadata a registration stores,
// meta being the merge of the request's (or the inherited) and the
// config's: with the confluent:version property set to next, the new
// version's number, when the request named a version or meta holds the
// property (Confluent's maybeSetMetadataRuleSet). IMPORT stores metadata
// as sent.
func (r *registration) markConfluentVersion(meta json.RawMessage, versions []SubjectVersion) json.RawMessage {
	if r.mode == ModeImport || (r.sent.Version == 0 && !hasConfluentVersion(meta)) {
		return meta
	}
	next := 1
	if len(versions) > 0 {
		next = versions[len(versions)-1].Version + 1
	}
	return withConfluentVersion(meta, next)
}

// namedVersion answers existingVersion for a request that names a
// version outside IMPORT, as Confluent's register does: a number never
// takes an existing version (it must be the next one); -1 takes the
// latest live version when that is this schema (the request's own
// metadata and ruleSet unless the config has defaults or overrides),
// else a new version.
func (r *registration) namedVersion(ctx context.Context, tx Tx) (SubjectVersion, Schema, bool, error) {
	lv := live(r.versions)
	if r.req.Version != Latest || len(lv) == 0 {
		return SubjectVersion{}, Schema{}, false, nil
	}
	look := r.cand
	if !hasDefaultsOrOverrides(r.cfg) {
		look = withContract(r.cand, r.raw.Metadata, r.raw.RuleSet)
	}
	latest := lv[len(lv)-1:]
	st, err := storedSchema(ctx, tx, latest[0].Key())
	if err != nil {
		return SubjectVersion{}, Schema{}, false, err
	}
	if fp := contentFingerprint(st); fp == look.schema.Fingerprint || fp == look.altFingerprint {
		return latest[0], st, true, nil
	}
	s := r.s
	matchers := []func() (SubjectVersion, Schema, bool, error){
		func() (SubjectVersion, Schema, bool, error) { return s.matchConfluentVersion(ctx, tx, look, latest) },
		func() (SubjectVersion, Schema, bool, error) { return s.matchSerialized(ctx, tx, look, latest, true) },
		func() (SubjectVersion, Schema, bool, error) {
			return s.matchInlined(ctx, tx, look, latest, false, r.norm)
		},
	}
	if r.norm {
		matchers = append(matchers, func() (SubjectVersion, Schema, bool, error) {
			return s.matchNormalized(ctx, tx, look, latest, true)
		})
	}
	for _, m := range matchers {
		if v, st, ok, err := m(); err != nil || ok {
			return v, st, ok, err
		}
	}
	return SubjectVersion{}, Schema{}, false, nil
}

// matchConfluentVersion returns the newest of versions that holds cand
// once the confluent:version property is set aside on the side that has
// it, as Confluent's canLookup decides it: a candidate without the
// property is a version that has it and is otherwise the same; one with
// the property is the version of that number when that version has no
// property and is otherwise the same. When both or neither have it, the
// fingerprint decides (findInSubject's first step).
func (s *Service) matchConfluentVersion(ctx context.Context, tx Tx, cand candidate, versions []SubjectVersion) (SubjectVersion, Schema, bool, error) {
	st := cand.schema
	// want holds cand's fingerprints (both forms of its text) with the
	// property set aside, computed when a version may match.
	var want map[string]bool
	wanted := func() map[string]bool {
		if want != nil {
			return want
		}
		sans := sansConfluentVersion(st.Metadata)
		if string(sans) == string(compactJSON(st.Metadata)) {
			want = map[string]bool{st.Fingerprint: true, cand.altFingerprint: true}
			return want
		}
		want = map[string]bool{Fingerprint(st.Type, st.Text, st.References, sans, st.RuleSet): true}
		if p := cand.parsed; p != nil {
			for _, text := range []string{p.Canonical(), p.Normalized()} {
				want[Fingerprint(st.Type, text, st.References, sans, st.RuleSet)] = true
			}
		}
		return want
	}
	if n, ok := confluentVersion(st.Metadata); ok {
		for i := len(versions) - 1; i >= 0; i-- {
			if versions[i].Version != n {
				continue
			}
			prev, err := storedSchema(ctx, tx, versions[i].Key())
			if err != nil {
				return SubjectVersion{}, Schema{}, false, err
			}
			if _, has := confluentVersion(prev.Metadata); !has &&
				wanted()[Fingerprint(prev.Type, prev.Text, prev.References, sansConfluentVersion(prev.Metadata), prev.RuleSet)] {
				return versions[i], prev, true, nil
			}
			break
		}
		return SubjectVersion{}, Schema{}, false, nil
	}
	if hasConfluentVersion(st.Metadata) {
		// A value that is no number counts as none on both sides, as in
		// Confluent; the fingerprint decided.
		return SubjectVersion{}, Schema{}, false, nil
	}
	for i := len(versions) - 1; i >= 0; i-- {
		fs, err := s.lookupFact(ctx, tx, versions[i].Key())
		if err != nil {
			return SubjectVersion{}, Schema{}, false, err
		}
		if fs.sansVersion == "" || !wanted()[fs.sansVersion] {
			continue
		}
		prev, err := storedSchema(ctx, tx, versions[i].Key())
		if err != nil {
			return SubjectVersion{}, Schema{}, false, err
		}
		return versions[i], prev, true, nil
	}
	return SubjectVersion{}, Schema{}, false, nil
}

// sansVersionFingerprint is the fingerprint of st with its
// confluent:version property set aside, "" when st has no such (integer)
// property: a lookup fact.
func sansVersionFingerprint(st Schema) string {
	if _, ok := confluentVersion(st.Metadata); !ok {
		return ""
	}
	return Fingerprint(st.Type, st.Text, st.References, sansConfluentVersion(st.Metadata), st.RuleSet)
}
