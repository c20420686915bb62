package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/charter-dev/charter/registry/governance"
)

// GovernanceRecord is one governance record: a JSON body under (Kind,
// Subject, Key). Subject "" holds global records (the global policy).
type GovernanceRecord struct {
	Kind    string
	Subject string
	Key     string
	Body    json.RawMessage
}

// RecordQuery selects governance records.
type RecordQuery struct {
	// Kind keeps records of this kind; "" keeps every kind.
	Kind string
	// Subject keeps the records of this subject ("" for global records),
	// unless AllSubjects.
	Subject     string
	AllSubjects bool
}

// AuditQuery selects audit entries. Zero fields do not filter.
type AuditQuery struct {
	Subject string
	// ActionPrefix keeps actions starting with it ("deprecation." keeps
	// every deprecation change).
	ActionPrefix string
	Actor        string
	// Since and Until bound the entry time: Since <= time < Until.
	Since, Until time.Time
	// AfterID keeps entries with a greater ID (paging).
	AfterID int64
	// Limit caps the number of entries (0: no cap).
	Limit int
}

// GovernanceTx is the governance part of a store transaction. A Tx
// implements it when its store keeps governance records; the Service
// finds it by type assertion (every Charter store implements it, and
// registry/storetest checks it). Methods return errors wrapping
// ErrNotFound as documented; any other error is a store failure.
type GovernanceTx interface {
	// GovernanceRecord returns the record (kind, subject, key), or
	// ErrNotFound.
	GovernanceRecord(ctx context.Context, kind, subject, key string) (GovernanceRecord, error)
	// GovernanceRecords returns the records q selects, ordered by subject,
	// kind, then key (byte order). No match is an empty slice.
	GovernanceRecords(ctx context.Context, q RecordQuery) ([]GovernanceRecord, error)
	// PutGovernanceRecord inserts r, or replaces the body of the record
	// with r's kind, subject and key. Kind and Key must not be empty.
	PutGovernanceRecord(ctx context.Context, r GovernanceRecord) error
	// DeleteGovernanceRecord removes (kind, subject, key), or returns
	// ErrNotFound.
	DeleteGovernanceRecord(ctx context.Context, kind, subject, key string) error
	// AppendAudit stores e under a new ID, greater than every ID handed
	// out before (deleted entries included), and returns it; e.ID is
	// ignored. The time is stored with nanosecond precision, in UTC.
	AppendAudit(ctx context.Context, e governance.AuditEntry) (int64, error)
	// AuditEntries returns the entries q selects, by ID ascending.
	AuditEntries(ctx context.Context, q AuditQuery) ([]governance.AuditEntry, error)
}

// Kinds of governance records the Service keeps.
const (
	kindOwner       = "owner"       // key "": governance.Owner
	kindPolicy      = "policy"      // key "": governance.PolicyConfig (subject "" global)
	kindTags        = "tags"        // key "": map[glob][]tag
	kindDeprecation = "deprecation" // key item key: governance.Deprecation
	kindDismissal   = "dismissal"   // key Dismissal.Key(): governance.Dismissal
	kindRemoved     = "removed"     // key path: governance.RemovedField
	kindVersion     = "version"     // key %010d version: governance.VersionRecord
)

// errNoGovernance is returned by governance calls on a store whose
// transactions do not implement GovernanceTx.
var errNoGovernance = errors.New("this store keeps no governance records (its Tx does not implement registry.GovernanceTx)")

// govTx returns tx's governance part.
func govTx(tx Tx) (GovernanceTx, error) {
	g, ok := tx.(GovernanceTx)
	if !ok {
		return nil, errNoGovernance
	}
	return g, nil
}

// getRecord decodes record (kind, subject, key) into dst and reports
// whether it exists.
func getRecord(ctx context.Context, g GovernanceTx, kind, subject, key string, dst any) (bool, error) {
	r, err := g.GovernanceRecord(ctx, kind, subject, key)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s record of %q: %w", kind, subject, err)
	}
	if err := json.Unmarshal(r.Body, dst); err != nil {
		return false, fmt.Errorf("decode %s record %q of %q: %w", kind, key, subject, err)
	}
	return true, nil
}

// putRecord encodes v as record (kind, subject, key).
func putRecord(ctx context.Context, g GovernanceTx, kind, subject, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s record of %q: %w", kind, subject, err)
	}
	if err := g.PutGovernanceRecord(ctx, GovernanceRecord{Kind: kind, Subject: subject, Key: key, Body: b}); err != nil {
		return fmt.Errorf("store %s record of %q: %w", kind, subject, err)
	}
	return nil
}

// listRecords decodes every record of kind for subject (or every subject).
func listRecords[T any](ctx context.Context, g GovernanceTx, kind, subject string, all bool) ([]T, error) {
	rs, err := g.GovernanceRecords(ctx, RecordQuery{Kind: kind, Subject: subject, AllSubjects: all})
	if err != nil {
		return nil, fmt.Errorf("list %s records: %w", kind, err)
	}
	out := make([]T, 0, len(rs))
	for _, r := range rs {
		var v T
		if err := json.Unmarshal(r.Body, &v); err != nil {
			return nil, fmt.Errorf("decode %s record %q of %q: %w", kind, r.Key, r.Subject, err)
		}
		out = append(out, v)
	}
	return out, nil
}

func versionKey(v int) string { return fmt.Sprintf("%010d", v) }
