package client

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Lineage (Charter issue 5): producers and consumers of subjects, the
// impact of a field change, PII exposure and the graph. Errors decode to
// srerr sentinels: srerr.ErrSubjectNotFound (40401) for a subject with no
// live version, srerr.ErrInvalidGovernance (42283) for a bad field path or
// change, srerr.ErrGovernanceNotFound (40480) when removing a producer or
// consumer that is not declared.

// SetProducer declares (or replaces) that service produces subject, with
// the versions it emits (nil: unspecified).
func (c *Client) SetProducer(ctx context.Context, subject, service string, versions []int) (LineageChange, error) {
	var out LineageChange
	in := map[string][]int{"versions": versions}
	if err := c.do(ctx, "PUT", subjectPath(subject, "producers", service), nil, in, &out); err != nil {
		return LineageChange{}, fmt.Errorf("declare producer %q of subject %q: %w", service, subject, err)
	}
	return out, nil
}

// RemoveProducer forgets a producer of subject.
func (c *Client) RemoveProducer(ctx context.Context, subject, service string) (LineageChange, error) {
	var out LineageChange
	if err := c.do(ctx, "DELETE", subjectPath(subject, "producers", service), nil, nil, &out); err != nil {
		return LineageChange{}, fmt.Errorf("remove producer %q of subject %q: %w", service, subject, err)
	}
	return out, nil
}

// DeclareConsumer declares (or replaces) by hand the field paths
// (".carrier_code") service reads of subject, and the versions (nil: from
// version 1 on).
func (c *Client) DeclareConsumer(ctx context.Context, subject, service string, fields []string, r *VersionRange) (LineageChange, error) {
	var out LineageChange
	in := struct {
		Fields []string      `json:"fields"`
		Range  *VersionRange `json:"range,omitempty"`
	}{fields, r}
	if err := c.do(ctx, "PUT", subjectPath(subject, "consumers", service), nil, in, &out); err != nil {
		return LineageChange{}, fmt.Errorf("declare consumer %q of subject %q: %w", service, subject, err)
	}
	return out, nil
}

// RemoveConsumer forgets a consumer of subject and what it reads.
func (c *Client) RemoveConsumer(ctx context.Context, subject, service string) (LineageChange, error) {
	var out LineageChange
	if err := c.do(ctx, "DELETE", subjectPath(subject, "consumers", service), nil, nil, &out); err != nil {
		return LineageChange{}, fmt.Errorf("remove consumer %q of subject %q: %w", service, subject, err)
	}
	return out, nil
}

// Impact lists the consumers a change of field q.Path of q.Subject
// affects (GET /governance/subjects/{s}/impact), sorted by service.
func (c *Client) Impact(ctx context.Context, q ImpactQuery) ([]Impact, error) {
	v := url.Values{"path": {q.Path}}
	if q.Change != "" {
		v.Set("change", q.Change)
	}
	if q.Version != 0 {
		v.Set("version", strconv.Itoa(q.Version))
	}
	out := []Impact{}
	if err := c.do(ctx, "GET", subjectPath(q.Subject, "impact"), v, nil, &out); err != nil {
		return nil, fmt.Errorf("impact of %s on subject %q: %w", q.Path, q.Subject, err)
	}
	return out, nil
}

// PIIExposure lists the fields tagged tag ("" for PII) of subject ("" for
// every subject) with the consumers that read them, since when (GET
// /governance/lineage/pii).
func (c *Client) PIIExposure(ctx context.Context, subject, tag string) ([]Exposure, error) {
	v := url.Values{}
	if subject != "" {
		v.Set("subject", subject)
	}
	if tag != "" {
		v.Set("tag", tag)
	}
	out := []Exposure{}
	if err := c.do(ctx, "GET", []string{"governance", "lineage", "pii"}, v, nil, &out); err != nil {
		return nil, fmt.Errorf("PII exposure: %w", err)
	}
	return out, nil
}

