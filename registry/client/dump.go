package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/srerr"
)

// DumpFormat is the Format of every Dump this package writes. ReadDump
// and Import also take DumpFormatV1 (a dump without governance data) and
// refuse any other.
const DumpFormat = "charter-registry-dump/v2"

// DumpFormatV1 is the format of the dumps written before governance data
// was added (v2 adds Dump.Governance).
const DumpFormatV1 = "charter-registry-dump/v1"

// Dump is the REST-level dump (formats v1 and v2): what the REST API shows
// of a registry, as Export reads it and Import restores it. It loses what
// the REST API does not show (published contracts, lineage, the dates and
// actors of governance records, the audit log on import); Charter's
// lossless backup is ExportDump and ImportDump (format v3, package
// registry/dump, which also reads these dumps). Export and Import remain
// for registries without Charter's admin endpoints.
//
// A Dump holds every schema by global ID, every subject with its versions
// (soft-deleted ones included), the configs and modes of the global scope
// and of each subject. Lists are sorted (schemas by ID, subjects by name, versions
// ascending), so two dumps of equal registries are equal JSON.
//
// A schema is stored once, by ID, as GET /schemas/ids/{id} gives it; a
// version holds only its number, schema ID and deleted flag. What GET
// /subjects/{s}/versions/{v} adds per subject (the owner's metadata
// properties, see DumpSubjectGovernance.Owner) is not schema content: it
// is restored with the governance data.
//
// A subject that has a config or a mode but no version at all (not even a
// soft-deleted one) is not listed by the REST API, so it is not in the
// dump; nor are hard-deleted versions and the IDs they freed.
type Dump struct {
	// Format is DumpFormat.
	Format string `json:"format"`
	// Config and Mode are the global ones (GET /config, GET /mode).
	Config   Config        `json:"config"`
	Mode     string        `json:"mode"`
	Schemas  []DumpSchema  `json:"schemas"`
	Subjects []DumpSubject `json:"subjects"`
	// Governance is Charter's governance data (format v2; nil in a v1
	// dump).
	Governance *DumpGovernance `json:"governance,omitempty"`
}

// DumpSchema is one stored schema with its global ID. Metadata and
// RuleSet are the stored JSON objects, kept as they are.
type DumpSchema struct {
	ID         int64             `json:"id"`
	Type       compat.SchemaType `json:"schemaType"`
	Text       string            `json:"schema"`
	References []Reference       `json:"references,omitempty"`
	Metadata   json.RawMessage   `json:"metadata,omitempty"`
	RuleSet    json.RawMessage   `json:"ruleSet,omitempty"`
}

// DumpSubject is one subject: its own config and mode (nil and "" when it
// has none) and its versions.
type DumpSubject struct {
	Subject  string        `json:"subject"`
	Config   *Config       `json:"config,omitempty"`
	Mode     string        `json:"mode,omitempty"`
	Versions []DumpVersion `json:"versions"`
}

// DumpVersion binds a version number to a schema ID.
type DumpVersion struct {
	Version int   `json:"version"`
	ID      int64 `json:"id"`
	Deleted bool  `json:"deleted,omitempty"`
}

// DumpCounts says how much a dump holds or an import wrote.
type DumpCounts struct {
	Schemas  int `json:"schemas"`
	Subjects int `json:"subjects"`
	Versions int `json:"versions"`
	// Deleted counts soft-deleted versions.
	Deleted int `json:"deleted"`
	// Configs and Modes count the subject-level ones.
	Configs int `json:"configs"`
	Modes   int `json:"modes"`
	// Governance counts governance records: policies, owners, tag sets,
	// dismissals, deprecations and extensions.
	Governance int `json:"governance,omitempty"`
}

// Counts returns what d holds.
func (d *Dump) Counts() DumpCounts {
	n := DumpCounts{Schemas: len(d.Schemas), Subjects: len(d.Subjects)}
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
	n.Governance = d.Governance.count()
	return n
}

