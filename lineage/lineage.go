// Package lineage is the producer/consumer lineage graph of Charter's
// subjects: services, subjects, schema versions and fields as nodes;
// "produces" (service → subject, with the versions it emits), "consumes"
// (service → subject, with the fields it reads and the version range it
// reads) and the derived "reads" (service → field) as edges.
//
// Everything here is a pure function of its input: Build makes a Graph from
// Declarations (producers, consumers, and the fields of each schema
// version as compat.Fields lists them); Impact answers "who breaks if
// field X of subject S is removed, renamed, retyped or deprecated?";
// Exposure answers "who consumes fields tagged PII, and since when?".
// DOT, Mermaid and JSON render a graph.
//
// Fields read come from consumer contracts (contracts.ContractResult.Reads,
// already in compat.Field path syntax) or are declared by hand. Lineage
// does not import contracts: the registry, which holds both, turns a
// published contract into a Consumer. Declarations change over time: a
// Store appends Changes (an audit trail) and Replay rebuilds the
// Declarations as of any instant.
package lineage

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/charter-dev/charter/compat"
)

// Errors of Build, matchable with errors.Is.
var (
	// ErrUnknownSubject: a consumer or producer names a subject that has
	// no schema version.
	ErrUnknownSubject = errors.New("unknown subject")
	// ErrInvalid: a declaration lacks a service or subject, or repeats a
	// schema version.
	ErrInvalid = errors.New("invalid lineage declaration")
)

// VersionRange is the schema versions a consumer reads: From through To,
// both inclusive; To 0 means every later version too (an open range).
type VersionRange struct {
	From int `json:"from"`
	To   int `json:"to,omitempty"`
}

// Contains reports whether version v is in the range.
func (r VersionRange) Contains(v int) bool {
	return v >= r.From && (r.To == 0 || v <= r.To)
}

// maxVersion is the largest schema version a registry hands out (2^31-1,
// as Confluent's API reads versions as Java Integers).
const maxVersion = 1<<31 - 1

// Validate reports a range that selects no version or no version a
// registry can have: a negative or too large bound, or To before From.
// From 0 is the first version; To 0 leaves the range open.
func (r VersionRange) Validate() error {
	switch {
	case r.From < 0 || r.From > maxVersion:
		return fmt.Errorf("range.from %d is not a version (want 1 to %d, or 0 for the first)", r.From, maxVersion)
	case r.To < 0 || r.To > maxVersion:
		return fmt.Errorf("range.to %d is not a version (want 1 to %d, or 0 for no end)", r.To, maxVersion)
	case r.To != 0 && r.To < r.From:
		return fmt.Errorf("range.to %d is before range.from %d", r.To, r.From)
	}
	return nil
}

// ValidVersion reports a schema version outside 1 to 2^31-1.
func ValidVersion(v int) error {
	if v < 1 || v > maxVersion {
		return fmt.Errorf("%d is not a version (want 1 to %d)", v, maxVersion)
	}
	return nil
}

// String renders the range as "3..", "1..4" or "2".
func (r VersionRange) String() string {
	switch {
	case r.To == 0:
		return strconv.Itoa(r.From) + ".."
	case r.To == r.From:
		return strconv.Itoa(r.From)
	}
	return strconv.Itoa(r.From) + ".." + strconv.Itoa(r.To)
}

// Producer declares that a service writes a subject's messages with the
// given schema versions.
type Producer struct {
	Service  string `json:"service"`
	Subject  string `json:"subject"`
	Versions []int  `json:"versions,omitempty"`
}

// Source says where a consumer's fields read come from.
type Source string

// Sources of a consumer's fields.
const (
	SourceContract Source = "contract" // a published consumer contract
	SourceDeclared Source = "declared" // registered by hand (API or CLI)
)

// Consumer declares that a service reads a subject: the fields it reads
// (compat.Field paths), the versions it reads, where the fields come from,
// and since when it has read them.
type Consumer struct {
	Service string       `json:"service"`
	Subject string       `json:"subject"`
	Fields  []string     `json:"fields"`
	Range   VersionRange `json:"range"`
	Source  Source       `json:"source"`
	// ContractVersion and Branch identify the contract the fields come
	// from (SourceContract).
	ContractVersion string `json:"contractVersion,omitempty"`
	Branch          string `json:"branch,omitempty"`
	// Since is when the consumer started reading these fields.
	Since time.Time `json:"since,omitzero"`
}

// SchemaVersion is one registered version of a subject with its fields
// (compat.Fields of the parsed schema) and when it was registered (zero
// when unknown).
type SchemaVersion struct {
	Subject    string         `json:"subject"`
	Version    int            `json:"version"`
	Fields     []compat.Field `json:"fields"`
	Registered time.Time      `json:"registered,omitzero"`
}

// Declarations is everything a Graph is built from.
type Declarations struct {
	Versions  []SchemaVersion `json:"versions"`
	Producers []Producer      `json:"producers"`
	Consumers []Consumer      `json:"consumers"`
}

// NodeKind is the kind of a graph node.
type NodeKind string

