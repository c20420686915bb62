package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/dump"
)

// countsText says what n counts: "4 schemas, 3 subjects, 5 versions (1
// soft-deleted), 2 configs, 1 mode, 20 governance records, 31 audit
// entries".
func countsText(n client.ImportCounts) string {
	return fmt.Sprintf("%s, %s, %s (%d soft-deleted), %s, %s, %s, %s",
		rule.Plural(n.Schemas, "schema"), rule.Plural(n.Subjects, "subject"), rule.Plural(n.Versions, "version"), n.Deleted,
		rule.Plural(n.Configs, "config"), rule.Plural(n.Modes, "mode"), rule.Plural(n.Records, "governance record"),
		rule.Plural(n.Audit, "audit entry"))
}

// Dump writes what a dump holds: "VERB COUNTS" as text, the counts as
// JSON.
func Dump(w io.Writer, f Format, verb string, n dump.Counts) error {
	if f == JSON {
		return writeJSON(w, n)
	}
	return writeText(w, verb+" "+countsText(client.ImportCounts(n))+"\n")
}

// ImportReport writes an import's report: as text, what was (or, for a
// dry run, would be) added and kept, renumbered, the conflicts one a line
// and the refusal; as JSON, the report.
func ImportReport(w io.Writer, f Format, r client.ImportReport) error {
	if f == JSON {
		return writeJSON(w, r)
	}
	var b strings.Builder
	verb := "imported"
	if r.DryRun {
		verb = "would import"
	}
	fmt.Fprintf(&b, "%s %s\n", verb, countsText(r.Added))
	if r.Merge {
		fmt.Fprintf(&b, "kept (already there) %s\n", countsText(r.Kept))
	}
	if r.LineageRenumbered > 0 {
		fmt.Fprintf(&b, "renumbered %s after the registry's own\n", rule.Plural(r.LineageRenumbered, "lineage change"))
	}
	if r.AuditAppended > 0 {
		fmt.Fprintf(&b, "appended %s after the registry's own history\n", rule.Plural(r.AuditAppended, "audit entry"))
	}
	for _, c := range r.Conflicts {
		fmt.Fprintf(&b, "conflict: %s\n", c)
	}
	if r.Refusal != "" {
		fmt.Fprintf(&b, "%s\n", r.Refusal)
	}
	if r.AuditID > 0 {
		fmt.Fprintf(&b, "the import is audit entry %d\n", r.AuditID)
	}
	return writeText(w, b.String())
}
