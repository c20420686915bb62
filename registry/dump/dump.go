// Package dump is the format of a whole-registry backup: what `charter
// export` writes, `charter import` and `charter migrate` restore, and the
// registry's admin endpoints (GET /admin/export, POST /admin/import)
// exchange.
//
// A dump of format v3 ([Format]) is the registry's store as it is, read in
// one transaction: every schema by ID, the mark of the largest ID ever
// handed out, every subject version (soft-deleted ones included), every
// stored config and mode (the global ones and those of subjects that have
// no version), every governance record (owners, policies, tags,
// deprecations with their dates and extensions, PII dismissals, removed
// fields, version records, published contracts, the lineage history) with
// its body as stored, and the audit log with its IDs. [Dump.Encode] writes
// it in one order (schemas by ID, subjects by name, records by subject,
// kind and key, the audit log by ID), so two dumps of equal registries
// are equal bytes.
//
// A v3 dump also carries the DEK registry (registry/dek): every KEK and
// every DEK version, soft-deleted ones included, with their times and the
// DEKs' encryptedKeyMaterial (DEKs are wrapped by their KEK's KMS key:
// a dump holds no key material in the clear). The members keks and deks
// are left out when the registry has none, so a registry without keys
// exports the bytes it exported before they existed; a Charter that
// predates them refuses a dump that has them (unknown member) rather
// than dropping them.
//
// [Read] also reads the formats that came before, converted to v3: v1
// (schemas, subjects, configs and modes, written through the REST API) and
// v2 (v1 plus the governance data the governance API lists); a format
// written by a newer Charter is refused, saying so.
//
// The package depends on nothing of Charter's, so the client and the
// server share it.
package dump

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Formats of dumps. Format is what [Dump.Encode] writes; [Read] converts
// the older ones.
const (
	Format   = "charter-registry-dump/v3"
	FormatV2 = "charter-registry-dump/v2"
	FormatV1 = "charter-registry-dump/v1"
)

// formatPrefix starts every format name; the number after it orders them.
const formatPrefix = "charter-registry-dump/v"

// formatNumber is the number of Format.
const formatNumber = 3

// Dump is a whole registry. The zero value of each list is written as an
// empty list.
type Dump struct {
	// Format is Format.
	Format string `json:"format"`
	// ExportedAt is when the dump was read, by the exporting registry's
	// clock (zero in a dump converted from v1 or v2).
	ExportedAt time.Time `json:"exportedAt"`
	// MaxSchemaID is the largest schema ID the registry ever handed out
	// or stored, deleted ones included: new schemas get IDs above it.
	MaxSchemaID int64 `json:"maxSchemaId"`
	// SchemaIDFloor and RetiredSchemaIDs are the state of ID allocation
	// past the largest ID (2147483647, reached only by an IMPORT): new IDs
	// are the smallest above SchemaIDFloor that no schema holds and none
	// in RetiredSchemaIDs (deleted ones). Absent while they are empty.
	SchemaIDFloor    int64   `json:"schemaIdFallbackFloor,omitempty"`
	RetiredSchemaIDs []int64 `json:"retiredSchemaIds,omitempty"`
	// Contexts holds the ID allocation state of each schema context other
	// than the default one (the fields above), by name; absent when
	// there are none.
	Contexts []ContextIDs `json:"contexts,omitempty"`
	// Config is the stored global config (the registry's Config JSON), nil
	// when none is stored (the defaults apply).
	Config json.RawMessage `json:"config,omitempty"`
	// Mode is the stored global mode, "" when none is stored (READWRITE).
	Mode     string    `json:"mode,omitempty"`
	Schemas  []Schema  `json:"schemas"`
	Subjects []Subject `json:"subjects"`
	// Records are the governance records, global ones (subject "")
	// first.
	Records []Record `json:"records"`
	// Audit is the audit log, by ID.
	Audit []AuditEntry `json:"audit"`
	// Keks and Deks are the DEK registry's keys, absent when there are
	// none: KEKs by name, DEKs by KEK name, subject, algorithm and
	// version.
	Keks []Kek `json:"keks,omitempty"`
	Deks []Dek `json:"deks,omitempty"`

	// ReadFrom is the format the dump was read in, when [Read] converted
	// it from an older one ("" otherwise). Not encoded.
	ReadFrom string `json:"-"`
}