// LineageChanges returns the lineage history of subject ("" for every
// subject) after revision after, oldest first.
func (c *Client) LineageChanges(ctx context.Context, subject string, after int64) ([]LineageChange, error) {
	v := url.Values{}
	if subject != "" {
		v.Set("subject", subject)
	}
	if after > 0 {
		v.Set("after", strconv.FormatInt(after, 10))
	}
	out := []LineageChange{}
	if err := c.do(ctx, "GET", []string{"governance", "lineage", "changes"}, v, nil, &out); err != nil {
		return nil, fmt.Errorf("lineage changes: %w", err)
	}
	return out, nil
}

func graphQuery(subject string, at time.Time, format string) url.Values {
	v := url.Values{}
	if subject != "" {
		v.Set("subject", subject)
	}
	if !at.IsZero() {
		v.Set("at", at.UTC().Format(time.RFC3339Nano))
	}
	if format != "" {
		v.Set("format", format)
	}
	return v
}

// LineageGraph returns the lineage graph of subject ("" for every
// subject) as of at (zero: now).
func (c *Client) LineageGraph(ctx context.Context, subject string, at time.Time) (LineageGraph, error) {
	var out LineageGraph
	if err := c.do(ctx, "GET", []string{"governance", "lineage", "graph"}, graphQuery(subject, at, ""), nil, &out); err != nil {
		return LineageGraph{}, fmt.Errorf("lineage graph: %w", err)
	}
	return out, nil
}

// Graph formats of LineageGraphText.
const (
	GraphJSON    = "json"
	GraphDOT     = "dot"
	GraphMermaid = "mermaid"
)

// maxGraphBody bounds a rendered graph, in bytes (64 MiB).
const maxGraphBody = 64 << 20

// LineageGraphText returns the lineage graph rendered by the server as
// format: GraphDOT (Graphviz), GraphMermaid or GraphJSON, byte for byte.
func (c *Client) LineageGraphText(ctx context.Context, subject string, at time.Time, format string) ([]byte, error) {
	switch format {
	case GraphJSON, GraphDOT, GraphMermaid:
	default:
		return nil, fmt.Errorf("lineage graph: unknown format %q (want json, dot or mermaid)", format)
	}
	u, err := c.url([]string{"governance", "lineage", "graph"}, graphQuery(subject, at, format))
	if err != nil {
		return nil, fmt.Errorf("lineage graph: %w", err)
	}
	resp, err := c.send(ctx, "GET", u, nil, "text/vnd.graphviz, text/plain, application/json")
	if err != nil {
		return nil, fmt.Errorf("lineage graph: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxGraphBody+1))
	if err != nil {
		return nil, fmt.Errorf("read lineage graph: %w", err)
	}
	if len(b) > maxGraphBody {
		return nil, fmt.Errorf("lineage graph: answer larger than %d bytes", maxGraphBody)
	}
	if ct := resp.Header.Get("Content-Type"); format == GraphDOT && !strings.HasPrefix(ct, "text/vnd.graphviz") {
		return nil, fmt.Errorf("lineage graph: the server answered %q, not Graphviz DOT", ct)
	}
	return b, nil
}

// DeprecationMigrations returns the migration status of the deprecated
// fields of subject (only path's when path is not ""), by path (GET
// /governance/subjects/{s}/migrations). Errors: srerr.ErrSubjectNotFound,
// srerr.ErrGovernanceNotFound when path is not deprecated.
func (c *Client) DeprecationMigrations(ctx context.Context, subject, path string) ([]DeprecationMigration, error) {
	v := url.Values{}
	if path != "" {
		v.Set("path", path)
	}
	out := []DeprecationMigration{}
	if err := c.do(ctx, "GET", subjectPath(subject, "migrations"), v, nil, &out); err != nil {
		return nil, fmt.Errorf("deprecation migrations of subject %q: %w", subject, err)
	}
	return out, nil
}