// rawVersion is a Schema entity with its metadata and ruleSet kept raw.
type rawVersion struct {
	Subject    string            `json:"subject"`
	Version    int               `json:"version"`
	ID         int64             `json:"id"`
	Type       compat.SchemaType `json:"schemaType"`
	Text       string            `json:"schema"`
	References []Reference       `json:"references"`
	Metadata   json.RawMessage   `json:"metadata"`
	RuleSet    json.RawMessage   `json:"ruleSet"`
	Deleted    bool              `json:"deleted"`
}

func (v rawVersion) schema() DumpSchema {
	t := v.Type
	if t == "" {
		t = compat.Avro
	}
	return DumpSchema{ID: v.ID, Type: t, Text: v.Text, References: v.References,
		Metadata: rawOrNil(v.Metadata), RuleSet: rawOrNil(v.RuleSet)}
}

func rawOrNil(r json.RawMessage) json.RawMessage {
	r = bytes.TrimSpace(r)
	if len(r) == 0 || bytes.Equal(r, []byte("null")) {
		return nil
	}
	return r
}

func sameSchema(a, b DumpSchema) bool {
	return a.ID == b.ID && a.Type == b.Type && a.Text == b.Text && slices.Equal(a.References, b.References) &&
		jsonEqual(a.Metadata, b.Metadata) && jsonEqual(a.RuleSet, b.RuleSet)
}

// jsonEqual compares two JSON values by content (nil equals nil only).
func jsonEqual(a, b json.RawMessage) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

// ExportOptions tune Export.
type ExportOptions struct {
	// Audit adds the governance audit log to the dump (read-only: Import
	// does not write it back).
	Audit bool
}

// Export reads the whole registry: every subject (soft-deleted ones
// included), every version, every schema by ID, the configs and modes,
// and the governance data (see DumpGovernance). It reads through the REST
// API, one request at a time; a registry that changes meanwhile may give
// a dump that mixes before and after.
func (c *Client) Export(ctx context.Context, options ...ExportOptions) (*Dump, error) {
	var opts ExportOptions
	for _, o := range options {
		opts.Audit = opts.Audit || o.Audit
	}
	d := &Dump{Format: DumpFormat}
	var err error
	if d.Config, err = c.Config(ctx, "", false); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	if d.Mode, err = c.Mode(ctx, "", false); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	subjects, err := c.Subjects(ctx, IncludeDeleted())
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	sort.Strings(subjects)
	schemas := map[int64]DumpSchema{}
	var ids []int64
	for _, name := range subjects {
		s := DumpSubject{Subject: name}
		states, err := c.VersionStates(ctx, name, true)
		if err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
		for _, st := range states {
			var v rawVersion
			q := url.Values{"deleted": {"true"}}
			if err := c.do(ctx, "GET", []string{"subjects", name, "versions", itoa(st.Version)}, q, nil, &v); err != nil {
				return nil, fmt.Errorf("export: get version %d of subject %q: %w", st.Version, name, err)
			}
			// The version's metadata may carry the subject's owner (a
			// view): the schema's own content comes by ID, once.
			if _, ok := schemas[v.ID]; !ok {
				sch, err := c.rawSchema(ctx, v.ID)
				if err != nil {
					return nil, fmt.Errorf("export: version %d of subject %q: %w", st.Version, name, err)
				}
				schemas[v.ID] = sch
				ids = append(ids, v.ID)
			}
			s.Versions = append(s.Versions, DumpVersion{Version: st.Version, ID: v.ID, Deleted: st.Deleted})
		}
		cfg, err := c.Config(ctx, name, false)
		switch {
		case errors.Is(err, srerr.ErrSubjectConfigNotFound):
		case err != nil:
			return nil, fmt.Errorf("export: %w", err)
		default:
			s.Config = &cfg
		}
		mode, err := c.Mode(ctx, name, false)
		switch {
		case errors.Is(err, srerr.ErrSubjectModeNotFound):
		case err != nil:
			return nil, fmt.Errorf("export: %w", err)
		default:
			s.Mode = mode
		}
		if s.Versions == nil {
			s.Versions = []DumpVersion{}
		}
		d.Subjects = append(d.Subjects, s)
	}
	slices.Sort(ids)
	d.Schemas = make([]DumpSchema, 0, len(ids))
	for _, id := range ids {
		d.Schemas = append(d.Schemas, schemas[id])
	}
	if d.Subjects == nil {
		d.Subjects = []DumpSubject{}
	}
	if d.Governance, err = c.exportGovernance(ctx, subjects, opts); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return d, nil
}