// Node kinds.
const (
	KindService NodeKind = "service"
	KindSubject NodeKind = "subject"
	KindVersion NodeKind = "version"
	KindField   NodeKind = "field"
)

// EdgeKind is the kind of a graph edge.
type EdgeKind string

// Edge kinds.
const (
	// EdgeProduces: service → subject, Versions emitted.
	EdgeProduces EdgeKind = "produces"
	// EdgeConsumes: service → subject, Fields read and Range.
	EdgeConsumes EdgeKind = "consumes"
	// EdgeHasVersion: subject → version.
	EdgeHasVersion EdgeKind = "has_version"
	// EdgeDeclares: version → field the version has.
	EdgeDeclares EdgeKind = "declares"
	// EdgeReads: service → field it reads (one per field of a consumes
	// edge), Range as the consumes edge.
	EdgeReads EdgeKind = "reads"
)

// Node is a service, a subject, a schema version or a field. A field node
// is one path of one subject across all its versions.
type Node struct {
	ID      string   `json:"id"`
	Kind    NodeKind `json:"kind"`
	Name    string   `json:"name"`
	Subject string   `json:"subject,omitempty"`
	Version int      `json:"version,omitempty"`
	// Field attributes: Type and Deprecated from the newest version that
	// has the field, Tags from all of them.
	Path       string   `json:"path,omitempty"`
	Type       string   `json:"type,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	Deprecated bool     `json:"deprecated,omitempty"`
	// Versions lists, for a field, the subject versions that have it
	// (empty for a field read but never declared).
	Versions []int `json:"versions,omitempty"`
	// Added is, for a field, when the oldest version that has it was
	// registered; for a version, when it was registered (zero: unknown).
	Added time.Time `json:"added,omitzero"`
}

// Edge is a typed, directed edge between two node IDs.
type Edge struct {
	Kind     EdgeKind      `json:"kind"`
	From     string        `json:"from"`
	To       string        `json:"to"`
	Versions []int         `json:"versions,omitempty"`
	Fields   []string      `json:"fields,omitempty"`
	Range    *VersionRange `json:"range,omitempty"`
	Source   Source        `json:"source,omitempty"`
	Since    time.Time     `json:"since,omitzero"`
}

// Graph is the lineage graph: nodes sorted by ID, edges sorted by kind,
// source and target. It is immutable once built.
type Graph struct {
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`

	byID      map[string]int
	consumers []Consumer
}

// ServiceID is the node ID of a service: "service:<name>".
func ServiceID(name string) string { return "service:" + name }

// SubjectID is the node ID of a subject: "subject:<name>".
func SubjectID(name string) string { return "subject:" + name }

// VersionID is the node ID of a schema version: "version:<subject>@<n>".
func VersionID(subject string, v int) string {
	return "version:" + subject + "@" + strconv.Itoa(v)
}

// FieldID is the node ID of a subject's field: "field:<subject>:<path>".
func FieldID(subject, path string) string { return "field:" + subject + ":" + path }

// Node returns the node with the given ID.
func (g *Graph) Node(id string) (Node, bool) {
	i, ok := g.byID[id]
	if !ok {
		return Node{}, false
	}
	return g.Nodes[i], true
}

