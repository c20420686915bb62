package render

import (
	"encoding/json"
	"io"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/compat/rule"
)

// checkReport is the json format (check-report.schema.json).
type checkReport struct {
	SchemaVersion int                     `json:"schemaVersion"`
	Tool          tool                    `json:"tool"`
	Against       string                  `json:"against"`
	Passed        bool                    `json:"passed"`
	Summary       summary                 `json:"summary"`
	Subjects      []project.SubjectResult `json:"subjects"`
	Findings      []rule.Finding          `json:"findings"`
}

type tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type summary struct {
	Subjects int `json:"subjects"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Notices  int `json:"notices"`
}

func checkJSON(w io.Writer, r *project.Result, o Options) error {
	c := countOf(r)
	doc := checkReport{
		SchemaVersion: ReportSchemaVersion,
		Tool:          tool{Name: "charter", Version: o.ToolVersion},
		Against:       r.Against,
		Passed:        !Failed(r, o),
		Summary:       summary{Subjects: len(r.Subjects), Errors: c.errors, Warnings: c.warnings, Notices: c.notices},
		Subjects:      r.Subjects,
		Findings:      r.Findings,
	}
	if doc.Subjects == nil {
		doc.Subjects = []project.SubjectResult{}
	}
	if doc.Findings == nil {
		doc.Findings = []rule.Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}
