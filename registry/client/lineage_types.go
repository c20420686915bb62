package client

import (
	"strconv"
	"time"
)

// VersionRange is the subject versions a consumer reads: From to To
// inclusive, To 0 for "and every later version".
type VersionRange struct {
	From int `json:"from"`
	To   int `json:"to,omitempty"`
}

// Producer is a service that writes a subject, with the versions it emits
// (none: unspecified).
type Producer struct {
	Service  string `json:"service"`
	Subject  string `json:"subject"`
	Versions []int  `json:"versions,omitempty"`
}

// Consumer is a service that reads a subject: the field paths it reads
// (".carrier_code"), the versions, and where that is known from (Source
// "declared" or "contract", with the contract's version and branch).
type Consumer struct {
	Service         string       `json:"service"`
	Subject         string       `json:"subject"`
	Fields          []string     `json:"fields"`
	Range           VersionRange `json:"range"`
	Source          string       `json:"source"`
	ContractVersion string       `json:"contractVersion,omitempty"`
	Branch          string       `json:"branch,omitempty"`
	Since           time.Time    `json:"since,omitzero"`
}

// LineageChange is one entry of the lineage history: Kind "set_producer",
// "remove_producer", "set_consumer" or "remove_consumer", with the
// producer or consumer it sets or removes.
type LineageChange struct {
	Revision int64     `json:"revision"`
	At       time.Time `json:"at"`
	Actor    string    `json:"actor,omitempty"`
	Kind     string    `json:"kind"`
	Producer *Producer `json:"producer,omitempty"`
	Consumer *Consumer `json:"consumer,omitempty"`
}

// ImpactQuery asks who is affected by a change of one field: Change is
// "remove" (default), "rename", "retype" or "deprecate"; Version, when
// not 0, limits the answer to consumers reading that version.
type ImpactQuery struct {
	Subject string
	Path    string
	Change  string
	Version int
}

// Impact is one consumer a field change affects: the fields it reads
// that the change touches, the versions it reads and where that is known
// from.
type Impact struct {
	Service         string       `json:"service"`
	Subject         string       `json:"subject"`
	Change          string       `json:"change"`
	Fields          []string     `json:"fields"`
	Range           VersionRange `json:"range"`
	Source          string       `json:"source"`
	ContractVersion string       `json:"contractVersion,omitempty"`
	Branch          string       `json:"branch,omitempty"`
	Since           time.Time    `json:"since,omitzero"`
}

// Reader is a consumer of a tagged field, since when.
type Reader struct {
	Service string       `json:"service"`
	Fields  []string     `json:"fields"`
	Range   VersionRange `json:"range"`
	Source  string       `json:"source"`
	Since   time.Time    `json:"since,omitzero"`
}

// Exposure is a field carrying a tag (PII), the versions that have it and
// the consumers that read it.
type Exposure struct {
	Subject  string   `json:"subject"`
	Path     string   `json:"path"`
	Tags     []string `json:"tags"`
	Versions []int    `json:"versions"`
	Readers  []Reader `json:"readers"`
}

// LineageGraph is the lineage graph as JSON: services, subjects, versions
// and fields as nodes (Kind "service", "subject", "version", "field");
// edges of Kind "produces", "consumes", "has_version", "declares" and
// "reads".
type LineageGraph struct {
	Nodes []LineageNode `json:"nodes"`
	Edges []LineageEdge `json:"edges"`
}

// LineageNode is a node of the graph; ID is "service:NAME",
// "subject:NAME", "version:SUBJECT:N" or "field:SUBJECT:PATH".
type LineageNode struct {
	ID         string   `json:"id"`
	Kind       string   `json:"kind"`
	Name       string   `json:"name"`
	Subject    string   `json:"subject,omitempty"`
	Version    int      `json:"version,omitempty"`
	Path       string   `json:"path,omitempty"`
	Type       string   `json:"type,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	Deprecated bool     `json:"deprecated,omitempty"`
	Versions   []int    `json:"versions,omitempty"`
	// Added is when a version was registered, or when the oldest version
	// that has a field was (zero: unknown).
	Added time.Time `json:"added,omitzero"`
}

// LineageEdge is an edge of the graph between two node IDs.
type LineageEdge struct {
	Kind     string        `json:"kind"`
	From     string        `json:"from"`
	To       string        `json:"to"`
	Versions []int         `json:"versions,omitempty"`
	Fields   []string      `json:"fields,omitempty"`
	Range    *VersionRange `json:"range,omitempty"`
	Source   string        `json:"source,omitempty"`
	Since    time.Time     `json:"since,omitzero"`
}

// String renders the range as "3..", "1..4" or "2" (as package lineage
// does).
func (r VersionRange) String() string {
	switch {
	case r.To == 0:
		return strconv.Itoa(r.From) + ".."
	case r.To == r.From:
		return strconv.Itoa(r.From)
	}
	return strconv.Itoa(r.From) + ".." + strconv.Itoa(r.To)
}

// DeprecationMigration is the migration status of one deprecated field
// (GET /governance/subjects/{s}/migrations): its countdown and readers,
// in three disjoint groups sorted by consumer.
type DeprecationMigration struct {
	Subject     string    `json:"subject"`
	Path        string    `json:"path"`
	Replacement string    `json:"replacement,omitempty"`
	Source      string    `json:"source,omitempty"`
	State       string    `json:"state"`
	ExpiresAt   time.Time `json:"expiresAt"`
	// DaysLeft is the whole days until expiry, rounded up; 0 once expired.
	DaysLeft int `json:"daysLeft"`
	// Migrated read the field and no longer do; Reading read it without
	// a running extension; Extended read it under one.
	Migrated []MigratedConsumer `json:"migrated"`
	Reading  []ReadingConsumer  `json:"reading"`
	Extended []ExtendedConsumer `json:"extended"`
}

// MigratedConsumer is a consumer that stopped reading a deprecated field
// at At (Withdrawn: its contract or declaration was removed).
type MigratedConsumer struct {
	Consumer  string    `json:"consumer"`
	At        time.Time `json:"at"`
	Withdrawn bool      `json:"withdrawn,omitempty"`
}

// ReadingConsumer is a consumer still reading a deprecated field: the
// paths it reads there, the source ("contract", "declared") and since
// when.
type ReadingConsumer struct {
	Consumer        string    `json:"consumer"`
	Fields          []string  `json:"fields"`
	Source          string    `json:"source"`
	ContractVersion string    `json:"contractVersion,omitempty"`
	Since           time.Time `json:"since,omitzero"`
}

// ExtendedConsumer is a reader holding a running extension until Until
// (DaysLeft whole days, rounded up).
type ExtendedConsumer struct {
	ReadingConsumer
	Until    time.Time `json:"until"`
	DaysLeft int       `json:"daysLeft"`
}
