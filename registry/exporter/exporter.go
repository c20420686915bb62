// Package exporter is Charter's schema linking: exporters that copy a
// registry's subjects, with their schema IDs, into another registry (a
// Charter or any Confluent-compatible one) over its REST API, with the
// API of Confluent's schema exporters (/exporters; Confluent's
// SchemaExporterResource, docs.confluent.io "Schema Linking on
// Confluent Platform").
//
// An exporter names what to copy (Subjects, patterns), where it lands
// (ContextType and Context: a context of the destination, or its default
// one; SubjectRenameFormat) and how to reach the destination (Config:
// schema.registry.url and its credentials). The Runner (runner.go) copies
// each running exporter's subject versions in order, references first,
// registering each under its source ID and version while the destination
// subject is in IMPORT mode, and copies subject configs; progress (the
// last version copied of each subject) is stored, so a restart resumes
// where the last one stopped, and copying a version again is harmless
// (the destination answers the ID it already holds).
//
// The package depends on nothing of Charter's but srerr: stores implement
// [Tx], the registry adapts its store to [Store] and itself to [Source].
package exporter

import (
	"context"
	"encoding/json"
)

// ContextType says where an exporter's subjects land in the destination
// (Confluent's ExporterContextType).
type ContextType string

// The context types. AUTO (the default) puts them in a context named
// after the source registry's cluster ID (".{clusterID}"), CUSTOM in
// the exporter's Context, NONE in the context they have at the source
// (the destination's default one for unqualified subjects).
const (
	ContextAuto   ContextType = "AUTO"
	ContextCustom ContextType = "CUSTOM"
	ContextNone   ContextType = "NONE"
)

// State is an exporter's state (Confluent's ExporterState).
type State string

// The states: STARTING until the first copy cycle runs, RUNNING while
// copying (or idle, caught up), PAUSED by the API, ERROR after a failed
// cycle (Trace says why; the runner retries with backoff and goes back to
// RUNNING when a cycle succeeds).
const (
	StateStarting State = "STARTING"
	StateRunning  State = "RUNNING"
	StatePaused   State = "PAUSED"
	StateError    State = "ERROR"
)

// Config keys the runner reads (the names of Confluent's exporter config
// and of its schema registry client).
const (
	ConfigURL              = "schema.registry.url"
	ConfigCredentialSource = "basic.auth.credentials.source" // USER_INFO (the default when user info is set)
	ConfigUserInfo         = "basic.auth.user.info"          // user:password
	ConfigBearerSource     = "bearer.auth.credentials.source"
	ConfigBearerToken      = "bearer.auth.token"
)

// Limits of one exporter definition and of the registry's exporters;
// requests past them answer 40950 (name), 40951 (config), 40952
// (subjects), 422 (context, subjectRenameFormat) or 40964 (count).
const (
	MaxExporters     = 100  // exporters per registry
	MaxNameLength    = 256  // characters of a name
	MaxSubjects      = 1000 // entries of Subjects
	MaxSubjectLength = 512  // bytes of one Subjects entry, Context, SubjectRenameFormat
	MaxConfigEntries = 64   // entries of Config
	MaxConfigValue   = 4096 // bytes of one Config key or value
)

// Exporter is an exporter's definition, as the API takes and answers it
// (Confluent's ExporterDescription). Config holds credentials; Redacted
// answers a copy without them.
type Exporter struct {
	Name                string            `json:"name"`
	ContextType         ContextType       `json:"contextType"`
	Context             string            `json:"context"`
	Subjects            []string          `json:"subjects"`
	SubjectRenameFormat string            `json:"subjectRenameFormat"`
	Config              map[string]string `json:"config"`
}

// Status is an exporter's progress (Confluent's ExporterStatus): Offset
// counts the subject versions copied since the exporter was created or
// last reset, Ts is the time of the last change of state or progress in
// Unix milliseconds, Trace the error of the last failed cycle ("" when
// the last one succeeded).
type Status struct {
	Name   string `json:"name"`
	State  State  `json:"state"`
	Offset int64  `json:"offset"`
	Ts     int64  `json:"ts"`
	Trace  string `json:"trace,omitempty"`
}

// Stored is one exporter as a store keeps it: the definition, the status
// and the lease of the process that runs it (LeaseOwner "" and
// LeaseUntil 0: none).
type Stored struct {
	Exporter
	State      State
	Offset     int64
	Ts         int64
	Trace      string
	LeaseOwner string
	LeaseUntil int64 // Unix milliseconds
}