// Build makes the graph from declarations. It fails (nothing built) when a
// declaration lacks a service or subject, repeats a schema version or a
// consumer, or names a subject without any schema version.
func Build(d Declarations) (*Graph, error) {
	b := &builder{nodes: map[string]*Node{}}
	seen := map[string]bool{}
	// Versions, oldest first, so the newest sets a field's attributes.
	vs := append([]SchemaVersion(nil), d.Versions...)
	sort.SliceStable(vs, func(i, j int) bool {
		if vs[i].Subject != vs[j].Subject {
			return vs[i].Subject < vs[j].Subject
		}
		return vs[i].Version < vs[j].Version
	})
	for _, v := range vs {
		if v.Subject == "" || v.Version < 1 {
			return nil, fmt.Errorf("schema version %q %d: %w: a version needs a subject and a number ≥ 1", v.Subject, v.Version, ErrInvalid)
		}
		vid := VersionID(v.Subject, v.Version)
		if seen[vid] {
			return nil, fmt.Errorf("subject %q version %d declared twice: %w", v.Subject, v.Version, ErrInvalid)
		}
		seen[vid] = true
		b.node(Node{ID: SubjectID(v.Subject), Kind: KindSubject, Name: v.Subject})
		b.node(Node{ID: vid, Kind: KindVersion, Name: v.Subject + " v" + strconv.Itoa(v.Version), Subject: v.Subject, Version: v.Version, Added: v.Registered})
		b.edge(Edge{Kind: EdgeHasVersion, From: SubjectID(v.Subject), To: vid})
		for _, f := range v.Fields {
			fid := FieldID(v.Subject, f.Path)
			n := b.node(Node{ID: fid, Kind: KindField, Name: f.Path, Subject: v.Subject, Path: f.Path})
			// Type and deprecation from the newest version; tags from
			// every version (a field once tagged PII was PII then).
			n.Type, n.Deprecated = f.Type, f.Deprecated
			n.Tags = append(n.Tags, f.Tags...)
			sort.Strings(n.Tags)
			n.Tags = compactStrings(n.Tags)
			if len(n.Versions) == 0 {
				n.Added = v.Registered
			}
			if len(n.Versions) == 0 || n.Versions[len(n.Versions)-1] != v.Version {
				n.Versions = append(n.Versions, v.Version)
			}
			b.edge(Edge{Kind: EdgeDeclares, From: vid, To: fid})
		}
	}
	for _, p := range d.Producers {
		if p.Service == "" || p.Subject == "" {
			return nil, fmt.Errorf("producer %q of %q: %w: a producer needs a service and a subject", p.Service, p.Subject, ErrInvalid)
		}
		if b.nodes[SubjectID(p.Subject)] == nil {
			return nil, fmt.Errorf("producer %s: subject %q: %w", p.Service, p.Subject, ErrUnknownSubject)
		}
		b.node(Node{ID: ServiceID(p.Service), Kind: KindService, Name: p.Service})
		versions := append([]int(nil), p.Versions...)
		sort.Ints(versions)
		b.edge(Edge{Kind: EdgeProduces, From: ServiceID(p.Service), To: SubjectID(p.Subject), Versions: versions})
	}
	consumers := map[[2]string]bool{}
	var cs []Consumer
	for _, c := range d.Consumers {
		if c.Service == "" || c.Subject == "" {
			return nil, fmt.Errorf("consumer %q of %q: %w: a consumer needs a service and a subject", c.Service, c.Subject, ErrInvalid)
		}
		if b.nodes[SubjectID(c.Subject)] == nil {
			return nil, fmt.Errorf("consumer %s: subject %q: %w", c.Service, c.Subject, ErrUnknownSubject)
		}
		key := [2]string{c.Service, c.Subject}
		if consumers[key] {
			return nil, fmt.Errorf("consumer %s of %s declared twice: %w", c.Service, c.Subject, ErrInvalid)
		}
		consumers[key] = true
		fields := append([]string(nil), c.Fields...)
		sort.Strings(fields)
		fields = compactStrings(fields)
		c.Fields = fields
		cs = append(cs, c)
		r := c.Range
		b.node(Node{ID: ServiceID(c.Service), Kind: KindService, Name: c.Service})
		b.edge(Edge{Kind: EdgeConsumes, From: ServiceID(c.Service), To: SubjectID(c.Subject), Fields: fields, Range: &r, Source: c.Source, Since: c.Since})
		for _, f := range fields {
			fid := FieldID(c.Subject, f)
			n := b.node(Node{ID: fid, Kind: KindField, Name: f, Subject: c.Subject, Path: f})
			b.edge(Edge{Kind: EdgeReads, From: ServiceID(c.Service), To: fid, Range: &r, Source: c.Source, Since: readSince(c.Since, n.Added)})
		}
	}
	g := &Graph{byID: map[string]int{}, consumers: cs}
	for _, n := range b.nodes {
		g.Nodes = append(g.Nodes, *n)
	}
	sort.Slice(g.Nodes, func(i, j int) bool { return g.Nodes[i].ID < g.Nodes[j].ID })
	for i, n := range g.Nodes {
		g.byID[n.ID] = i
	}
	g.Edges = b.edges
	sort.SliceStable(g.Edges, func(i, j int) bool {
		a, c := g.Edges[i], g.Edges[j]
		if a.Kind != c.Kind {
			return a.Kind < c.Kind
		}
		if a.From != c.From {
			return a.From < c.From
		}
		return a.To < c.To
	})
	sort.Slice(g.consumers, func(i, j int) bool {
		if g.consumers[i].Subject != g.consumers[j].Subject {
			return g.consumers[i].Subject < g.consumers[j].Subject
		}
		return g.consumers[i].Service < g.consumers[j].Service
	})
	return g, nil
}

type builder struct {
	nodes map[string]*Node
	edges []Edge
	seen  map[[3]string]bool
}

// node adds n unless a node with its ID exists; it returns the stored node.
func (b *builder) node(n Node) *Node {
	if old, ok := b.nodes[n.ID]; ok {
		return old
	}
	b.nodes[n.ID] = &n
	return &n
}

func (b *builder) edge(e Edge) {
	if b.seen == nil {
		b.seen = map[[3]string]bool{}
	}
	key := [3]string{string(e.Kind), e.From, e.To}
	if b.seen[key] {
		return
	}
	b.seen[key] = true
	b.edges = append(b.edges, e)
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// readSince is since when a consumer that has read its subject since
// since reads a field added at added: the later of the two (nobody reads
// a field before it exists). A zero added (unknown) keeps since.
func readSince(since, added time.Time) time.Time {
	if added.After(since) {
		return added
	}
	return since
}

// covers reports whether a consumer reading path read is affected by a
// change to field path: it reads the field itself or something inside it
// (".carrier" covers ".carrier.code", ".carrier<com.acme.Carrier>.code",
// ".lines[]…", ".attrs{}…").
func covers(path, read string) bool {
	if read == path {
		return true
	}
	if !strings.HasPrefix(read, path) {
		return false
	}
	switch read[len(path)] {
	case '.', '[', '{', '<':
		return true
	}
	return false
}
