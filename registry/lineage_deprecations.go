package registry

import (
	"context"
	"sort"
	"time"

	"github.com/charter-dev/charter/lineage"
	"github.com/charter-dev/charter/registry/governance"
)

// Deprecation migration status (Charter issue 5 §6): per deprecated field
// of a subject, which consumers have moved off it, which still read it,
// which hold an extension and until when, from the lineage history.

// DeprecationMigration is the migration status of one deprecated field
// (GET /governance/subjects/{s}/migrations): the deprecation's countdown
// and its readers, in three disjoint groups sorted by consumer.
type DeprecationMigration struct {
	Subject     string            `json:"subject"`
	Path        string            `json:"path"`
	Replacement string            `json:"replacement,omitempty"`
	Source      governance.Source `json:"source,omitempty"`
	State       governance.State  `json:"state"`
	ExpiresAt   time.Time         `json:"expiresAt"`
	// DaysLeft is the whole days until expiry, rounded up; 0 once expired.
	DaysLeft int `json:"daysLeft"`
	// Migrated are the consumers whose lineage read the field (or a
	// field under it) at some point and no longer does.
	Migrated []MigratedConsumer `json:"migrated"`
	// Reading are the consumers that read it now without a running
	// extension.
	Reading []ReadingConsumer `json:"reading"`
	// Extended are the consumers that read it now under a running
	// extension.
	Extended []ExtendedConsumer `json:"extended"`
}

// MigratedConsumer is a consumer that stopped reading a deprecated field:
// At is the lineage change that stopped it (a new contract or declaration,
// or the consumer's withdrawal, Withdrawn).
type MigratedConsumer struct {
	Consumer  string    `json:"consumer"`
	At        time.Time `json:"at"`
	Withdrawn bool      `json:"withdrawn,omitempty"`
}

// ReadingConsumer is a consumer still reading a deprecated field: the
// paths it reads there, where that is known from (contract, declared) and
// since when it has read the subject.
type ReadingConsumer struct {
	Consumer        string         `json:"consumer"`
	Fields          []string       `json:"fields"`
	Source          lineage.Source `json:"source"`
	ContractVersion string         `json:"contractVersion,omitempty"`
	Since           time.Time      `json:"since,omitzero"`
}

// ExtendedConsumer is a reader holding a running extension: until when,
// and the whole days left of it (rounded up).
type ExtendedConsumer struct {
	ReadingConsumer
	Until    time.Time `json:"until"`
	DaysLeft int       `json:"daysLeft"`
}

// DeprecationMigrations returns the migration status of every deprecated
// field of subject (path "" ) or of the one at path, by path, at the
// registry's clock. Errors: 40401 when the subject has no live version;
// 40480 when path is given and not deprecated.
func (gov *Governance) DeprecationMigrations(ctx context.Context, subject, path string) ([]DeprecationMigration, error) {
	s := gov.s
	if err := ValidateSubject(subject); err != nil {
		return nil, err
	}
	out := []DeprecationMigration{}
	err := s.gview(ctx, "deprecation migration status", func(tx Tx, g GovernanceTx) error {
		vs, err := subjectVersions(ctx, tx, subject)
		if err != nil {
			return err
		}
		if len(live(vs)) == 0 {
			return errSubjectNotFound(subject)
		}
		st, err := s.loadState(ctx, tx, g, subject, s.now())
		if err != nil {
			return err
		}
		chs, err := lineageChanges(ctx, g, subject, 0)
		if err != nil {
			return err
		}
		now := s.now()
		for _, d := range st.Deprecations {
			if d.Kind != governance.ItemField || (path != "" && d.Path != path) {
				continue
			}
			out = append(out, migrationOf(subject, d, chs, now))
		}
		if path != "" && len(out) == 0 {
			return errGovernanceNotFound("Field %s of subject '%s' is not deprecated", path, subject)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// migrationOf replays the lineage changes of the subject: a consumer whose
// declaration read d.Path and whose latest one does not (or who was
// removed) has migrated.
func migrationOf(subject string, d governance.Deprecation, chs []lineage.Change, now time.Time) DeprecationMigration {
	m := DeprecationMigration{Subject: subject, Path: d.Path, Replacement: d.Replacement, Source: d.Source,
		State: d.StateAt(now), ExpiresAt: d.ExpiresAt, DaysLeft: d.DaysLeft(now),
		Migrated: []MigratedConsumer{}, Reading: []ReadingConsumer{}, Extended: []ExtendedConsumer{}}
	read := func(c *lineage.Consumer) []string {
		var fs []string
		for _, f := range c.Fields {
			if governance.Covers(d.Path, f) {
				fs = append(fs, f)
			}
		}
		return fs
	}
	everRead := map[string]bool{}
	current := map[string]*lineage.Consumer{}
	stopped := map[string]MigratedConsumer{}
	for _, ch := range chs {
		if ch.Consumer == nil || ch.Consumer.Subject != subject || (!now.IsZero() && ch.At.After(now)) {
			continue
		}
		svc := ch.Consumer.Service
		switch ch.Kind {
		case lineage.ChangeSetConsumer:
			reads := len(read(ch.Consumer)) > 0
			if reads {
				everRead[svc] = true
				delete(stopped, svc)
			} else if everRead[svc] {
				if _, ok := stopped[svc]; !ok {
					stopped[svc] = MigratedConsumer{Consumer: svc, At: ch.At}
				}
			}
			current[svc] = ch.Consumer
		case lineage.ChangeRemoveConsumer:
			if c := current[svc]; c != nil && len(read(c)) > 0 {
				stopped[svc] = MigratedConsumer{Consumer: svc, At: ch.At, Withdrawn: true}
			}
			delete(current, svc)
		}
	}
	ext := map[string]time.Time{}
	for _, x := range d.ActiveExtensions(now) {
		if _, ok := ext[x.Consumer]; !ok {
			ext[x.Consumer] = x.Until
		}
	}
	for svc, c := range current {
		fs := read(c)
		if len(fs) == 0 {
			continue
		}
		r := ReadingConsumer{Consumer: svc, Fields: fs, Source: c.Source, ContractVersion: c.ContractVersion, Since: c.Since}
		if until, ok := ext[svc]; ok {
			left := governance.Deprecation{ExpiresAt: until}.DaysLeft(now)
			m.Extended = append(m.Extended, ExtendedConsumer{ReadingConsumer: r, Until: until, DaysLeft: left})
			continue
		}
		m.Reading = append(m.Reading, r)
	}
	for _, mc := range stopped {
		m.Migrated = append(m.Migrated, mc)
	}
	sort.Slice(m.Migrated, func(i, j int) bool { return m.Migrated[i].Consumer < m.Migrated[j].Consumer })
	sort.Slice(m.Reading, func(i, j int) bool { return m.Reading[i].Consumer < m.Reading[j].Consumer })
	sort.Slice(m.Extended, func(i, j int) bool { return m.Extended[i].Consumer < m.Extended[j].Consumer })
	return m
}
