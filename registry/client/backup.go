package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strconv"
)

// Lossless backup and restore through Charter's admin endpoints: the
// registry reads its whole store in one transaction (ExportDump) and
// restores a dump in one (ImportDump). Export and Import, in dump.go,
// are the older path through the REST API, which loses what the REST
// API does not show (contracts, lineage, dates and actors).

// ExportDump returns the registry's dump (GET /admin/export) as the
// registry encoded it (format v3; package registry/dump reads it), byte
// for byte.
// Admins only.
func (c *Client) ExportDump(ctx context.Context) ([]byte, error) {
	u, err := c.url([]string{"admin", "export"}, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.send(ctx, "GET", u, nil, accept)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("export: read the dump: %w", err)
	}
	return b, nil
}

// ImportDumpOptions tune ImportDump.
type ImportDumpOptions struct {
	// Merge adds the dump to a registry that is not empty (default:
	// refuse one).
	Merge bool
	// DryRun plans the import and reports it, writing nothing.
	DryRun bool
}

// ImportCounts says how much of each kind an import added or kept: the
// wire form of registry/dump.Counts (the client imports no Charter
// package but srerr and compat).
type ImportCounts struct {
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

// ImportReport is the registry's answer to an import: the wire form of
// registry.ImportReport.
type ImportReport struct {
	Format            string       `json:"format"`
	Merge             bool         `json:"merge"`
	DryRun            bool         `json:"dryRun"`
	Added             ImportCounts `json:"added"`
	Kept              ImportCounts `json:"kept"`
	LineageRenumbered int          `json:"lineageRenumbered"`
	AuditAppended     int          `json:"auditAppended"`
	Conflicts         []string     `json:"conflicts"`
	Refusal           string       `json:"refusal,omitempty"`
	AuditID           int64        `json:"auditId,omitempty"`
}

// ImportDump sends data, a dump of any format package registry/dump
// reads (v1 to v3), to POST /admin/import, which restores it in one transaction.
// Errors: srerr.ErrImportConflict (the message lists the conflicts),
// srerr.ErrInvalidDump, srerr.ErrForbidden for a principal that is not an
// admin, a plain 404 from a registry without the endpoint.
func (c *Client) ImportDump(ctx context.Context, data []byte, opts ImportDumpOptions) (ImportReport, error) {
	q := url.Values{}
	if opts.Merge {
		q.Set("merge", strconv.FormatBool(true))
	}
	if opts.DryRun {
		q.Set("dryRun", strconv.FormatBool(true))
	}
	u, err := c.url([]string{"admin", "import"}, q)
	if err != nil {
		return ImportReport{}, err
	}
	resp, err := c.send(ctx, "POST", u, bytes.NewReader(data), accept)
	if err != nil {
		return ImportReport{}, fmt.Errorf("import: %w", err)
	}
	defer resp.Body.Close()
	var rep ImportReport
	if err := json.NewDecoder(resp.Body).Decode(&rep); err != nil {
		return ImportReport{}, fmt.Errorf("import: decode the report: %w", err)
	}
	return rep, nil
}