// ContextIDs is the ID allocation state of one schema context (".ctx"):
// as Dump's MaxSchemaID, SchemaIDFloor and RetiredSchemaIDs are for the
// default context.
type ContextIDs struct {
	Context          string  `json:"context"`
	MaxSchemaID      int64   `json:"maxSchemaId"`
	SchemaIDFloor    int64   `json:"schemaIdFallbackFloor,omitempty"`
	RetiredSchemaIDs []int64 `json:"retiredSchemaIds,omitempty"`
	// Deleted says DELETE /contexts removed the context (its mark stays).
	Deleted bool `json:"deleted,omitempty"`
}

// Schema is one stored schema with its ID in its context (Context, absent
// for the default one). Metadata and RuleSet are the stored JSON objects
// (nil when absent).
type Schema struct {
	Context    string          `json:"context,omitempty"`
	ID         int64           `json:"id"`
	Type       string          `json:"schemaType"`
	Text       string          `json:"schema"`
	References []Reference     `json:"references,omitempty"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
	RuleSet    json.RawMessage `json:"ruleSet,omitempty"`
}

// Reference is a schema reference (Confluent's references entry).
type Reference struct {
	Name    string `json:"name"`
	Subject string `json:"subject"`
	Version int    `json:"version"`
}

// Subject is one subject: its stored config and mode (nil and "" when it
// has none of its own) and its versions, ascending. A subject whose every
// version was permanently deleted is listed when it keeps a config or a
// mode.
type Subject struct {
	Subject  string          `json:"subject"`
	Config   json.RawMessage `json:"config,omitempty"`
	Mode     string          `json:"mode,omitempty"`
	Versions []Version       `json:"versions"`
}

// Version binds a version number to a schema ID; Deleted marks a soft
// delete.
type Version struct {
	Version int   `json:"version"`
	ID      int64 `json:"id"`
	Deleted bool  `json:"deleted,omitempty"`
}

// Record is one governance record as the store keeps it: a JSON body
// under (Kind, Subject, Key). Subject "" holds global records (the global
// policy, the lineage revision counter). The kinds Charter writes are
// listed in [Kinds].
type Record struct {
	Kind    string          `json:"kind"`
	Subject string          `json:"subject"`
	Key     string          `json:"key"`
	Body    json.RawMessage `json:"body"`
}

// Kinds of governance records, with what their key and body are.
const (
	KindOwner       = "owner"       // key "": the subject's owner, who set it and when
	KindPolicy      = "policy"      // key "": the subject's (or, subject "", the global) policy
	KindTags        = "tags"        // key "": path glob → tags
	KindDeprecation = "deprecation" // key the item ("field:.a", "version:3"): dates, TTL, extensions
	KindDismissal   = "dismissal"   // key field#pattern: a reviewed PII false positive
	KindRemoved     = "removed"     // key the field path: a field a version removed
	KindVersion     = "version"     // key %010d version: semantic version and changes
	KindContract    = "contract"    // key the consumer: the published pact, its consumer version and branch
	KindLineage     = "lineage"     // key %020d revision: one change of producers and consumers
	KindLineageRev  = "lineage.rev" // subject "", key "": the last lineage revision
)

// Kinds lists the record kinds Charter writes.
var Kinds = []string{KindOwner, KindPolicy, KindTags, KindDeprecation, KindDismissal, KindRemoved,
	KindVersion, KindContract, KindLineage, KindLineageRev}

// AuditEntry is one audit log entry, as GET /governance/audit answers it.
type AuditEntry struct {
	ID      int64           `json:"id"`
	Time    time.Time       `json:"time"`
	Actor   string          `json:"actor"`
	Action  string          `json:"action"`
	Subject string          `json:"subject,omitempty"`
	Target  string          `json:"target,omitempty"`
	Before  json.RawMessage `json:"before,omitempty"`
	After   json.RawMessage `json:"after,omitempty"`
}

// Kek is a key-encryption key of the DEK registry: a KMS key by
// reference. Ts is its last change in Unix milliseconds.
type Kek struct {
	Name     string            `json:"name"`
	KmsType  string            `json:"kmsType"`
	KmsKeyID string            `json:"kmsKeyId"`
	KmsProps map[string]string `json:"kmsProps,omitempty"`
	Doc      string            `json:"doc,omitempty"`
	Shared   bool              `json:"shared,omitempty"`
	Ts       int64             `json:"ts"`
	Deleted  bool              `json:"deleted,omitempty"`
}

// Dek is one version of a data-encryption key: the DEK wrapped by its
// KEK (encryptedKeyMaterial, base64).
type Dek struct {
	KekName              string `json:"kekName"`
	Subject              string `json:"subject"`
	Algorithm            string `json:"algorithm"`
	Version              int    `json:"version"`
	EncryptedKeyMaterial string `json:"encryptedKeyMaterial"`
	Ts                   int64  `json:"ts"`
	Deleted              bool   `json:"deleted,omitempty"`
}

// dekAlgorithms are the DEK algorithms (registry/dek.Algorithms).
var dekAlgorithms = []string{"AES128_GCM", "AES256_GCM", "AES256_SIV"}

// Counts says how much a dump holds.
type Counts struct {
	Schemas  int `json:"schemas"`
	Subjects int `json:"subjects"`
	Versions int `json:"versions"`
	// Deleted counts the soft-deleted versions among Versions.
	Deleted int `json:"deleted"`
	// Configs and Modes count the stored ones, global ones included.
	Configs int `json:"configs"`
	Modes   int `json:"modes"`
	// Records counts governance records, Audit audit entries.
	Records int `json:"records"`
	Audit   int `json:"audit"`
	// Keks and Deks count the DEK registry's keys (absent when 0).
	Keks int `json:"keks,omitempty"`
	Deks int `json:"deks,omitempty"`
}

// Counts returns what d holds.
func (d *Dump) Counts() Counts {
	n := Counts{Schemas: len(d.Schemas), Subjects: len(d.Subjects), Records: len(d.Records), Audit: len(d.Audit),
		Keks: len(d.Keks), Deks: len(d.Deks)}
	if d.Config != nil {
		n.Configs++
	}
	if d.Mode != "" {
		n.Modes++
	}
	for _, s := range d.Subjects {
		n.Versions += len(s.Versions)
		for _, v := range s.Versions {
			if v.Deleted {
				n.Deleted++
			}
		}
		if s.Config != nil {
			n.Configs++
		}
		if s.Mode != "" {
			n.Modes++
		}
	}
	return n
}

// Sort puts every list of d in the order Encode writes: schemas by ID,
// subjects by name (byte order) and their versions ascending, records by
// subject, kind and key, the audit log by ID.
func (d *Dump) Sort() {
	slices.SortFunc(d.Schemas, func(a, b Schema) int {
		return cmp.Or(strings.Compare(a.Context, b.Context), cmp.Compare(a.ID, b.ID))
	})
	slices.SortFunc(d.Contexts, func(a, b ContextIDs) int { return strings.Compare(a.Context, b.Context) })
	for i := range d.Contexts {
		slices.Sort(d.Contexts[i].RetiredSchemaIDs)
	}
	slices.SortFunc(d.Subjects, func(a, b Subject) int { return strings.Compare(a.Subject, b.Subject) })
	for i := range d.Subjects {
		slices.SortFunc(d.Subjects[i].Versions, func(a, b Version) int { return cmp.Compare(a.Version, b.Version) })
	}
	slices.SortFunc(d.Records, func(a, b Record) int {
		return cmp.Or(strings.Compare(a.Subject, b.Subject), strings.Compare(a.Kind, b.Kind), strings.Compare(a.Key, b.Key))
	})
	slices.SortFunc(d.Audit, func(a, b AuditEntry) int { return cmp.Compare(a.ID, b.ID) })
	slices.Sort(d.RetiredSchemaIDs)
	slices.SortFunc(d.Keks, func(a, b Kek) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(d.Deks, func(a, b Dek) int {
		return cmp.Or(strings.Compare(a.KekName, b.KekName), strings.Compare(a.Subject, b.Subject),
			strings.Compare(a.Algorithm, b.Algorithm), cmp.Compare(a.Version, b.Version))
	})
}

// Encode returns d as indented JSON ending in a newline, its lists sorted
// (see Sort), empty lists as [], times in UTC, JSON bodies re-indented
// (their content unchanged) and <, > and & as they are.
func (d *Dump) Encode() ([]byte, error) {
	c := *d
	c.Schemas = nonNil(slices.Clone(d.Schemas))
	c.Subjects = nonNil(slices.Clone(d.Subjects))
	for i := range c.Subjects {
		c.Subjects[i].Versions = nonNil(slices.Clone(c.Subjects[i].Versions))
	}
	c.Records = nonNil(slices.Clone(d.Records))
	c.Audit = nonNil(slices.Clone(d.Audit))
	c.Keks = slices.Clone(d.Keks)
	c.Deks = slices.Clone(d.Deks)
	c.ExportedAt = c.ExportedAt.UTC()
	for i := range c.Audit {
		c.Audit[i].Time = c.Audit[i].Time.UTC()
	}
	c.Sort()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&c); err != nil {
		return nil, fmt.Errorf("encode dump: %w", err)
	}
	return buf.Bytes(), nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ErrNewerFormat is returned (wrapped) by Read for a dump written by a
// newer Charter, in a format this one does not know.
var ErrNewerFormat = errors.New("the dump was written by a newer Charter")

// Read decodes a dump of any known format, converting v1 and v2 to v3
// (Dump.ReadFrom names the format read), and checks it (Validate). Fields
// that the format does not have are refused, so nothing in a dump is
// silently dropped.
func Read(data []byte) (*Dump, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("read dump: the dump is empty (0 bytes of JSON)")
	}
	if !utf8.Valid(data) {
		// JSON decoding would replace the bytes, restoring other text.
		return nil, errors.New("read dump: the dump is not valid UTF-8")
	}
	var head struct {
		Format *string `json:"format"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("read dump: %w", err)
	}
	if head.Format == nil {
		return nil, fmt.Errorf("read dump: no \"format\" member; want a dump written by charter export (format %q)", Format)
	}
	var d *Dump
	switch f := *head.Format; f {
	case Format:
		d = &Dump{}
		if err := strictDecode(data, d); err != nil {
			return nil, err
		}
	case FormatV1, FormatV2:
		var err error
		if d, err = readLegacy(data, f); err != nil {
			return nil, err
		}
	default:
		if n, ok := number(f); ok && n > formatNumber {
			return nil, fmt.Errorf("read dump: format %q: %w, which reads formats v1 to v%d; upgrade charter to import it", f, ErrNewerFormat, formatNumber)
		}
		return nil, fmt.Errorf("read dump: unknown format %q; want %q (or the older %q, %q)", f, Format, FormatV2, FormatV1)
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return d, nil
}

