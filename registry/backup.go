package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/lineage"
	"github.com/charter-dev/charter/registry/dek"
	"github.com/charter-dev/charter/registry/dump"
	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/srerr"
)

// Lossless export and import (Charter issue 13): the whole store as one
// dump (package registry/dump), read in one transaction, and restored in
// one transaction, so that a failed import leaves the registry as it was.
// Records keep the identity and times they carry (owner set by X at T,
// extension granted by Y): a backup restores history, it does not make it
// again. The import itself is audited, on top of the restored log.

// ActionRegistryImport is the audit action of an import: its actor is who
// imported, its record (After) what the dump held and what was written.
const ActionRegistryImport = "registry.import"

// errNoBackup is returned by Export and Import on a store whose
// transactions do not implement BackupTx.
var errNoBackup = errors.New("this store cannot be exported or imported (its Tx does not implement registry.BackupTx)")

// backupParts returns tx's governance and backup parts.
func backupParts(tx Tx) (GovernanceTx, BackupTx, error) {
	g, err := govTx(tx)
	if err != nil {
		return nil, nil, err
	}
	b, ok := tx.(BackupTx)
	if !ok {
		return nil, nil, errNoBackup
	}
	return g, b, nil
}

// Export reads the whole registry in one read transaction: every schema
// and the schema ID mark, every subject version (soft-deleted included),
// every stored config and mode, every governance record and the audit
// log. ExportedAt is the Service clock's time, so a Service with an
// injected clock exports byte-equal dumps of equal stores.
func (s *Service) Export(ctx context.Context) (*dump.Dump, error) {
	var d *dump.Dump
	err := s.view(ctx, "export", func(tx Tx) error {
		var err error
		d, err = exportTx(ctx, tx)
		return err
	})
	if err != nil {
		return nil, err
	}
	d.ExportedAt = s.now()
	d.Sort()
	return d, nil
}

