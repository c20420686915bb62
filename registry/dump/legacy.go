package dump

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// legacy is a dump of format v1 or v2, as registry/client's Export wrote
// it through the REST API: the global config and mode as GET /config and
// GET /mode answered them, the schemas, the subjects with versions, and
// (v2) the governance data the governance API lists.
type legacy struct {
	Format     string            `json:"format"`
	Config     json.RawMessage   `json:"config"`
	Mode       string            `json:"mode"`
	Schemas    []Schema          `json:"schemas"`
	Subjects   []Subject         `json:"subjects"`
	Governance *legacyGovernance `json:"governance,omitempty"`
}

type legacyGovernance struct {
	Policy   json.RawMessage           `json:"policy,omitempty"`
	Subjects []legacySubjectGovernance `json:"subjects"`
	Audit    []AuditEntry              `json:"audit,omitempty"`
}

type legacySubjectGovernance struct {
	Subject      string            `json:"subject"`
	Owner        json.RawMessage   `json:"owner,omitempty"`
	Policy       json.RawMessage   `json:"policy,omitempty"`
	Tags         json.RawMessage   `json:"tags,omitempty"`
	Deprecations []json.RawMessage `json:"deprecations,omitempty"`
	Dismissals   []json.RawMessage `json:"dismissals,omitempty"`
	Removed      []json.RawMessage `json:"removed,omitempty"`
}

// readLegacy converts a v1 or v2 dump to v3. The bodies of the records
// it makes are the v2 dump's JSON objects as they are; the registry
// re-encodes them when it imports a dump whose ReadFrom is set.
func readLegacy(data []byte, format string) (*Dump, error) {
	var l legacy
	if err := strictDecode(data, &l); err != nil {
		return nil, err
	}
	if format == FormatV1 && l.Governance != nil {
		return nil, fmt.Errorf("read dump: format %q has no governance data; a dump with it is %q", FormatV1, FormatV2)
	}
	d := &Dump{Format: Format, ReadFrom: format, Config: compactOrNil(l.Config), Mode: l.Mode,
		Schemas: l.Schemas, Records: []Record{}, Audit: []AuditEntry{}}
	for i := range d.Schemas {
		s := &d.Schemas[i]
		if s.Type == "" {
			s.Type = "AVRO"
		}
		d.MaxSchemaID = max(d.MaxSchemaID, s.ID)
	}
	for _, s := range l.Subjects {
		s.Config = compactOrNil(s.Config)
		if len(s.Versions) == 0 && s.Config == nil && s.Mode == "" {
			continue
		}
		d.Subjects = append(d.Subjects, s)
	}
	g := l.Governance
	if g == nil {
		return d, nil
	}
	add := func(kind, subject, key string, body json.RawMessage) {
		if body = compactOrNil(body); body != nil {
			d.Records = append(d.Records, Record{Kind: kind, Subject: subject, Key: key, Body: body})
		}
	}
	add(KindPolicy, "", "", g.Policy)
	for _, s := range g.Subjects {
		if s.Subject == "" {
			return nil, fmt.Errorf("read dump: a governance subject has no name")
		}
		add(KindOwner, s.Subject, "", s.Owner)
		add(KindPolicy, s.Subject, "", s.Policy)
		add(KindTags, s.Subject, "", s.Tags)
		for _, b := range s.Deprecations {
			var it struct {
				Kind    string `json:"kind"`
				Path    string `json:"path"`
				Version int    `json:"version"`
			}
			if err := json.Unmarshal(b, &it); err != nil {
				return nil, fmt.Errorf("read dump: a deprecation of subject %q: %w", s.Subject, err)
			}
			var key string
			switch {
			case it.Kind == "field" && it.Path != "":
				key = "field:" + it.Path
			case it.Kind == "version" && it.Version > 0:
				key = "version:" + strconv.Itoa(it.Version)
			default:
				return nil, fmt.Errorf("read dump: subject %q: deprecation of kind %q (path %q, version %d): want a field with a path or a version > 0", s.Subject, it.Kind, it.Path, it.Version)
			}
			add(KindDeprecation, s.Subject, key, b)
		}
		for _, b := range s.Dismissals {
			var x struct {
				Field     string `json:"field"`
				PatternID string `json:"patternId"`
			}
			if err := json.Unmarshal(b, &x); err != nil || x.Field == "" {
				return nil, fmt.Errorf("read dump: a dismissal of subject %q has no field", s.Subject)
			}
			add(KindDismissal, s.Subject, x.Field+"#"+x.PatternID, b)
		}
		for _, b := range s.Removed {
			var x struct {
				Path string `json:"path"`
			}
			if err := json.Unmarshal(b, &x); err != nil || x.Path == "" {
				return nil, fmt.Errorf("read dump: a removed field of subject %q has no path", s.Subject)
			}
			add(KindRemoved, s.Subject, x.Path, b)
		}
	}
	d.Audit = append(d.Audit, g.Audit...)
	return d, nil
}

// compactOrNil returns raw without insignificant white space; nil for
// absent, empty or null.
func compactOrNil(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return raw
	}
	return buf.Bytes()
}