// number returns n of formatPrefix + n.
func number(f string) (int, bool) {
	rest, ok := strings.CutPrefix(f, formatPrefix)
	if !ok || rest == "" {
		return 0, false
	}
	n := 0
	for _, c := range rest {
		if c < '0' || c > '9' || n > 1e6 {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func strictDecode(data []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return fmt.Errorf("read dump: %w", err)
	}
	if dec.More() {
		return errors.New("read dump: more than one JSON value")
	}
	return nil
}

// Validate checks that d can be restored: its format, positive and unique
// schema IDs, a mark at least the largest of them, named and unique
// subjects, positive and unique versions that use schemas of the dump,
// JSON objects where configs, metadata and rule sets are, unique records
// with a kind and a JSON body, and positive, unique audit IDs.
func (d *Dump) Validate() error {
	if d.Format != Format {
		return fmt.Errorf("read dump: format %q, want %q", d.Format, Format)
	}
	marks, err := d.contextMarks()
	if err != nil {
		return err
	}
	if err := object(d.Config, "the global config"); err != nil {
		return err
	}
	type skey struct {
		context string
		id      int64
	}
	ids := make(map[skey]bool, len(d.Schemas))
	for _, s := range d.Schemas {
		k := skey{s.Context, s.ID}
		mark, known := marks[s.Context]
		switch {
		case s.ID <= 0:
			return fmt.Errorf("read dump: schema id %d: want a positive id", s.ID)
		case ids[k]:
			return fmt.Errorf("read dump: schema id %d%s is listed twice", s.ID, inContext(s.Context))
		case !known:
			return fmt.Errorf("read dump: schema %d is in context %q, which contexts does not list", s.ID, s.Context)
		case s.ID > mark:
			return fmt.Errorf("read dump: schema id %d%s is above maxSchemaId %d", s.ID, inContext(s.Context), mark)
		case s.Type == "":
			return fmt.Errorf("read dump: schema %d has no schemaType", s.ID)
		}
		ids[k] = true
		if err := object(s.Metadata, fmt.Sprintf("the metadata of schema %d", s.ID)); err != nil {
			return err
		}
		if err := object(s.RuleSet, fmt.Sprintf("the ruleSet of schema %d", s.ID)); err != nil {
			return err
		}
		for _, r := range s.References {
			if r.Subject == "" || r.Version <= 0 {
				return fmt.Errorf("read dump: schema %d: reference %q: want a subject and a positive version", s.ID, r.Name)
			}
		}
	}
	subjects := make(map[string]bool, len(d.Subjects))
	for _, s := range d.Subjects {
		if s.Subject == "" {
			return errors.New("read dump: a subject has no name")
		}
		if subjects[s.Subject] {
			return fmt.Errorf("read dump: subject %q is listed twice", s.Subject)
		}
		subjects[s.Subject] = true
		if err := object(s.Config, fmt.Sprintf("the config of subject %q", s.Subject)); err != nil {
			return err
		}
		if len(s.Versions) == 0 && s.Config == nil && s.Mode == "" {
			return fmt.Errorf("read dump: subject %q has no version, config or mode", s.Subject)
		}
		versions := map[int]bool{}
		for _, v := range s.Versions {
			switch {
			case v.Version <= 0:
				return fmt.Errorf("read dump: subject %q version %d: want a positive version", s.Subject, v.Version)
			case versions[v.Version]:
				return fmt.Errorf("read dump: subject %q lists version %d twice", s.Subject, v.Version)
			case !ids[skey{SubjectContext(s.Subject), v.ID}]:
				return fmt.Errorf("read dump: subject %q version %d uses schema id %d, which the dump does not hold", s.Subject, v.Version, v.ID)
			}
			versions[v.Version] = true
		}
	}
	type rkey struct{ kind, subject, key string }
	records := make(map[rkey]bool, len(d.Records))
	for _, r := range d.Records {
		k := rkey{r.Kind, r.Subject, r.Key}
		switch {
		case r.Kind == "":
			return fmt.Errorf("read dump: a record of subject %q (key %q) has no kind", r.Subject, r.Key)
		case records[k]:
			return fmt.Errorf("read dump: the %s record %q of subject %q is listed twice", r.Kind, r.Key, r.Subject)
		case len(r.Body) == 0 || !json.Valid(r.Body):
			return fmt.Errorf("read dump: the %s record %q of subject %q has no JSON body", r.Kind, r.Key, r.Subject)
		}
		records[k] = true
	}
	audit := make(map[int64]bool, len(d.Audit))
	for _, e := range d.Audit {
		switch {
		case e.ID <= 0:
			return fmt.Errorf("read dump: audit entry id %d: want a positive id", e.ID)
		case audit[e.ID]:
			return fmt.Errorf("read dump: audit entry %d is listed twice", e.ID)
		case e.Action == "":
			return fmt.Errorf("read dump: audit entry %d has no action", e.ID)
		}
		audit[e.ID] = true
	}
	return d.validateKeys()
}

// validateKeys checks the DEK registry's keys: named, unique KEKs with a
// KMS type and key ID; DEKs of a KEK of the dump, with a subject, a known
// algorithm, a positive version and their encryptedKeyMaterial, unique.
func (d *Dump) validateKeys() error {
	keks := make(map[string]bool, len(d.Keks))
	for _, k := range d.Keks {
		switch {
		case k.Name == "":
			return errors.New("read dump: a KEK has no name")
		case keks[k.Name]:
			return fmt.Errorf("read dump: KEK %q is listed twice", k.Name)
		case k.KmsType == "" || k.KmsKeyID == "":
			return fmt.Errorf("read dump: KEK %q has no kmsType or kmsKeyId", k.Name)
		}
		keks[k.Name] = true
	}
	type dkey struct {
		kek, subject, alg string
		version           int
	}
	deks := make(map[dkey]bool, len(d.Deks))
	for _, k := range d.Deks {
		id := dkey{k.KekName, k.Subject, k.Algorithm, k.Version}
		switch {
		case !keks[k.KekName]:
			return fmt.Errorf("read dump: the DEK of subject %q names KEK %q, which the dump does not hold", k.Subject, k.KekName)
		case k.Subject == "":
			return fmt.Errorf("read dump: a DEK of KEK %q has no subject", k.KekName)
		case !slices.Contains(dekAlgorithms, k.Algorithm):
			return fmt.Errorf("read dump: the DEK of subject %q (KEK %q) has algorithm %q; want one of %s", k.Subject, k.KekName, k.Algorithm, strings.Join(dekAlgorithms, ", "))
		case k.Version <= 0:
			return fmt.Errorf("read dump: the DEK of subject %q (KEK %q) has version %d; want a positive version", k.Subject, k.KekName, k.Version)
		case k.EncryptedKeyMaterial == "":
			return fmt.Errorf("read dump: the DEK of subject %q (KEK %q) version %d has no encryptedKeyMaterial", k.Subject, k.KekName, k.Version)
		case deks[id]:
			return fmt.Errorf("read dump: the DEK of subject %q (KEK %q, %s) version %d is listed twice", k.Subject, k.KekName, k.Algorithm, k.Version)
		}
		deks[id] = true
	}
	return nil
}

// object reports raw that is present but not a JSON object.
func object(raw json.RawMessage, what string) error {
	if raw == nil {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return fmt.Errorf("read dump: %s is not a JSON object", what)
	}
	return nil
}

// Diff compares the dump a registry exported after an import (got) with
// the dump imported (want), leaving out got's audit entry importAuditID
// (the import's own; 0 for none) and the export times. It returns "" when
// they are the same, else where they first differ, by line of their
// encodings.
func Diff(want, got *Dump, importAuditID int64) string {
	w, g := *want, *got
	g.ExportedAt = w.ExportedAt
	g.Audit = slices.DeleteFunc(slices.Clone(g.Audit), func(e AuditEntry) bool { return importAuditID > 0 && e.ID == importAuditID })
	wb, err := w.Encode()
	if err != nil {
		return err.Error()
	}
	gb, err := g.Encode()
	if err != nil {
		return err.Error()
	}
	if bytes.Equal(wb, gb) {
		return ""
	}
	wl, gl := strings.Split(string(wb), "\n"), strings.Split(string(gb), "\n")
	for i := 0; ; i++ {
		switch {
		case i >= len(wl):
			return fmt.Sprintf("line %d: the registry has %s, the dump ends", i+1, strings.TrimSpace(gl[i]))
		case i >= len(gl):
			return fmt.Sprintf("line %d: the registry ends, the dump has %s", i+1, strings.TrimSpace(wl[i]))
		case wl[i] != gl[i]:
			return fmt.Sprintf("line %d: the registry has %s, the dump %s", i+1, strings.TrimSpace(gl[i]), strings.TrimSpace(wl[i]))
		}
	}
}
