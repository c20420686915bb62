package render

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/compat/rule"
)

// GitLab's Code Quality report (docs.gitlab.com, "Code Quality": "Code
// Quality report format"), a subset of Code Climate's issue format: a JSON
// array with one object per finding. GitLab validates each entry with its
// app/validators/json_schemas/codeclimate.json (vendored in
// testdata/schemas).
type gitlabIssue struct {
	Description string         `json:"description"`
	CheckName   string         `json:"check_name"`
	Fingerprint string         `json:"fingerprint"`
	Severity    string         `json:"severity"`
	Location    gitlabLocation `json:"location"`
}

type gitlabLocation struct {
	Path  string      `json:"path"`
	Lines gitlabLines `json:"lines"`
}

type gitlabLines struct {
	Begin int `json:"begin"`
}

// gitlabSeverity maps a severity onto GitLab's scale (info, minor, major,
// critical, blocker): an error fails the gate, so it is critical.
func gitlabSeverity(s rule.Severity) string {
	switch s {
	case rule.Error:
		return "critical"
	case rule.Warning:
		return "minor"
	}
	return "info"
}

// checkGitLab writes the Code Quality report. GitLab wants a path for
// every entry: a finding without a file (a subject-level finding) points
// at charter.yaml, line 1 when the line is unknown. Fingerprints are
// unique within the report and stable across line moves.
func checkGitLab(w io.Writer, r *project.Result, o Options) error {
	issues := []gitlabIssue{}
	seen := map[string]bool{}
	for _, f := range r.Findings {
		path := o.configFile()
		if f.File != "" {
			path = o.PathPrefix + f.File
		}
		line := f.Line
		if line < 1 {
			line = 1
		}
		desc := f.Message
		if f.Path != "" {
			desc = f.Path + ": " + desc
		}
		if f.Subject != "" {
			desc = f.Subject + ": " + desc
		}
		if d := detail(f); d != "" {
			desc += " (" + d + ")"
		}
		if f.Hint != "" {
			desc += " Fix: " + f.Hint
		}
		if e := evidenceText(f); e != "" {
			desc += " " + strings.ToUpper(e[:1]) + e[1:]
		}
		fp := gitlabFingerprint(f, path, 0)
		for n := 1; seen[fp]; n++ {
			fp = gitlabFingerprint(f, path, n)
		}
		seen[fp] = true
		issues = append(issues, gitlabIssue{
			Description: desc,
			CheckName:   f.RuleID,
			Fingerprint: fp,
			Severity:    gitlabSeverity(f.Severity),
			Location:    gitlabLocation{Path: path, Lines: gitlabLines{Begin: line}},
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(issues)
}

// gitlabFingerprint hashes what identifies a finding (not its line, so a
// finding keeps its fingerprint when lines move); n tells apart findings
// that agree on all of it.
func gitlabFingerprint(f rule.Finding, path string, n int) string {
	h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%d\x00%d",
		f.RuleID, f.Subject, path, f.Path, f.Direction, f.Consumer, f.Version, n))
	return hex.EncodeToString(h[:16])
}