// rawSchema returns schema id as GET /schemas/ids/{id} stores it, its
// metadata and ruleSet raw.
func (c *Client) rawSchema(ctx context.Context, id int64) (DumpSchema, error) {
	var v rawVersion
	if err := c.do(ctx, "GET", []string{"schemas", "ids", itoa(id)}, nil, nil, &v); err != nil {
		return DumpSchema{}, fmt.Errorf("get schema %d: %w", id, err)
	}
	v.ID = id
	return v.schema(), nil
}

// ReadDump decodes a dump and checks it (see Dump.Validate).
func ReadDump(data []byte) (*Dump, error) {
	var d Dump
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("read dump: the dump is empty (0 bytes of JSON)")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("read dump: %w", err)
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return &d, nil
}

// Validate checks that d can be imported: its format, unique schema IDs
// and versions, every version's schema present, every reference naming a
// version of the dump, and no reference cycle.
func (d *Dump) Validate() error {
	if d.Format != DumpFormat && d.Format != DumpFormatV1 {
		return fmt.Errorf("read dump: format %q, want %q (or %q)", d.Format, DumpFormat, DumpFormatV1)
	}
	if d.Format == DumpFormatV1 && d.Governance != nil {
		return fmt.Errorf("read dump: format %q has no governance data; a dump with it is %q", DumpFormatV1, DumpFormat)
	}
	if _, err := d.importOrder(); err != nil {
		return err
	}
	return d.Governance.validate()
}

// node is one subject version to import.
type node struct {
	subject string
	version DumpVersion
}

type versionKey struct {
	subject string
	version int
}