// Status returns s's status.
func (s Stored) Status() Status {
	return Status{Name: s.Name, State: s.State, Offset: s.Offset, Ts: s.Ts, Trace: s.Trace}
}

// Progress is how far an exporter copied one source subject: the last
// version copied; the settings last copied and the source schema ID of
// that version, "DIGEST/MODE/ID" (DIGEST the SHA-256 of the subject
// config, "" for none; MODE the destination subject's mode between
// copies, see destinationMode; ID the schema ID Version had when it was
// copied, absent in progress stored before it was recorded); and whether
// the destination subject is in IMPORT mode now. The ID tells a subject
// deleted permanently and registered again (its version Version gone or
// another schema) from one that only grew, so that the new history is
// copied (see copier.versions).
type Progress struct {
	Version  int    `json:"version"`
	Settings string `json:"settings,omitempty"`
	Imported bool   `json:"imported,omitempty"`
}

// Tx is the exporters' part of a store transaction: what a store
// implements (registry/sqlite, registry/postgres; registry/storetest
// checks it). Reads of an absent exporter answer false, never an error;
// every error is a store failure.
type Tx interface {
	// Exporter returns the exporter name.
	Exporter(ctx context.Context, name string) (Stored, bool, error)
	// Exporters returns every exporter by name (byte order); none is an
	// empty slice.
	Exporters(ctx context.Context) ([]Stored, error)
	// PutExporter inserts e, or replaces the exporter of its name.
	PutExporter(ctx context.Context, e Stored) error
	// DeleteExporter removes the exporter name and its progress; absent,
	// it does nothing.
	DeleteExporter(ctx context.Context, name string) error
	// ExporterProgress returns the progress of exporter name by source
	// subject; none is an empty map.
	ExporterProgress(ctx context.Context, name string) (map[string]Progress, error)
	// PutExporterProgress records the progress of exporter name on
	// subject, replacing what was there.
	PutExporterProgress(ctx context.Context, name, subject string, p Progress) error
	// ClearExporterProgress forgets every progress of exporter name.
	ClearExporterProgress(ctx context.Context, name string) error
}

// Audit records one change in the registry's audit log, in the write's
// transaction: action, the exporter's name, and the definition before
// and after (nil: absent), which the service passes redacted.
type Audit func(action, name string, before, after any) error

// Store runs the exporters' transactions. Update's fn may run more than
// once (see registry.Store.Update): it starts from scratch each time.
type Store interface {
	View(ctx context.Context, fn func(Tx) error) error
	Update(ctx context.Context, fn func(Tx, Audit) error) error
}

// Audit actions of the exporter API.
const (
	ActionCreate = "exporter.create"
	ActionUpdate = "exporter.update"
	ActionConfig = "exporter.config"
	ActionPause  = "exporter.pause"
	ActionResume = "exporter.resume"
	ActionReset  = "exporter.reset"
	ActionDelete = "exporter.delete"
)

// Version is one subject version of the source, as the runner copies it.
type Version struct {
	Subject    string
	Version    int
	ID         int64
	Type       string // AVRO, PROTOBUF, JSON
	Schema     string
	References []Reference
	Metadata   json.RawMessage
	RuleSet    json.RawMessage
}

// Reference is one schema reference of a Version.
type Reference struct {
	Name    string `json:"name"`
	Subject string `json:"subject"`
	Version int    `json:"version"`
}

// Subject is one subject of the source as a cycle sees it: its live
// versions, ascending, the config set on it, as the body of a PUT
// /config/{subject} (Confluent's ConfigUpdateRequest), nil when none,
// and the mode set on it ("" none).
type Subject struct {
	Name     string
	Versions []int
	IDs      []int64 // the schema ID of each of Versions (nil: unknown)
	Config   json.RawMessage
	Mode     string
}

// Source is the registry the runner copies from.
type Source interface {
	// Subjects returns every subject with a live version, qualified
	// (":.ctx:name") outside the default context, sorted by name, read
	// in one transaction.
	Subjects(ctx context.Context) ([]Subject, error)
	// Version returns one version of subject (soft-deleted too, since a
	// live version may reference one).
	Version(ctx context.Context, subject string, version int) (Version, error)
	// Generation changes whenever the source may have changed (a
	// registry.Service's ReadGeneration: its writes, and with replicas
	// the store's write count); exact is false when it cannot see every
	// change (replicas on a store that counts no writes), which the
	// runner meets with a cycle every Resync.
	Generation(ctx context.Context) (gen uint64, exact bool)
}