func exportTx(ctx context.Context, tx Tx) (*dump.Dump, error) {
	g, b, err := backupParts(tx)
	if err != nil {
		return nil, err
	}
	d := &dump.Dump{Format: dump.Format}
	if err := exportContexts(ctx, tx, b, d); err != nil {
		return nil, err
	}
	schemas, err := b.Schemas(ctx)
	if err != nil {
		return nil, err
	}
	d.Schemas = make([]dump.Schema, 0, len(schemas))
	for _, st := range schemas {
		ds := dump.Schema{Context: st.Context, ID: st.ID, Type: string(st.Type), Text: st.Text, Metadata: st.Metadata, RuleSet: st.RuleSet}
		for _, r := range st.References {
			ds.References = append(ds.References, dump.Reference(r))
		}
		d.Schemas = append(d.Schemas, ds)
	}
	subjects := map[string]*dump.Subject{}
	subject := func(name string) *dump.Subject {
		if sub, ok := subjects[name]; ok {
			return sub
		}
		sub := &dump.Subject{Subject: name, Versions: []dump.Version{}}
		subjects[name] = sub
		return sub
	}
	vs, err := tx.Versions(ctx, VersionQuery{IncludeDeleted: true})
	if err != nil {
		return nil, err
	}
	for _, v := range vs {
		sub := subject(v.Subject)
		sub.Versions = append(sub.Versions, dump.Version{Version: v.Version, ID: v.SchemaID, Deleted: v.Deleted})
	}
	configs, err := b.Configs(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range configs {
		raw, err := json.Marshal(c.Config)
		if err != nil {
			return nil, fmt.Errorf("encode the config of %q: %w", c.Subject, err)
		}
		if c.Subject == "" {
			d.Config = raw
		} else {
			subject(c.Subject).Config = raw
		}
	}
	modes, err := b.Modes(ctx)
	if err != nil {
		return nil, err
	}
	for _, m := range modes {
		if m.Subject == "" {
			d.Mode = string(m.Mode)
		} else {
			subject(m.Subject).Mode = string(m.Mode)
		}
	}
	d.Subjects = make([]dump.Subject, 0, len(subjects))
	for _, sub := range subjects {
		d.Subjects = append(d.Subjects, *sub)
	}
	recs, err := g.GovernanceRecords(ctx, RecordQuery{AllSubjects: true})
	if err != nil {
		return nil, err
	}
	d.Records = make([]dump.Record, 0, len(recs))
	for _, r := range recs {
		d.Records = append(d.Records, dump.Record{Kind: r.Kind, Subject: r.Subject, Key: r.Key, Body: r.Body})
	}
	entries, err := g.AuditEntries(ctx, AuditQuery{})
	if err != nil {
		return nil, err
	}
	d.Audit = make([]dump.AuditEntry, 0, len(entries))
	for _, e := range entries {
		d.Audit = append(d.Audit, dump.AuditEntry(e))
	}
	if err := exportKeys(ctx, tx, d); err != nil { // backup_keys.go
		return nil, err
	}
	return d, nil
}

// ImportOptions tune Import.
type ImportOptions struct {
	// Merge adds the dump to a registry that is not empty: what the
	// registry lacks is added, what it holds alike is kept, and anything
	// it holds otherwise (a schema ID with other content, a version bound
	// to another schema, another owner…) is a conflict that refuses the
	// whole import. Lineage changes the registry lacks are renumbered
	// after its own when their revisions are taken; audit entries it
	// lacks are appended as history, under new IDs when its log is not
	// empty. Default: refuse a registry that holds anything.
	Merge bool
	// DryRun plans the import and reports it, writing nothing; the
	// report's Refusal says why the import would be refused.
	DryRun bool
}

// ImportReport says what an import wrote (or, with DryRun, would write).
type ImportReport struct {
	// Format is the format of the dump as given (v1 and v2 are converted).
	Format string `json:"format"`
	Merge  bool   `json:"merge"`
	DryRun bool   `json:"dryRun"`
	// Added counts what the import adds; Kept what the registry already
	// held alike (a merge).
	Added dump.Counts `json:"added"`
	Kept  dump.Counts `json:"kept"`
	// LineageRenumbered counts lineage changes given new revisions,
	// AuditAppended audit entries stored under new IDs (a merge into a
	// registry with a history of its own).
	LineageRenumbered int `json:"lineageRenumbered"`
	AuditAppended     int `json:"auditAppended"`
	// Conflicts list what the dump holds that the registry holds
	// otherwise, one sentence each.
	Conflicts []string `json:"conflicts"`
	// Refusal, when not empty, is why the import is (or, with DryRun,
	// would be) refused.
	Refusal string `json:"refusal,omitempty"`
	// AuditID is the ID of the import's own audit entry (0 with DryRun).
	AuditID int64 `json:"auditId,omitempty"`
}

// maxListedConflicts bounds the conflicts an error message lists.
const maxListedConflicts = 50

// Import restores d in one transaction, keeping every ID, version,
// revision, date and actor the dump holds: into an empty registry it
// restores the exported one exactly (Export then gives the same dump, plus
// the import's own audit entry); with opts.Merge it adds the dump to a
// registry that holds other things (see ImportOptions). The import is
// audited (ActionRegistryImport) under the context's actor, after the
// restored entries. Nothing is written when it fails.
//
// Errors: srerr.ErrInvalidDump for a dump that does not validate;
// srerr.ErrImportConflict, listing the conflicts, for a registry that is
// not empty (without Merge) or that holds something otherwise; a store
// failure. With DryRun, a refusal is the report's Refusal, not an error.
func (s *Service) Import(ctx context.Context, d *dump.Dump, opts ImportOptions) (ImportReport, error) {
	if err := d.Validate(); err != nil {
		return ImportReport{}, srerr.New(srerr.ErrInvalidDump, "Invalid dump: %v", strings.TrimPrefix(err.Error(), "read dump: "))
	}
	var rep ImportReport
	run := func(tx Tx) error {
		p, err := s.planImport(ctx, tx, d, opts)
		if err != nil {
			return err
		}
		rep = p.report
		if opts.DryRun {
			return nil
		}
		if p.report.Refusal != "" {
			return p.refusal()
		}
		rep.AuditID, err = s.applyImport(ctx, tx, p)
		return err
	}
	var err error
	if opts.DryRun {
		err = s.view(ctx, "plan import", run)
	} else {
		err = s.update(ctx, "import", run)
	}
	if err != nil {
		return ImportReport{}, err
	}
	return rep, nil
}

// importPlan is what an import writes, decided from reads only.
type importPlan struct {
	report     ImportReport
	readFrom   string
	exportedAt time.Time
	empty      bool
	held       string // what a non-empty registry holds, for the refusal

	schemas  []Schema
	versions []SubjectVersion
	configs  []SubjectConfig
	modes    []SubjectMode
	records  []GovernanceRecord
	// audit are the entries to store; restoreIDs says they keep their IDs.
	audit      []governance.AuditEntry
	restoreIDs bool
	// contexts is each context's ID allocation state, the default one's
	// first.
	contexts []dump.ContextIDs
	// keks and deks are the DEK registry's keys to store (backup_keys.go).
	keks []dek.Kek
	deks []dek.Dek
}

func (p *importPlan) conflict(format string, args ...any) {
	p.report.Conflicts = append(p.report.Conflicts, fmt.Sprintf(format, args...))
}

// refusal is the error of a refused import.
func (p *importPlan) refusal() error {
	var b strings.Builder
	b.WriteString(p.report.Refusal)
	for i, c := range p.report.Conflicts {
		if i == maxListedConflicts {
			fmt.Fprintf(&b, "\n- … and %d more (a dry run lists them all)", len(p.report.Conflicts)-i)
			break
		}
		b.WriteString("\n- ")
		b.WriteString(c)
	}
	return srerr.New(srerr.ErrImportConflict, "%s", b.String())
}

func (s *Service) planImport(ctx context.Context, tx Tx, d *dump.Dump, opts ImportOptions) (*importPlan, error) {
	g, b, err := backupParts(tx)
	if err != nil {
		return nil, err
	}
	p := &importPlan{readFrom: d.ReadFrom, exportedAt: d.ExportedAt, contexts: dumpContexts(d)}
	p.report = ImportReport{Format: cmpOr(d.ReadFrom, d.Format), Merge: opts.Merge, DryRun: opts.DryRun, Conflicts: []string{}}
	if err := p.checkEmpty(ctx, tx, g, b); err != nil {
		return nil, err
	}
	if err := p.planSchemas(ctx, tx, d); err != nil {
		return nil, err
	}
	if err := p.planSubjects(ctx, tx, d); err != nil {
		return nil, err
	}
	if err := p.planRecords(ctx, g, d); err != nil {
		return nil, err
	}
	if err := p.planAudit(ctx, g, d); err != nil {
		return nil, err
	}
	if err := p.planKeys(ctx, tx, d); err != nil {
		return nil, err
	}
	switch n := len(p.report.Conflicts); {
	case !p.empty && !opts.Merge:
		p.report.Refusal = fmt.Sprintf("Import refused: the registry is not empty (it holds %s); import into an empty registry, or merge the dump into this one (charter import --merge)", p.held)
		if n > 0 {
			p.report.Refusal += fmt.Sprintf("; a merge would meet %s", plural(n, "conflict"))
		}
	case n > 0:
		p.report.Refusal = fmt.Sprintf("Import refused: %s between the dump and the registry, which keeps what it holds; nothing was written", plural(n, "conflict"))
	}
	return p, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func plural(n int, what string) string { return rule.Plural(n, what) }

// checkEmpty sets p.empty, and p.held to what a non-empty registry holds.
func (p *importPlan) checkEmpty(ctx context.Context, tx Tx, g GovernanceTx, b BackupTx) error {
	schemas, err := b.Schemas(ctx)
	if err != nil {
		return err
	}
	vs, err := tx.Versions(ctx, VersionQuery{IncludeDeleted: true})
	if err != nil {
		return err
	}
	configs, err := b.Configs(ctx)
	if err != nil {
		return err
	}
	modes, err := b.Modes(ctx)
	if err != nil {
		return err
	}
	recs, err := g.GovernanceRecords(ctx, RecordQuery{AllSubjects: true})
	if err != nil {
		return err
	}
	audit, err := g.AuditEntries(ctx, AuditQuery{Limit: 1})
	if err != nil {
		return err
	}
	keks, deks, err := countKeys(ctx, tx)
	if err != nil {
		return err
	}
	var held []string
	for _, c := range []struct {
		n    int
		what string
	}{
		{len(schemas), "schema"}, {len(vs), "subject version"}, {len(configs), "config"}, {len(modes), "mode"},
		{len(recs), "governance record"}, {keks, "KEK"}, {deks, "DEK"}, {len(audit), "audit entry"},
	} {
		if c.n > 0 {
			held = append(held, plural(c.n, c.what))
		}
	}
	if len(audit) > 0 {
		held[len(held)-1] = "an audit log" // Limit 1: not a count
	}
	p.empty = len(held) == 0
	p.held = strings.Join(held, ", ")
	return nil
}

// planSchemas decides each schema: kept when the registry holds it under
// its ID, a conflict when that ID holds another schema or the schema is
// held under another ID, added otherwise.
func (p *importPlan) planSchemas(ctx context.Context, tx Tx, d *dump.Dump) error {
	type fpKey struct{ context, fp string }
	byFP := map[fpKey]int64{}
	for _, ds := range d.Schemas {
		st := Schema{Context: ds.Context, ID: ds.ID, Type: compat.SchemaType(ds.Type), Text: ds.Text,
			Metadata: compactRaw(ds.Metadata), RuleSet: compactRaw(ds.RuleSet)}
		for _, r := range ds.References {
			st.References = append(st.References, Reference(r))
		}
		st.Fingerprint = Fingerprint(st.Type, st.Text, st.References, st.Metadata, st.RuleSet)
		// The same content under several IDs (imported so, as Confluent's
		// IMPORT mode allows): the first keeps the content's fingerprint,
		// the others are copies (copyFingerprint).
		content := st.Fingerprint
		copied := byFP[fpKey{st.Context, content}] != 0
		if !copied {
			byFP[fpKey{st.Context, content}] = st.ID
		}
		have, err := tx.SchemaByID(ctx, st.Context, st.ID)
		switch {
		case err == nil:
			if contentFingerprint(have) == content || sameContent(have, st) {
				p.report.Kept.Schemas++
			} else {
				p.conflict("schema %d: the registry holds another schema under this ID (%s), the dump %s", st.ID, describeSchema(have), describeSchema(st))
			}
			continue
		case !errors.Is(err, ErrNotFound):
			return err
		}
		_, err = tx.SchemaByFingerprint(ctx, st.Context, content)
		switch {
		case err == nil:
			copied = true
		case !errors.Is(err, ErrNotFound):
			return err
		}
		if copied {
			st.Fingerprint = copyFingerprint(content, st.ID)
		}
		p.schemas = append(p.schemas, st)
		p.report.Added.Schemas++
	}
	return nil
}

func sameContent(a, b Schema) bool {
	return a.Type == b.Type && a.Text == b.Text && slices.Equal(a.References, b.References) &&
		bytes.Equal(compactJSON(a.Metadata), compactJSON(b.Metadata)) && bytes.Equal(compactJSON(a.RuleSet), compactJSON(b.RuleSet))
}

func describeSchema(s Schema) string {
	return fmt.Sprintf("%s, %d bytes, %d references", s.Type, len(s.Text), len(s.References))
}

// compactRaw returns raw without insignificant white space (the dump
// indents JSON values), nil when absent or null.
func compactRaw(raw json.RawMessage) json.RawMessage {
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

// planSubjects decides each version, config and mode, the global ones
// included.
func (p *importPlan) planSubjects(ctx context.Context, tx Tx, d *dump.Dump) error {
	if err := p.planConfig(ctx, tx, "", d.Config); err != nil {
		return err
	}
	if err := p.planMode(ctx, tx, "", d.Mode); err != nil {
		return err
	}
	for _, sub := range d.Subjects {
		vs, err := subjectVersions(ctx, tx, sub.Subject)
		if err != nil {
			return err
		}
		have := make(map[int]SubjectVersion, len(vs))
		for _, v := range vs {
			have[v.Version] = v
		}
		for _, v := range sub.Versions {
			n := &p.report.Added
			h, ok := have[v.Version]
			switch {
			case !ok:
				p.versions = append(p.versions, SubjectVersion{Subject: sub.Subject, Version: v.Version, SchemaID: v.ID, Deleted: v.Deleted})
			case h.SchemaID == v.ID && h.Deleted == v.Deleted:
				n = &p.report.Kept
			default:
				p.conflict("subject %q version %d: the registry holds schema %d%s, the dump schema %d%s",
					sub.Subject, v.Version, h.SchemaID, softDeleted(h.Deleted), v.ID, softDeleted(v.Deleted))
				continue
			}
			n.Versions++
			if v.Deleted {
				n.Deleted++
			}
		}
		held := len(vs) > 0
		for _, has := range []func(context.Context, Tx, string) (bool, error){hasConfig, hasMode} {
			h, err := has(ctx, tx, sub.Subject)
			if err != nil {
				return err
			}
			held = held || h
		}
		if held {
			p.report.Kept.Subjects++
		} else {
			p.report.Added.Subjects++
		}
		if err := p.planConfig(ctx, tx, sub.Subject, sub.Config); err != nil {
			return err
		}
		if err := p.planMode(ctx, tx, sub.Subject, sub.Mode); err != nil {
			return err
		}
	}
	return nil
}

func hasConfig(ctx context.Context, tx Tx, subject string) (bool, error) {
	_, err := tx.Config(ctx, subject)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func hasMode(ctx context.Context, tx Tx, subject string) (bool, error) {
	_, err := tx.Mode(ctx, subject)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func softDeleted(deleted bool) string {
	if deleted {
		return " (soft-deleted)"
	}
	return ""
}

func scopeName(subject string) string {
	if subject == "" {
		return "the global"
	}
	return fmt.Sprintf("subject %q's", subject)
}

func (p *importPlan) planConfig(ctx context.Context, tx Tx, subject string, raw json.RawMessage) error {
	if raw == nil {
		return nil
	}
	var c Config
	if err := json.Unmarshal(raw, &c); err != nil {
		return srerr.New(srerr.ErrInvalidDump, "Invalid dump: %s config: %v", scopeName(subject), err)
	}
	have, err := tx.Config(ctx, subject)
	switch {
	case errors.Is(err, ErrNotFound):
		p.configs = append(p.configs, SubjectConfig{Subject: subject, Config: c})
		p.report.Added.Configs++
		return nil
	case err != nil:
		return err
	}
	a, _ := json.Marshal(have)
	b, _ := json.Marshal(c)
	if bytes.Equal(a, b) {
		p.report.Kept.Configs++
	} else {
		p.conflict("%s config: the registry has %s, the dump %s", scopeName(subject), a, b)
	}
	return nil
}

func (p *importPlan) planMode(ctx context.Context, tx Tx, subject, mode string) error {
	if mode == "" {
		return nil
	}
	have, err := tx.Mode(ctx, subject)
	switch {
	case errors.Is(err, ErrNotFound):
		p.modes = append(p.modes, SubjectMode{Subject: subject, Mode: Mode(mode)})
		p.report.Added.Modes++
	case err != nil:
		return err
	case string(have) == mode:
		p.report.Kept.Modes++
	default:
		p.conflict("%s mode: the registry has %s, the dump %s", scopeName(subject), have, mode)
	}
	return nil
}

// planRecords decides each governance record: the lineage history first
// (renumbered past the registry's own revisions where they are taken), the
// revision counter as the larger of both, contracts pointing at their
// renumbered revisions, then every other record kept, added or in
// conflict by (kind, subject, key).
func (p *importPlan) planRecords(ctx context.Context, g GovernanceTx, d *dump.Dump) error {
	remap, err := p.planLineage(ctx, g, d)
	if err != nil {
		return err
	}
	for _, r := range d.Records {
		if r.Kind == kindLineage || r.Kind == kindLineageRev {
			continue
		}
		body := compactRaw(r.Body)
		if p.readFrom != "" {
			if body, err = canonicalRecord(r.Kind, r.Subject, body); err != nil {
				return srerr.New(srerr.ErrInvalidDump, "Invalid dump: the %s record of subject %q: %v", r.Kind, r.Subject, err)
			}
		}
		if r.Kind == kindContract && len(remap) > 0 {
			var c ContractRecord
			if err := json.Unmarshal(body, &c); err != nil {
				return srerr.New(srerr.ErrInvalidDump, "Invalid dump: the contract of %s for subject %q: %v", r.Key, r.Subject, err)
			}
			if to, ok := remap[c.Revision]; ok && to != c.Revision {
				c.Revision = to
				if body, err = json.Marshal(c); err != nil {
					return fmt.Errorf("encode the contract of %s for %q: %w", r.Key, r.Subject, err)
				}
			}
		}
		p.planRecord(ctx, g, GovernanceRecord{Kind: r.Kind, Subject: r.Subject, Key: r.Key, Body: body}, &err)
		if err != nil {
			return err
		}
	}
	return nil
}

// planRecord keeps, adds or reports r against the registry's record.
func (p *importPlan) planRecord(ctx context.Context, g GovernanceTx, r GovernanceRecord, errp *error) {
	have, err := g.GovernanceRecord(ctx, r.Kind, r.Subject, r.Key)
	switch {
	case errors.Is(err, ErrNotFound):
		p.records = append(p.records, r)
		p.report.Added.Records++
	case err != nil:
		*errp = err
	case bytes.Equal(compactRaw(have.Body), r.Body):
		p.report.Kept.Records++
	default:
		what := r.Kind + " record"
		if r.Key != "" {
			what += " " + strconv.Quote(r.Key)
		}
		if r.Subject == "" {
			p.conflict("the global %s: the registry holds another one", what)
		} else {
			p.conflict("subject %q: the %s: the registry holds another one", r.Subject, what)
		}
	}
}

// lineageSignature is a lineage change's body without its revision: the
// same change stored under two revisions has one signature.
func lineageSignature(body json.RawMessage) (string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return "", err
	}
	delete(m, "revision")
	b, err := json.Marshal(m)
	return string(b), err
}

// planLineage plans the lineage changes and the revision counter, and
// returns the dump's revisions that were given other numbers (kept ones
// mapped to the registry's revision of the same change).
func (p *importPlan) planLineage(ctx context.Context, g GovernanceTx, d *dump.Dump) (map[int64]int64, error) {
	mine, err := g.GovernanceRecords(ctx, RecordQuery{Kind: kindLineage, AllSubjects: true})
	if err != nil {
		return nil, err
	}
	var floor int64
	if _, err := getRecord(ctx, g, kindLineageRev, "", "", &floor); err != nil {
		return nil, err
	}
	haveRev := floor
	sigs := make(map[string]int64, len(mine))
	for _, r := range mine {
		var ch lineage.Change
		if err := json.Unmarshal(r.Body, &ch); err != nil {
			return nil, fmt.Errorf("decode lineage record %q of %q: %w", r.Key, r.Subject, err)
		}
		sig, err := lineageSignature(r.Body)
		if err != nil {
			return nil, err
		}
		sigs[sig] = ch.Revision
		floor = max(floor, ch.Revision)
	}
	type change struct {
		rec dump.Record
		ch  lineage.Change
	}
	var theirs []change
	var dumpRev int64
	for _, r := range d.Records {
		switch r.Kind {
		case kindLineage:
			var ch lineage.Change
			if err := json.Unmarshal(r.Body, &ch); err != nil || ch.Revision <= 0 {
				return nil, srerr.New(srerr.ErrInvalidDump, "Invalid dump: the lineage record %q of subject %q has no revision", r.Key, r.Subject)
			}
			theirs = append(theirs, change{r, ch})
		case kindLineageRev:
			if err := json.Unmarshal(r.Body, &dumpRev); err != nil {
				return nil, srerr.New(srerr.ErrInvalidDump, "Invalid dump: the lineage revision counter is not a number")
			}
		}
	}
	slices.SortStableFunc(theirs, func(a, b change) int { return int(a.ch.Revision - b.ch.Revision) })
	remap := map[int64]int64{}
	for _, c := range theirs {
		body := compactRaw(c.rec.Body)
		sig, err := lineageSignature(body)
		if err != nil {
			return nil, err
		}
		if rev, ok := sigs[sig]; ok {
			remap[c.ch.Revision] = rev
			p.report.Kept.Records++
			continue
		}
		rev := c.ch.Revision
		if rev <= floor {
			rev = floor + 1
			remap[c.ch.Revision] = rev
			c.ch.Revision = rev
			if body, err = json.Marshal(c.ch); err != nil {
				return nil, fmt.Errorf("encode lineage change %d: %w", rev, err)
			}
			p.report.LineageRenumbered++
		}
		floor = rev
		sigs[sig] = rev
		p.records = append(p.records, GovernanceRecord{Kind: kindLineage, Subject: c.rec.Subject, Key: fmt.Sprintf("%020d", rev), Body: body})
		p.report.Added.Records++
	}
	top := max(floor, dumpRev)
	hasDumpRev := slices.ContainsFunc(d.Records, func(r dump.Record) bool { return r.Kind == kindLineageRev })
	switch {
	case top != haveRev:
		b, _ := json.Marshal(top)
		p.records = append(p.records, GovernanceRecord{Kind: kindLineageRev, Body: b})
		p.report.Added.Records++
	case hasDumpRev:
		p.report.Kept.Records++
	}
	return remap, nil
}

// canonicalRecord re-encodes the body of a record converted from a v2
// dump as the Service writes that kind, with its subject.
func canonicalRecord(kind, subject string, body json.RawMessage) (json.RawMessage, error) {
	var v any
	switch kind {
	case kindOwner:
		var o governance.Owner
		err := json.Unmarshal(body, &o)
		o.Subject = subject
		v = o
		if err != nil {
			return nil, err
		}
	case kindPolicy:
		var pc governance.PolicyConfig
		if err := json.Unmarshal(body, &pc); err != nil {
			return nil, err
		}
		v = pc
	case kindTags:
		var m map[string][]string
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, err
		}
		v = m
	case kindDeprecation:
		var x governance.Deprecation
		if err := json.Unmarshal(body, &x); err != nil {
			return nil, err
		}
		x.Subject = subject
		v = x
	case kindDismissal:
		var x governance.Dismissal
		if err := json.Unmarshal(body, &x); err != nil {
			return nil, err
		}
		x.Subject = subject
		v = x
	case kindRemoved:
		var x governance.RemovedField
		if err := json.Unmarshal(body, &x); err != nil {
			return nil, err
		}
		x.Subject = subject
		v = x
	default:
		return body, nil
	}
	return json.Marshal(v)
}

// planAudit restores the dump's log with its IDs into a registry whose
// log is empty; a merge into one with a log appends the entries it lacks
// (same time, actor, action, subject, target and records) under new IDs.
func (p *importPlan) planAudit(ctx context.Context, g GovernanceTx, d *dump.Dump) error {
	mine, err := g.AuditEntries(ctx, AuditQuery{})
	if err != nil {
		return err
	}
	p.restoreIDs = len(mine) == 0
	seen := make(map[string]bool, len(mine))
	sig := func(e governance.AuditEntry) string {
		b, _ := json.Marshal([]any{e.Time.UTC().UnixNano(), e.Actor, e.Action, e.Subject, e.Target,
			string(compactRaw(e.Before)), string(compactRaw(e.After))})
		return string(b)
	}
	for _, e := range mine {
		seen[sig(e)] = true
	}
	for _, de := range d.Audit {
		e := governance.AuditEntry(de)
		e.Time = e.Time.UTC()
		e.Before, e.After = compactRawKeepNull(e.Before), compactRawKeepNull(e.After)
		if !p.restoreIDs && seen[sig(e)] {
			p.report.Kept.Audit++
			continue
		}
		seen[sig(e)] = true
		p.audit = append(p.audit, e)
		p.report.Added.Audit++
		if !p.restoreIDs {
			p.report.AuditAppended++
		}
	}
	return nil
}

// compactRawKeepNull is compactRaw that keeps a JSON null as null (an
// audit record's "before" may be one).
func compactRawKeepNull(raw json.RawMessage) json.RawMessage {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return json.RawMessage("null")
	}
	return compactRaw(raw)
}

// importSummary is the record of an import's audit entry.
type importSummary struct {
	Format     string      `json:"format"`
	ExportedAt string      `json:"exportedAt,omitempty"`
	Merge      bool        `json:"merge"`
	Added      dump.Counts `json:"added"`
	Kept       dump.Counts `json:"kept"`
}

// applyImport writes p and audits the import; it returns the ID of the
// import's audit entry.
func (s *Service) applyImport(ctx context.Context, tx Tx, p *importPlan) (int64, error) {
	g, b, err := backupParts(tx)
	if err != nil {
		return 0, err
	}
	for _, st := range p.schemas {
		if _, err := tx.CreateSchema(ctx, st); err != nil {
			return 0, fmt.Errorf("import schema %d: %w", st.ID, err)
		}
	}
	if err := restoreContexts(ctx, tx, b, p.contexts); err != nil {
		return 0, err
	}
	for _, v := range p.versions {
		if err := tx.PutVersion(ctx, v); err != nil {
			return 0, fmt.Errorf("import version %d of %q: %w", v.Version, v.Subject, err)
		}
	}
	for _, c := range p.configs {
		if err := tx.SetConfig(ctx, c.Subject, c.Config); err != nil {
			return 0, fmt.Errorf("import config of %q: %w", c.Subject, err)
		}
	}
	for _, m := range p.modes {
		if err := tx.SetMode(ctx, m.Subject, m.Mode); err != nil {
			return 0, fmt.Errorf("import mode of %q: %w", m.Subject, err)
		}
	}
	for _, r := range p.records {
		if err := g.PutGovernanceRecord(ctx, r); err != nil {
			return 0, fmt.Errorf("import %s record %q of %q: %w", r.Kind, r.Key, r.Subject, err)
		}
	}
	if err := p.applyKeys(ctx, tx); err != nil {
		return 0, err
	}
	for _, e := range p.audit {
		if p.restoreIDs {
			err = b.RestoreAudit(ctx, e)
		} else {
			_, err = g.AppendAudit(ctx, e)
		}
		if err != nil {
			return 0, fmt.Errorf("import audit entry %d: %w", e.ID, err)
		}
	}
	sum := importSummary{Format: p.report.Format, Merge: p.report.Merge, Added: p.report.Added, Kept: p.report.Kept}
	if !p.exportedAt.IsZero() {
		sum.ExportedAt = p.exportedAt.UTC().Format(time.RFC3339Nano)
	}
	e := governance.AuditEntry{Time: s.now(), Actor: ActorFrom(ctx), Action: ActionRegistryImport}
	if e.After, err = json.Marshal(sum); err != nil {
		return 0, fmt.Errorf("encode the import's audit record: %w", err)
	}
	id, err := g.AppendAudit(ctx, e)
	if err != nil {
		return 0, fmt.Errorf("audit the import: %w", err)
	}
	return id, nil
}
