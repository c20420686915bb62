package lineage

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// ErrUnknownField: an impact query names a path that no version of the
// subject has and no consumer reads.
var ErrUnknownField = errors.New("unknown field")

// FieldChange is the change an impact query asks about.
type FieldChange string

// Field changes. Every one of them affects the consumers that read the
// field or anything inside it; the kind is kept in the answer for the
// message.
const (
	ChangeRemove    FieldChange = "remove"
	ChangeRename    FieldChange = "rename"
	ChangeRetype    FieldChange = "retype"
	ChangeDeprecate FieldChange = "deprecate"
)

// ImpactQuery asks who is affected if field Path of Subject changes.
type ImpactQuery struct {
	Subject string      `json:"subject"`
	Path    string      `json:"path"`
	Change  FieldChange `json:"change"`
	// Version is the schema version that would carry the change; 0 means
	// the next one, so only consumers whose range is open are affected.
	Version int `json:"version,omitempty"`
}

// Impact is one consumer a field change affects: the fields it reads
// that the change touches, the versions it reads and where that comes from.
type Impact struct {
	Service         string       `json:"service"`
	Subject         string       `json:"subject"`
	Change          FieldChange  `json:"change"`
	Fields          []string     `json:"fields"`
	Range           VersionRange `json:"range"`
	Source          Source       `json:"source"`
	ContractVersion string       `json:"contractVersion,omitempty"`
	Branch          string       `json:"branch,omitempty"`
	Since           time.Time    `json:"since,omitzero"`
}

// Impact answers "who breaks if field q.Path of q.Subject changes?": every
// consumer of the subject that reads the field or a field inside it
// (".carrier" covers ".carrier.code") and reads the version that would
// carry the change, sorted by service. It fails with ErrUnknownSubject or
// ErrUnknownField.
func (g *Graph) Impact(q ImpactQuery) ([]Impact, error) {
	if _, ok := g.Node(SubjectID(q.Subject)); !ok {
		return nil, fmt.Errorf("impact of %s on %q: %w", q.Path, q.Subject, ErrUnknownSubject)
	}
	known := false
	for _, n := range g.Nodes {
		if n.Kind == KindField && n.Subject == q.Subject && covers(q.Path, n.Path) {
			known = true
			break
		}
	}
	if !known {
		return nil, fmt.Errorf("impact on %s: field %s: %w", q.Subject, q.Path, ErrUnknownField)
	}
	field, _ := g.Node(FieldID(q.Subject, q.Path))
	out := []Impact{}
	for _, c := range g.consumers {
		if c.Subject != q.Subject {
			continue
		}
		if q.Version == 0 && c.Range.To != 0 || q.Version != 0 && !c.Range.Contains(q.Version) {
			continue
		}
		var hit []string
		for _, f := range c.Fields {
			if covers(q.Path, f) {
				hit = append(hit, f)
			}
		}
		if len(hit) == 0 {
			continue
		}
		out = append(out, Impact{
			Service: c.Service, Subject: c.Subject, Change: q.Change, Fields: hit, Range: c.Range,
			Source: c.Source, ContractVersion: c.ContractVersion, Branch: c.Branch, Since: readSince(c.Since, field.Added),
		})
	}
	return out, nil
}

// Reader is a consumer reading a tagged field.
type Reader struct {
	Service string `json:"service"`
	// Fields are the paths it reads at or inside the tagged field.
	Fields []string     `json:"fields"`
	Range  VersionRange `json:"range"`
	Source Source       `json:"source"`
	Since  time.Time    `json:"since,omitzero"`
}

// Exposure is one field carrying a tag and the consumers that read it.
type Exposure struct {
	Subject  string   `json:"subject"`
	Path     string   `json:"path"`
	Tags     []string `json:"tags"`
	Versions []int    `json:"versions"`
	Readers  []Reader `json:"readers"`
	// Encryption, when set, is the client-side encryption rule of the
	// subject's latest version that covers the field (Confluent's
	// field-level encryption: its readers see ciphertext unless they hold
	// the KEK); absent, the field travels in the clear. The graph does not
	// know rule sets: the registry fills it in.
	Encryption *Encryption `json:"encryption,omitempty"`
}

// Encryption is the ENCRYPT (or ENCRYPT_PAYLOAD) rule covering a field.
type Encryption struct {
	// Rule and Type are the rule's name and type; Version is the subject
	// version whose rule set has it.
	Rule    string `json:"rule"`
	Type    string `json:"type"`
	Version int    `json:"version"`
	// Kek and KmsType are the rule's encrypt.kek.name and
	// encrypt.kms.type ("" when the rule leaves them to the client).
	Kek     string `json:"kek,omitempty"`
	KmsType string `json:"kmsType,omitempty"`
}

// Exposure answers "who consumes fields tagged tag (PII …), since when?":
// for every field any version tags with tag (case-insensitive), the
// consumers that read it or a field inside it, the earliest first. Fields
// nobody reads are listed with no readers, so the answer also shows what
// is tagged. Sorted by subject and path.
func (g *Graph) Exposure(tag string) []Exposure {
	out := []Exposure{}
	for _, n := range g.Nodes {
		if n.Kind != KindField || !hasTag(n.Tags, tag) {
			continue
		}
		e := Exposure{Subject: n.Subject, Path: n.Path, Tags: n.Tags, Versions: n.Versions, Readers: []Reader{}}
		for _, c := range g.consumers {
			if c.Subject != n.Subject {
				continue
			}
			var hit []string
			for _, f := range c.Fields {
				if covers(n.Path, f) {
					hit = append(hit, f)
				}
			}
			if len(hit) > 0 {
				e.Readers = append(e.Readers, Reader{Service: c.Service, Fields: hit, Range: c.Range, Source: c.Source, Since: readSince(c.Since, n.Added)})
			}
		}
		sort.SliceStable(e.Readers, func(i, j int) bool {
			a, b := e.Readers[i], e.Readers[j]
			if !a.Since.Equal(b.Since) {
				return a.Since.Before(b.Since)
			}
			return a.Service < b.Service
		})
		out = append(out, e)
	}
	return out
}

func hasTag(tags []string, tag string) bool {
	for _, t := range tags {
		if strings.EqualFold(t, tag) {
			return true
		}
	}
	return false
}