// importOrder returns the versions in an order that registers every
// referenced version before the schemas that use it: by schema ID (the
// order the source registered them in), each one's references first.
func (d *Dump) importOrder() ([]node, error) {
	schemas := make(map[int64]*DumpSchema, len(d.Schemas))
	for i := range d.Schemas {
		s := &d.Schemas[i]
		if s.ID <= 0 {
			return nil, fmt.Errorf("read dump: schema id %d: want a positive id", s.ID)
		}
		if _, dup := schemas[s.ID]; dup {
			return nil, fmt.Errorf("read dump: schema id %d is listed twice", s.ID)
		}
		schemas[s.ID] = s
	}
	byKey := map[versionKey]node{}
	var all []node
	seenSubject := map[string]bool{}
	for _, s := range d.Subjects {
		if s.Subject == "" {
			return nil, errors.New("read dump: a subject has no name")
		}
		if seenSubject[s.Subject] {
			return nil, fmt.Errorf("read dump: subject %q is listed twice", s.Subject)
		}
		seenSubject[s.Subject] = true
		for _, v := range s.Versions {
			k := versionKey{s.Subject, v.Version}
			if v.Version <= 0 {
				return nil, fmt.Errorf("read dump: subject %q version %d: want a positive version", s.Subject, v.Version)
			}
			if _, dup := byKey[k]; dup {
				return nil, fmt.Errorf("read dump: subject %q lists version %d twice", s.Subject, v.Version)
			}
			if schemas[v.ID] == nil {
				return nil, fmt.Errorf("read dump: subject %q version %d uses schema id %d, which the dump does not hold", s.Subject, v.Version, v.ID)
			}
			n := node{s.Subject, v}
			byKey[k] = n
			all = append(all, n)
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.version.ID != b.version.ID {
			return a.version.ID < b.version.ID
		}
		if a.subject != b.subject {
			return a.subject < b.subject
		}
		return a.version.Version < b.version.Version
	})
	const (
		unseen = iota
		visiting
		done
	)
	state := map[versionKey]int{}
	out := make([]node, 0, len(all))
	var visit func(n node, path []string) error
	visit = func(n node, path []string) error {
		k := versionKey{n.subject, n.version.Version}
		switch state[k] {
		case done:
			return nil
		case visiting:
			return fmt.Errorf("read dump: references form a cycle: %s", strings.Join(append(path, fmt.Sprintf("%s@%d", n.subject, n.version.Version)), " → "))
		}
		state[k] = visiting
		path = append(path, fmt.Sprintf("%s@%d", n.subject, n.version.Version))
		for _, r := range schemas[n.version.ID].References {
			dep, ok := byKey[versionKey{r.Subject, r.Version}]
			if !ok {
				return fmt.Errorf("read dump: schema %d references subject %q version %d, which the dump does not hold", n.version.ID, r.Subject, r.Version)
			}
			if err := visit(dep, path); err != nil {
				return err
			}
		}
		state[k] = done
		out = append(out, n)
		return nil
	}
	for _, n := range all {
		if err := visit(n, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ImportOptions tune Import.
type ImportOptions struct {
	// Force imports into a registry that already holds subjects (the
	// switch to IMPORT mode needs Confluent's force=true then). Versions
	// and IDs the registry holds with other content make the import
	// fail. Default: refuse a registry that is not empty.
	Force bool
	// NoVerify skips reading every version back after the import.
	NoVerify bool
	// Progress, when set, is called after each version is registered,
	// with how many are done out of how many.
	Progress func(done, total int)
	// Warn, when set, is told each thing of the dump that the import
	// cannot restore as it is (one sentence each; see
	// DumpGovernance).
	Warn func(msg string)
}

// ErrNotEmpty is returned by Import, without writing anything, when the
// registry already holds subjects and ImportOptions.Force is not set.
var ErrNotEmpty = errors.New("the registry is not empty")

// Import restores d into the registry, keeping every schema ID and
// version number: it switches the global mode to IMPORT, registers every
// version with its ID in dependency order (references first), soft-deletes
// the versions the dump marks deleted, sets the subject and global configs
// (after the versions, so that an alias or default metadata does not
// change what is registered), then the subject modes and the global mode.
// Unless opts.NoVerify, it reads every version back and fails if one
// differs from the dump (for example because the registry gave a version
// without metadata the metadata of the version before it).
//
// When a step fails, Import tries to put the global mode back and returns
// the error; what was written stays. Errors: ErrNotEmpty; the registry's
// errors (srerr.ErrIDDoesNotMatch when a schema holds another ID there,
// srerr.ErrOperationNotPermitted when an ID holds another schema).
func (c *Client) Import(ctx context.Context, d *Dump, opts ImportOptions) (DumpCounts, error) {
	if err := d.Validate(); err != nil {
		return DumpCounts{}, err
	}
	order, err := d.importOrder()
	if err != nil {
		return DumpCounts{}, err
	}
	existing, err := c.Subjects(ctx, IncludeDeleted())
	if err != nil {
		return DumpCounts{}, fmt.Errorf("import: %w", err)
	}
	if len(existing) > 0 && !opts.Force {
		return DumpCounts{}, fmt.Errorf("import: %w: it holds %d subjects", ErrNotEmpty, len(existing))
	}
	before, err := c.Mode(ctx, "", false)
	if err != nil {
		return DumpCounts{}, fmt.Errorf("import: %w", err)
	}
	if _, err := c.SetMode(ctx, "", ModeImport, opts.Force); err != nil {
		return DumpCounts{}, fmt.Errorf("import: %w", err)
	}
	// A subject's own mode beats the global one: subjects of the dump
	// that the registry holds in another mode are switched to IMPORT too,
	// and get their mode back at the end unless the dump sets one.
	restore := map[string]string{}
	var n DumpCounts
	if len(existing) > 0 {
		err = c.importSubjectModes(ctx, d, restore)
	}
	if err == nil {
		n, err = c.importAll(ctx, d, order, restore, opts)
	}
	if err != nil {
		for subject, m := range restore {
			if _, rerr := c.SetMode(ctx, subject, m, true); rerr != nil {
				err = fmt.Errorf("%w (and putting the mode of subject %q back to %s failed: %v)", err, subject, m, rerr)
			}
		}
		if _, rerr := c.SetMode(ctx, "", before, true); rerr != nil {
			err = fmt.Errorf("%w (and putting the global mode back to %s failed: %v)", err, before, rerr)
		}
		return n, err
	}
	if !opts.NoVerify {
		if err := c.verifyImport(ctx, d); err != nil {
			return n, err
		}
	}
	return n, nil
}

// importRequest is a RegisterSchemaRequest with the ID and version that
// IMPORT mode honours.
type importRequest struct {
	Type       compat.SchemaType `json:"schemaType,omitempty"`
	Text       string            `json:"schema"`
	References []Reference       `json:"references,omitempty"`
	Metadata   json.RawMessage   `json:"metadata,omitempty"`
	RuleSet    json.RawMessage   `json:"ruleSet,omitempty"`
	ID         int64             `json:"id"`
	Version    int               `json:"version"`
}

// importSubjectModes switches the dump's subjects that hold their own
// mode other than IMPORT to IMPORT, recording their mode in restore.
func (c *Client) importSubjectModes(ctx context.Context, d *Dump, restore map[string]string) error {
	for _, s := range d.Subjects {
		m, err := c.Mode(ctx, s.Subject, false)
		if errors.Is(err, srerr.ErrSubjectModeNotFound) || errors.Is(err, srerr.ErrSubjectNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		if m == ModeImport {
			continue
		}
		if _, err := c.SetMode(ctx, s.Subject, ModeImport, true); err != nil {
			return fmt.Errorf("import: %w", err)
		}
		restore[s.Subject] = m
	}
	return nil
}

func (c *Client) importAll(ctx context.Context, d *Dump, order []node, restore map[string]string, opts ImportOptions) (DumpCounts, error) {
	var n DumpCounts
	schemas := make(map[int64]*DumpSchema, len(d.Schemas))
	for i := range d.Schemas {
		schemas[d.Schemas[i].ID] = &d.Schemas[i]
	}
	ids := map[int64]bool{}
	for i, v := range order {
		s := schemas[v.version.ID]
		if opts.Force {
			// A version the registry already holds with the same ID is
			// kept, so a forced import resumes one that stopped.
			var have rawVersion
			err := c.do(ctx, "GET", []string{"subjects", v.subject, "versions", itoa(v.version.Version)}, url.Values{"deleted": {"true"}}, nil, &have)
			switch {
			case err == nil && have.ID == s.ID:
				ids[s.ID] = true
				n.Versions++
				if opts.Progress != nil {
					opts.Progress(i+1, len(order))
				}
				continue
			case err == nil:
				return n, fmt.Errorf("import: subject %q version %d holds schema %d in the registry, schema %d in the dump", v.subject, v.version.Version, have.ID, s.ID)
			case !IsNotFound(err):
				return n, fmt.Errorf("import: %w", err)
			}
		}
		req := importRequest{Type: s.Type, Text: s.Text, References: s.References, Metadata: s.Metadata, RuleSet: s.RuleSet,
			ID: s.ID, Version: v.version.Version}
		var out struct {
			ID int64 `json:"id"`
		}
		if err := c.do(ctx, "POST", []string{"subjects", v.subject, "versions"}, nil, req, &out); err != nil {
			return n, fmt.Errorf("import: subject %q version %d (schema %d): %w", v.subject, v.version.Version, s.ID, err)
		}
		if out.ID != s.ID {
			return n, fmt.Errorf("import: subject %q version %d: registered as schema %d, want %d", v.subject, v.version.Version, out.ID, s.ID)
		}
		ids[s.ID] = true
		n.Versions++
		if opts.Progress != nil {
			opts.Progress(i+1, len(order))
		}
	}
	n.Schemas = len(ids)
	// Soft deletes come after every registration: a version that others
	// reference must be live while they are registered.
	for _, s := range d.Subjects {
		for _, v := range s.Versions {
			if !v.Deleted {
				continue
			}
			if _, err := c.DeleteVersion(ctx, s.Subject, v.Version, false); err != nil && !errors.Is(err, srerr.ErrVersionSoftDeleted) {
				return n, fmt.Errorf("import: %w", err)
			}
			n.Deleted++
		}
	}
	for _, s := range d.Subjects {
		n.Subjects++
		if s.Config == nil {
			continue
		}
		if _, err := c.SetConfig(ctx, s.Subject, s.Config.Update()); err != nil {
			return n, fmt.Errorf("import: %w", err)
		}
		n.Configs++
	}
	if _, err := c.SetConfig(ctx, "", d.Config.Update()); err != nil {
		return n, fmt.Errorf("import: %w", err)
	}
	// Governance after the versions (deprecations name fields of the
	// latest ones) and before the modes (a READONLY subject takes no
	// deprecation).
	g, err := c.importGovernance(ctx, d.Governance, opts.Warn)
	n.Governance = g
	if err != nil {
		return n, fmt.Errorf("import: %w", err)
	}
	for _, s := range d.Subjects {
		mode := s.Mode
		if mode == "" {
			mode = restore[s.Subject]
		} else {
			n.Modes++
		}
		if mode == "" {
			continue
		}
		if _, err := c.SetMode(ctx, s.Subject, mode, true); err != nil {
			return n, fmt.Errorf("import: %w", err)
		}
		delete(restore, s.Subject)
	}
	mode := d.Mode
	if mode == "" {
		mode = ModeReadWrite
	}
	if _, err := c.SetMode(ctx, "", mode, true); err != nil {
		return n, fmt.Errorf("import: %w", err)
	}
	return n, nil
}

// verifyImport reads every version of d back and compares it.
func (c *Client) verifyImport(ctx context.Context, d *Dump) error {
	schemas := make(map[int64]DumpSchema, len(d.Schemas))
	for _, s := range d.Schemas {
		schemas[s.ID] = s
	}
	verified := map[int64]bool{}
	for _, s := range d.Subjects {
		for _, v := range s.Versions {
			var got rawVersion
			q := url.Values{"deleted": {"true"}}
			if err := c.do(ctx, "GET", []string{"subjects", s.Subject, "versions", itoa(v.Version)}, q, nil, &got); err != nil {
				return fmt.Errorf("import: verify subject %q version %d: %w", s.Subject, v.Version, err)
			}
			want := schemas[v.ID]
			if got.ID != v.ID {
				return fmt.Errorf("import: verify subject %q version %d: the registry holds schema %d, the dump schema %d", s.Subject, v.Version, got.ID, v.ID)
			}
			// The content by ID: the version's metadata shows the
			// subject's owner too.
			if !verified[v.ID] {
				have, err := c.rawSchema(ctx, v.ID)
				if err != nil {
					return fmt.Errorf("import: verify subject %q version %d: %w", s.Subject, v.Version, err)
				}
				if !sameSchema(have, want) {
					return fmt.Errorf("import: verify subject %q version %d: the registry holds schema %d %s, the dump schema %d %s",
						s.Subject, v.Version, have.ID, describe(have), v.ID, describe(want))
				}
				verified[v.ID] = true
			}
			if got.Deleted != v.Deleted {
				return fmt.Errorf("import: verify subject %q version %d: deleted is %t, the dump says %t", s.Subject, v.Version, got.Deleted, v.Deleted)
			}
		}
	}
	return nil
}

// describe summarizes a schema for a mismatch message.
func describe(s DumpSchema) string {
	meta := "no metadata"
	if s.Metadata != nil {
		meta = "metadata " + string(s.Metadata)
	}
	rules := "no ruleSet"
	if s.RuleSet != nil {
		rules = "a ruleSet"
	}
	return fmt.Sprintf("(%s, %d bytes, %d references, %s, %s)", s.Type, len(s.Text), len(s.References), meta, rules)
}
